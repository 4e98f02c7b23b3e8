"""What the commands share: the one-line error, the number types of the options, game loading, JSON."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, NoReturn

import typer


class CliError(Exception):
    """Bad input: reported as one line on stderr, exit status 2."""


def fail(message: str) -> NoReturn:
    raise CliError(message)


# -- number types of the options ------------------------------------------------------------------------
# Typer (0.2x vendors click and has no click ParamType) converts an option's text with its ``parser``:
# these are the project's parameter types, each naming its option in its one-line error.


class Count:
    """A positive whole number written as people write counts: ``1000000``, ``1_000_000``, ``1e6``
    (read exactly, never through a float)."""

    def __init__(self, option: str) -> None:
        self.option = option

    def __call__(self, value: str) -> int:
        try:
            number = Decimal(value.strip().replace("_", ""))
        except InvalidOperation:
            fail(f"{self.option} must be a positive integer, got {value!r}")
        if not number.is_finite() or number != number.to_integral_value():
            fail(f"{self.option} must be a positive integer, got {value!r}")
        if number < 1:
            fail(f"{self.option} must be a positive integer (at least 1), got {value!r}")
        return int(number)


class Number:
    """A number read by ``read`` and accepted by ``valid``; anything else is one line: ``OPTION must be
    WHAT, got 'TEXT'``."""

    def __init__(self, option: str, what: str, read: Callable[[str], Any], valid: Callable[[Any], bool]) -> None:
        self.option, self.what, self.read, self.valid = option, what, read, valid

    def __call__(self, value: str) -> Any:
        try:
            number = self.read(value)
        except ValueError:
            number = None
        if number is None or not self.valid(number):
            fail(f"{self.option} must be {self.what}, got {value!r}")
        return number


class Target:
    """A calibration target ``name=number`` (e.g. ``rtp=0.962``), as ``(name, number)``."""

    def __call__(self, value: str) -> tuple[str, float]:
        name, sep, number = value.partition("=")
        try:
            if not sep:
                raise ValueError
            return name.strip(), float(number)
        except ValueError:
            fail(f"--target must look like name=number, got {value!r}")


ROUNDS = Count("--rounds")
WORKERS = Count("--workers")
SEED = Number("--seed", "a non-negative integer", int, lambda seed: seed >= 0)
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
    from reelforge.game import BuildError, RulesError
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


def _json_default(o: Any) -> Any:
    if isinstance(o, Fraction):
        return float(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, default=_json_default, indent=2) + "\n")
