"""demo_normal's build: 5x3 lines in the peer's numbering (:mod:`reelforge.games.problab.peer_builds`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reelforge.game.buildfile import BuildFiles, build_dir
from reelforge.game.buildschema import Array, At, Field, Integer, Table
from reelforge.games.problab.peer_builds import (
    CODES,
    COMMON_FIELDS,
    PeerBuild,
    common_data,
    common_from_data,
    mode_data,
    mode_schema,
)

NORMAL_ID = "problab-demo-normal"
BUILDS = build_dir(__file__)


@dataclass(frozen=True, kw_only=True)
class NormalBuild(PeerBuild):
    """demo_normal: 5x3, left-to-right lines from the line table, a wild, 3+ scatters award free rounds."""

    lines: tuple[tuple[int, ...], ...]
    """``lines[line][reel]``: the row (0 at the top) the line crosses on each reel."""


NORMAL_SCHEMA = Table((*COMMON_FIELDS, Field("free_rounds", Integer(low=1)),
                       Field("lines", Array(CODES, min_length=1, noun="lines", multiline=True)),
                       Field("base", mode_schema(False)), Field("free", mode_schema(False))))


def _normal_from_data(d: dict[str, Any], name: str, at: At) -> NormalBuild:
    common = common_from_data(d, name, at)
    for i, line in enumerate(d["lines"]):
        if len(line) != len(d["base"]["reels"]) or max(line) >= d["rows"]:
            raise (at / "lines" / (i + 1)).error("must give a row below 'rows' for every reel")
    return NormalBuild(**common, lines=tuple(map(tuple, d["lines"])))


def _normal_to_data(b: NormalBuild) -> dict[str, Any]:
    return {**common_data(NORMAL_ID, b), "free_rounds": b.free_rounds, "lines": [list(x) for x in b.lines],
            "base": mode_data(b.base), "free": mode_data(b.free)}


NORMAL_FILES = BuildFiles(NORMAL_ID, BUILDS, NORMAL_SCHEMA, _normal_from_data, _normal_to_data)
