"""``reelforge tune``: calibrate a build toward targets and write its data file."""

from __future__ import annotations

import typer

from reelforge.cli.common import Target, emit_json, fail
from reelforge.cli.output import console
from reelforge.game.options import Count

TARGET = Target()
TOLERANCE = Target("--tolerance")
MAX_ROUNDS = Count("--max-rounds")


def tune(
    game: str = typer.Argument(..., help="Game id."),
    build: str = typer.Option(..., "--build", "-b", help="Name of the build to write (e.g. 96.2)."),
    target: list[str] = typer.Option(None, "--target", "-t", parser=TARGET,
                                     help="name=value, e.g. rtp=0.962, hit=0.30, feature=1/180 (repeatable: "
                                          "every target at once)."),
    tolerance: list[str] = typer.Option(None, "--tolerance", parser=TOLERANCE,
                                        help="Generic tuner: name=value, how far a tuned figure may be from its "
                                             "target (e.g. rtp=0.0001; defaults: RTP 0.01 pp exactly, 0.5 pp "
                                             "simulated; hit 0.1 pp; feature 2% of itself)."),
    max_rounds: int = typer.Option(None, "--max-rounds", parser=MAX_ROUNDS,
                                   help="Generic tuner: the most simulated rounds per candidate (sized from the "
                                        "build's SD and the tolerances; default 20,000,000)."),
    version: str = typer.Option(None, "--version", help="Generic tuner: the version to write (default: the next "
                                                        "major one when the contents change)."),
    out: str = typer.Option(None, "--out", help="Output file (default: the game's builds folder)."),
    as_json: bool = typer.Option(False, "--json", help="Print the achieved figures as JSON."),
    sample: str = typer.Option(None, "--sample", help="Simulation-tuned games: keep the simulated sample in this "
                               "file, or reuse it when the file exists (candidates share it: common random "
                               "numbers)."),
) -> None:
    """Calibrate a build toward targets and write its data file (the generic tuner of tuning.py)."""
    from reelforge.game.contract import BuildError
    from reelforge.game.results import TuneResult
    from reelforge.games.registry import UnknownGame, get_game

    try:
        g = get_game(game)
    except UnknownGame as exc:
        fail(str(exc))
    targets: dict[str, float] = dict(target or [])
    if not g.capabilities.tunable:
        fail(f"{g.id} has no tuner yet")
    generic = {"tolerances": dict(tolerance) if tolerance else None, "max_rounds": max_rounds, "version": version}
    given = {k: v for k, v in generic.items() if v is not None}
    unsupported = sorted(set(given) - set(g.tune_options))
    if unsupported:
        words = {"tolerances": "--tolerance", "max_rounds": "--max-rounds", "version": "--version"}
        fail(f"{g.id} is tuned by its own design tuner: {', '.join(words[k] for k in unsupported)} do not apply")
    try:
        result = g.tune(build, targets, out, sample=sample, **given)
    except (ValueError, BuildError) as exc:
        fail(str(exc))
    if isinstance(result, TuneResult):
        result = result.to_json()
    if as_json:
        emit_json(result)
    else:
        console.print(result)
