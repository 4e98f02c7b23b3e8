"""Builds of math-sdk's sample lines game (StakeEngine/math-sdk ``games/0_0_lines``, MIT; its LICENSE
and NOTICE beside the files): the reels (``reels/BR0.csv``, ``FR0.csv``, ``FRWCAP.csv``) converted once
by :func:`from_mathsdk`, the paytable, lines, free-spin awards and wild multipliers as its
``game_config.py`` publishes them.

Pays are in tenths of the total bet (the win unit): the sample pays lines in multiples of 0.1x, and its
free-spin wilds multiply by whole numbers, so every win is a whole number of tenths.
"""

from __future__ import annotations

import csv
from collections import namedtuple
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.game.buildfile import plain_files
from reelforge.game.buildschema import Array, At, Field, Integer, Mapping, Text
from reelforge.mechanics.reels import cumulative

SYMBOLS = ("W", "S", "H1", "H2", "H3", "H4", "L1", "L2", "L3", "L4", "L5")
NAMES = {"W": "Wild", "S": "Scatter", "H1": "High 1", "H2": "High 2", "H3": "High 3", "H4": "High 4",
         "L1": "Low 1", "L2": "Low 2", "L3": "Low 3", "L4": "Low 4", "L5": "Low 5"}
WILD, SCATTER = SYMBOLS.index("W"), SYMBOLS.index("S")
TENTHS = 10
"""Win units per total bet."""
ROWS = 3
REEL_SETS = ("BR0", "FR0", "WCAP")
"""The sample's strips: the base game's, the free game's, and the free game's strips its max-win books use."""
BASE, FREE, WCAP = range(3)

_STRIP = Array(Text(min_length=1), min_length=3, noun="symbols")
_SET = Array(_STRIP, length=5, noun="strips (reels 1-5)", multiline=True)
_THREE = Array(Integer(low=0), length=3, noun="pays (3, 4, 5)")
_AWARDS = Mapping(Integer(low=1), noun="scatter count", comment="free spins by scatters on the board")
_WEIGHTS = Mapping(Integer(low=1), noun="multiplier", comment="weight of each multiplier a free-game Wild carries")


def _check(d: dict[str, Any], at: At) -> None:
    for name in REEL_SETS:
        for r, strip in enumerate(d["reels"][name]):
            unknown = sorted(set(strip) - set(SYMBOLS))
            if unknown:
                raise (at / "reels" / name / (r + 1)).error(f"has symbols {unknown} outside {', '.join(SYMBOLS)}")
    for key in ("base_awards", "free_awards", "free_wild_multipliers"):
        if any(not k.isdigit() for k in d[key]):
            raise (at / key).error("keys must be whole numbers")
    for i, line in enumerate(d["lines"]):
        if len(line) != 5 or not all(0 <= row < ROWS for row in line):
            raise (at / "lines" / (i + 1)).error(f"must give a row 0-{ROWS - 1} for each of the 5 reels")


FILES = plain_files(__file__, (
    Field("cap_x", Integer(low=1), note="the round's maximum win, a multiple of the total bet (wincap)"),
    Field("lines", Array(Array(Integer(low=0), length=5, noun="rows"), min_length=1, noun="lines", multiline=True)),
    Field("pays", Mapping(_THREE, keys=tuple(s for s in SYMBOLS if s != "S"), complete=True, noun="symbol",
                          comment="tenths of the total bet for 3, 4, 5 on a line")),
    Field("base_awards", _AWARDS), Field("free_awards", _AWARDS), Field("free_wild_multipliers", _WEIGHTS),
    Field("reels", Mapping(_SET, keys=REEL_SETS, complete=True, noun="reel set", comment="strips, top stop first"))),
    _check, game_id="mathsdk-lines")   # not registered by a game.toml (a benchmark game): its id is declared here
SCHEMA = FILES.schema

