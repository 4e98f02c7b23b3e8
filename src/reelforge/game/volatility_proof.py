"""The volatility level a game's help shows where no exact SD gives it (issue 34: every published figure proven).

A game whose figures are simulated states its help's level from a record beside its module
(``volatility_figures.toml``, keyed by the build's content hash): a plain simulation's round-win SD with its 99%
interval (the delta method with the fourth moment, from the kernels' exact power sums), written by
``python bench/volatility_record.py GAME --build B --rounds N --seed S`` and never by hand. The level is proven
only when the whole interval lies inside one level of the project's scale (GAMES.md); a record whose interval
spans two levels, or a build without a record, is refused with the reason (a larger run decides it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reelforge.core.stats import VOLATILITY_SD_FROM, volatility_levels
from reelforge.game.rtp_proof import beside_game, load_records

if TYPE_CHECKING:
    from reelforge.game.contract import Build, Game

VOLATILITY_RECORD = "volatility_figures.toml"
"""The file beside a game's module recording its builds' round-win SD intervals by content hash."""
RECORD_KEYS = ("build", "version", "sd", "sd_low", "sd_high", "confidence", "rounds", "seed", "method", "command")


def volatility_record(game: Game, build: Build) -> dict[str, Any] | None:
    """The recorded SD of ``build``'s content, or None."""
    return load_records(beside_game(game, VOLATILITY_RECORD)).get(build.identity.content_hash)


def proven_volatility(game: Game, build: Build) -> int:
    """The volatility level (1-10) that ``build``'s recorded SD interval proves; ValueError naming what is missing
    where there is no record or its interval spans two levels."""
    entry = volatility_record(game, build)
    if entry is None:
        raise ValueError(f"{game.id} {build.identity.label}: no SD is recorded for this build's content in "
                         f"{VOLATILITY_RECORD} (python bench/volatility_record.py {game.id} --build {build.name} "
                         f"--version {build.identity.version} --rounds N --seed S)")
    levels = volatility_levels(float(entry["sd_low"]), float(entry["sd_high"]))
    if len(levels) != 1:
        edges = ", ".join(f"{VOLATILITY_SD_FROM[lv - 1]:g}x" for lv in levels[1:])
        raise ValueError(f"{game.id} {build.identity.label}: the recorded SD's 99% interval [{entry['sd_low']}, "
                         f"{entry['sd_high']}] spans levels {levels[0]}-{levels[-1]} (a level starts at {edges}): "
                         "a larger simulation decides it")
    return levels[0]
