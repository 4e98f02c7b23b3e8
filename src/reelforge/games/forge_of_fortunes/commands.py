"""``reelforge design forge-of-fortunes ...``: the exact-maths strip search of a build (what ``tune`` writes)."""

from __future__ import annotations

from pathlib import Path

import typer

from reelforge.game.options import emit, fail

app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                  help="Forge of Fortunes: exact strip search.")


@app.command("calibrate")
def fortunes_calibrate(
    build: str = typer.Option(..., "--build", "-b", metavar="NAME", help="Build name (its RTP in percent by default, e.g. 96.2)."),
    rtp: str = typer.Option(None, "--rtp", metavar="FRACTION", help="Target RTP as a fraction of the stake (default: the name / 100)."),
    write: bool = typer.Option(False, "--write", help="Write the build file (the shipped one, or --out)."),
    out: Path = typer.Option(None, "--out", metavar="FILE", help="Where --write writes (default: the game's builds folder)."),
) -> None:
    """Search strips on the exact figures and print them (JSON); the same search as ``reelforge tune``."""
    from fractions import Fraction

    from reelforge.games.forge_of_fortunes import design
    from reelforge.games.forge_of_fortunes.build import BUILDS_DIR

    try:
        target = Fraction(rtp) if rtp is not None else Fraction(build) / 100
    except ValueError:
        fail(f"--rtp must be a fraction of the stake such as 0.962 (or a build name in percent), got {rtp or build!r}")
    if not 0 < target < 1:
        fail(f"--rtp must be between 0 and 1 (a fraction of the stake), got {float(target)}")
    made = design.tune(build, target)
    figures = design.describe(made)
    if write:
        path = out or BUILDS_DIR / f"{build}.toml"
        path.write_text(design.build_toml(made))
        figures["written"] = str(path)
    emit(figures)
