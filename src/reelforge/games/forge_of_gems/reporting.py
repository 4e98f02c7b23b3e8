"""What Forge of Gems' reports say beyond the generic: its PAR sheet (way wins with their multiplier,
the GEMBOX's instant prizes, the FORGE REEL's weights), its words, its certification targets (GAMES.md)
and game cycle, and the GEMBOX rewards of its stratified estimate."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from reelforge.core.numbers import one_in, pct, pct_ci, x_bet
from reelforge.core.stats import Z99, wilson_ci
from reelforge.game.parsheet import (
    FEATURE_DIST_COLUMNS,
    PAR_SAMPLE_ROUNDS,
    attribute_round,
    cap_section,
    feature_distribution_rows,
    feature_rows,
    help_names,
    kernel_pay_sample,
    pay_sections,
    reference_sample,
    section,
    symbol_frequency_rows,
    words,
)
from reelforge.game.reporting import DESIGN_DOCUMENT, SOURCE_DESIGN, CertificationTarget, Reporting
from reelforge.game.results import RoundResult
from reelforge.games.forge_of_gems.build import FORGE, GEMBOX_REWARDS, NORMAL, PAYING, reward_name

RULES_DOCUMENT = "rules document 000_4bbe94bddb779004.txt (Forge of Gems help text)"

PARTS = {"GEMBOX": ("GEMBOX instant prizes: hit frequency and RTP contribution", "GEMBOX instant prizes")}
"""The PAR sheet's table of the GEMBOX's prizes (title, words in the totals), beside the generic parts."""


def step_pays(unit: int) -> Callable[[Any, str], Iterable[tuple[str, int]]]:
    """A step's way wins (multiplier included) and GEMBOX prize, in win units."""
    def pays(step: Any, part: str) -> Iterable[tuple[str, int]]:
        for ev in step.events:
            if ev["type"] == "win":
                yield f"{ev['symbol']}|{ev['length']}|{part}", int(Fraction(ev["win_x"]) * unit)
            elif ev["type"] == "gembox_reward":
                yield f"gembox|{ev['scatter_class']}|prize", int(Fraction(ev["prize_x"]) * unit)

    return pays


def attribute(unit: int) -> Callable[[RoundResult], tuple[dict[str, int], int | None]]:
    """Win units per pay of one round (and the cap's reduction), and its feature's win."""
    return lambda result: attribute_round(result, unit, step_pays(unit))


