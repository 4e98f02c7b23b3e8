"""Build files (TOML), the same way for every game: list them, load them against a declared schema,
write them through one TOML writer, and cache a build's kernel tables.

A game declares its file layout once, as a :class:`Table` of :class:`Field` s (types, ranges,
alphabets, lengths, defaults, and the comments the writer puts beside the values), and gives a
:class:`BuildFiles` two functions: ``from_data`` (checked data -> its Build, with the checks that
involve several keys) and ``to_data`` (Build -> plain TOML data). Every problem is a
:class:`~reelforge.game.contract.BuildError` naming the file (or build), the key and what is wrong::

    forge-of-gems build 96.2 (96.2.toml): 'cells.reel3.K' must be a non-negative integer, found -5

The writer (:func:`dump`) renders data in the schema's order with its comments and checks the text
by reading it back (:mod:`tomllib`): what it writes always loads to the same data.

Versions: a published build never changes. ``builds/<name>.toml`` is the current version of build
``<name>`` (its ``version`` key says which); every older version stays, unchanged, as
``builds/older/<name>/<version>.toml``, loadable for the rounds played with it. A file's optional
``rules`` key names the rules version it is played with (default ``"1"``). Every loaded build
carries its :class:`~reelforge.game.contract.BuildIdentity` (``build.identity``): game, name, version, rules
and the content hash (SHA-256 of the canonical data and the rules version, :func:`content_hash`);
the game's ``game.toml`` locks the hash of every published version (a test checks it).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Generic, TypeVar

from reelforge.game.contract import UNPUBLISHED, BuildError, BuildIdentity

B = TypeVar("B")


def build_dir(package_file: str) -> Path:
    """The ``builds/`` folder next to a game package's module."""
    return Path(package_file).resolve().parent / "builds"


def list_builds(folder: Path) -> list[str]:
    """Build names (file stems) in ``folder``, highest RTP first."""
    names = [p.stem for p in folder.glob("*.toml")]

    def key(n: str) -> tuple[float, str]:
        try:
            return (-float(n), n)
        except ValueError:
            return (0.0, n)

    return sorted(names, key=key)


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


