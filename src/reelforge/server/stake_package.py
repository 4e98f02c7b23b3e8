"""A Stake Engine math package read for serving: ``index.json``, each mode's lookup table (CSV rows
``id,weight,payoutMultiplier``) and its books (``.jsonl.zst``, one JSON round a line with ``id``,
``events`` and ``payoutMultiplier``), as Stake's ``docs/rgs_docs/data_format.md`` defines them.

The local RGS (:mod:`reelforge.server.stake_rgs`) draws a book by its table weight and hands its
events to the front end; this module loads a package once and refuses one whose table and books
disagree, naming the file and the row, so a front end is never developed against a broken package.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
import secrets
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

UINT64_MAX = (1 << 64) - 1


class StakePackageError(ValueError):
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


def _read_table(path: Path) -> tuple[list[int], list[int], list[int]]:
    ids, weights, payouts = [], [], []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise StakePackageError(f"{path.name}: cannot read the lookup table ({exc.strerror or exc})") from exc
    for n, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row:
            continue
        if len(row) != 3:
            raise StakePackageError(f"{path.name} row {n}: {len(row)} fields, a lookup row is id,weight,payoutMultiplier")
        try:
            values = [int(v.strip()) for v in row]
        except ValueError:
            raise StakePackageError(f"{path.name} row {n}: {','.join(row)!r} is not three unsigned integers") from None
        if any(not 0 <= v <= UINT64_MAX for v in values):
            raise StakePackageError(f"{path.name} row {n}: {','.join(row)!r} is outside uint64")
        ids.append(values[0])
        weights.append(values[1])
        payouts.append(values[2])
    if not ids:
        raise StakePackageError(f"{path.name}: the lookup table has no rows")
    return ids, weights, payouts


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


def _load_mode(folder: Path, entry: Any, n: int) -> StakeMode:
    if not isinstance(entry, dict) or not {"name", "cost", "events", "weights"} <= set(entry):
        raise StakePackageError(f"index.json mode {n}: needs name, cost, events and weights")
    name, cost = entry["name"], entry["cost"]
    if not isinstance(name, str) or not name:
        raise StakePackageError(f"index.json mode {n}: the name must be a non-empty string")
    if isinstance(cost, bool) or not isinstance(cost, int | float) or cost <= 0:
        raise StakePackageError(f"index.json mode {name!r}: the cost must be a positive number, not {cost!r}")
    for key in ("events", "weights"):
        value = entry[key]
        if not isinstance(value, str) or Path(value).name != value:
            raise StakePackageError(f"index.json mode {name!r}: {key} must be a file name in the package, not {value!r}")
    ids, weights, payouts = _read_table(folder / entry["weights"])
    books = _read_books(folder / entry["events"])
    if len(books) != len(ids):
        raise StakePackageError(f"{entry['events']}: {len(books)} books, but {entry['weights']} has {len(ids)} rows")
    for row, (line, table_id, payout) in enumerate(zip(books, ids, payouts, strict=True), start=1):
        try:
            book = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StakePackageError(f"{entry['events']} line {row}: not JSON ({exc.msg})") from None
        if not isinstance(book, dict) or not {"id", "events", "payoutMultiplier"} <= set(book):
            raise StakePackageError(f"{entry['events']} line {row}: a book needs id, events and payoutMultiplier")
        if book["id"] != table_id or book["payoutMultiplier"] != payout:
            raise StakePackageError(
                f"{entry['events']} line {row}: book id {book['id']} pays {book['payoutMultiplier']}, but "
                f"{entry['weights']} row {row} is id {table_id} paying {payout}")
    cumulative, total = [], 0
    for w in weights:
        total += w
        cumulative.append(total)
    if total == 0 or total > UINT64_MAX:
        raise StakePackageError(f"{entry['weights']}: the weights sum to {total}; it must be between 1 and 2^64 - 1")
    return StakeMode(name, Fraction(str(cost)), tuple(ids), tuple(payouts), tuple(cumulative), tuple(books))


def load_package(folder: str | Path) -> StakePackage:
    """The package in ``folder`` (raises :class:`StakePackageError` naming the first fault)."""
    folder = Path(folder)
    index = folder / "index.json"
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except OSError as exc:
        raise StakePackageError(f"{index}: cannot read the package index ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise StakePackageError(f"{index}: not JSON ({exc.msg} at line {exc.lineno})") from None
    entries = data.get("modes") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise StakePackageError(f"{index}: needs a non-empty list 'modes'")
    modes: dict[str, StakeMode] = {}
    for n, entry in enumerate(entries, start=1):
        mode = _load_mode(folder, entry, n)
        if mode.name.lower() in {m.lower() for m in modes}:
            raise StakePackageError(f"{index}: mode {mode.name!r} appears twice")
        modes[mode.name] = mode
    return StakePackage(folder, modes)
