"""The games' part of README.md and docs/maths.md, written from each game's folder, so a new game edits no page.

README.md's games table is a row per lobby game, in the games' order: its id, title, published reference, the
``summary`` of its ``game.toml`` ``[docs]`` table, its builds and their versions (read from its build files) and
its ``first_build_rtp`` (the figure the first build's RTP rests on, with its command and sample). docs/maths.md's
"The games' figures" is each game's ``maths.md`` (its figures and how they are reproduced), in the same order, and
its table of maximum wins is each game's derived maximum (``Game.published_max_win``, what the lobby and the help
show) for every build. Each part stands between two marker lines in its page; the rest of the page is written by
hand.

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

from reelforge.game.results import x_text
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


def odds_text(p: Any) -> str:
    """A probability per round for the table: ``1 in 100,848``, or ``1.251e-30`` where that is too rare to say so."""
    return f"1 in {round(1 / p):,}" if p >= 1e-9 else f"{float(p):.4g}"


HOW = {"exact": "exact", "constructed round": "a constructed round", "bound": "an upper bound, not shown reachable"}
"""The table's words for each way a maximum win is known (``MaxWin.method``)."""


def per_build(values: dict[str, str]) -> str:
    """One text where every build has the same, else each build's: ``96.0: ...; 94.0: ...``."""
    return next(iter(values.values())) if len(set(values.values())) == 1 else "; ".join(
        f"{name}: {text}" for name, text in values.items())


def round_design(game: Any) -> str:
    """What the game's constructed round of its largest win shows: the first sentence of its ``max_win_round``'s
    docstring, in the game's own words."""
    doc = " ".join((inspect.getdoc(type(game).max_win_round) or "").split())
    return doc.split(". ")[0].rstrip(".")


def max_win_table(games: list[Any]) -> str:
    """docs/maths.md's maximum win of every build, derived (``Game.published_max_win``): the game, its builds, the
    maximum against the cap, how it is found and, where the game is enumerated, its probability per paid round."""
    rows = ["| game | builds | maximum win | how it is found | probability per paid round |", "|---|---|---|---|---|"]
    for g in games:
        builds = {name: g.load_build(name) for name in g.build_names()}
        found = {name: g.published_max_win(b) for name, b in builds.items()}
        most = per_build({name: f"{x_text(m.x)}x, " + ("the cap" if m.x == g.cap_x(builds[name]) else
                                                      f"below the {x_text(g.cap_x(builds[name]))}x cap")
                          for name, m in found.items()})
        how = per_build({name: f"{HOW[m.method]}: {m.text.replace(f'--build {name}', '--build B')}"
                         + (f". The round: {round_design(g)}" if m.method == "constructed round" else "")
                         for name, m in found.items()})
        odds = ("; ".join(odds_text(m.probability) for m in found.values()) + " (exact)"
                if all(m.probability for m in found.values()) else
                f"not enumerated: `reelforge summary {g.id} --build B` simulates it (count and 99% interval)")
        rows.append(f"| {g.title} | {builds_text(g)} | {most} | {how} | {odds} |")
    return "\n".join(rows)


PARTS: tuple[tuple[str, str, Callable[[list[Any]], str]], ...] = (
    ("README.md", "games table", games_table),
    ("docs/maths.md", "games' figures", figures_sections),
    ("docs/maths.md", "maximum wins", max_win_table),
)
"""Each page, the name of a written part of it and what writes that part."""


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
    """Every page under ``root`` with its written parts as the games' folders say them now."""
    games = all_games() if games is None else games
    out: dict[Path, str] = {}
    for rel, part, write in PARTS:
        path = root / rel
        try:
            out[path] = written(out[path] if path in out else path.read_text(), part, write(games))
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
