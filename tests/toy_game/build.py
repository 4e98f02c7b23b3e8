"""Toy Line builds: strips, pays and free spins as data (``builds/*.toml``), validated on load.

Strips are strings, one letter per stop: ``A`` Anchor, ``B`` Bell, ``C`` Cherry, ``S`` Star.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reelforge.game.buildfile import BuildFiles, build_dir
from reelforge.game.buildschema import RTP, Array, At, Field, Integer, Mapping, Table, Text, fraction_text

GAME_ID = "toy-line"
SYMBOLS = "ABCS"
SYMBOL_WORDS = {"A": "Anchor", "B": "Bell", "C": "Cherry", "S": "Star"}
BUILDS_DIR = build_dir(__file__)


@dataclass(frozen=True)
class Build:
    """One Toy Line math model (keeps the :class:`reelforge.game.contract.Build` protocol)."""

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


SCHEMA = Table((
    Field("game", Text()),
    Field("name", Text()),
    Field("rtp", RTP),                                           # a fraction of the stake
    Field("coins", Integer(low=1)),
    Field("free_spins", Integer(low=1)),
    Field("free_spins_multiplier", Integer(low=1)),
    Field("strips", Array(Text(SYMBOLS, min_length=3), length=3, noun="strips", multiline=True)),
    Field("pays", Mapping(Integer(low=1), keys=("A", "B", "C"), complete=True, noun="symbol",
                          comment="coins for three of a kind on the middle row")),
))
"""The build file's layout: every key's type and range, checked on load."""


def _from_data(d: dict[str, Any], name: str, at: At) -> Build:
    # checks across keys go here (at / "key").error("..."); the toy has none
    return Build(name=name, rtp=d["rtp"], coins=d["coins"], pays=d["pays"], strips=tuple(d["strips"]),
                 free_spins=d["free_spins"], free_spins_multiplier=d["free_spins_multiplier"])


def _to_data(b: Build) -> dict[str, Any]:
    return {"game": GAME_ID, "name": b.name, "rtp": fraction_text(b.rtp), "coins": b.coins,
            "free_spins": b.free_spins, "free_spins_multiplier": b.free_spins_multiplier,
            "strips": list(b.strips), "pays": dict(b.pays)}


FILES = BuildFiles(GAME_ID, BUILDS_DIR, SCHEMA, _from_data, _to_data)


def parse_build(data: dict[str, Any], name: str) -> Build:
    return FILES.parse(data, name)


def build_names() -> list[str]:
    return FILES.names()                     # file stems, highest RTP first


def load_build(name: str) -> Build:          # unknown names raise BuildError listing the valid ones
    return FILES.load(name)
