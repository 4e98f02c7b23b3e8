"""What the certification report says of Seven Lines beyond the generic sheet: its build parameters' units, its
strips in stop order (spread from the build's counts by the rules) and its ten paylines."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from reelforge.game.reporting import Reporting
from reelforge.mechanics.reels import strip_from_counts

from .build import LINES, NAMES, SYMBOLS


class SevenLinesReporting(Reporting):
    parameter_units = {
        "free_spins": "free spins awarded for 3, 4, 5 Stars anywhere",
        "free_spins_limit": "free spins: the most one feature plays, retriggers included",
        "free_spins_multiplier": "x: multiplier on every win of a free spin",
        "star_pays": "coins (10 per total bet) for 3, 4, 5 Stars anywhere",
        "pays": "coins per line (10 per total bet) for 3, 4, 5 of a kind from reel 1",
        "reels": "copies of the symbol on reels 1-5 (spread over the strip by the rules: the strips below)",
    }

    def ordered_strips(self, build: Any) -> list[dict[str, Any]]:
        strips = [[NAMES[s] for s in strip_from_counts({s: build.reels[s][r] for s in SYMBOLS})] for r in range(5)]
        return [{"title": "Reel strips in stop order", "strips": strips, "codes": {NAMES[s]: s for s in SYMBOLS},
                 "note": "The window shows 3 consecutive stops; the strips are the build's counts spread evenly "
                         "(each stop to the symbol furthest behind its share, ties to the first listed: W S R B G L C)."}]

    def exact_pays(self, build: Any, summary: dict[str, Any]) -> list[tuple[str, str, Fraction, Fraction]] | None:
        if summary.get("method") != "exact" or not summary.get("rtp_exact"):
            return None
        from .exact import exact_pays

        return exact_pays(build, Fraction(summary["rtp_exact"]))

    def rule_sources(self, build: Any) -> list[list[str]]:
        design = "design document: Seven Lines' rules as the engine plays them and its build file"
        return [["5 reels x 3 rows, 10 paylines (below), pays from reel 1 left to right", design, "paylines"],
                ["Wild substitutes for every symbol but Star; leading Wilds pay as Wilds where that pays more", design,
                 "the line reading of the engine's pays"],
                ["3, 4, 5 Stars anywhere pay and award free spins (the build's awards); free spins retrigger up to "
                 "the limit, every win multiplied", design, "free spins"],
                ["the cap 2,000x total bet stops the round", "design document: Seven Lines' declared design targets "
                 "(targets.toml)", "its header"]]

    def paylines(self, build: Any) -> list[list[int]]:
        return [list(map(int, line)) for line in LINES]
