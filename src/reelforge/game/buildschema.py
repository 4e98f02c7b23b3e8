"""The schema of a build file (TOML), the same way for every game: a game declares its file layout
once, as a :class:`Table` of :class:`Field` s (types, ranges, alphabets, lengths, defaults, and the
comments the writer puts beside the values). Every problem is a
:class:`~reelforge.game.contract.BuildError` naming the file (or build), the key and what is wrong::

    forge-of-gems build 96.2 (96.2.toml): 'cells.reel3.K' must be a non-negative integer, found -5

The writer (:func:`dump`) renders data in the schema's order with its comments and checks the text
by reading it back (:mod:`tomllib`): what it writes always loads to the same data.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from reelforge.game.contract import BuildError


# -- where a problem is ------------------------------------------------------------------------
@dataclass(frozen=True)
class At:
    """A place in a build: the build (or file) and the key path inside it."""

    source: str
    path: tuple[str, ...] = ()

    def __truediv__(self, key: str | int) -> At:
        return At(self.source, (*self.path, str(key)))

    @property
    def key(self) -> str:
        return ".".join(self.path)

    def error(self, problem: str) -> BuildError:
        """A BuildError naming the source, this key and ``problem`` (``"must be ..."``)."""
        if not self.path:
            return BuildError(f"{self.source}: {problem}")
        return BuildError(f"{self.source}: '{self.key}' {problem}")

    def missing(self) -> BuildError:
        return BuildError(f"{self.source}: missing '{self.key}'")


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# -- the schema ----------------------------------------------------------------------------------
class Kind:
    """What a value must be (checked on load) and how it is written."""

    def check(self, value: Any, at: At) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class Integer(Kind):
    low: int | None = None
    high: int | None = None
    hint: str = ""
    """Said after any problem (e.g. why the value must be one number)."""

    def check(self, value: Any, at: At) -> int:
        if not is_int(value) or (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high):
            if self.low is not None and self.high is not None:
                want = f"an integer in {self.low}..{self.high}"
            elif self.low == 0:
                want = "a non-negative integer"
            elif self.low == 1:
                want = "a positive integer"
            elif self.low is not None:
                want = f"an integer of at least {self.low}"
            else:
                want = "an integer"
            raise at.error(f"must be {want}, found {value!r}{self.hint}")
        return value


@dataclass(frozen=True)
class Text(Kind):
    alphabet: str | None = None
    """Allowed characters (one per symbol), or None for any text."""
    min_length: int = 0
    max_length: int | None = None

    def check(self, value: Any, at: At) -> str:
        if not isinstance(value, str):
            raise at.error(f"must be a string, found {value!r}")
        if len(value) < self.min_length or (self.max_length is not None and len(value) > self.max_length):
            most = f" and at most {self.max_length:,}" if self.max_length is not None else ""
            raise at.error(f"must have at least {self.min_length}{most} symbols, found {len(value):,}")
        if self.alphabet is not None:
            bad = sorted(set(value) - set(self.alphabet))
            if bad:
                raise at.error(f"holds unknown symbol(s) {''.join(bad)!r} (allowed: {self.alphabet!r})")
        return value


@dataclass(frozen=True)
class Number(Kind):
    """An exact number written as text (``"0.962"``, ``"561/10"``) or an integer; read as a Fraction."""

    positive: bool = False
    below: Fraction | None = None
    """Values must be smaller than this."""
    floats: bool = False
    """Also accept a TOML float (read through its shortest text, ``0.962`` -> 481/500)."""
    hint: str = ""

    def check(self, value: Any, at: At) -> Fraction:
        kinds = (str, int, float) if self.floats else (str, int)
        if not isinstance(value, kinds) or isinstance(value, bool):
            raise at.error(f"must be a number written as text (e.g. \"0.962\"), found {value!r}")
        try:
            x = Fraction(str(value).strip())
        except (ValueError, ZeroDivisionError):
            raise at.error(f"is not a number: {value!r}") from None
        if self.positive and x <= 0:
            raise at.error(f"must be positive, found {value!r}{self.hint}")
        if self.below is not None and x >= self.below:
            raise at.error(f"must be below {fraction_text(self.below)}, found {value!r}{self.hint}")
        return x


RTP = Number(floats=True, below=Fraction(2), hint=" (an RTP is a fraction of the stake: 0.962 for 96.2%)")
"""The nominal RTP of a build: a fraction of the stake, never a percentage."""


@dataclass(frozen=True)
class Array(Kind):
    item: Kind
    length: int | None = None
    min_length: int = 0
    noun: str = "entries"
    """What the entries are, for messages (``strips``)."""
    multiline: bool = False
    """Written one entry a line (long strips)."""
    item_comment: Callable[[int, dict[str, Any]], str] | None = None
    """Comment beside entry i of a multi-line array, given the whole build's data."""

    def check(self, value: Any, at: At) -> list[Any]:
        if not isinstance(value, list):
            raise at.error(f"must be a list of {self.noun}, found {value!r}")
        if self.length is not None and len(value) != self.length:
            raise at.error(f"must hold {self.length} {self.noun}, found {len(value)}")
        if len(value) < self.min_length:
            raise at.error(f"must hold at least {self.min_length} {self.noun}, found {len(value)}")
        return [self.item.check(v, at / (i + 1)) for i, v in enumerate(value)]