class ForgeOfGemsReporting(Reporting):
    """Forge of Gems in the reports: way wins, GEMBOX prizes and rewards."""

    parameter_units = {
        "unit": "win units per total bet", "cap_x": "x total bet: the cap", "max_stake": "currency: the largest total bet",
        "forge.base": "weights of the FORGE REEL symbols in a paid spin",
        "forge.free": "weights of the FORGE REEL symbols in a free spin",
        "targets": "weights of the normal symbol a landing FORGE REEL symbol targets",
        "gembox": "weights of the three GEMBOX rewards for 3, 4, 5+ Scatters, in the rules' order",
    }

    component_words = {"gembox_prizes": "GEMBOX instant prizes", "gembox": "GEMBOX (prizes and free spins)"}
    bet_ladder_cents = tuple(sorted({s * lv * 20 for s in (1, 10, 50) for lv in range(1, 11)}))
    """The demo operator's ladder (server/demo.toml): bet sizes 1, 10, 50 cents x levels 1-10 x 20 coins."""

    def par_sheet(self, build: Any, summary: dict[str, Any], rounds: int, seed: int) -> dict[str, Any]:
        """Paytable, cell and FORGE REEL weights, GEMBOX rewards, every way win and prize from the per-pay kernel's
        ``rounds`` (sized from the SD by certify); the GEMBOX rounds' wins one by one from the readable rules on at
        most :data:`~reelforge.game.parsheet.PAR_SAMPLE_ROUNDS` of the same seed."""
        name = help_names(self.game, build)
        paytable = [[name(sym), *[x_bet(build.pay_x(s, k)) for k in (3, 4, 5)]] for s, sym in enumerate(PAYING)]
        # symbols land single (copies come only from the FORGE REEL's Splitters): one weight per symbol
        reels = [dict(zip(NORMAL, cells.weights)) for cells in build.cells]
        cell_rows = symbol_frequency_rows(reels, list(NORMAL), name)
        forge = [[words(f), f"{wb:,}", pct(Fraction(wb, build.forge_base.total), 2),
                  f"{wf:,}", pct(Fraction(wf, build.forge_free.total), 2)]
                 for f, wb, wf in zip(FORGE, build.forge_base.weights, build.forge_free.weights)]
        targets = [[name(PAYING[i]) if i < len(PAYING) else str(i), f"{w:,}", pct(Fraction(w, build.targets.total), 2)]
                   for i, w in enumerate(build.targets.weights)]
        gembox = []
        for k, table in build.gembox.items():
            for j, w in enumerate(table.weights):
                prize, spins = GEMBOX_REWARDS[k][j]
                reward = " + ".join(p for p in (f"{prize}x prize" if prize else "", f"{spins} free spins" if spins else "") if p)
                gembox.append([f"{k}+" if k == 5 else str(k), reward, f"{w:,}", pct(table.probability(j), 2)])
        unit = build.unit
        pays, _ = kernel_pay_sample(self.game, build, rounds, seed)
        tally = reference_sample(self.game, build, min(rounds, PAR_SAMPLE_ROUNDS), seed, attribute(unit))
        keys = [(f"{sym}|{k}|{part}", f"{name(sym)} x{k}", part)
                for part in ("paid spin", "free spins") for sym in PAYING for k in (3, 4, 5)]
        keys += [(f"gembox|{k}|prize", f"{k}{'+' if k == 5 else ''} scatters: instant prize", "GEMBOX")
                 for k in GEMBOX_REWARDS]
        keys.append(("cap|reduction", "reduction of capped rounds", "cap"))
        reels_cols = [f"reel {i + 1}" for i in range(len(build.cells))]
        feat = feature_rows(summary, "mean_feature_win_x", tally, unit)
        fs = ((summary.get("extra") or {}).get("free_spins") or {}).get("triggers")
        if fs:
            feat.insert(1, ["free spins awarded (per paid round)", f"{pct(fs['probability'])} ({one_in(fs['probability'])})",
                            pct_ci(fs["ci99"]), summary["sample"]["description"]])
        return {
            "sample": {"kind": "reference engine", "rounds": tally.rounds, "seed": seed, "features": tally.features},
            "sections": [
                section("Paytable (x total bet per way)", ["symbol", "3 of a kind", "4 of a kind", "5 of a kind"], paytable,
                        "Ways pay left to right; a cell a Splitter split into 2 or 3 copies counts that many times."),
                section("Cell weights: symbol weight per reel", ["symbol", *reels_cols], cell_rows,
                        "Weight of a fresh cell (first board or refill) landing as each symbol, and its share. "
                        "Symbols land single; only the FORGE REEL's Splitters split them."),
                section("FORGE REEL weights", ["symbol", "paid-spin weight", "probability", "free-spin weight",
                                               "probability"], forge),
                section("FORGE REEL target symbol weights", ["symbol", "weight", "probability"], targets),
                section("GEMBOX reward weights", ["scatters", "reward", "weight", "probability"], gembox,
                        "Drawn once when 3 or more scatters remain after the paid spin's last cascade."),
                *pay_sections(pays, keys, unit, seed,
                              "A way win's contribution includes the win multiplier it was paid with.", PARTS,
                              certified=summary),
                section("GEMBOX and free spins: trigger and average win", ["figure", "value", "99% interval", "sample"], feat,
                        "The feature win is everything the round paid after its paid spin (GEMBOX prize and free spins)."),
                section("GEMBOX and free spins: win distribution (per GEMBOX, x total bet)", FEATURE_DIST_COLUMNS,
                        feature_distribution_rows(tally.feature_wins, unit, build.cap_units, tally.feature_capped),
                        f"The {tally.features:,} GEMBOX rounds of the reference sample."),
                cap_section(summary, self.game.max_win_x),
            ],
        }

    def figure_rows(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        x = summary.get("extra") or {}
        rows = []
        if x.get("paid_spin_hit_rate") is not None:
            rows.append(("paid spins that win", pct(x["paid_spin_hit_rate"]), pct_ci(x.get("paid_spin_hit_rate_ci99"))))
        fs = (x.get("free_spins") or {}).get("triggers")
        if fs is None and x.get("free_spin_frequency") is not None:  # the stratified estimate's figure
            fs = {"probability": x["free_spin_frequency"], "ci99": x.get("free_spin_frequency_ci99")}
        if fs:
            rows.append(("free spins awarded (per paid round)", f"{pct(fs['probability'])} = {one_in(fs['probability'])}",
                         pct_ci(fs["ci99"])))
        return rows

    def glossary(self, summary: dict[str, Any]) -> list[tuple[str, str]]:
        x = summary.get("extra") or {}
        terms = []
        if x.get("paid_spin_hit_rate") is not None:
            terms.append(("paid spins that win", "Share of paid spins whose own cascades pay (GEMBOX and free spins "
                                                 "not counted)."))
        if x.get("free_spins") or x.get("free_spin_frequency") is not None:
            terms.append(("free spins awarded", "Share of paid rounds whose GEMBOX reward includes free spins."))
        return terms

    def rule_sources(self, build: Any) -> list[list[str]]:
        doc, design = RULES_DOCUMENT, f"{DESIGN_DOCUMENT} section 3"
        return [
            ["5 reels x 3 rows, ways left to right, up to 36,288 ways; cells split up to three", doc,
             "'Game Rules' (paragraphs 1 and 6); the reel limits 9, 9, 8, 8, 7: " + design],
            ["WILD substitutes for all but SCATTER and FORGE REEL symbols", doc, "'Game Rules' (paragraph 3)"],
            ["cascades: winning cells removed, FORGE REEL symbols cascade in, then refills", doc,
             "'Game Rules' (paragraph 2); the landing cell and target: " + design],
            ["FORGE REEL: Vertical and Horizontal WILD, Vertical and Horizontal Splitter, Multiplier, Blank", doc,
             "'Game Rules' (paragraphs 5-7)"],
            ["the win multiplier: +1 per Multiplier; resets each paid spin, never in free spins", doc,
             "'Game Rules' (paragraph 4)"],
            ["3+ SCATTERs award the GEMBOX: its rewards by 3, 4, 5+ Scatters", doc, "'Game Rules' (paragraphs 8-11)"],
            ["free spins: no Blanks, a Multiplier guaranteed, no retrigger", doc, "'Game Rules' (paragraph 12)"],
            ["the cap 20,000x total bet; the paytable and weights", design, "'Public facts beyond the seed'; 'Cap'"],
        ]

    def certification_targets(self, build: Any) -> list[CertificationTarget]:
        # the rules say only that the RTP is shown in-game: the RTP builds, "extreme" and 20,000x are the design
        # document's public facts
        doc = f"{DESIGN_DOCUMENT} section 3 (Forge of Gems), 'Public facts beyond the seed' and its targets"
        return [CertificationTarget("RTP", "rtp", float(build.rtp), 0.0010, SOURCE_DESIGN,
                                    note="the build's RTP; within 0.10 pp with the 99% interval inside (the design "
                                         "document's tolerance)", document=doc),
                CertificationTarget("volatility level (\"extreme\")", "volatility_level", 10, None, SOURCE_DESIGN,
                                    "level", kind="equal", document=doc),
                CertificationTarget("maximum win 20,000x reachable", "max_win_reachable", 1, None, SOURCE_DESIGN, "",
                                    kind="reachable", document=doc)]

    def game_cycle(self, build: Any) -> dict[str, Any]:
        return {"enumerable": False, "combinations": None, "lengths": None,
                "text": "Not enumerable: every cell is an independent weighted draw, each cascade refills cells and "
                        "redraws a FORGE REEL position, and cascades and free spins have no fixed number, so a round "
                        "has no finite cycle of equally likely outcomes."}

    def stratified_details(self, build: Any, sample: Any) -> dict[str, Any]:
        """The 99% interval of each feature length's mean win (x total bet) of a split-spins sample: the delta
        method on the single free spins, as the estimator's own variance (:class:`.split_spins.SplitFeatureValues`)."""
        import numpy as np

        from reelforge.games.forge_of_gems import split_spins
        from reelforge.games.forge_of_gems.stratified import MARKS

        if sample is None or sample.kind != split_spins.KIND:
            return {}
        st, _, spins = split_spins.from_sample(sample)
        values = split_spins.SplitFeatureValues(st, spins)
        means = values.means()
        out = {}
        for i, n in enumerate(MARKS):
            half = Z99 * math.sqrt(values.variance(np.eye(len(MARKS))[i])) / build.unit
            out[str(n)] = [float(means[i] / build.unit - half), float(means[i] / build.unit + half)]
        return {"feature_means_x_ci99": out, "feature_means_sd_x": {n: (hi - lo) / 2 / Z99 for n, (lo, hi) in out.items()}}

    def feature_breakdown(self, build: Any, summary: dict[str, Any]) -> dict[str, Any]:
        if summary["method"] != "stratified":
            return {}
        x = summary.get("extra") or {}
        means = x.get("feature_means_x", {})
        mean_ci = x.get("feature_means_x_ci99") or {}
        mean_sd = x.get("feature_means_sd_x") or {}
        freq = x.get("gembox_frequencies", {})
        n = summary["rounds"]
        rows = []
        for k, rewards in GEMBOX_REWARDS.items():
            # the scatter class's probability from the paid-spin stratum (its rewards' probabilities add up to it)
            cls = sum(freq.get(reward_name(k, j), 0.0) for j in range(len(rewards)))
            cls_ci = wilson_ci(round(cls * n), n)
            for j, (prize, spins) in enumerate(rewards):
                pi = float(build.gembox[k].probability(j))  # the build's exact weight share of this reward
                p = freq.get(reward_name(k, j), 0.0)
                p_ci = [pi * cls_ci[0], pi * cls_ci[1]]
                fmean = means.get(str(spins), means.get(spins, 0.0)) if spins else 0.0
                label = " + ".join(t for t in (f"{prize}x" if prize else "", f"{spins} free spins" if spins else "") if t)
                if spins:  # the two strata are independent samples: the product's variance by the delta method
                    lo, hi = mean_ci.get(str(spins)) or (None, None)
                    m_ci = None if lo is None else [prize + lo, prize + hi]
                    sd_m = mean_sd.get(str(spins))
                    sd_p = pi * math.sqrt(cls * (1 - cls) / n) if n else math.nan
                    half = None if sd_m is None else Z99 * math.hypot((prize + fmean) * sd_p, p * sd_m)
                    # a share is never negative: the normal interval is cut at zero
                    share_ci = None if half is None else [max(p * (prize + fmean) - half, 0.0), p * (prize + fmean) + half]
                else:  # an instant prize is exact: its share's interval is the probability's, times the prize
                    m_ci, share_ci = "exact", [prize * p_ci[0], prize * p_ci[1]]
                rows.append([f"{k}{'+' if k == 5 else ''} scatters: {label}", p, p_ci, prize + fmean, m_ci,
                             p * (prize + fmean), share_ci])
        corr = x.get("cap_correction", 0.0)
        corr_half = Z99 * x.get("sd_cap_correction", math.nan) + x.get("cap_bound", 0.0)
        rows.append(["the cap's correction (rounds that reach 20,000x pay exactly that)", None, None, None, None,
                     -corr, [-corr - corr_half, min(-corr + corr_half, 0.0)] if math.isfinite(corr_half) else None])
        spins_note = f", {x['single_free_spins']:,} single free spins" if x.get("single_free_spins") else ""
        return {"title": "GEMBOX rewards", "columns": ["reward", "probability per paid round", "99% interval",
                "mean reward win (x bet)", "99% interval", "share of RTP", "99% interval"], "rows": rows,
                "formats": ["text", "probability", "probability_ci", "x", "x_ci", "pp", "pp_ci"],
                "note": f"From the stratified estimate ({n:,} paid spins{spins_note}, "
                        f"{summary.get('feature_rounds') or 0:,} whole features): reward probabilities from the "
                        "paid-spin stratum (control variate on the first board) times the build's GEMBOX weights, "
                        "their intervals Wilson on the paid spins' scatter class (the control variate and the "
                        "continuations only narrow it) times the weight; free-spin means from the feature stratum "
                        "with the estimator's delta-method interval; an instant prize is exact and its share's "
                        "interval is its probability's; a share with free spins combines both (normal, delta "
                        "method), cut at zero; the cap's correction is its own row, its interval the estimator's "
                        "(normal plus the bound of its histogram), cut at zero (it never adds). The rows add up to the GEMBOX part of the RTP."}
