"""Stake Engine's static math files: written, read and checked as Stake's upload verification checks them.

A package is a folder with ``index.json`` (each mode's name, cost, books file and lookup table), per
mode a lookup table (CSV lines ``id,weight,payoutMultiplier``, unsigned 64-bit integers) and its books
(zstandard-compressed JSON lines ``{"id", "payoutMultiplier", "events"}``, in the table's order).
Payouts are hundredths of the base bet on a 0.1x grid. docs/STAKE.md states every rule :func:`check`
applies; the RGS of ``reelforge serve --stake`` reads packages with :func:`read_index`,
:func:`read_table` and :func:`iter_books`.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import Any

import zstandard

INDEX = "index.json"
U64_MAX = 2**64 - 1
GRID = 10
"""Payouts are multiples of this many hundredths of the base bet (0.1x)."""
RTP_LOW, RTP_HIGH = Fraction(90, 100), Fraction(98, 100)
MAX_MODE_SPREAD_PP = Fraction(1, 2)
"""The largest RTP difference between two modes Stake's math approval accepts, in percentage points."""
MAX_LISTED = 5
"""Problems of one kind listed per file before the rest are counted."""
_UINT = re.compile(r"[0-9]+")


class PackageError(ValueError):
    """A package that cannot be read; the message says which file and why."""


def table_file(mode: str) -> str:
    """The lookup table's file name of ``mode`` (as math-sdk names it)."""
    return f"lookUpTable_{mode}_0.csv"


def books_file(mode: str) -> str:
    """The books' file name of ``mode``."""
    return f"books_{mode}.jsonl.zst"


@dataclass(frozen=True)
class ModeFiles:
    """One entry of ``index.json``."""

    name: str
    cost: float
    events: str
    weights: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "cost": self.cost, "events": self.events, "weights": self.weights}


def write_index(out: Path, modes: list[ModeFiles]) -> Path:
    """``index.json`` listing ``modes``."""
    path = Path(out) / INDEX
    path.write_text(json.dumps({"modes": [m.to_json() for m in modes]}, indent=2) + "\n")
    return path


def write_table(path: Path, rows: Iterable[tuple[int, int, int]]) -> None:
    """A lookup table: one line ``id,weight,payoutMultiplier`` per row (refused off the format)."""
    lines = []
    for book_id, weight, payout in rows:
        if not all(isinstance(v, int) and 0 <= v <= U64_MAX for v in (book_id, weight, payout)):
            raise PackageError(f"table row {book_id},{weight},{payout}: every field is an unsigned 64-bit integer")
        lines.append(f"{book_id},{weight},{payout}\n")
    Path(path).write_text("".join(lines))


class BookWriter:
    """Books written one at a time as zstandard-compressed JSON lines (``with BookWriter(path) as w: w.add(...)``)."""

    def __init__(self, path: Path, level: int = 9) -> None:
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._writer = zstandard.ZstdCompressor(level=level).stream_writer(self._file, closefd=False)

    def add(self, book_id: int, payout: int, events: list[dict[str, Any]]) -> None:
        line = json.dumps({"id": book_id, "payoutMultiplier": payout, "events": events}, separators=(",", ":"))
        self._writer.write(line.encode() + b"\n")

    def close(self) -> None:
        self._writer.close()
        self._file.close()

    def __enter__(self) -> BookWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_index(folder: Path) -> list[ModeFiles]:
    """The modes of a package's ``index.json`` (PackageError where it breaks the form)."""
    path = Path(folder) / INDEX
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise PackageError(f"{path}: no index.json in the package folder") from None
    except (OSError, ValueError) as exc:
        raise PackageError(f"{path}: not JSON ({exc})") from None
    modes = data.get("modes") if isinstance(data, dict) else None
    if not isinstance(modes, list) or not modes:
        raise PackageError(f"{path}: must hold a non-empty list \"modes\"")
    out = []
    for i, m in enumerate(modes):
        where = f"{path}: mode {i + 1}"
        if not isinstance(m, dict):
            raise PackageError(f"{where}: not an object")
        missing = [k for k in ("name", "cost", "events", "weights") if k not in m]
        if missing:
            raise PackageError(f"{where}: missing {', '.join(missing)}")
        if not isinstance(m["name"], str) or not m["name"]:
            raise PackageError(f"{where}: name must be a non-empty string")
        cost = m["cost"]
        if isinstance(cost, bool) or not isinstance(cost, int | float) or not cost > 0:
            raise PackageError(f"{where} ({m['name']}): cost must be a positive number, got {cost!r}")
        for key, end in (("events", ".jsonl.zst"), ("weights", ".csv")):
            if not isinstance(m[key], str) or not m[key].endswith(end) or "/" in m[key]:
                raise PackageError(f"{where} ({m['name']}): {key} must name a {end} file in the folder, got {m[key]!r}")
        out.append(ModeFiles(m["name"], float(cost), m["events"], m["weights"]))
    names = [m.name for m in out]
    if len(set(names)) != len(names):
        raise PackageError(f"{path}: mode names repeat: {names}")
    return out