@dataclass(frozen=True)
class Either(Kind):
    """One of several kinds (the first that accepts the value); messages name the first's problem."""

    kinds: tuple[Kind, ...]

    def check(self, value: Any, at: At) -> Any:
        first: BuildError | None = None
        for kind in self.kinds:
            try:
                return kind.check(value, at)
            except BuildError as exc:
                first = first or exc
        assert first is not None
        raise first


@dataclass(frozen=True)
class Field:
    key: str
    kind: Kind
    required: bool = True
    default: Any = None
    """Filled in when an optional key is absent."""
    note: str | None = None
    """A comment line written above the key."""


@dataclass(frozen=True)
class Table(Kind):
    """A table with fixed keys (unknown keys are refused: a typo never passes silently)."""

    fields: tuple[Field, ...]
    comment: str | None = None
    """Written beside the table's header."""

    def check(self, value: Any, at: At) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise at.error(f"must be a table, found {value!r}")
        known = {f.key for f in self.fields}
        unknown = sorted(set(value) - known)
        if unknown:
            where = f"in '{at.key}'" if at.path else "at the top level"
            raise BuildError(f"{at.source}: unknown key(s) {unknown} {where}; allowed: {', '.join(f.key for f in self.fields)}")
        out: dict[str, Any] = {}
        for f in self.fields:
            if f.key in value:
                out[f.key] = f.kind.check(value[f.key], at / f.key)
            elif f.required:
                raise (at / f.key).missing()
            elif f.default is not None:
                out[f.key] = f.default
        return out

    def field(self, key: str) -> Field | None:
        return next((f for f in self.fields if f.key == key), None)


@dataclass(frozen=True)
class Mapping(Kind):
    """A table of entries of one kind (weights per symbol, strip sets by name)."""

    value: Kind
    keys: tuple[str, ...] | None = None
    """The allowed keys, or None for any."""
    complete: bool = False
    """Every allowed key must be present (absent ones are otherwise read as ``default``)."""
    default: Any = None
    noun: str = "key"
    """What a key is, for messages (``symbol``)."""
    comment: str | None = None
    """Written beside the header of this table (or of every entry, when the entries are tables)."""
    value_comment: Callable[[str], str] | None = None
    """Comment beside the entry of a key."""

    def check(self, value: Any, at: At) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise at.error(f"must be a table, found {value!r}")
        if self.keys is not None:
            unknown = sorted(set(value) - set(self.keys))
            if unknown:
                raise at.error(f"has unknown {self.noun}(s) {unknown}; allowed: {', '.join(self.keys)}")
            missing = [k for k in self.keys if k not in value]
            if missing and self.complete:
                raise (at / missing[0]).missing()
            names = self.keys if self.default is not None else [k for k in self.keys if k in value]
        else:
            names = list(value)
        return {k: self.value.check(value[k], at / k) if k in value else self.default for k in names}


