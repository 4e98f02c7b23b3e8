"""Forge of Gems builds: paytable, cell weights, FORGE REEL and GEMBOX weights as data.

A build file (``builds/<name>.toml``) holds:

* ``unit``: win units per total bet; the paytable is in these units per way,
  so every win (paytable x ways x multiplier) is a whole number of units;
* ``cap_x``: the round cap in multiples of total bet (20,000);
* ``[paytable]``: per paying symbol the pay per way for 3, 4 and 5 reels;
* ``rules``: the rules version. ``"2"`` (builds 2.0 on): normal symbols land
  single. ``"1"`` (the builds of the first release, 1.0, kept for the rounds
  played with them): a fresh cell may land split, see ``[cells.reelN]``;
* ``[cells.reelN]``: per normal symbol (paying symbols, ``WILD``, ``SCATTER``)
  the weight of a fresh cell (first board or refill) landing as that symbol.
  Normal symbols land single: copies come only from the FORGE REEL's
  Splitters, so a paid spin's first board is always 3^5 = 243 ways. Rules
  ``"1"``: three weights per symbol, for 1, 2 and 3 copies (WILD and SCATTER
  land single), clamped to the reel's copy limit (see ``rules.draw_split_cell``);
* ``[forge.base]`` / ``[forge.free]``: FORGE REEL symbol weights in the paid
  game and in free spins (the free table must give ``BLANK`` weight 0);
* ``[targets]``: weights of the paying symbol drawn as a forge landing's target;
* ``[gembox]``: for ``"3"``, ``"4"`` and ``"5"`` scatters, the weights of the
  three rewards the seed lists (see :data:`GEMBOX_REWARDS`).

Every weighted draw is one uniform draw in ``[0, total)`` mapped through the
cumulative weights in table order (the kernels use the expanded table, which
gives the same entry).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.game.buildfile import BuildFiles, build_dir
from reelforge.game.buildschema import RTP, Array, At, Either, Field, Integer, Mapping, Table, Text, fraction_text
from reelforge.game.registration import id_beside

GAME_ID = id_beside(__file__)  # from the game.toml beside it
BUILDS_DIR: Path = build_dir(__file__)

REELS = 5
ROWS = 3
MAX_COPIES = 3
COPY_LIMITS = (9, 9, 8, 8, 7)
"""Most symbol copies a reel may hold (9 x 9 x 8 x 8 x 7 = 36,288 ways)."""
MAX_WAYS = 36288
CAP_X = 20000

PAYING = ("DIAMOND", "EMERALD", "SAPPHIRE", "TOPAZ", "A", "K", "Q", "J")
N_PAY = len(PAYING)
WILD = N_PAY
SCATTER = N_PAY + 1
NORMAL = PAYING + ("WILD", "SCATTER")
"""Normal symbol ids are indices into this tuple."""

FORGE = ("VERTICAL_WILD", "HORIZONTAL_WILD", "VERTICAL_SPLITTER", "HORIZONTAL_SPLITTER",
         "MULTIPLIER", "BLANK", "SCATTER")
"""FORGE REEL symbol ids are indices into this tuple."""
F_VWILD, F_HWILD, F_VSPLIT, F_HSPLIT, F_MULT, F_BLANK, F_SCATTER = range(len(FORGE))

# GEMBOX rewards per scatter class (3, 4, 5+): (instant prize x total bet, free spins).
GEMBOX_REWARDS: dict[int, tuple[tuple[int, int], ...]] = {
    3: ((20, 0), (0, 8), (0, 10)),
    4: ((30, 0), (0, 10), (0, 15)),
    5: ((40, 10), (0, 15), (0, 20)),
}


def reward_name(scatters: int, index: int) -> str:
    """Counter-friendly name of a GEMBOX reward, e.g. ``s5_prize40_fs10``."""
    prize, spins = GEMBOX_REWARDS[scatters][index]
    parts = [f"s{scatters}"]
    if prize:
        parts.append(f"prize{prize}")
    if spins:
        parts.append(f"fs{spins}")
    return "_".join(parts)


@dataclass(frozen=True)
class WeightedTable:
    """Entries with integer weights; a draw in ``[0, total)`` picks an entry."""

    weights: tuple[int, ...]

    @cached_property
    def total(self) -> int:
        return sum(self.weights)

    @cached_property
    def cumulative(self) -> list[int]:
        out, acc = [], 0
        for w in self.weights:
            acc += w
            out.append(acc)
        return out

    def pick(self, value: int) -> int:
        """Entry index for a uniform draw ``value`` in ``[0, total)``."""
        return bisect_right(self.cumulative, value)

    def expanded(self) -> np.ndarray:
        """The table as one entry per unit of weight (for the kernels)."""
        return np.repeat(np.arange(len(self.weights), dtype=np.int64), self.weights)

    def probability(self, index: int) -> Fraction:
        return Fraction(self.weights[index], self.total)


@dataclass(frozen=True)
class Build:
    """One Forge of Gems math model."""

    name: str
    rtp: Fraction
    unit: int
    cap_x: int
    paytable: tuple[tuple[int, ...], ...]
    """``paytable[s][k]``: units per way for symbol ``s`` on ``k`` reels (k = 0..5)."""
    cells: tuple[WeightedTable, ...]
    """Per reel, the weights of the normal symbols (indices into :data:`NORMAL`) a fresh cell lands as.
    Rules ``"1"``: of the cells (symbol, copies), entry ``symbol * 3 + copies - 1``."""
    forge_base: WeightedTable
    forge_free: WeightedTable
    targets: WeightedTable
    gembox: dict[int, WeightedTable]
    max_stake: int = 100
    feature_buy_price_x: None = None
    rules: str = "2"
    """The rules version (``"1"``: fresh cells may land split; see the module docstring)."""

    @property
    def cap_units(self) -> int:
        return self.cap_x * self.unit

    def pay_x(self, symbol: int, length: int) -> Fraction:
        return Fraction(self.paytable[symbol][length], self.unit)


SINGLE = " (one weight: symbols land single; only the FORGE REEL's Splitters split them)"
RULES = ("1", "2")
"""Rules versions: ``"1"`` fresh cells may land split (builds 1.0), ``"2"`` they land single."""


def _weights(names: tuple[str, ...], hint: str = "") -> Mapping:
    """Weights per symbol; a symbol left out has weight 0."""
    return Mapping(Integer(low=0, hint=hint), keys=names, default=0, noun="symbol")


_SPLIT = Array(Integer(low=0), length=MAX_COPIES, noun="weights (1, 2, 3 copies)")
"""Rules 1: a cell's weights for landing with 1, 2 or 3 copies."""


