"""Command-line input shared by the ``reelforge`` commands and the games' own design commands (which live
in the games' folders, below the CLI): the one-line error, the number types of the options, and the
design commands' kit (sample files, JSON out). Bad input raises :class:`CliError`; the command line
reports it as one line on stderr with exit status 2, having written nothing."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, NoReturn


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


SEED = Number("--seed", "a non-negative integer", int, lambda seed: seed >= 0)


# -- the design commands' kit -------------------------------------------------------------------------
def count(value: str, name: str) -> int:
    """A positive whole number: ``1000000``, ``1_000_000`` or ``1e6`` (:class:`Count`)."""
    return Count(name)(value)


def seed_of(value: str | None, default: int) -> int:
    return default if value is None else SEED(value)


def workers_of(value: str | None) -> int | None:
    return None if value is None else count(value, "--workers")


def new_sample_path(path: Path | None, option: str) -> Path | None:
    """A path to keep a sample at: an .npz file in a folder that exists."""
    if path is None:
        return None
    if path.suffix != ".npz":
        fail(f"{option}: a sample file is an .npz archive; name it {path.with_suffix('.npz').name}")
    if not path.parent.exists():
        fail(f"{option}: folder {path.parent} does not exist")
    return path


def emit(obj: Any, path: Path | None = None) -> None:
    """JSON on stdout, or into ``path``."""
    text = json.dumps(obj, indent=1, default=str)
    if path is None:
        sys.stdout.write(text + "\n")
    else:
        path.write_text(text + "\n")


def load_sample(load: Callable[[Path], Any], path: Path) -> Any:
    """``load(path)``, or a one-line error naming the file."""
    from reelforge.game.estimation import SampleError

    try:
        return load(path)
    except SampleError as exc:
        fail(str(exc))
