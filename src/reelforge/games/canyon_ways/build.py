"""Canyon Ways builds: reel heights, reels as symbol counts, pays and free spins as data (``builds/*.toml``)."""

import numpy as np

from reelforge.game.buildfile import plain_files
from reelforge.game.buildschema import Array, Field, Integer, Mapping
from reelforge.game.loop import tables_type
from reelforge.mechanics.cascade import WAYS_SCRATCH, ways_scratch
from reelforge.mechanics.counts import strip_counts
from reelforge.mechanics.pays import paytable
from reelforge.mechanics.reels import counted_strips, cumulative, reel_counts_check

SYMBOLS = "WSEBCHAKQJTN"
NAMES = dict(zip(SYMBOLS, "Wild Sun Eagle Bison Cactus Horseshoe Ace King Queen Jack Ten Nine".split()))
LABELS = list(NAMES.values())  # the names by symbol code
WILD, SUN, EAGLE = (SYMBOLS.index(s) for s in "WSE")
REELS, ROWS = 6, 7
UNIT = 10  # coins per total bet, the win unit: it divides the smallest reference stake (10 cents) into whole cents
SIX = Array(Integer(low=0, high=99_999), length=6, noun="values (reels 1-6, or 2-7 rows)")
FILES = plain_files(__file__, (
    Field("heights", SIX, note="weight of each height, 2 to 7 rows, every reel every spin"),
    Field("trigger", Integer(low=3, high=REELS * ROWS)), Field("free_spins", Integer(low=1, high=100)),
    Field("pays", Mapping(Array(Integer(low=0), length=4, noun="pays (3-6)"), keys=tuple(SYMBOLS[2:]), complete=True,
                          noun="symbol", comment="coins per way for 3, 4, 5, 6")),
    Field("reels", Mapping(SIX, keys=tuple(SYMBOLS), complete=True, noun="symbol", comment="copies per reel"))),
    reel_counts_check("reels", ROWS))
SCHEMA = FILES.schema
Tables = tables_type("Tables", "codes lens height_cum pays copies trigger free_spins running", WAYS_SCRATCH)


def tables(b) -> Tables:
    codes, lens = counted_strips(b.reels, SYMBOLS, REELS, ROWS)
    return Tables(codes, lens, np.array([cumulative([0, 0, *b.heights])] * REELS), paytable(b.pays, SYMBOLS, REELS),
                  np.ones((REELS, ROWS), np.int64), b.trigger, b.free_spins, strip_counts(codes, lens, ROWS),
                  *ways_scratch(REELS, ROWS, len(SYMBOLS)))
