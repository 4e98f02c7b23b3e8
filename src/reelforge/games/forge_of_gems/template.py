"""The design every Forge of Gems build shares (the project's own: GAMES.md, the seed publishes no
paytable): one win unit, the paytable in it, the cell weights, the FORGE REEL and target weights and
the GEMBOX weights of the 4- and 5-scatter classes. A build chooses only its 3-scatter GEMBOX
weights (:func:`make_build`); :mod:`.design` tunes them, :mod:`.stratified` estimates a build.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from reelforge.game.buildschema import fraction_text
from reelforge.games.forge_of_gems.build import CAP_X, GAME_ID, PAYING, REELS, ROWS, SCATTER, Build, parse_build

BUILD_NAMES = ("96.2", "94.2", "91.2", "87.2", "84.2")

# -- the shared design (paytable in UNIT = 20 per total bet, every build) ---------
UNIT = 20
"""Win units per total bet, the same for every build: a cent bet ladder of multiples of 20 pays every win
exactly (a build's RTP is set by its GEMBOX weights, never by the unit)."""
PAYTABLE = {  # units (1/20 of total bet) per way for 3, 4, 5 reels
    "DIAMOND": [4, 13, 42], "EMERALD": [3, 8, 25], "SAPPHIRE": [3, 6, 17], "TOPAZ": [2, 5, 13],
    "A": [1, 3, 6], "K": [1, 2, 5], "Q": [1, 2, 4], "J": [1, 1, 3],
}
CELLS = {  # weights of the paying symbols a cell lands as (single: only Splitters split), every reel
    "DIAMOND": 60, "EMERALD": 70, "SAPPHIRE": 80, "TOPAZ": 90, "A": 120, "K": 130, "Q": 140, "J": 150,
}
WILD_WEIGHTS = (0, 6, 6, 6, 6)
SCATTER_WEIGHTS = (11, 11, 11, 11, 11)
FORGE_BASE = {"VERTICAL_WILD": 2, "HORIZONTAL_WILD": 4, "VERTICAL_SPLITTER": 6, "HORIZONTAL_SPLITTER": 3,
              "MULTIPLIER": 8, "BLANK": 80, "SCATTER": 4}
FORGE_FREE = {"VERTICAL_WILD": 2, "HORIZONTAL_WILD": 4, "VERTICAL_SPLITTER": 6, "HORIZONTAL_SPLITTER": 3,
              "MULTIPLIER": 14, "BLANK": 0, "SCATTER": 5}
TARGETS = {p: 1 for p in PAYING}
GEMBOX_TOTAL = 10000
GEMBOX_FIXED = {4: [3000, 4500, 2500], 5: [3000, 4000, 3000]}
FS_SPLIT_3 = (0.6, 0.4)
"""Class 3 free-spin weight shared 60/40 between 8 and 10 spins; the prize weight is the knob."""


def gembox_weights(prize3: int) -> dict[int, list[int]]:
    rest = GEMBOX_TOTAL - prize3
    fs8 = round(rest * FS_SPLIT_3[0])
    return {3: [prize3, fs8, rest - fs8], **{k: list(v) for k, v in GEMBOX_FIXED.items()}}


def make_build(name: str, prize3: int, rtp: str | None = None, cap_x: int = CAP_X, unit: int = UNIT) -> Build:
    """The shared design with a build's class-3 prize weight (``rtp``: a fraction of the stake as text,
    default the build's name read as a percentage; ``unit`` other than UNIT: sampling only)."""
    cells = {}
    for r in range(REELS):
        raw = dict(CELLS)
        raw["WILD"] = WILD_WEIGHTS[r]
        raw["SCATTER"] = SCATTER_WEIGHTS[r]
        cells[f"reel{r + 1}"] = raw
    data = {"game": GAME_ID, "name": name, "rtp": rtp or fraction_text(Fraction(name) / 100), "unit": unit, "cap_x": CAP_X,
            "paytable": {k: list(v) for k, v in PAYTABLE.items()}, "cells": cells,
            "forge": {"base": dict(FORGE_BASE), "free": dict(FORGE_FREE)}, "targets": dict(TARGETS),
            "gembox": {str(k): v for k, v in gembox_weights(prize3).items()}}
    build = parse_build(data, name)
    return build if cap_x == CAP_X else dataclasses.replace(build, cap_x=cap_x)


def sampling_build() -> Build:
    """The design in paytable units (read as unit 1) with no cap: what the strata simulate."""
    return make_build("sampling", GEMBOX_TOTAL // 2, rtp="0", cap_x=2**62, unit=1)


def initial_scatter_classes(build: Build) -> list[Fraction]:
    """Exact probability that the first board shows <3, 3, 4, 5+ SCATTER cells."""
    dist = [Fraction(1)]
    for r in range(REELS):
        q = build.cells[r].probability(SCATTER)
        for _ in range(ROWS):
            new = [Fraction(0)] * (len(dist) + 1)
            for n, p in enumerate(dist):
                new[n] += p * (1 - q)
                new[n + 1] += p * q
            dist = new
    return [sum(dist[:3]), dist[3], dist[4], sum(dist[5:])]
