"""The games' part of README.md and docs/maths.md, written from each game's folder, so a new game edits no page.

README.md's games table is a row per lobby game, in the games' order: its id, title, published reference, the
``summary`` of its ``game.toml`` ``[docs]`` table, its builds and their versions (read from its build files) and
its ``first_build_rtp`` (the figure the first build's RTP rests on, with its command and sample). docs/maths.md's
"The games' figures" is each game's ``maths.md`` (its figures and how they are reproduced), in the same order.
Each part stands between two marker lines in its page; the rest of the page is written by hand.

``python -m reelforge.ops.game_docs`` writes both parts; ``--check`` only says which page is out of date, exit 1
(a test runs the check: CONTRIBUTING.md, "Adding a game").
"""

from __future__ import annotations

import inspect
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reelforge.games.registry import REGISTRATION, all_games

ROOT = Path(__file__).resolve().parents[3]
"""The repository (README.md, docs/): this file is src/reelforge/ops/game_docs.py in it."""
FIGURES = "maths.md"
"""The file in a game's folder that is its section of docs/maths.md's "The games' figures"."""
WHY = "written by `python -m reelforge.ops.game_docs` from each game's folder: edit the game's files, not this"


class GameDocsError(ValueError):
    """A game folder that lacks what its pages need, or a page without its markers: one line saying which."""


def folder(game: Any) -> Path:
    """The game's package folder (its ``game.toml``, builds and client files)."""
    return Path(inspect.getfile(type(game))).parent


def docs_entry(path: Path) -> dict[str, str]:
    """The ``[docs]`` table of a game's ``game.toml`` (``path``): ``summary`` and ``first_build_rtp``."""
    entry = tomllib.loads(path.read_text()).get("docs", {})
    missing = [k for k in ("summary", "first_build_rtp") if not isinstance(entry.get(k), str) or not entry[k].strip()]
    if missing:
        raise GameDocsError(f"{path}: its [docs] table wants {' and '.join(missing)} (README.md's games table)")
    return entry


def builds_text(game: Any) -> str:
    """The game's builds with the version offered and the older ones kept: ``96.2 94.2 (v2.0; 1.0)``."""
    names = game.build_names()
    versions = {n: game.build_versions(n) for n in names}
    current = sorted({v[-1] for v in versions.values()})
    older = sorted({v for vs in versions.values() for v in vs[:-1]} - set(current))
    return f"{' '.join(names)} (v{', v'.join(current)}{'; ' + ', '.join(older) if older else ''})"


def title_text(game: Any) -> str:
    """The game's title, with the published game it follows (its id and version) where there is one."""
    return f"{game.title} (ref. ID {game.published_id} v{game.version})" if game.published_id else game.title


def games_table(games: list[Any]) -> str:
    """README.md's games table."""
    rows = ["| id | game | builds (current version; older ones kept) | RTP of the first build |", "|---|---|---|---|"]
    for g in games:
        entry = docs_entry(folder(g) / REGISTRATION)
        rows.append(f"| `{g.id}` | {title_text(g)}: {entry['summary'].strip()} | {builds_text(g)} | "
                    f"{entry['first_build_rtp'].strip()} |")
    return "\n".join(rows)


def figures_sections(games: list[Any]) -> str:
    """docs/maths.md's sections of the games' figures: each game's ``maths.md``, in the games' order."""
    return "\n\n".join((folder(g) / FIGURES).read_text().strip() for g in games if (folder(g) / FIGURES).is_file())


PARTS: dict[str, tuple[str, Callable[[list[Any]], str]]] = {
    "README.md": ("games table", games_table),
    "docs/maths.md": ("games' figures", figures_sections),
}
"""Each page, the name of its written part and what writes it."""


def markers(part: str) -> tuple[str, str]:
    """The lines around a written part of a page."""
    return f"<!-- {part}: {WHY} -->", f"<!-- end of the {part} -->"


def written(page: str, part: str, body: str) -> str:
    """``page`` with its part ``part`` replaced by ``body``."""
    begin, end = markers(part)
    if page.count(begin) != 1 or page.count(end) != 1 or page.index(begin) > page.index(end):
        raise GameDocsError(f"the page has no part {part!r} between the lines {begin!r} and {end!r}")
    head, rest = page.split(begin)
    return f"{head}{begin}\n\n{body}\n\n{end}{rest.split(end, 1)[1]}"


def pages(root: Path = ROOT, games: list[Any] | None = None) -> dict[Path, str]:
    """Every page under ``root`` with its written part as the games' folders say it now."""
    games = all_games() if games is None else games
    out = {}
    for rel, (part, write) in PARTS.items():
        path = root / rel
        try:
            out[path] = written(path.read_text(), part, write(games))
        except GameDocsError as exc:
            raise GameDocsError(f"{rel}: {exc}") from None
    return out


def stale(root: Path = ROOT) -> list[Path]:
    """The pages whose written part is not what the games' folders say."""
    return [path for path, text in pages(root).items() if path.read_text() != text]


def main(argv: list[str]) -> int:
    """Write the pages (or with ``--check``, name the stale ones, exit 1)."""
    if argv not in ([], ["--check"]):
        print("usage: python -m reelforge.ops.game_docs [--check]", file=sys.stderr)
        return 2
    try:
        found = pages()
    except (GameDocsError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    old = [path for path, text in found.items() if path.read_text() != text]
    if argv:
        for path in old:
            print(f"{path.relative_to(ROOT)} is out of date: run `python -m reelforge.ops.game_docs`", file=sys.stderr)
        return 1 if old else 0
    for path in old:
        path.write_text(found[path])
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
