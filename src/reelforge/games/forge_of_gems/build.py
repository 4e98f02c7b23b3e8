"""Forge of Gems builds: paytable, cell weights, FORGE REEL and GEMBOX weights as data.

A build file (``builds/<name>.toml``) holds:

* ``unit``: win units per total bet; the paytable is in these units per way,
  so every win (paytable x ways x multiplier) is a whole number of units;
* ``cap_x``: the round cap in multiples of total bet (20,000);
* ``[paytable]``: per paying symbol the pay per way for 3, 4 and 5 reels;
* ``[cells.reelN]``: per normal symbol (paying symbols, ``WILD``, ``SCATTER``)
  the weight of a fresh cell (first board or refill) landing as that symbol.
  Normal symbols land single: copies come only from the FORGE REEL's
  Splitters, so a paid spin's first board is always 3^5 = 243 ways;
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
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.buildfile import build_dir, list_builds, read_build, require
from reelforge.game import BuildError

GAME_ID = "forge-of-gems"
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
    """Per reel, the weights of the normal symbols (indices into :data:`NORMAL`) a fresh cell lands as."""
    forge_base: WeightedTable
    forge_free: WeightedTable
    targets: WeightedTable
    gembox: dict[int, WeightedTable]
    max_stake: int = 100
    feature_buy_price_x: None = None

    @property
    def cap_units(self) -> int:
        return self.cap_x * self.unit

    def pay_x(self, symbol: int, length: int) -> Fraction:
        return Fraction(self.paytable[symbol][length], self.unit)


def _weights(raw: Any, names: tuple[str, ...], where: str, zero: tuple[str, ...] = ()) -> WeightedTable:
    if not isinstance(raw, dict):
        raise BuildError(f"{where}: must be a table of weights")
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise BuildError(f"{where}: unknown symbol(s) {unknown}; allowed: {', '.join(names)}")
    weights = []
    for n in names:
        w = raw.get(n, 0)
        if not isinstance(w, int) or isinstance(w, bool) or w < 0:
            raise BuildError(f"{where}: weight of {n} must be a non-negative integer, found {w!r}")
        if n in zero and w:
            raise BuildError(f"{where}: {n} must have weight 0 here")
        weights.append(w)
    if sum(weights) <= 0:
        raise BuildError(f"{where}: weights must not all be zero")
    return WeightedTable(tuple(weights))


def _cells(raw: Any, where: str) -> WeightedTable:
    if isinstance(raw, dict):
        for n, w in raw.items():
            if isinstance(w, list):
                raise BuildError(f"{where}: {n} needs one weight (symbols land single; only the FORGE REEL's "
                                 f"Splitters split them), found {w!r}")
    return _weights(raw, NORMAL, where)


def parse_build(data: dict[str, Any], name: str) -> Build:
    """Validate a parsed TOML build."""
    where = f"{GAME_ID} build {name}"
    rtp = Fraction(str(require(data, "rtp", (str, float, int), where)))
    unit = require(data, "unit", int, where)
    if unit <= 0:
        raise BuildError(f"{where}: 'unit' must be a positive integer")
    cap_x = require(data, "cap_x", int, where)
    if cap_x != CAP_X:
        raise BuildError(f"{where}: 'cap_x' must be {CAP_X} (the game's published max win), found {cap_x}")
    pay_raw = require(data, "paytable", dict, where)
    missing = [p for p in PAYING if p not in pay_raw]
    unknown = sorted(set(pay_raw) - set(PAYING))
    if missing or unknown:
        raise BuildError(f"{where} [paytable]: needs exactly the paying symbols {', '.join(PAYING)}"
                         f" (missing {missing}, unknown {unknown})")
    paytable = []
    for p in PAYING:
        row = pay_raw[p]
        if not isinstance(row, list) or len(row) != 3 or any(
                not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in row):
            raise BuildError(f"{where} [paytable]: {p} needs three non-negative integers (3, 4, 5 reels), found {row!r}")
        paytable.append((0, 0, 0, row[0], row[1], row[2]))
    cells_raw = require(data, "cells", dict, where)
    cells = []
    for r in range(REELS):
        key = f"reel{r + 1}"
        if key not in cells_raw:
            raise BuildError(f"{where} [cells]: missing '{key}'")
        cells.append(_cells(cells_raw[key], f"{where} [cells.{key}]"))
    forge = require(data, "forge", dict, where)
    forge_base = _weights(forge.get("base"), FORGE, f"{where} [forge.base]")
    forge_free = _weights(forge.get("free"), FORGE, f"{where} [forge.free]", zero=("BLANK",))
    if forge_free.weights[F_MULT] == 0:
        raise BuildError(f"{where} [forge.free]: MULTIPLIER needs a positive weight")
    targets = _weights(require(data, "targets", dict, where), PAYING, f"{where} [targets]")
    gem_raw = require(data, "gembox", dict, where)
    gembox = {}
    for k in (3, 4, 5):
        ws = gem_raw.get(str(k))
        if not isinstance(ws, list) or len(ws) != 3 or any(
                not isinstance(w, int) or isinstance(w, bool) or w < 0 for w in ws) or sum(ws) == 0:
            raise BuildError(f"{where} [gembox]: '{k}' needs three non-negative integer weights, not all zero "
                             f"(rewards {[reward_name(k, i) for i in range(3)]}), found {ws!r}")
        gembox[k] = WeightedTable(tuple(ws))
    return Build(name=name, rtp=rtp, unit=unit, cap_x=cap_x, paytable=tuple(paytable), cells=tuple(cells),
                 forge_base=forge_base, forge_free=forge_free, targets=targets, gembox=gembox,
                 max_stake=data.get("max_stake", 100))


def build_to_toml(build: Build, comment: str = "") -> str:
    """Write a build back as TOML text (used by the calibration)."""
    lines = []
    for c in comment.splitlines():
        lines.append(f"# {c}".rstrip())
    lines += [f'game = "{GAME_ID}"', f'name = "{build.name}"', f'rtp = "{float(build.rtp):g}"',
              f"unit = {build.unit}", f"cap_x = {build.cap_x}", f"max_stake = {build.max_stake}", "",
              "[paytable]  # units per way for 3, 4, 5 reels"]
    for s, p in enumerate(PAYING):
        lines.append(f"{p} = [{', '.join(str(v) for v in build.paytable[s][3:])}]")
    for r, cell in enumerate(build.cells):
        lines += ["", f"[cells.reel{r + 1}]  # weights of the symbols a cell lands as (single)"]
        lines += [f"{n} = {w}" for n, w in zip(NORMAL, cell.weights, strict=True)]
    for key, table in (("forge.base", build.forge_base), ("forge.free", build.forge_free)):
        lines += ["", f"[{key}]"] + [f"{n} = {w}" for n, w in zip(FORGE, table.weights, strict=True)]
    lines += ["", "[targets]"] + [f"{n} = {w}" for n, w in zip(PAYING, build.targets.weights, strict=True)]
    lines += ["", "[gembox]  # weights of the seed's three rewards per scatter class"]
    for k in (3, 4, 5):
        names = ", ".join(reward_name(k, i) for i in range(3))
        lines.append(f'"{k}" = [{", ".join(str(w) for w in build.gembox[k].weights)}]  # {names}')
    return "\n".join(lines) + "\n"


def build_names() -> list[str]:
    return list_builds(BUILDS_DIR)


@cache
def load_build(name: str) -> Build:
    """Load a shipped build by name."""
    return parse_build(read_build(BUILDS_DIR, name, GAME_ID), name)