def _is_int(v: Any) -> bool:
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
        if not _is_int(value) or (self.low is not None and value < self.low) or (
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


# -- versions and content identity ----------------------------------------------------------------
OLDER = "older"
"""The folder (inside ``builds/``) of the older versions: ``older/<name>/<version>.toml``."""
VERSION_PATTERN = re.compile(r"[0-9]+(\.[0-9]+)*")
"""A version is numbers joined by dots (``1.0``, ``2.1``)."""


def version_key(version: str) -> tuple[int, ...]:
    """Sort key of a version (``1.10`` after ``1.9``; anything else, e.g. unpublished, last)."""
    if not VERSION_PATTERN.fullmatch(version):
        return (1 << 62,)
    return tuple(int(p) for p in version.split("."))


def content_hash(game_id: str, rules: str, data: dict[str, Any]) -> str:
    """SHA-256 (hex) of a build's canonical data (its ``to_data``, which fixes every default and the
    number forms) and the rules version it is played with: comments, key order and layout of the file
    do not count, any change of the maths does."""
    canonical = json.dumps({"game": game_id, "rules": rules, "build": data}, sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


# -- one game's build files -----------------------------------------------------------------------
@dataclass
class BuildFiles(Generic[B]):
    """A game's build files: a folder of ``<name>.toml`` (the current versions) with their older
    versions under ``older/``, a schema, and the two conversions."""

    game_id: str
    folder: Path
    schema: Table
    from_data: Callable[[dict[str, Any], str, At], B]
    """Checked data (defaults filled in) -> the Build; raises ``at.error(...)`` for cross-key problems."""
    to_data: Callable[[B], dict[str, Any]]
    """A Build as plain TOML data (the inverse of ``from_data``)."""
    rules_versions: tuple[str, ...] = ("1",)
    """The rules versions the game's reference engine plays (a file's ``rules``; ``"1"`` when absent).
    A game whose schema has a ``rules`` field gets it in its data (to read older layouts), and the
    field's default is the rules of a file without it."""
    _cache: dict[tuple[str, str | None], B] = field(default_factory=dict, repr=False)

    def names(self) -> list[str]:
        """Names of the shipped builds, highest RTP first."""
        return list_builds(self.folder)

    def versions(self, name: str) -> list[str]:
        """Every published version of build ``name``, oldest first (the last is the current file's)."""
        current = self.load(name).identity.version  # type: ignore[attr-defined]
        older = [p.stem for p in (self.folder / OLDER / name).glob("*.toml")]
        return sorted({*older, current}, key=version_key)

    def parse(self, data: dict[str, Any], name: str, source: str | None = None) -> B:
        """Check ``data`` against the schema and make the build ``name`` with its identity (a ``version``
        key gives its version; without one it is :data:`~reelforge.game.contract.UNPUBLISHED`)."""
        at = At(source or f"{self.game_id} build {name}")
        data = dict(data)
        version = data.pop("version", UNPUBLISHED)
        if version != UNPUBLISHED and not (isinstance(version, str) and VERSION_PATTERN.fullmatch(version)):
            raise (at / "version").error(f"must be a version written as text, numbers joined by dots "
                                         f"(e.g. \"2.0\"), found {version!r}")
        declared = self.schema.field("rules")  # a game reading older layouts; its default: the current rules
        rules = data.get("rules", declared.default) if declared else data.pop("rules", "1")
        if rules not in self.rules_versions:
            raise (at / "rules").error(f"must be one of the rules versions {list(self.rules_versions)}, "
                                       f"found {rules!r}")
        build = self.from_data(self.schema.check(data, at), name, at)
        identity = BuildIdentity(self.game_id, name, version, rules,
                                 content_hash(self.game_id, rules, self.to_data(build)))
        # Builds are frozen dataclasses of each game; the identity is set once, here, beside their fields.
        try:
            object.__setattr__(build, "identity", identity)
        except AttributeError:
            raise TypeError(f"{self.game_id}: a Build must take the 'identity' attribute (a dataclass without "
                            "slots)") from None
        return build

    def load(self, name: str, version: str | None = None) -> B:
        """A shipped build by name, its current version or ``version`` (loaded once); unknown names or
        versions list the valid ones."""
        key = (name, version)
        if key not in self._cache:
            names = self.names()
            if name not in names:
                raise BuildError(f"unknown build {name!r} for {self.game_id}; valid builds: {', '.join(names)}")
            current = self._cache.get((name, None)) or self.load_file(self.folder / f"{name}.toml")
            self._cache[(name, None)] = current
            if version is not None and version != current.identity.version:  # type: ignore[attr-defined]
                path = self.folder / OLDER / name / f"{version}.toml"
                if not path.is_file():
                    raise BuildError(f"unknown version {version!r} of {self.game_id} build {name}; "
                                     f"versions: {', '.join(self.versions(name))}")
                build = self.load_file(path, name)
                if build.identity.version != version:  # type: ignore[attr-defined]
                    raise BuildError(f"{self.game_id} build {name} ({path.name}): 'version' must be the "
                                     f"file's stem {version!r}, found {build.identity.version!r}")  # type: ignore[attr-defined]
                self._cache[key] = build
            else:
                self._cache[key] = current
        return self._cache[key]

    def load_file(self, path: Path, name: str | None = None) -> B:
        """A build file anywhere (its name is the file stem, as for shipped builds, unless given)."""
        path = Path(path)
        name = name or path.stem
        source = f"{self.game_id} build {name} ({path.name})"
        data = read_toml(path, source)
        if data.get("game") != self.game_id:
            raise BuildError(f"{source}: 'game' must be {self.game_id!r}, found {data.get('game')!r}")
        if str(data.get("name")) != name:
            raise BuildError(f"{source}: 'name' must be the file's stem {name!r}, found {data.get('name')!r}")
        return self.parse(data, name, source)

    def text(self, build: B, header: str = "") -> str:
        """The build file of ``build`` (``header``: comment lines on top). Its ``version`` (and ``rules``
        where the schema does not carry it) follow ``name``. A build made in memory (a tuner's) with the
        contents of the shipped build of its name gets that build's version; one with other contents is
        written without a version: publishing it is giving it a new one (see :mod:`reelforge.games.published`)."""
        data = self.to_data(build)
        identity: BuildIdentity | None = getattr(build, "identity", None)
        if identity is None:  # a Build made directly (not parsed): its identity from its data
            rules = str(data.get("rules", "1"))
            identity = BuildIdentity(self.game_id, str(data.get("name")), UNPUBLISHED, rules,
                                     content_hash(self.game_id, rules, data))
        extra: dict[str, Any] = {}
        version = identity.version
        if version == UNPUBLISHED and identity.name in self.names():
            try:
                shipped = self.load(identity.name).identity  # type: ignore[attr-defined]
            except BuildError:
                shipped = None
            if shipped is not None and shipped.content_hash == identity.content_hash:
                version = shipped.version
        if version != UNPUBLISHED:
            extra["version"] = version
        if identity.rules != "1" and "rules" not in data:
            extra["rules"] = identity.rules
        if extra:
            keys = list(data)
            at = keys.index("name") + 1 if "name" in keys else 0
            data = {**dict(list(data.items())[:at]), **extra, **dict(list(data.items())[at:])}
        return dump(self.schema, data, header)

    def write(self, build: B, path: Path, header: str = "") -> Path:
        """Write ``build`` to ``path`` (folders made as needed)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(build, header))
        return path


# -- kernel tables -------------------------------------------------------------------------------
_TABLES: dict[tuple[int, Callable[[Any], Any]], tuple[weakref.ref, Any]] = {}


def kernel_tables(build: Any, make: Callable[[Any], Any]) -> Any:
    """``make(build)`` (a build flattened for its kernel), made once per build object and kept while
    the build lives; the one cache for every game (builds are immutable)."""
    key = (id(build), make)
    hit = _TABLES.get(key)
    if hit is not None and hit[0]() is build:
        return hit[1]
    tables = make(build)
    _TABLES[key] = (weakref.ref(build, lambda _ref, key=key: _TABLES.pop(key, None)), tables)
    return tables


# -- plain builds: the checked data itself -----------------------------------------------------------
TUNABLE = Array(Text(min_length=1), noun="key paths")
"""The ``tunable`` key of a build file: the paths (``reels.C``, ``respin.empty``) of the integers, or
lists of integers, that the generic tuner (:meth:`reelforge.game.harness.DataTuning.tune`) may change."""


@dataclass(frozen=True, eq=False)
class PlainBuild:
    """A build that is its checked data: ``build.pays`` is ``data["pays"]``. Keeps the Build protocol
    (``name``, ``rtp``, ``feature_buy_price_x`` from the data's ``feature_buy_price_x`` if any)."""

    name: str
    rtp: Fraction
    data: dict[str, Any]
    feature_buy_price_x: Fraction | None = None

    def __getattr__(self, key: str) -> Any:
        data = self.__dict__.get("data", {})
        if key in data:
            return data[key]
        raise AttributeError(f"build {self.__dict__.get('name')!r} has no {key!r}")

    def tunables(self) -> dict[str, int]:
        """Every integer the build file declares tunable, by path (``reels.C.2`` for a list's third)."""
        out: dict[str, int] = {}
        for path in self.data.get("tunable", ()):
            value = lookup(self.data, path)
            items = value if isinstance(value, list) else [value]
            for i, v in enumerate(items):
                out[f"{path}.{i + 1}" if isinstance(value, list) else path] = v
        return out


def lookup(data: dict[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` of build data (a KeyError names the first missing part)."""
    value: Any = data
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and 1 <= int(part) <= len(value):
            value = value[int(part) - 1]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise KeyError(part)
    return value


def with_values(data: dict[str, Any], values: dict[str, int]) -> dict[str, Any]:
    """A deep copy of ``data`` with the integers at ``values``' paths replaced."""
    out = json.loads(json.dumps(data))
    for path, v in values.items():
        *head, last = path.split(".")
        parent = lookup(out, ".".join(head)) if head else out
        if isinstance(parent, list):
            parent[int(last) - 1] = v
        else:
            parent[last] = v
    return out


def plain_files(game_id: str, package_file: str, fields: tuple[Field, ...],
                check: Callable[[dict[str, Any], At], None] | None = None) -> BuildFiles[PlainBuild]:
    """The build files of a game whose Build is its checked data (:class:`PlainBuild`), in the
    ``builds/`` folder beside ``package_file``: ``game``, ``name``, ``rtp`` (a fraction of the stake),
    then ``fields``, then an optional ``tunable`` (:data:`TUNABLE`, whose paths must name integers or
    lists of them in the file); ``check`` raises ``at.error(...)`` for problems across keys."""

    def from_data(d: dict[str, Any], name: str, at: At) -> PlainBuild:
        for i, path in enumerate(d.get("tunable", ())):
            try:
                value = lookup(d, path)
            except KeyError:
                raise (at / "tunable" / (i + 1)).error(f"names {path!r}, which is not in the file") from None
            items = value if isinstance(value, list) else [value]
            if not items or not all(_is_int(v) for v in items):
                raise (at / "tunable" / (i + 1)).error(f"names {path!r}, which is not an integer or a list of them")
        if check is not None:
            check(d, at)
        return PlainBuild(name=name, rtp=d["rtp"], data=d, feature_buy_price_x=d.get("feature_buy_price_x"))

    def to_data(b: PlainBuild) -> dict[str, Any]:
        out = json.loads(json.dumps(b.data, default=str))
        out["rtp"] = fraction_text(b.rtp)
        return out

    schema = Table((Field("game", Text()), Field("name", Text()), Field("rtp", RTP), *fields,
                    Field("tunable", TUNABLE, required=False, default=[])))
    return BuildFiles(game_id, build_dir(package_file), schema, from_data, to_data)
