"""``reelforge tune``: calibrate a build toward targets and write its data file."""

from __future__ import annotations

import typer

from reelforge.cli.common import Target, emit_json, fail
from reelforge.cli.output import console

TARGET = Target()


def tune(
    game: str = typer.Argument(..., help="Game id."),
    build: str = typer.Option(..., "--build", "-b", help="Name of the build to write (e.g. 96.2)."),
    target: list[str] = typer.Option(None, "--target", "-t", parser=TARGET,
                                     help="name=value, e.g. rtp=0.962 (repeatable)."),
    out: str = typer.Option(None, "--out", help="Output file (default: the game's builds folder)."),
    as_json: bool = typer.Option(False, "--json", help="Print the achieved figures as JSON."),
    sample: str = typer.Option(None, "--sample", help="Simulation-tuned games: keep the simulated sample in this "
                               "file, or reuse it when the file exists (candidates share it: common random "
                               "numbers)."),
) -> None:
    """Calibrate a build toward targets and write its data file (the generic tuner of tuning.py)."""
    from reelforge.game.contract import TuneResult
    from reelforge.games.registry import UnknownGame, get_game

    try:
        g = get_game(game)
    except UnknownGame as exc:
        fail(str(exc))
    targets: dict[str, float] = dict(target or [])
    if not g.capabilities.tunable:
        fail(f"{g.id} has no tuner yet")
    try:
        result = g.tune(build, targets, out, sample=sample)
    except ValueError as exc:
        fail(str(exc))
    if isinstance(result, TuneResult):
        result = result.to_json()
    if as_json:
        emit_json(result)
    else:
        console.print(result)
