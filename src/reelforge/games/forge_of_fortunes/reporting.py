"""What Forge of Fortunes' reports say beyond the generic: its exact PAR sheet, its words, its
certification targets (GAMES.md) and its game cycle."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from reelforge.core.numbers import fraction_text, one_in, pct, pp, x_bet
from reelforge.game.parsheet import cap_section, ordered_strip_section, section, symbol_frequency_rows
from reelforge.game.reporting import DESIGN_DOCUMENT, SOURCE_DESIGN, SOURCE_RULES, CertificationTarget, Reporting
from reelforge.games.forge_of_fortunes.exact import exact, spin_odds

RULES_DOCUMENT = "rules document 001_80ae9de499b28a2c.txt (Forge of Fortunes, Game ID 622, v1.0)"


class ForgeOfFortunesReporting(Reporting):
    """Forge of Fortunes in the reports: exact throughout."""

    component_words = {"paid_spin": "paid spin (two of a kind)", "feature": "Forging Re-Spins"}
    hit_split_words = {"two_of_a_kind": "rounds paying two of a kind", "feature": "rounds triggering Forging Re-Spins"}
    bet_ladder_cents = tuple(10 * f for f in (1, 2, 4, 5, 10, 20, 40, 50, 100, 200, 400, 500, 1000))
    """The demo operator's ladder (server/demo.toml), the published bet structure."""
    parameter_units = {
        "coins": "coins per total bet (the win unit)", "two_of_a_kind_coins": "coins: the two-of-a-kind's pay",
        "max_stake": "currency: the largest total bet", "ladder": "x total bet: the runners' prizes, in order",
        "safe": "x total bet: the runners Coal never steps back from",
        "base.reels": "the paid spin's strips, one symbol per stop (G Gold Nugget, S Slag, - Blank)",
        "feature.runner_sets": "the strip set each runner below the top re-spins on",
        "feature.sets": "a feature strip set, one symbol per stop (G Gold Nugget, S Slag, C Coal, - Blank)",
    }

    def par_sheet(self, build: Any, summary: dict[str, Any], rounds: int, seed: int) -> dict[str, Any]:
        """The exact sheet: paytable, strips, every pay's exact frequency and RTP, the ladder's end
        probabilities (``rounds`` and ``seed`` do not apply: nothing is sampled)."""
        r = exact(build)
        fm = r.feature
        paytable = [["Gold Nugget, Gold Nugget on reels 1-2 (reel 3 not Gold)",
                     f"{build.two_of_a_kind_coins} coins = {x_bet(build.two_of_a_kind_x)}"],
                    ["Gold Nugget x3", "Forging Re-Spins (prize ladder)"]]
        paytable += [[f"ladder runner {i + 1}" + (" (safe)" if i in build.safe else ""), x_bet(v)]
                     for i, v in enumerate(build.ladder)]
        names = {"G": "Gold Nugget", "S": "Slag", "C": "Coal", "-": "Blank"}  # the help's names

        def strip_rows(strips: Any) -> list[list[str]]:
            reels = [{names[ch]: reel.count(ch) for ch in set(reel)} for reel in strips.reels]
            return symbol_frequency_rows(reels, [v for v in names.values() if any(v in r for r in reels)])

        strips = [section("Base game strips: symbol counts per reel", ["symbol", "reel 1", "reel 2", "reel 3"],
                          strip_rows(build.base), "Count of stops and share of the strip (exact).")]
        for set_name, strip_set in build.feature_sets.items():
            runners = [f"{build.ladder[i]}x" for i, s in enumerate(build.runner_sets) if s == set_name]
            strips.append(section(f"Forging Re-Spins strips '{set_name}' (used on runners {', '.join(runners)})",
                                  ["symbol", "reel 1", "reel 2", "reel 3"], strip_rows(strip_set)))
        codes = {v: ("-" if k == "-" else k) for k, v in names.items()}
        strips.append(ordered_strip_section("Base game strips in stop order", [[names[c] for c in reel] for reel in
                                                                               build.base.reels], codes,
                                            "The one-row window shows the stop itself."))
        for set_name, strip_set in build.feature_sets.items():
            strips.append(ordered_strip_section(f"Forging Re-Spins strips '{set_name}' in stop order",
                                                [[names[c] for c in reel] for reel in strip_set.reels], codes, None))
        strips.append(self._transitions(build))
        two = r.hit_rate - r.trigger  # every ladder runner pays, so the hits are two-of-a-kinds and triggers
        pays = [["Gold Nugget x2 (reels 1-2)", "paid spin", pct(two, 6), one_in(two), pp(two * build.two_of_a_kind_x, 4)]]
        for i, pe in enumerate(fm.end_probability):
            p = r.trigger * pe
            pays.append([f"Forging Re-Spins ending on runner {i + 1} ({x_bet(build.ladder[i])})", "feature", pct(p, 6),
                         one_in(p), pp(p * build.ladder[i], 4)])
        pays.append(["all pays (the RTP)", "", pct(r.hit_rate, 6), one_in(r.hit_rate), pp(r.rtp, 5)])
        feature_win = r.rtp_feature / r.trigger
        feat = [["trigger frequency (Gold Nugget x3)", f"{pct(r.trigger)} ({one_in(r.trigger)}), fraction {fraction_text(r.trigger)}"],
                ["average feature win", f"{float(feature_win):,.4f}x total bet (exact)"],
                ["average re-spins per feature", f"{float(fm.expected_respins):.4f}"],
                ["RTP from the feature", pp(r.rtp_feature, 5)]]
        dist = [[f"runner {i + 1}: {x_bet(build.ladder[i])}", pct(pe, 5), one_in(pe), fraction_text(pe)]
                for i, pe in enumerate(fm.end_probability)]
        return {
            "sample": {"kind": "exact", "description": "exact rational mathematics (absorbing Markov chain on the ladder)"},
            "sections": [
                section("Paytable", ["combination", "pays"], paytable,
                        f"{build.coins} coins per total bet; the award is the runner reached last, never a sum."),
                *strips,
                section("Pays: hit frequency and RTP contribution",
                        ["pay", "part", "hit frequency (per paid round)", "1 in", "RTP contribution"], pays,
                        "Exact. The base game's only pay is the two-of-a-kind; the feature pays the runner it ends on."),
                section("Forging Re-Spins: trigger and average win", ["figure", "value"], feat, "Exact."),
                section("Forging Re-Spins: win distribution (per feature)", ["ends on", "probability", "1 in", "fraction"],
                        dist, "Exact probability that a feature ends on each runner."),
                cap_section(summary, self.game.max_win_x),
            ],
        }

    def rule_sources(self, build: Any) -> list[list[str]]:
        doc, design = RULES_DOCUMENT, f"{DESIGN_DOCUMENT} section 1"
        return [
            ["3 reels x 1 row, one line; a spin stops each reel uniformly on its strip", doc, "'One line'"],
            ["Gold Nugget on reels 1-2 (reel 3 not Gold) pays 1x total bet", doc,
             "'Base-game symbols and winning rule'; 1x: " + design + ", 'Public facts beyond the seed'"],
            ["3 Gold Nuggets start the Forging Re-Spins on the first runner", doc, "'How Forging Re-Spins progress'"],
            ["the ladder: 2x, 3x, 5x, 8x, 10x, 15x, 20x, 30x, 50x, 75x, 100x, 200x, 500x, 1,000x, 2,500x", doc,
             "'Prize ladder'"],
            ["3 Gold Nuggets advance one runner", doc, "'How Forging Re-Spins progress'"],
            ["Coal steps back one runner, never from the safe runners 2x, 5x, 20x, 100x, 2,500x", doc,
             "'Coal and the five safe runners'"],
            ["Slag ends the feature; reaching 2,500x ends it; the last runner reached is paid, never a sum", doc,
             "'Slag, the final runner and feature settlement'; 'Award timing'"],
            ["the strips (a strip set per ladder segment, the rules fix no strips)", design,
             "the paragraph on feature strips"],
            ["the cap 2,500x total bet; maximum exposure 250,000 at stake 100", doc,
             "'Volatility, maximum win and maximum exposure'"],
            ["five RTP builds 96.2, 94.2, 91.2, 87.2, 84.2", doc, "'Verified RTP settings and house edge'"],
        ]

    @staticmethod
    def _transitions(build: Any) -> dict[str, Any]:
        """The feature's exact transition table: from each runner below the top, the probability of each
        re-spin outcome (advance, Coal's step back, Slag's end, nothing) with the runner it leads to."""
        rows = []
        top = len(build.ladder) - 1
        for i in range(top):
            o = spin_odds(build.feature_strips(i))
            back = o.coal if (i not in build.safe and i > 0) else Fraction(0)
            stay = 1 - o.slag - o.advance - back

            def cell(p: Fraction) -> str:
                return f"{pct(p, 4)} ({fraction_text(p)})" if p else "0"

            rows.append([f"runner {i + 1}: {x_bet(build.ladder[i])}" + (" (safe)" if i in build.safe else ""),
                         f"'{build.runner_sets[i]}'", f"{cell(o.advance)} to {x_bet(build.ladder[i + 1])}",
                         f"{cell(back)}" + (f" to {x_bet(build.ladder[i - 1])}" if back else ""),
                         f"{cell(o.slag)}: ends, pays {x_bet(build.ladder[i])}", cell(stay)])
        return section("Forging Re-Spins: exact transition table (per re-spin)",
                       ["from runner", "strips", "advance (3 Gold Nuggets)", "back one (Coal, unsafe runners)",
                        "end (Slag)", "stay"], rows,
                       "Exact probabilities of one re-spin from the strip counts (rules order: Slag on any reel ends "
                       "the feature; else 3 Gold Nuggets advance; else Coal on reel 3 steps back unless the runner is "
                       f"safe; else nothing). Each row adds up to 1. Reaching runner {top + 1} "
                       f"({x_bet(build.ladder[top])}) ends the feature.")

    def figure_rows(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        x = summary.get("extra") or {}
        if summary["method"] == "exact" and x.get("expected_respins_per_feature") is not None:
            return [("average re-spins per feature", f"{x['expected_respins_per_feature']:.4f}", "exact")]
        return []

    def glossary(self, summary: dict[str, Any]) -> list[tuple[str, str]]:
        if self.figure_rows(summary):
            return [("average re-spins per feature", "Expected number of Forging Re-Spins a feature plays.")]
        return []

    def certification_targets(self, build: Any) -> list[CertificationTarget]:
        rtp_doc = f"{RULES_DOCUMENT}, 'Verified RTP settings and house edge' (the Game Rules Summary's RTP builds)"
        risk_doc = f"{RULES_DOCUMENT}, 'Volatility, maximum win and maximum exposure' (the official risk fields)"
        out = [CertificationTarget("RTP", "rtp", float(build.rtp), 0.00001, SOURCE_RULES,
                                   note="the build's published RTP; within 0.001 pp (tolerance: our decision)",
                                   document=rtp_doc),
               CertificationTarget("volatility level", "volatility_level", 7, None, SOURCE_RULES, "level", kind="equal",
                                   document=risk_doc)]
        if build.name == "96.2":
            # the rules publish no hit frequency ("we do not add ... hit frequency"): 17.01% is the design
            # document's figure for the top build, cited as such
            out += [CertificationTarget("probability of the 2,500x maximum", "max_win_probability", 1e-5, 0.05e-5,
                                        SOURCE_RULES, "per round", "1 in 100,000 within +-5% (tolerance: our decision)",
                                        document=risk_doc),
                    CertificationTarget("hit rate", "hit_rate", 0.1701, 0.005, SOURCE_DESIGN,
                                        note="17.01%, within 0.5 pp (the design document's figure and tolerance; the "
                                             "rules publish no hit frequency)",
                                        document=f"{DESIGN_DOCUMENT} section 1 (Forge of Fortunes), 'Public facts beyond "
                                                 "the seed' and 'Targets each build must meet'")]
        return out

    def game_cycle(self, build: Any) -> dict[str, Any]:
        lengths = [len(r) for r in build.base.reels]
        return {"enumerable": True, "combinations": math.prod(lengths), "lengths": lengths,
                "text": f"Paid spin: {' x '.join(map(str, lengths))} = {math.prod(lengths):,} equally likely stop "
                        "combinations (the base cycle). The Forging Re-Spins that Gold Nugget x3 starts have no "
                        "fixed length, so a whole round has no finite cycle; the exact figures come from the "
                        "feature's absorbing Markov chain instead."}