SCHEMA = Table((
    Field("game", Text()),
    Field("name", Text()),
    Field("rules", Text(), required=False, default=RULES[-1]),
    Field("rtp", RTP),
    Field("unit", Integer(low=1)),
    Field("cap_x", Integer(low=1)),
    Field("max_stake", Integer(low=1), required=False, default=100),
    Field("paytable", Mapping(Array(Integer(low=0), length=3, noun="pays (3, 4, 5 reels)"), keys=PAYING,
                              complete=True, noun="paying symbol", comment="units per way for 3, 4, 5 reels")),
    Field("cells", Mapping(Mapping(Either((Integer(low=0, hint=SINGLE), _SPLIT)), keys=NORMAL, default=0,
                                   noun="symbol"), keys=tuple(f"reel{r + 1}" for r in range(REELS)),
                           complete=True, noun="reel",
                           comment="weights of the symbols a fresh cell lands as (rules 1: for 1, 2, 3 copies)")),
    Field("forge", Table((Field("base", _weights(FORGE)), Field("free", _weights(FORGE))))),
    Field("targets", _weights(PAYING)),
    Field("gembox", Mapping(Array(Integer(low=0), length=3, noun="weights"), keys=("3", "4", "5"), complete=True,
                            noun="scatter class", comment="weights of the seed's three rewards per scatter class",
                            value_comment=lambda k: ", ".join(reward_name(int(k), i) for i in range(3)))),
))
"""The build file's layout (:mod:`reelforge.game.buildfile`)."""


def _table(weights: dict[str, int], at: At) -> WeightedTable:
    if sum(weights.values()) <= 0:
        raise at.error("weights must not all be zero")
    return WeightedTable(tuple(weights.values()))