# -- reading -------------------------------------------------------------------------------------
def read_toml(path: Path, source: str) -> dict[str, Any]:
    """A TOML file as data, or a BuildError naming it."""
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BuildError(f"{source}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise BuildError(f"{source}: cannot be read: {exc.strerror or exc}") from exc


def fraction_text(x: Fraction) -> str:
    """An exact number as text: a plain decimal where it has one (481/500 -> ``0.962``), else ``p/q``."""
    x = Fraction(x)
    d = x.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return f"{x.numerator}/{x.denominator}"
    places = max(twos, fives)
    if places == 0:
        return str(x.numerator)
    digits = abs(x.numerator) * 10**places // x.denominator
    sign = "-" if x < 0 else ""
    whole, frac = divmod(digits, 10**places)
    return f"{sign}{whole}.{frac:0{places}d}".rstrip("0")


# -- writing -------------------------------------------------------------------------------------
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _key(k: str) -> str:
    return k if _BARE.fullmatch(k) else _string(k)


def _string(s: str) -> str:
    # JSON's escapes are TOML's; DEL must be escaped in TOML too
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} to TOML: {v!r}")


def _entry_kind(kind: Kind | None, key: str) -> tuple[Kind | None, Field | None]:
    if isinstance(kind, Table):
        f = kind.field(key)
        return (f.kind if f else None), f
    if isinstance(kind, Mapping):
        return kind.value, None
    return None, None


def _section(kind: Kind | None, data: dict[str, Any], path: list[str], root: dict[str, Any],
             out: list[str], comment: str | None) -> None:
    values = [(k, v) for k, v in data.items() if not isinstance(v, dict)]
    tables = [(k, v) for k, v in data.items() if isinstance(v, dict)]
    if path and (values or not tables):
        if out:
            out.append("")
        out.append(f"[{'.'.join(_key(p) for p in path)}]" + (f"  # {comment}" if comment else ""))
    for k, v in values:
        sub, f = _entry_kind(kind, k)
        if f is not None and f.note:
            out += [f"# {line}".rstrip() for line in f.note.splitlines()]
        beside = kind.value_comment(k) if isinstance(kind, Mapping) and kind.value_comment else None
        tail = f"  # {beside}" if beside else ""
        if isinstance(sub, Array) and sub.multiline and isinstance(v, list):
            out.append(f"{_key(k)} = [")
            for i, item in enumerate(v):
                c = sub.item_comment(i, root) if sub.item_comment else None
                out.append(f"  {_value(item)}," + (f"  # {c}" if c else ""))
            out.append("]" + tail)
        else:
            out.append(f"{_key(k)} = {_value(v)}{tail}")
    for k, v in tables:
        sub, _ = _entry_kind(kind, k)
        own = getattr(sub, "comment", None)
        if own is None and isinstance(kind, Mapping):
            own = kind.comment    # the entries of a mapping share its comment
        _section(sub, v, [*path, k], root, out, own)


def dump(schema: Table, data: dict[str, Any], header: str = "") -> str:
    """``data`` as TOML text in its own key order, with the schema's comments and ``header`` (comment
    lines) on top. Raises ValueError if the text would not read back as ``data``."""
    out = [f"# {line}".rstrip() for line in header.splitlines()]
    _section(schema, data, [], data, out, None)
    text = "\n".join(out) + "\n"
    if tomllib.loads(text) != data:
        raise ValueError("the TOML writer produced text that does not read back as the data it was given")
    return text
