"""What Gemstones Gold's reports say beyond the generic: its PAR sheet (each pay times the multiplier its
spin applied, the multiplier reel's weights), its certification targets (GAMES.md) and game cycle, and
the free spins by award of its stratified estimate."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from reelforge.core.numbers import pct, pct_ci, x_bet
from reelforge.core.stats import Z99
from reelforge.game.parsheet import (
    FEATURE_DIST_COLUMNS,
    PAR_SAMPLE_ROUNDS,
    attribute_round,
    cap_section,
    feature_distribution_rows,
    feature_rows,
    help_names,
    kernel_pay_sample,
    ordered_strip_section,
    pay_sections,
    reference_sample,
    section,
    symbol_frequency_rows,
)
from reelforge.game.reporting import DESIGN_DOCUMENT, SOURCE_RULES, CertificationTarget, Reporting
from reelforge.game.results import RoundResult
from reelforge.games.gemstones_gold.build import (
    COINS_PER_BET,
    PUBLISHED_PAYTABLE,
    SYMBOL_CHARS,
    SYMBOL_NAMES,
    TIER_FROM,
)

RULES_DOCUMENT = "rules document 003_adbee4d6998569b0.txt (Gemstones Gold, ID 1671262, r2)"

def step_pays(step: Any, part: str) -> Iterable[tuple[str, int]]:
    """A Gemstones Gold spin's pays, each times the multiplier its spin applied."""
    pending: list[tuple[str, int]] = []
    for ev in step.events:
        if ev["type"] == "cascade":
            pending += [(f"{w['symbol']}|{w['tier']}|{part}", int(w["coins"])) for w in ev["wins"]]
        elif ev["type"] == "spin_result":
            mult = (ev["multiplier_sum"] or 1) if ev["kind"] == "paid" else ev.get("multiplier_applied", 1)
            yield from ((key, coins * mult) for key, coins in pending)
            pending = []


def attribute(result: RoundResult) -> tuple[dict[str, int], int | None]:
    """Coins per pay of one round (and the cap's reduction), and its feature's win."""
    return attribute_round(result, COINS_PER_BET, step_pays)


