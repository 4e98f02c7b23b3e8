"""Seven Lines builds: reels as symbol counts, pays and free spins as data (``builds/*.toml``)."""

from collections import namedtuple

import numpy as np

from reelforge.game.buildfile import plain_files
from reelforge.game.buildschema import Array, Field, Integer, Mapping
from reelforge.mechanics.pays import paytable
from reelforge.mechanics.reels import counted_strips, reel_counts_check

SYMBOLS = "WSRBGLC"
NAMES = {"W": "Wild", "S": "Star", "R": "Seven", "B": "Bell", "G": "Grapes", "L": "Lemon", "C": "Cherry"}
WILD, STAR = SYMBOLS.index("W"), SYMBOLS.index("S")
COINS = 10  # coins per total bet (one per line): the win unit
LINES = np.array([[int(r) for r in line] for line in "11111 00000 22222 01210 21012 00122 22100 10001 12221 01110".split()])
"""The 10 paylines: the row (0 top) each crosses on reels 1-5."""
THREE = Array(Integer(low=0), length=3, noun="pays (3, 4, 5)")
COUNTS = Array(Integer(low=0, high=99), length=5, noun="counts (reels 1-5)")


FILES = plain_files(__file__, (
    Field("free_spins", Array(Integer(low=1), length=3, noun="awards (3, 4, 5 Stars)")),
    Field("free_spins_limit", Integer(low=1)), Field("free_spins_multiplier", Integer(low=1)), Field("star_pays", THREE),
    Field("pays", Mapping(THREE, keys=tuple("WRBGLC"), complete=True, noun="symbol", comment="coins per line for 3, 4, 5")),
    Field("reels", Mapping(COUNTS, keys=tuple(SYMBOLS), complete=True, noun="symbol", comment="copies per reel"))),
    reel_counts_check("reels", 3))
SCHEMA = FILES.schema
# strips as codes, their lengths, pays [symbol, count], Star pays and spins by Stars; the kernel's scratch
Tables = namedtuple("Tables", "codes lens pays star_pays awards limit multiplier stops window out")


def tables(b) -> Tables:
    codes, lens = counted_strips(b.reels, SYMBOLS, 5)
    by_stars = paytable({"pays": b.star_pays, "spins": b.free_spins}, ["pays", "spins"], 5)  # read by_count
    return Tables(codes, lens, paytable(b.pays, SYMBOLS, 5), by_stars[0], by_stars[1], b.free_spins_limit,
                  b.free_spins_multiplier, np.zeros(5, np.int64), np.zeros((5, 3), np.int64),
                  np.zeros((len(LINES), 5), np.int64))
