"""Certification targets a game keeps as data (``targets.toml`` beside its ``builds`` folder), each with its
source and the document section it is cited from: how a game without published rules (a new game) declares
what its packages are measured against.

The file::

    [[targets."96.0"]]           # the build's name
    figure = "RTP"               # in words
    key = "rtp"                  # the summary's key (see CertificationTarget.key)
    target = 0.96
    tolerance = 0.0001           # half-width of the band (omit for a level or a reachability)
    unit = "%"                   # %, pp, per round, level or ""
    kind = "interval"            # interval, point, equal, at_least or reachable
    source = "design document"
    document = "..."             # the document and its section
    note = "..."

A target of the file is refused unless it names its source and its document, so no target is uncited.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from reelforge.game.reporting import CertificationTarget

TARGETS_FILE = "targets.toml"
FIELDS = {"figure", "key", "target", "tolerance", "source", "unit", "note", "kind", "document"}


def targets_path(game: Any) -> Path | None:
    """The game's targets file (beside its builds folder), or None where the game keeps none."""
    files = getattr(game, "build_files", None)
    if files is None:
        return None
    path = Path(files.folder).parent / TARGETS_FILE
    return path if path.exists() else None


def data_targets(game: Any, build: Any) -> list[CertificationTarget]:
    """The targets the game's ``targets.toml`` gives ``build`` (none where it has no file or no table for it)."""
    path = targets_path(game)
    if path is None:
        return []
    rows = tomllib.loads(path.read_text()).get("targets", {}).get(build.name, [])
    out = []
    for i, row in enumerate(rows):
        unknown = set(row) - FIELDS
        missing = {"figure", "key", "target", "source", "document"} - set(row)
        if unknown or missing:
            raise ValueError(f"{path.name}: target {i + 1} of build {build.name}: "
                             + (f"unknown field(s) {', '.join(sorted(unknown))}" if unknown else
                                f"missing {', '.join(sorted(missing))}"))
        out.append(CertificationTarget(row["figure"], row["key"], row["target"], row.get("tolerance"),
                                       row["source"], row.get("unit", "%"), row.get("note", ""),
                                       row.get("kind", "interval"), row["document"]))
    return out
