"""Toy Line builds: strips, pays and free spins as data (``builds/*.toml``), validated on load.

Strips are strings, one letter per stop: ``A`` Anchor, ``B`` Bell, ``C`` Cherry, ``S`` Star.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from reelforge.buildfile import build_dir, list_builds, read_build, require
from reelforge.game import BuildError

GAME_ID = "toy-line"
SYMBOLS = "ABCS"
SYMBOL_WORDS = {"A": "Anchor", "B": "Bell", "C": "Cherry", "S": "Star"}
BUILDS_DIR = build_dir(__file__)


@dataclass(frozen=True)
class Build:
    """One Toy Line math model (keeps the :class:`reelforge.game.Build` protocol)."""

    name: str
    rtp: Fraction
    coins: int
    """Coins per total bet: every pay is a whole number of coins, so a coin is the win unit."""
    pays: dict[str, int]
    """Coins for three of a kind on the middle row."""
    strips: tuple[str, str, str]
    free_spins: int
    free_spins_multiplier: int
    feature_buy_price_x: Fraction | None = None


def parse_build(data: dict[str, Any], name: str) -> Build:
    where = f"{GAME_ID} build {name}"
    coins = require(data, "coins", int, where)
    pays = require(data, "pays", dict, where)
    strips = require(data, "strips", list, where)
    free_spins = require(data, "free_spins", int, where)
    multiplier = require(data, "free_spins_multiplier", int, where)
    if coins < 1 or free_spins < 1 or multiplier < 1:
        raise BuildError(f"{where}: coins, free_spins and free_spins_multiplier must be positive")
    if sorted(pays) != ["A", "B", "C"] or any(not isinstance(v, int) or v < 1 for v in pays.values()):
        raise BuildError(f"{where}: 'pays' must give A, B and C a positive whole number of coins")
    if len(strips) != 3 or any(not isinstance(s, str) or len(s) < 3 or set(s) - set(SYMBOLS) for s in strips):
        raise BuildError(f"{where}: 'strips' must be 3 strings of at least 3 stops from {SYMBOLS!r}")
    return Build(name=name, rtp=Fraction(require(data, "rtp", str, where)), coins=coins, pays=dict(pays),
                 strips=tuple(strips), free_spins=free_spins, free_spins_multiplier=multiplier)


def build_names() -> list[str]:
    return list_builds(BUILDS_DIR)


@cache
def load_build(name: str) -> Build:
    return parse_build(read_build(BUILDS_DIR, name, GAME_ID), name)