def _cells(weights: dict[str, Any], rules: str, at: At) -> WeightedTable:
    """A reel's cell table: one weight per symbol (rules 2), three per symbol (rules 1: 1, 2, 3 copies)."""
    if rules == "2":
        for symbol, w in weights.items():
            if not isinstance(w, int):
                raise (at / symbol).error(f"must be a non-negative integer, found {w!r}{SINGLE}")
        return _table(weights, at)
    flat: list[int] = []
    for symbol, w in weights.items():
        ws = [w, 0, 0] if w == 0 else w
        if not isinstance(ws, list):
            raise (at / symbol).error(f"must be three weights (1, 2, 3 copies) under rules 1, found {w!r}")
        if symbol in ("WILD", "SCATTER") and (ws[1] or ws[2]):
            raise (at / symbol).error(f"cannot land split: its weights for 2 and 3 copies must be 0, found {ws}")
        flat += ws
    if sum(flat) <= 0:
        raise at.error("weights must not all be zero")
    return WeightedTable(tuple(flat))


def _from_data(d: dict[str, Any], name: str, at: At) -> Build:
    if d["cap_x"] != CAP_X:
        raise (at / "cap_x").error(f"must be {CAP_X} (the game's published max win), found {d['cap_x']}")
    paytable = tuple((0, 0, 0, *d["paytable"][p]) for p in PAYING)
    cells = tuple(_cells(w, d["rules"], at / "cells" / reel) for reel, w in d["cells"].items())
    forge_base = _table(d["forge"]["base"], at / "forge" / "base")
    if d["forge"]["free"]["BLANK"]:
        raise (at / "forge" / "free" / "BLANK").error("must be 0: BLANK must have weight 0 here (free spins show no Blanks)")
    if not d["forge"]["free"]["MULTIPLIER"]:
        raise (at / "forge" / "free" / "MULTIPLIER").error("needs a positive weight (free spins show a Multiplier)")
    forge_free = _table(d["forge"]["free"], at / "forge" / "free")
    targets = _table(d["targets"], at / "targets")
    gembox = {}
    for k, ws in d["gembox"].items():
        if sum(ws) == 0:
            raise (at / "gembox" / k).error(f"must not be all zero (rewards {[reward_name(int(k), i) for i in range(3)]})")
        gembox[int(k)] = WeightedTable(tuple(ws))
    return Build(name=name, rtp=d["rtp"], unit=d["unit"], cap_x=d["cap_x"], paytable=paytable, cells=cells,
                 forge_base=forge_base, forge_free=forge_free, targets=targets, gembox=gembox,
                 max_stake=d["max_stake"], rules=d["rules"])


def _to_data(b: Build) -> dict[str, Any]:
    def named(names: tuple[str, ...], table: WeightedTable) -> dict[str, int]:
        return dict(zip(names, table.weights, strict=True))

    def cells(table: WeightedTable) -> dict[str, Any]:
        if b.rules == "2":
            return named(NORMAL, table)
        w = table.weights
        return {n: list(w[s * MAX_COPIES:(s + 1) * MAX_COPIES]) for s, n in enumerate(NORMAL)}

    return {
        "game": GAME_ID, "name": b.name, "rules": b.rules, "rtp": fraction_text(b.rtp), "unit": b.unit,
        "cap_x": b.cap_x, "max_stake": b.max_stake,
        "paytable": {p: list(b.paytable[s][3:]) for s, p in enumerate(PAYING)},
        "cells": {f"reel{r + 1}": cells(c) for r, c in enumerate(b.cells)},
        "forge": {"base": named(FORGE, b.forge_base), "free": named(FORGE, b.forge_free)},
        "targets": named(PAYING, b.targets),
        "gembox": {str(k): list(b.gembox[k].weights) for k in (3, 4, 5)},
    }


FILES: BuildFiles[Build] = BuildFiles(GAME_ID, BUILDS_DIR, SCHEMA, _from_data, _to_data, rules_versions=RULES)
"""List, load and write Forge of Gems build files."""


def parse_build(data: dict[str, Any], name: str) -> Build:
    """Validate parsed TOML data as build ``name`` (raises BuildError naming the key)."""
    return FILES.parse(data, name)


def build_to_toml(build: Build, comment: str = "") -> str:
    """A build as its file's TOML text (``comment``: lines on top), through the shared writer."""
    return FILES.text(build, comment)


def build_names() -> list[str]:
    return FILES.names()


def load_build(name: str) -> Build:
    """Load a shipped build by name."""
    return FILES.load(name)
