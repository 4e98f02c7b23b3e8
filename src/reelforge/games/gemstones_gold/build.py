"""Gemstones Gold builds: reel strips and multiplier weights as data, validated on load.

A build file (``builds/<name>.toml``) holds:

* ``rtp`` - the nominal RTP the build is named for;
* ``feature_buy_price_x`` - the Feature Buy price in multiples of total bet
  (a string holding an integer or a fraction, e.g. ``"56"``);
* ``[paytable]`` - the published paytable (coins per bet size x level, four
  count tiers); it must equal :data:`PUBLISHED_PAYTABLE`, the build may not change it;
* ``[reels] strips`` - six strings, one character per stop (see :data:`SYMBOL_CHARS`);
* ``[multipliers] values, base_weights, free_weights`` - the multiplier-reel value
  set (each in 2..500) and the integer weights used in the paid spin and in free spins.

Symbols, in index order: Gold Nugget ``G``, Ruby ``R``, Amethyst ``A``,
Sapphire ``S``, Emerald ``E``, Bronze Ore ``B``, Pink Stone ``P``, Blue
Stone ``L``, Scatter ``X``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.game.buildfile import BuildFiles, build_dir, kernel_tables
from reelforge.game.buildschema import RTP, Array, At, Field, Integer, Mapping, Number, Table, Text, fraction_text
from reelforge.game.registration import id_beside

GAME_ID = id_beside(__file__)  # from the game.toml beside it
ROWS = 6
REELS = 6
N_PAYING = 8
SCATTER = 8
N_SYMBOLS = 9
SYMBOL_CHARS = "GRASEBPLX"
SYMBOL_NAMES = ("GOLD_NUGGET", "RUBY", "AMETHYST", "SAPPHIRE", "EMERALD",
                "BRONZE_ORE", "PINK_STONE", "BLUE_STONE", "SCATTER")
MIN_COUNT = 8
"""Eight or more of one paying symbol anywhere form a win."""
TIER_FROM = (8, 10, 12, 15)
"""Count tiers of the paytable: 8-9, 10-11, 12-14, 15+."""
PUBLISHED_PAYTABLE: dict[str, tuple[int, int, int, int]] = {
    "GOLD_NUGGET": (20, 40, 80, 200),
    "RUBY": (10, 20, 30, 60),
    "AMETHYST": (10, 20, 30, 60),
    "SAPPHIRE": (5, 10, 15, 30),
    "EMERALD": (5, 10, 15, 30),
    "BRONZE_ORE": (5, 8, 10, 20),
    "PINK_STONE": (3, 5, 8, 20),
    "BLUE_STONE": (3, 5, 8, 20),
}
"""Coins per (bet size x bet level); total bet is 20 coins."""
COINS_PER_BET = 20
MAX_WIN_X = 7500
BASE_LANES = 3
BASE_BLOCKERS = 3
FREE_BLOCKERS = 2
FREE_SPINS_AWARD = 10
FREE_SPINS_PER_EXTRA_SCATTER = 2
TRIGGER_SCATTERS = 3
RETRIGGER_SCATTERS = 2
RETRIGGER_SPINS = 5
VALUE_MIN, VALUE_MAX = 2, 500
BUILDS_DIR: Path = build_dir(__file__)


def tier_of(count: int) -> int:
    """Paytable tier (0..3) of a winning count, -1 below 8."""
    tier = -1
    for i, start in enumerate(TIER_FROM):
        if count >= start:
            tier = i
    return tier


@dataclass(frozen=True)
class Build:
    """One Gemstones Gold math model."""

    name: str
    rtp: Fraction
    strips: tuple[str, ...]
    values: tuple[int, ...]
    base_weights: tuple[int, ...]
    free_weights: tuple[int, ...]
    feature_buy_price_x: Fraction
    max_stake: int = 100
    codes: tuple[tuple[int, ...], ...] = field(default=(), compare=False, repr=False)
    """Strips as symbol indices (filled on load)."""

    @property
    def arrays(self) -> dict[str, np.ndarray]:
        """The kernel's tables (:func:`flat_arrays`, made once per build)."""
        return kernel_tables(self, flat_arrays)

    @property
    def base_total(self) -> int:
        return sum(self.base_weights)

    @property
    def free_total(self) -> int:
        return sum(self.free_weights)

    @property
    def cap_units(self) -> int:
        return MAX_WIN_X * COINS_PER_BET

    def pay_coins(self, symbol: int, count: int) -> int:
        """Coins paid for ``count`` of paying symbol ``symbol`` (0 below 8)."""
        t = tier_of(count)
        return 0 if t < 0 else PUBLISHED_PAYTABLE[SYMBOL_NAMES[symbol]][t]

    def strip_codes(self, reel: int) -> tuple[int, ...]:
        if self.codes:
            return self.codes[reel]
        return tuple(SYMBOL_CHARS.index(ch) for ch in self.strips[reel])

    def mean_value(self, free: bool) -> Fraction:
        w = self.free_weights if free else self.base_weights
        return Fraction(sum(v * x for v, x in zip(self.values, w, strict=True)), sum(w))