# strips as codes [set, reel, stop] and lengths [set, reel]; pays [symbol, count]; free spins by scatter count;
# the free-game wild multipliers and their running weights; then the kernel's scratch
Tables = namedtuple("Tables", "codes lens pays lines base_awards free_awards mult_values mult_cum "
                              "stops window mults out")


def _awards(table: dict[str, int]) -> np.ndarray:
    out = np.zeros(max(int(k) for k in table) + 1, dtype=np.int64)
    for k, v in table.items():
        out[int(k)] = v
    return out


def tables(b: Any) -> Tables:
    width = max(len(s) for name in REEL_SETS for s in b.reels[name])
    codes = np.zeros((len(REEL_SETS), 5, width), dtype=np.int64)
    lens = np.zeros((len(REEL_SETS), 5), dtype=np.int64)
    for i, name in enumerate(REEL_SETS):
        for r, strip in enumerate(b.reels[name]):
            codes[i, r, : len(strip)] = [SYMBOLS.index(s) for s in strip]
            lens[i, r] = len(strip)
    pays = np.zeros((len(SYMBOLS), 6), dtype=np.int64)
    for s, row in b.pays.items():
        pays[SYMBOLS.index(s), 3:] = row
    values = np.array(sorted(int(k) for k in b.free_wild_multipliers), dtype=np.int64)
    weights = [b.free_wild_multipliers[str(v)] for v in values]
    return Tables(codes, lens, pays, np.array(b.lines, dtype=np.int64), _awards(b.base_awards), _awards(b.free_awards),
                  values, cumulative(weights), np.zeros(5, np.int64), np.zeros((5, ROWS), np.int64),
                  np.zeros((5, ROWS), np.int64), np.zeros((len(b.lines), 5), np.int64))


def strips_from_csv(path: Path) -> list[list[str]]:
    """A math-sdk reel file: one row per stop, one column per reel."""
    rows = [r for r in csv.reader(path.read_text().splitlines()) if r]
    return [[row[r].strip() for row in rows] for r in range(len(rows[0]))]


def from_mathsdk(checkout: Path) -> dict[str, Any]:
    """The build data of the sample from a math-sdk checkout: its reel files read here; the rest of
    ``games/0_0_lines/game_config.py`` (pays, lines, awards, multipliers, wincap) as published at
    63e9cc6, in tenths of the bet. Write it with ``FILES.write(FILES.parse(data, name), path)``."""
    folder = Path(checkout) / "games" / "0_0_lines" / "reels"
    reels = {name: strips_from_csv(folder / f) for name, f in zip(REEL_SETS, ("BR0.csv", "FR0.csv", "FRWCAP.csv"),
                                                                  strict=True)}
    pays_x = {"W": (10, 20, 50), "H1": (10, 20, 50), "H2": (3, 5, 15), "H3": (2, 3, 10), "H4": (1, 2, 8),
              "L1": (0.5, 1, 5), "L2": (0.3, 0.7, 3), "L3": (0.3, 0.7, 3), "L4": (0.2, 0.5, 2), "L5": (0.1, 0.3, 1)}
    lines = ["00000", "11111", "22222", "01210", "21012", "00122", "22100", "10121", "12101", "01112",
             "21110", "01012", "21210", "11011", "11211", "02102", "20120", "00200", "22022", "10001"]
    # rtp: these rules' own (simulated, docs/maths.md); the sample's 97% is its optimised table's
    return {"game": "mathsdk-lines", "name": "63e9cc6", "rtp": "4027/10000", "cap_x": 5000,
            "lines": [[int(c) for c in line] for line in lines],
            "pays": {s: [round(x * TENTHS) for x in p] for s, p in pays_x.items()},
            "base_awards": {"3": 8, "4": 12, "5": 15}, "free_awards": {"2": 3, "3": 5, "4": 8, "5": 12},
            "free_wild_multipliers": {"2": 60, "3": 80, "4": 50, "5": 20, "10": 15, "20": 10, "50": 5},
            "reels": reels}