def read_table(path: Path) -> list[tuple[int, int, int]]:
    """A lookup table's rows ``(id, weight, payout)``, refused at the first line off the format."""
    rows, problems = _parse_table(Path(path))
    if problems:
        raise PackageError(problems[0])
    return rows


def iter_books(path: Path) -> Iterator[dict[str, Any]]:
    """The books of a ``.jsonl.zst`` file, one dict per line (blank lines skipped)."""
    with open(path, "rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as reader:
        for line in io.TextIOWrapper(reader, encoding="utf-8"):
            if line.strip():
                yield json.loads(line)


def _listed(path: Path, noun: str, found: dict[str, list[int]]) -> list[str]:
    """One problem per rule broken in ``path``, naming the first :data:`MAX_LISTED` lines or books."""
    out = []
    for rule, where in found.items():
        shown = ", ".join(map(str, where[:MAX_LISTED])) + (f" and {len(where) - MAX_LISTED} more"
                                                          if len(where) > MAX_LISTED else "")
        out.append(f"{path.name}: {noun}{'s' if len(where) > 1 else ''} {shown}: {rule}")
    return out


def _parse_table(path: Path) -> tuple[list[tuple[int, int, int]], list[str]]:
    """The rows of a table and one problem per rule broken (the first few lines of each named)."""
    rows: list[tuple[int, int, int]] = []
    found: dict[str, list[int]] = {}

    def note(rule: str, line: int) -> None:
        found.setdefault(rule, []).append(line)

    with open(path, encoding="utf-8") as f:
        for n, text in enumerate(f, start=1):
            fields = text.strip().split(",")
            if len(fields) != 3 or not all(_UINT.fullmatch(v) for v in fields):
                note("not three unsigned integers id,weight,payoutMultiplier", n)
                continue
            book_id, weight, payout = (int(v) for v in fields)
            if max(book_id, weight, payout) > U64_MAX:
                note("a value over the unsigned 64-bit maximum 18446744073709551615", n)
                continue
            if payout % GRID:
                note(f"pays off the 0.1x grid (payoutMultiplier not a multiple of {GRID})", n)
            rows.append((book_id, weight, payout))
    problems = _listed(path, "line", found)
    if not rows and not found:
        problems.append(f"{path.name}: the lookup table is empty")
    total = sum(w for _, w, _ in rows)
    if total > U64_MAX:
        problems.append(f"{path.name}: the weights sum to {total}, over the unsigned 64-bit maximum {U64_MAX}")
    elif rows and total == 0:
        problems.append(f"{path.name}: every weight is 0")
    return rows, problems


@dataclass
class ModeFigures:
    """A mode's table as Stake's verification reads it."""

    name: str
    cost: float
    books: int
    total_weight: int
    rtp: Fraction
    hit_rate: Fraction
    max_payout: int
    max_weight: int
    distinct_payouts: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "cost": self.cost, "books": self.books, "total_weight": self.total_weight,
                "rtp": float(self.rtp), "hit_rate": float(self.hit_rate), "max_win_x": self.max_payout / 100,
                "max_win_probability": self.max_weight / self.total_weight,
                "max_win_one_in": self.total_weight / self.max_weight if self.max_weight else None,
                "distinct_payouts": self.distinct_payouts}