def flat_arrays(build: Build) -> dict[str, np.ndarray]:
    """Tables for the numba kernel (made once per build)."""
    lens = np.array([len(s) for s in build.strips], dtype=np.int64)
    strips = np.full((REELS, int(lens.max())), -1, dtype=np.int8)
    for r in range(REELS):
        strips[r, : lens[r]] = build.strip_codes(r)
    # counts of each symbol in the 6-cell window starting at each stop (top row = stop)
    window = np.zeros((REELS, int(lens.max()), N_SYMBOLS), dtype=np.int8)
    for r in range(REELS):
        codes = build.strip_codes(r)
        n = len(codes)
        for s in range(n):
            for k in range(ROWS):
                window[r, s, codes[(s + k) % n]] += 1
    # the same counts packed 7 bits per symbol into one int64: summing six reels gives the board's
    # counts in one addition per reel (fields stay below 128), see kernel.spin_core
    packed = np.zeros((REELS, int(lens.max())), dtype=np.int64)
    for sym in range(N_SYMBOLS):
        packed += window[:, :, sym].astype(np.int64) << (7 * sym)
    pay = np.zeros((N_PAYING, 37), dtype=np.int64)
    for sym in range(N_PAYING):
        for cnt in range(37):
            pay[sym, cnt] = build.pay_coins(sym, cnt)
    values = np.array(build.values, dtype=np.int64)
    base_cum = np.cumsum(np.array(build.base_weights, dtype=np.int64))
    free_cum = np.cumsum(np.array(build.free_weights, dtype=np.int64))
    return {"strips": strips, "lens": lens, "window": window, "packed": packed, "pay": pay, "values": values,
            "base_cum": base_cum, "free_cum": free_cum}


STRIP_NOTE = "G gold, R ruby, A amethyst, S sapphire, E emerald, B bronze, P pink, L blue, X scatter"

SCHEMA = Table((
    Field("game", Text()),
    Field("name", Text()),
    Field("rtp", RTP),
    Field("feature_buy_price_x", Number(positive=True)),
    Field("max_stake", Integer(low=1), required=False, default=100),
    Field("paytable", Mapping(Array(Integer(low=0), length=len(TIER_FROM), noun="pays (8-9, 10-11, 12-14, 15+)"),
                              keys=tuple(PUBLISHED_PAYTABLE), complete=True, noun="paying symbol",
                              comment="published: coins per bet size x level for 8-9, 10-11, 12-14, 15+ "
                                      f"({COINS_PER_BET} coins = total bet)")),
    Field("reels", Table((
        Field("strips", Array(Text(SYMBOL_CHARS, min_length=ROWS, max_length=100_000), length=REELS, noun="strips",
                              multiline=True), note=STRIP_NOTE),
    ))),
    Field("multipliers", Table((
        Field("values", Array(Integer(low=VALUE_MIN, high=VALUE_MAX), min_length=1, noun="values")),
        Field("base_weights", Array(Integer(low=0), noun="weights")),
        Field("free_weights", Array(Integer(low=0), noun="weights")),
    ))),
))
"""The build file's layout (:mod:`reelforge.game.buildfile`)."""


def _weights(weights: list[int], n: int, at: At) -> tuple[int, ...]:
    if len(weights) != n:
        raise at.error(f"must be {n} non-negative integers (one per value), found {len(weights)}")
    if sum(weights) <= 0 or sum(weights) >= 2**31 - 1:
        raise at.error("must have a positive total below 2**31-1")
    return tuple(weights)


def _from_data(d: dict[str, Any], name: str, at: At) -> Build:
    price = d["feature_buy_price_x"]
    if (price * COINS_PER_BET).denominator != 1:
        raise (at / "feature_buy_price_x").error(f"must be a positive multiple of 1/{COINS_PER_BET}, "
                                                 f"found {fraction_text(price)}")
    got = {k: tuple(v) for k, v in d["paytable"].items()}
    if got != PUBLISHED_PAYTABLE:
        raise (at / "paytable").error(f"must be the published paytable {PUBLISHED_PAYTABLE}, found {got}")
    strips = d["reels"]["strips"]
    mult = d["multipliers"]
    values = mult["values"]
    if len(set(values)) != len(values):
        raise (at / "multipliers" / "values").error("has duplicates")
    base_w = _weights(mult["base_weights"], len(values), at / "multipliers" / "base_weights")
    free_w = _weights(mult["free_weights"], len(values), at / "multipliers" / "free_weights")
    return Build(name=name, rtp=d["rtp"], strips=tuple(strips), values=tuple(values),
                 base_weights=base_w, free_weights=free_w, feature_buy_price_x=price,
                 max_stake=d["max_stake"],
                 codes=tuple(tuple(SYMBOL_CHARS.index(ch) for ch in s) for s in strips))


def _to_data(b: Build) -> dict[str, Any]:
    data: dict[str, Any] = {"game": GAME_ID, "name": b.name, "rtp": fraction_text(b.rtp),
                            "feature_buy_price_x": fraction_text(b.feature_buy_price_x)}
    if b.max_stake != 100:   # the files leave the default out
        data["max_stake"] = b.max_stake
    data.update({
        "paytable": {k: list(v) for k, v in PUBLISHED_PAYTABLE.items()},
        "reels": {"strips": list(b.strips)},
        "multipliers": {"values": list(b.values), "base_weights": list(b.base_weights),
                        "free_weights": list(b.free_weights)},
    })
    return data


FILES: BuildFiles[Build] = BuildFiles(GAME_ID, BUILDS_DIR, SCHEMA, _from_data, _to_data)
"""List, load and write Gemstones Gold build files."""


def parse_build(data: dict[str, Any], name: str) -> Build:
    """Validate parsed TOML data as build ``name`` (raises BuildError naming the key)."""
    return FILES.parse(data, name)


def build_names() -> list[str]:
    return FILES.names()


def load_build(name: str) -> Build:
    """Load a shipped build by name."""
    return FILES.load(name)
