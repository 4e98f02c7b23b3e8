"""Golden Vault builds: cell weights, coin values, gem pays and the grand prize as data."""

from collections import namedtuple

import numpy as np

from reelforge.game.buildfile import plain_files
from reelforge.game.buildschema import Array, Field, Integer, Mapping, Table
from reelforge.mechanics.reels import cumulative

GEMS = ("R", "J", "O")
NAMES = {"R": "Ruby", "J": "Jade", "O": "Opal"}
UNIT = 10  # win units per total bet: coin values and pays are tenths of the total bet
WEIGHT = Integer(low=0, high=10**6)
COIN_WEIGHTS = Array(WEIGHT, length=6, noun="weights (one per coin value)")


def _check(d: dict, at) -> None:
    for part in ("base", "respin"):
        if not sum(d[part]["coins"]):
            raise (at / part / "coins").error("must give the coins a weight")


FILES = plain_files(__file__, (
    Field("trigger", Integer(low=1, high=15)), Field("respins", Integer(low=1)), Field("grand_x", Integer(low=1)),
    Field("coin_values", Array(Integer(low=1), length=6, noun="values (tenths of the total bet)")),
    Field("pays", Mapping(Array(Integer(low=0), length=5, noun="pays (5, 6, 7, 8, 9+)"), keys=GEMS, complete=True,
                          noun="gem", comment="tenths of the total bet for 5, 6, 7, 8, 9+ anywhere")),
    Field("base", Table((Field("blank", WEIGHT), Field("gems", Mapping(WEIGHT, keys=GEMS, complete=True, noun="gem")),
                         Field("coins", COIN_WEIGHTS)), comment="weights of a cell in the paid spin")),
    Field("respin", Table((Field("blank", WEIGHT), Field("coins", COIN_WEIGHTS)),
                          comment="weights of an empty cell in a respin"))), _check)
SCHEMA = FILES.schema
# running weights of a paid-spin cell per reel (blank, gems, coins) and of an empty cell in a respin
# (blank, coins), the coin value of each outcome, pays [outcome, count]; the kernel's scratch
Tables = namedtuple("Tables", "base_cum base_values respin_cum respin_values pays trigger respins grand "
                              "draws window values out")


def tables(b) -> Tables:
    coins = np.array(b.coin_values, dtype=np.int64)
    pays = np.zeros((1 + len(GEMS) + 6, 10), dtype=np.int64)
    for i, g in enumerate(GEMS):
        pays[1 + i, 5:] = b.pays[g]
    return Tables(np.array([cumulative([b.base["blank"], *b.base["gems"].values(), *b.base["coins"]])] * 5),
                  np.r_[np.zeros(1 + len(GEMS), np.int64), coins], cumulative([b.respin["blank"], *b.respin["coins"]]),
                  np.r_[0, coins], pays, b.trigger, b.respins, b.grand_x * UNIT, np.zeros(15, np.int64),
                  np.zeros((5, 3), np.int64), np.zeros((5, 3), np.int64), np.zeros((pays.shape[0], 3), np.int64))


def cell_name(code: int, value: int) -> str:
    return f"{value / UNIT:g}x" if value else ("" if code == 0 else NAMES[GEMS[code - 1]])
