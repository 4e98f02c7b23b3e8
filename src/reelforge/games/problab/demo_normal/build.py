"""demo_normal's build: 5x3 lines in the peer's numbering (:mod:`reelforge.games.problab.peer_builds`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reelforge.game.buildfile import BuildFiles, build_dir
from reelforge.game.buildschema import Array, At, Field, Integer, Table
from reelforge.games.problab.peer_builds import (
    CODES,
    COMMON_FIELDS,
    Mode,
    check_symbols,
    common_data,
    mode_data,
    mode_from_data,
    mode_schema,
    symbol_code,
)

NORMAL_ID = "problab-demo-normal"
BUILDS = build_dir(__file__)


@dataclass(frozen=True)
class NormalBuild:
    """demo_normal: 5x3, left-to-right lines from the line table, a wild, 3+ scatters award free rounds."""

    name: str
    rtp: Fraction
    bet_unit: int
    max_win_limit: int
    """The peer's declared ``max_win_limit`` (units): its engine never applies it (see the game's docs)."""
    symbols: tuple[str, ...]
    rows: int
    free_rounds: int
    lines: tuple[tuple[int, ...], ...]
    """``lines[line][reel]``: the row (0 at the top) the line crosses on each reel."""
    base: Mode
    free: Mode
    feature_buy_price_x: Fraction | None = None

    def code(self, kind: str) -> int:
        return symbol_code(self.symbols, kind)


NORMAL_SCHEMA = Table((*COMMON_FIELDS, Field("free_rounds", Integer(low=1)),
                       Field("lines", Array(CODES, min_length=1, noun="lines", multiline=True)),
                       Field("base", mode_schema(False)), Field("free", mode_schema(False))))


def _normal_from_data(d: dict[str, Any], name: str, at: At) -> NormalBuild:
    symbols = check_symbols(d["symbols"], at)
    for i, line in enumerate(d["lines"]):
        if len(line) != len(d["base"]["reels"]) or max(line) >= d["rows"]:
            raise (at / "lines" / (i + 1)).error("must give a row below 'rows' for every reel")
    reels = len(d["base"]["reels"])
    return NormalBuild(name=name, rtp=d["rtp"], bet_unit=d["bet_unit"], max_win_limit=d["max_win_limit"],
                       symbols=symbols, rows=d["rows"], free_rounds=d["free_rounds"],
                       lines=tuple(map(tuple, d["lines"])), base=mode_from_data(d["base"], len(symbols), reels, at / "base"),
                       free=mode_from_data(d["free"], len(symbols), reels, at / "free"))


def _normal_to_data(b: NormalBuild) -> dict[str, Any]:
    return {**common_data(NORMAL_ID, b), "free_rounds": b.free_rounds, "lines": [list(x) for x in b.lines],
            "base": mode_data(b.base), "free": mode_data(b.free)}


NORMAL_FILES = BuildFiles(NORMAL_ID, BUILDS, NORMAL_SCHEMA, _normal_from_data, _normal_to_data)
