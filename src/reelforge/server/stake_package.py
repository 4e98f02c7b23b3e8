"""A Stake Engine math package held in memory for serving: its modes, each mode's lookup table and
its books, read with :mod:`reelforge.analysis.stake.format` (the format and its rules: docs/STAKE.md).

The local RGS (:mod:`reelforge.server.stake_rgs`) draws a book by its table weight and hands its
events to the front end; this module loads a package once and refuses one whose table and books
disagree, naming the file and the row, so a front end is never developed against a broken package.
Books are kept as their JSON text (a dict per book would take several times the memory).
"""

from __future__ import annotations

import bisect
import io
import json
import secrets
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from reelforge.analysis.stake.format import U64_MAX, ModeFiles, PackageError, read_index, read_table

StakePackageError = PackageError
"""The folder is not a servable Stake math package (the message names the file and the fault)."""


@dataclass(frozen=True)
class StakeMode:
    """One bet mode: its name, its cost (a multiple of the base bet), and its rounds, row by row."""

    name: str
    cost: Fraction
    ids: tuple[int, ...]
    payouts: tuple[int, ...]
    """Each row's payoutMultiplier: hundredths of the base bet (1150 is 11.5x)."""
    cumulative: tuple[int, ...]
    """Running sums of the rows' weights: row i is drawn for a uniform r in [cum[i-1], cum[i])."""
    books: tuple[str, ...]
    """Each row's book, the JSON line as written."""

    @property
    def total_weight(self) -> int:
        return self.cumulative[-1]

    def row_at(self, r: int) -> int:
        """The row whose share of ``[0, total weight)`` holds ``r`` (rows of weight 0 hold none)."""
        return bisect.bisect_right(self.cumulative, r)

    def draw(self) -> int:
        """A row drawn with probability weight / total weight, from the operating system's CSPRNG
        (``secrets``: unbiased for any total up to 2^64)."""
        return self.row_at(secrets.randbelow(self.total_weight))

    def book(self, row: int) -> dict[str, Any]:
        return json.loads(self.books[row])


@dataclass(frozen=True)
class StakePackage:
    folder: Path
    modes: dict[str, StakeMode]

    def mode(self, name: str) -> StakeMode | None:
        """The mode named ``name``, any letter case (Stake's own examples send ``BASE`` for ``base``)."""
        for mode in self.modes.values():
            if mode.name.lower() == name.lower():
                return mode
        return None


def _read_books(path: Path) -> list[str]:
    import zstandard

    try:
        with path.open("rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as reader:
            text = io.TextIOWrapper(reader, encoding="utf-8").read()
    except OSError as exc:
        raise StakePackageError(f"{path.name}: cannot read the books ({exc.strerror or exc})") from exc
    except zstandard.ZstdError as exc:
        raise StakePackageError(f"{path.name}: not zstandard-compressed JSON lines ({exc})") from exc
    return [line for line in text.splitlines() if line.strip()]


def _load_mode(folder: Path, entry: ModeFiles) -> StakeMode:
    try:
        rows = read_table(folder / entry.weights)
    except OSError as exc:
        raise StakePackageError(f"{entry.weights}: cannot read the lookup table ({exc.strerror or exc})") from exc
    books = _read_books(folder / entry.events)
    if len(books) != len(rows):
        raise StakePackageError(f"{entry.events}: {len(books)} books, but {entry.weights} has {len(rows)} rows")
    for row, (line, (table_id, _, payout)) in enumerate(zip(books, rows, strict=True), start=1):
        try:
            book = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StakePackageError(f"{entry.events} line {row}: not JSON ({exc.msg})") from None
        if not isinstance(book, dict) or not {"id", "events", "payoutMultiplier"} <= set(book):
            raise StakePackageError(f"{entry.events} line {row}: a book needs id, events and payoutMultiplier")
        if book["id"] != table_id or book["payoutMultiplier"] != payout:
            raise StakePackageError(
                f"{entry.events} line {row}: book id {book['id']} pays {book['payoutMultiplier']}, but "
                f"{entry.weights} row {row} is id {table_id} paying {payout}")
    cumulative, total = [], 0
    for _, w, _ in rows:
        total += w
        cumulative.append(total)
    if not 0 < total <= U64_MAX:     # read_table refuses both; kept so a draw can never divide by nothing
        raise StakePackageError(f"{entry.weights}: the weights sum to {total}; it must be between 1 and 2^64 - 1")
    return StakeMode(entry.name, Fraction(str(entry.cost)), tuple(r[0] for r in rows), tuple(r[2] for r in rows),
                     tuple(cumulative), tuple(books))


def load_package(folder: str | Path) -> StakePackage:
    """The package in ``folder`` (raises :class:`StakePackageError` naming the first fault)."""
    folder = Path(folder)
    entries = read_index(folder)
    lowered = [m.name.lower() for m in entries]
    if len(set(lowered)) != len(lowered):   # the RGS matches a request's mode in any letter case
        raise StakePackageError(f"{folder / 'index.json'}: mode names differ only in letter case: {[m.name for m in entries]}")
    return StakePackage(folder, {m.name: _load_mode(folder, m) for m in entries})
