"""A hand-built Gemstones Gold board whose cascades follow the seed's worked ledger.

All stops are 0. The reels show (top to bottom)::

    reel 1  G R P P P P      reel 4  L L L L L R
    reel 2  A S P P P P      reel 5  R A S E G R
    reel 3  G R A S E G      reel 6  A S E G R A

Cascade 1: 8 Pink Stones (reels 1, 2) win. Refills continue up the strips.
Cascade 2: 8 Blue Stones (reels 1, 4) win.
Cascade 3: 8 Bronze Ores (reels 1, 4) win. Then no win: 3 + 3 + 5 = 11 coins.
Reel 1 holds winning symbols in all three cascades (4, 3 and 3 of them), reel 2
only in cascade 1, reel 3 never, reel 4 in cascades 2 and 3.
"""

from __future__ import annotations

from reelforge.games.gemstones_gold.build import PUBLISHED_PAYTABLE, Build, parse_build

STRIPS = [
    "GRPPPP" + "PLPBBBELLL",
    "ASPPPP" + "ESEA",
    "GRASEG",
    "LLLLLR" + "LPLPL" + "BBBBB",
    "RASEGR",
    "ASEGRA",
]
VALUES = [2, 3, 5, 20, 500]
WIN_COINS = 3 + 3 + 5


def scenario_build(price: str = "50") -> Build:
    data = {"game": "gemstones-gold", "name": "scenario", "rtp": "0.9671", "feature_buy_price_x": price,
            "paytable": {k: list(v) for k, v in PUBLISHED_PAYTABLE.items()},
            "reels": {"strips": STRIPS},
            "multipliers": {"values": VALUES, "base_weights": [1] * 5, "free_weights": [1] * 5}}
    return parse_build(data, "scenario")


def value_index(v: int) -> int:
    return VALUES.index(v)


STOPS = [0] * 6


def paid_draws(lanes_values: list[tuple[int, int]]) -> list[int]:
    """Draws for a paid spin at stops 0 placing (lane, value) pairs (lanes 0-based) in order."""
    free = list(range(6))
    draws = list(STOPS)
    for lane, _ in lanes_values:
        draws.append(free.index(lane))
        free.remove(lane)
    draws += [value_index(v) for _, v in lanes_values]
    return draws


def free_draws(values: list[int]) -> list[int]:
    """Draws for a free spin at stops 0 with the six lane values."""
    return list(STOPS) + [value_index(v) for v in values]
