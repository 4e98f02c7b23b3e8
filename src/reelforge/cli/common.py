"""What the commands share: the one-line error and the number types of the options (from
:mod:`reelforge.game.options`), the common options, game loading, JSON."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from typing import Any

import typer

from reelforge.game.options import SEED as SEED  # the option types live with the games' design commands' kit
from reelforge.game.options import CliError as CliError
from reelforge.game.options import Count, Number, fail


class Target:
    """A calibration target ``name=number`` (e.g. ``rtp=0.962``, ``feature=1/180``), as ``(name, number)``;
    ``option`` names the option in the error (``--tolerance``)."""

    def __init__(self, option: str = "--target") -> None:
        self.option = option

    def __call__(self, value: str) -> tuple[str, float]:
        name, sep, number = value.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            return name.strip(), float(Fraction(number.strip()))
        except (ValueError, ZeroDivisionError):
            fail(f"{self.option} must look like name=number (e.g. rtp=0.96 or feature=1/180), got {value!r}")


ROUNDS = Count("--rounds")
WORKERS = Count("--workers")
PRECISION = Number("--precision", "a positive number of percentage points", float,
                   lambda p: math.isfinite(p) and p > 0)

BUILD_OPT = typer.Option(None, "--build", "-b", metavar="BUILD", help="Build name (default: the highest RTP).")
WORKERS_OPT = typer.Option(None, "--workers", "-w", metavar="N", parser=WORKERS,
                           help="Worker processes (default: all cores).")
JSON_OPT = typer.Option(False, "--json", help="One JSON object.")
BACKEND_OPT = typer.Option("local", "--backend", metavar="NAME", help="local (worker processes) or ray.")
ADDRESS_OPT = typer.Option(None, "--address", metavar="HOST:PORT",
                           help="Ray cluster address (default: start a local Ray).")
PRECISION_OPT = typer.Option(None, "--precision", metavar="PP", parser=PRECISION,
                             help="Stop when the 99% RTP half-width is below this (pp).")


def load(game_id: str, build_name: str | None, mode: str = "paid") -> tuple[Any, Any]:
    """Game and build objects, or a clear error listing the valid ones."""
    from reelforge.game.contract import BuildError, RulesError
    from reelforge.games.registry import UnknownGame, get_game

    try:
        game = get_game(game_id)
        build = game.load_build(build_name or game.default_build())
        game.check_mode(mode)
        if mode != "paid":
            game.stake_x(build, mode)
    except (UnknownGame, BuildError, RulesError) as exc:
        fail(str(exc))
    return game, build


def register_game_class(game: str, game_class: str | None) -> None:
    """Register ``game`` as ``game_class`` (``module:Class``) for this run: a game outside the lobby, such
    as a benchmark game; a bad class is one line."""
    from reelforge.games.registry import GAME_CLASSES, register

    if game_class and GAME_CLASSES.get(game) != game_class:
        try:
            register(game, game_class)
        except ValueError as exc:
            fail(str(exc))


def _json_default(o: Any) -> Any:
    if isinstance(o, Fraction):
        return float(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, default=_json_default, indent=2) + "\n")


LANG_OPT = typer.Option(None, "--lang", metavar="LANG", help="Add the help text as the game shows it to players in "
                        "this language (ISO 639-1: ar de en es fi fr hi id ja ko pl pt ru tr vi zh).")


def check_lang(lang: str | None) -> None:
    """Refuse, in one line, a ``--lang`` that is not one of the languages."""
    from reelforge.analysis.help_text import check_language

    if lang is not None:
        try:
            check_language(lang)
        except ValueError as exc:
            fail(f"--lang: {exc}")