def table_figures(name: str, cost: float, rows: list[tuple[int, int, int]]) -> ModeFigures:
    """RTP (exact), hit rate, the maximum payout and its weight of a table's ``rows``."""
    total = sum(w for _, w, _ in rows)
    paid = sum(w * p for _, w, p in rows)
    top = max((p for _, _, p in rows), default=0)
    return ModeFigures(name, cost, len(rows), total,
                       Fraction(paid, total * 100) / Fraction(repr(float(cost))) if total else Fraction(0),
                       Fraction(sum(w for _, w, p in rows if p > 0), total) if total else Fraction(0),
                       top, sum(w for _, w, p in rows if p == top), len({p for _, _, p in rows}))


def _check_books(path: Path, rows: list[tuple[int, int, int]]) -> list[str]:
    """Problems of a books file against its table: keys, types, and id and payout line by line."""
    problems: list[str] = []
    found: dict[str, list[int]] = {}
    n = 0
    try:
        for n, book in enumerate(iter_books(path), start=1):
            if not isinstance(book, dict) or any(k not in book for k in ("id", "events", "payoutMultiplier")):
                found.setdefault("lacks one of id, events, payoutMultiplier", []).append(n)
                continue
            if not isinstance(book["events"], list):
                found.setdefault("has events that are not a list", []).append(n)
            if n > len(rows):
                continue
            book_id, _, payout = rows[n - 1]
            if book["id"] != book_id:
                found.setdefault("has another id than its table line", []).append(n)
            if book["payoutMultiplier"] != payout:
                found.setdefault("pays another payoutMultiplier than its table line", []).append(n)
    except (zstandard.ZstdError, UnicodeDecodeError) as exc:
        return [f"{path.name}: not zstandard-compressed UTF-8 JSON lines ({exc})"]
    except ValueError as exc:
        return [f"{path.name}: book {n + 1} is not JSON ({exc})"]
    problems += _listed(path, "book", found)
    if n != len(rows):
        problems.append(f"{path.name}: {n} books for {len(rows)} table lines (one book per line, in order)")
    return problems


@dataclass
class CheckResult:
    """Each mode's figures, and one line per rule broken (none: the package passes)."""

    modes: list[ModeFigures] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "modes": [m.to_json() for m in self.modes], "problems": self.problems}


def check(folder: Path) -> CheckResult:
    """Every rule of docs/STAKE.md on the package in ``folder``."""
    folder = Path(folder)
    result = CheckResult()
    try:
        modes = read_index(folder)
    except PackageError as exc:
        result.problems.append(str(exc))
        return result
    for mode in modes:
        table, books = folder / mode.weights, folder / mode.events
        missing = [p.name for p in (table, books) if not p.is_file()]
        if missing:
            result.problems.append(f"mode {mode.name}: {' and '.join(missing)} not in the package")
            continue
        rows, problems = _parse_table(table)
        result.problems += problems
        result.problems += _check_books(books, rows)
        if not rows or sum(w for _, w, _ in rows) == 0:
            continue
        figures = table_figures(mode.name, mode.cost, rows)
        result.modes.append(figures)
        if not RTP_LOW <= figures.rtp <= RTP_HIGH:
            result.problems.append(f"mode {mode.name}: RTP {float(figures.rtp):.4%} is outside "
                                   f"{float(RTP_LOW):.0%}-{float(RTP_HIGH):.0%}")
    for a, b in combinations(result.modes, 2):
        spread = abs(a.rtp - b.rtp) * 100
        if spread > MAX_MODE_SPREAD_PP:
            result.problems.append(f"modes {a.name} and {b.name}: RTPs {float(a.rtp):.4%} and {float(b.rtp):.4%} "
                                   f"differ by {float(spread):.4f} pp, more than {float(MAX_MODE_SPREAD_PP)} pp")
    return result