class GemstonesGoldReporting(Reporting):
    """Gemstones Gold in the reports: pays with their multipliers, free spins by award."""

    bet_ladder_cents = tuple(sorted({s * lv * 20 for s in (1, 10, 50) for lv in range(1, 11)}))
    """The demo operator's ladder (server/demo.toml): bet sizes 1, 10, 50 cents x levels 1-10 x 20 coins."""
    par_sheet_of_purchases = True
    parameter_units = {
        "feature_buy_price_x": "x total bet: the Feature Buy's price",
        "reels.strips": "the 6 reel strips, one symbol per stop (codes as in the strips in stop order)",
        "multipliers.values": "x: the multiplier values", "multipliers.base_weights": "weights of the values in a paid spin",
        "multipliers.free_weights": "weights of the values in a free spin",
    }

    def par_sheet(self, build: Any, summary: dict[str, Any], rounds: int, seed: int) -> dict[str, Any]:
        """Paytable, strips, multiplier weights, every pay (multiplier included) from the reference sample."""
        tiers = ["8\u20119", "10\u201111", "12\u201114", "15+"]  # non-breaking hyphens: a tier never splits
        name = help_names(self.game, build)
        paytable = [[name(sym), *[f"{c} ({x_bet(Fraction(c, COINS_PER_BET))})" for c in row]]
                    for sym, row in PUBLISHED_PAYTABLE.items()]
        reels = [{SYMBOL_NAMES[SYMBOL_CHARS.index(ch)]: strip.count(ch) for ch in set(strip)} for strip in build.strips]
        strips = symbol_frequency_rows(reels, list(SYMBOL_NAMES), name)
        mult = [[f"{v}x", f"{wb:,}", pct(Fraction(wb, build.base_total), 3), f"{wf:,}", pct(Fraction(wf, build.free_total), 3)]
                for v, wb, wf in zip(build.values, build.base_weights, build.free_weights)]
        mult.append(["mean value", f"{float(build.mean_value(False)):.4f}x", "", f"{float(build.mean_value(True)):.4f}x", ""])
        buy = summary.get("mode") == "buy"  # bought features: one purchase each, their pays per unit of price
        mode = "buy" if buy else "paid"
        # the pays from the per-pay kernel (``rounds``, sized from the SD by certify); the features' wins one by
        # one from the readable rules on at most PAR_SAMPLE_ROUNDS of the same seed
        pays, acc = kernel_pay_sample(self.game, build, rounds, seed, mode)
        tally = reference_sample(self.game, build, min(rounds, PAR_SAMPLE_ROUNDS), seed, attribute, mode)
        keys = [(f"{sym}|{t + 1}|{part}", f"{name(sym)} {tiers[t]}", part)
                for part in (("free spins",) if buy else ("paid spin", "free spins"))
                for sym in PUBLISHED_PAYTABLE for t in range(len(TIER_FROM))]
        keys.append(("cap|reduction", "reduction of capped rounds", "cap"))
        feat = feature_rows(summary, "mean_feature_win_x", tally, COINS_PER_BET)
        return {
            "sample": {"kind": "reference engine", "rounds": tally.rounds, "seed": seed, "features": tally.features},
            "sections": [
                section("Paytable (coins per bet size x bet level; total bet = 20 coins)", ["symbol", *tiers], paytable,
                        "8 or more of a symbol anywhere on the board; in brackets the pay as a multiple of total bet."),
                section("Reel strips: symbol counts per reel", ["symbol", *[f"reel {i + 1}" for i in range(6)]], strips,
                        "Count of stops and share of the strip."),
                # the order matters: the window shows 6 consecutive stops and refills continue up the strip
                ordered_strip_section("Reel strips in stop order",
                                      [[name(SYMBOL_NAMES[SYMBOL_CHARS.index(ch)]) for ch in strip] for strip in build.strips],
                                      {name(s): c for s, c in zip(SYMBOL_NAMES, SYMBOL_CHARS)},
                                      "The window shows 6 consecutive stops; after a cascade the refills continue up "
                                      "the strip (no further draw)."),
                section("Multiplier reel values and weights",
                        ["value", "paid-spin weight", "probability", "free-spin weight", "probability"], mult,
                        "A paid spin places 3 values under 3 columns (3 blockers each); a free spin one under each "
                        "column (2 blockers each)."),
                *(pay_sections(pays, keys, int(COINS_PER_BET * self.game.stake_x(build, "buy")), seed,
                               "A pay's contribution is per unit of the price and includes the multiplier applied "
                               "to its spin.", per="purchase", certified=summary) if buy else
                  pay_sections(pays, keys, COINS_PER_BET, seed,
                               "A pay's contribution includes the multiplier applied to its spin.",
                               certified=summary)),
                *([] if buy else [
                    section("Free Spins: trigger and average win", ["figure", "value", "99% interval", "sample"], feat),
                    section("Free Spins: win distribution (per feature, x total bet)", FEATURE_DIST_COLUMNS,
                            feature_distribution_rows(tally.feature_wins, COINS_PER_BET, build.cap_units,
                                                      tally.feature_capped),
                            f"The {tally.features:,} features of the reference sample.")]),
                cap_section(summary, self.game.max_win_x),
            ],
        }

    def figure_rows(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        x = summary.get("extra") or {}
        if x.get("paid_spins_multiplied_rate") is None:
            return []
        return [("paid spins with a revealed multiplier", pct(x["paid_spins_multiplied_rate"]),
                 pct_ci(x.get("paid_spins_multiplied_rate_ci99")))]

    def glossary(self, summary: dict[str, Any]) -> list[tuple[str, str]]:
        if (summary.get("extra") or {}).get("paid_spins_multiplied_rate") is None:
            return []
        return [("paid spins with a revealed multiplier", "Share of paid spins whose multiplier reel reveals at "
                                                          "least one value (the spin's win is multiplied).")]

    def rule_sources(self, build: Any) -> list[list[str]]:
        doc, design = RULES_DOCUMENT, f"{DESIGN_DOCUMENT} section 2"
        return [
            ["6 reels x 6 rows; each reel a strip, the window 6 consecutive stops", doc,
             "'Verified specification' (layout); strips and refills: " + design],
            ["8 or more of a paying symbol anywhere pay by count tier (8-9, 10-11, 12-14, 15+)", doc,
             "'Eight-symbol combinations and cascades'; the paytable: " + design],
            ["winning symbols explode, symbols fall, refills continue up the strip; repeat while wins form", doc,
             "'Eight-symbol combinations and cascades'"],
            ["paid spin: 3 multiplier values (2x-500x) under 3 blockers in 3 lanes; a win in a lane's column removes "
             "one blocker per cascade; revealed values are added and multiply the spin's win", doc,
             "'Three values under three blockers'; 'Worked unlock ledger'"],
            ["3+ Scatters after the last cascade: 10 free spins, +2 per extra Scatter; 2+ in a free spin: +5", doc,
             "'Verified specification' (Free Spins)"],
            ["free spins: a value in every lane under 2 blockers; revealed sums add to a total multiplier that "
             "stays for the feature", doc, "'Free Spins alter the multiplier reel'; the reading: " + design],
            ["the cap 7,500x total bet stops the round", doc, "'Stakes, cap and local configuration'"],
            ["Feature Buy: 10 free spins for the build's price", design, "'Feature Buy'"],
        ]

    def certification_targets(self, build: Any) -> list[CertificationTarget]:
        # the rules publish the figures; GAMES.md puts these tolerances on them; like every target, one passes only
        # when its whole 99% interval lies inside
        table = f"{RULES_DOCUMENT}, the reference statistics table and the model split paragraph"
        tolerances = f"; tolerance: {DESIGN_DOCUMENT} section 2, 'Published reference figures'"

        def point(figure: str, key: str, target: float, tolerance: float, unit: str = "%", note: str = "") -> Any:
            return CertificationTarget(figure, key, target, tolerance, SOURCE_RULES, unit, note, document=table + tolerances)

        return [point("RTP", "rtp", 0.9671, 0.0005, note="96.71% +-0.05 pp (GAMES.md; tolerances: GAMES.md)"),
                point("RTP from paid spins", "rtp_split.paid_spins", 0.6889, 0.0015, "pp"),
                point("RTP from free spins", "rtp_split.free_spins", 0.2782, 0.0015, "pp"),
                point("hit rate", "hit_rate", 0.3509, 0.0010),
                # the published hit-rate split is a split of the winning rounds: its 0.51% is the share of rounds
                # that win and trigger, not the trigger rate
                point("hit rate: winning rounds that trigger free spins", "hit_rate_split.trigger_with_win", 0.0051,
                      0.0003),
                point("hit rate: winning rounds without a free-spin trigger", "hit_rate_split.win_without_trigger",
                      0.3458, 0.0010),
                CertificationTarget("volatility level (\"High\")", "volatility_level", 8, None, SOURCE_RULES, "level",
                                    "\"High\" read as level 8 or more on the project scale (our decision)",
                                    kind="at_least", document=f"{table}; the reading: {DESIGN_DOCUMENT} section 2"),
                CertificationTarget("maximum win 7,500x reachable", "max_win_reachable", 1, None, SOURCE_RULES, "",
                                    kind="reachable", document=f"{RULES_DOCUMENT}, the reference statistics table "
                                                               "('Maximum win 7,500x bet, feature stops at cap')")]

    def game_cycle(self, build: Any) -> dict[str, Any]:
        lengths = [len(s) for s in build.strips]
        return {"enumerable": False, "combinations": math.prod(lengths), "lengths": lengths,
                "text": f"Not enumerable: the initial board has {' x '.join(map(str, lengths))} = "
                        f"{math.prod(lengths):,} stop combinations, but each paid spin also draws 3 multiplier "
                        "values and their lanes, and free spins (retriggered without limit) draw again, so a round "
                        "has no finite cycle."}

    def feature_breakdown(self, build: Any, summary: dict[str, Any]) -> dict[str, Any]:
        if summary["method"] != "stratified":
            return {}
        x = summary.get("extra") or {}
        rows = []
        for k, f in sorted(x.get("features", {}).items(), key=lambda kv: int(kv[0])):
            k = int(k)
            half = Z99 * f["sd_score"] / math.sqrt(f["n"]) if f.get("sd_score") is not None else None
            rows.append([f"{k} free spins ({3 + (k - 10) // 2} scatters{'+' if k == 16 else ''})", f["p"],
                         f["mean_x"], [f["mean_x"] - half, f["mean_x"] + half] if half is not None else None,
                         f["p"] * f["mean_x"], f["spins"], (f["spins"] - k) / 5, f["n"]])
        return {"title": "Free spins by award", "columns": ["award", "probability per paid round",
                "mean feature win (x bet)", "99% interval of the mean", "share of RTP", "free spins played per feature",
                "retriggers per feature (5 spins each)", "features simulated"], "rows": rows,
                "formats": ["text", "probability", "x", "x_ci", "pp", "number", "number", "count"],
                "note": "From the stratified estimate: the award's probability is the exact initial-board "
                        "probability times the simulated cascade transitions; the mean win is the feature "
                        "stratum's (multiplier reel integrated)."}
