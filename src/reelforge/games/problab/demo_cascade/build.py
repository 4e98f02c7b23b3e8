"""demo_cascade's build: 5x5 clusters with tumbles in the peer's numbering (:mod:`reelforge.games.problab.peer_builds`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reelforge.game.buildfile import BuildFiles, build_dir
from reelforge.game.buildschema import At, Field, Integer, Table
from reelforge.games.problab.peer_builds import (
    COMMON_FIELDS,
    PeerBuild,
    common_data,
    common_from_data,
    mode_data,
    mode_schema,
)

CASCADE_ID = "problab-demo-cascade"
BUILDS = build_dir(__file__)


@dataclass(frozen=True, kw_only=True)
class CascadeBuild(PeerBuild):
    """demo_cascade: 5x5 cluster pays with wilds, tumbles refilled from the fill reels, scatters."""

    max_step: int
    """At most this many evaluations of the board per spin (the peer's ``max_step``)."""
    scatter_pay: int
    """Units the scatters pay when they trigger (on the paid spin's final board)."""
    trigger: int
    """Scatters on the paid spin's final board that award the free rounds."""


CASCADE_SCHEMA = Table((*COMMON_FIELDS, Field("max_step", Integer(low=1)), Field("free_rounds", Integer(low=1)),
                        Field("scatter_pay", Integer(low=0)), Field("trigger", Integer(low=1)),
                        Field("base", mode_schema(True)), Field("free", mode_schema(True))))


def _cascade_from_data(d: dict[str, Any], name: str, at: At) -> CascadeBuild:
    return CascadeBuild(**common_from_data(d, name, at), max_step=d["max_step"], scatter_pay=d["scatter_pay"],
                        trigger=d["trigger"])


def _cascade_to_data(b: CascadeBuild) -> dict[str, Any]:
    return {**common_data(CASCADE_ID, b), "max_step": b.max_step, "free_rounds": b.free_rounds,
            "scatter_pay": b.scatter_pay, "trigger": b.trigger, "base": mode_data(b.base), "free": mode_data(b.free)}


CASCADE_FILES = BuildFiles(CASCADE_ID, BUILDS, CASCADE_SCHEMA, _cascade_from_data, _cascade_to_data)
