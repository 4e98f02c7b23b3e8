"""Published builds never change: the content hash of every published (game, build, version) is
locked in the ``[published]`` tables of the game's ``game.toml`` (its registration, in its folder), and
:func:`problems` (run by the tests, so by CI)
refuses a build file whose contents changed under a published version, a shipped file without a
version, a published version whose file is gone, and a version that is not locked yet.

A changed build is a new version beside the old one:

1. keep the published file, unchanged, as ``builds/older/<name>/<version>.toml``;
2. write the new contents to ``builds/<name>.toml`` with a new ``version`` (``2.0`` -> ``2.1``);
3. lock it: ``python -m reelforge.games.published --add`` (adds new versions, never changes a line).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

from reelforge.game.buildfile import OLDER, BuildFiles, version_key
from reelforge.game.contract import UNPUBLISHED, BuildError, BuildIdentity
from reelforge.games.registry import GAMES_DIR, REGISTRATION, SHIPPED_GAMES, get_game

ADD = "python -m reelforge.games.published --add"
LOCK_HEADER = (
    "# The content hash (SHA-256 of the canonical data and the rules version) of every published build",
    '# version: [published."build"] "version" = hash. A line never changes (a changed build is a new',
    f"# version, see reelforge/games/published.py); `{ADD}` adds new versions.",
    "# Checked by the tests.")


def shipped_identities() -> tuple[list[BuildIdentity], list[str]]:
    """The identity of every version of every shipped build, and the problems met loading them."""
    found: list[BuildIdentity] = []
    problems: list[str] = []
    for game_id in sorted(SHIPPED_GAMES):
        game = get_game(game_id)
        files: BuildFiles = game.build_files  # type: ignore[assignment]
        for name in game.build_names():
            try:
                current = game.load_build(name).identity
            except BuildError as exc:
                problems.append(str(exc))
                continue
            if current.version == UNPUBLISHED:
                problems.append(
                    f"{game_id} build {name} (builds/{name}.toml) has no version: a published build never "
                    f"changes; keep the published file as builds/{OLDER}/{name}/<its version>.toml, give this "
                    f"one a new version (version = \"x.y\") and run `{ADD}`")
                continue
            for version in game.build_versions(name):
                try:
                    found.append(files.load(name, version).identity)
                except BuildError as exc:
                    problems.append(str(exc))
    return found, problems


def _registrations(games_dir: Path) -> dict[str, Path]:
    """``game id -> its game.toml`` of every game folder under ``games_dir``."""
    return {tomllib.loads(path.read_text())["id"]: path for path in sorted(games_dir.glob(f"*/{REGISTRATION}"))}


def read_lock(games_dir: Path = GAMES_DIR) -> dict[tuple[str, str, str], str]:
    """``(game, build, version) -> content hash`` of every published version (of the games under ``games_dir``)."""
    return {(game, name, version): digest for game, path in _registrations(games_dir).items()
            for name, versions in tomllib.loads(path.read_text()).get("published", {}).items()
            for version, digest in versions.items()}


def write_lock(lock: dict[tuple[str, str, str], str], games_dir: Path = GAMES_DIR) -> None:
    """Write each game's ``[published]`` tables into its ``game.toml``, below its registration (kept as written)."""
    for game, path in _registrations(games_dir).items():
        lines = path.read_text().splitlines()
        cut = next((i for i, line in enumerate(lines) if line in (LOCK_HEADER[0], "[published]")
                    or line.startswith("[published.")), len(lines))
        out = [*lines[:cut], *([""] if cut and lines[cut - 1] else []), *LOCK_HEADER]
        names = sorted({n for g, n, _ in lock if g == game},
                       key=lambda n: (-float(n), n) if n.replace(".", "").isdigit() else (0, n))
        for name in names:
            out += ["", f'[published."{name}"]']
            for version in sorted((v for g, n, v in lock if g == game and n == name), key=version_key):
                out.append(f'"{version}" = "{lock[(game, name, version)]}"')
        path.write_text("\n".join(out) + "\n")


def problems(games_dir: Path = GAMES_DIR) -> list[str]:
    """Every way the shipped builds break "published builds never change", one line each (empty: none)."""
    found, out = shipped_identities()
    lock = read_lock(games_dir)
    seen = set()
    for ident in found:
        key = (ident.game, ident.name, ident.version)
        seen.add(key)
        where = f"builds/{ident.name}.toml or builds/{OLDER}/{ident.name}/{ident.version}.toml"
        if key not in lock:
            out.append(f"{ident.game} build {ident.name} version {ident.version} is not published yet: "
                       f"run `{ADD}` to lock its content hash, and commit the game's {REGISTRATION}")
        elif lock[key] != ident.content_hash:
            out.append(f"{ident.game} build {ident.name} version {ident.version} changed ({where}: content hash "
                       f"{ident.content_hash[:12]}, published {lock[key][:12]}): a published build never changes; "
                       f"restore it and put the change in a new version (keep the published file as "
                       f"builds/{OLDER}/{ident.name}/{ident.version}.toml, give builds/{ident.name}.toml a new "
                       f"version, run `{ADD}`)")
    for game, name, version in sorted(set(lock) - seen):
        if game in SHIPPED_GAMES:
            out.append(f"{game} build {name} version {version} is published but its file is gone: restore "
                       f"builds/{OLDER}/{name}/{version}.toml (rounds played with it are replayed with it)")
    return out


def add(games_dir: Path = GAMES_DIR) -> list[str]:
    """Lock the content hash of every version not published yet; never changes a published line.
    Returns what was added; raises ValueError with the other problems, if any."""
    blocking = [p for p in problems(games_dir) if "is not published yet" not in p]
    if blocking:
        raise ValueError("\n".join(blocking))
    lock = read_lock(games_dir)
    found, _ = shipped_identities()
    added = [f"{i.game} {i.name} {i.version} {i.content_hash}" for i in found
             if (i.game, i.name, i.version) not in lock]
    lock.update({(i.game, i.name, i.version): i.content_hash for i in found})
    write_lock(lock, games_dir)
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reelforge.games.published", description=__doc__.split("\n")[0])
    parser.add_argument("--add", action="store_true", help="lock the content hash of new versions")
    args = parser.parse_args(argv)
    try:
        if args.add:
            for line in add():
                print(f"published: {line}")
            return 0
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    found = problems()
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
