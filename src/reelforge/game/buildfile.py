"""Build files (TOML) published, the same way for every game: list them, load them against their
schema (:mod:`reelforge.game.buildschema`), keep every version, and cache a build's kernel tables.

A game gives a :class:`BuildFiles` its schema and two functions: ``from_data`` (checked data -> its
Build, with the checks that involve several keys) and ``to_data`` (Build -> plain TOML data).

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
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Generic, TypeVar

from reelforge.game.buildschema import RTP, Array, At, Field, Table, Text, dump, fraction_text, is_int, read_toml
from reelforge.game.contract import UNPUBLISHED, BuildError, BuildIdentity
from reelforge.game.registration import id_beside

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
lists of integers, that the generic tuner (:meth:`reelforge.game.tuning.DataTuning.tune`) may change."""


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


def plain_files(package_file: str, fields: tuple[Field, ...], check: Callable[[dict[str, Any], At], None] | None = None,
                game_id: str | None = None) -> BuildFiles[PlainBuild]:
    """The build files of a game whose Build is its checked data (:class:`PlainBuild`), in the
    ``builds/`` folder beside ``package_file``: ``game``, ``name``, ``rtp`` (a fraction of the stake),
    then ``fields``, then an optional ``tunable`` (:data:`TUNABLE`, whose paths must name integers or
    lists of them in the file); ``check`` raises ``at.error(...)`` for problems across keys. The game's id
    is the one its registration beside ``package_file`` gives (``game.toml``), or ``game_id`` for a game
    without one."""
    game_id = game_id or id_beside(package_file)

    def from_data(d: dict[str, Any], name: str, at: At) -> PlainBuild:
        for i, path in enumerate(d.get("tunable", ())):
            try:
                value = lookup(d, path)
            except KeyError:
                raise (at / "tunable" / (i + 1)).error(f"names {path!r}, which is not in the file") from None
            items = value if isinstance(value, list) else [value]
            if not items or not all(is_int(v) for v in items):
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
