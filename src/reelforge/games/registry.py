"""The games this installation knows. A game inside the package registers itself in its own folder: its
``game.toml`` names the game's id and class (and its place in lists), and locks its published builds
(:mod:`reelforge.games.published`), so a new game touches no file outside its folder. A game kept elsewhere
(a plugin, a test's toy game) is added at run time with :func:`register` and removed with
:func:`unregister` (or :func:`registered` for a block)."""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reelforge.game.contract import Game
from reelforge.game.registration import REGISTRATION

GAMES_DIR = Path(__file__).resolve().parent


def read_registrations(games_dir: Path = GAMES_DIR) -> dict[str, str]:
    """``game id -> "module:ClassName"`` of every game folder under ``games_dir`` with a ``game.toml``, in
    their ``order`` (the lobby's and the reports'). Read as text, so the CLI starts without importing a game."""
    found = []
    for path in sorted(games_dir.glob(f"*/{REGISTRATION}")):
        data = tomllib.loads(path.read_text())
        try:
            found.append((int(data["order"]), str(data["id"]), str(data["class"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise RuntimeError(f"{path}: a game's registration needs id, class and order ({exc})") from None
    return {game_id: target for _, game_id, target in sorted(found)}


# game id -> "module:ClassName"; imported lazily so the CLI starts fast.
GAME_CLASSES: dict[str, str] = read_registrations()

SHIPPED_GAMES: frozenset[str] = frozenset(GAME_CLASSES)
"""The games of the package itself, which :func:`unregister` refuses to remove."""

GAME_ID_PATTERN = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
"""Game ids are URL path segments (``/games/{game}``): lower-case words joined by hyphens."""

_instances: dict[str, Game] = {}


class UnknownGame(KeyError):
    """No game with that id."""

    def __str__(self) -> str:
        return str(self.args[0])


def game_ids() -> list[str]:
    return list(GAME_CLASSES)


def _load_class(target: str) -> type[Game]:
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def get_game(game_id: str) -> Game:
    """The game object for ``game_id`` (raises :class:`UnknownGame`)."""
    if game_id not in GAME_CLASSES:
        raise UnknownGame(f"unknown game {game_id!r}; valid games: {', '.join(GAME_CLASSES)}")
    if game_id not in _instances:
        game = _load_class(GAME_CLASSES[game_id])()
        if game.id != game_id:  # a registration naming another game's class
            raise RuntimeError(f"game {game_id!r} is registered as {GAME_CLASSES[game_id]}, whose id is {game.id!r}")
        _instances[game_id] = game
    return _instances[game_id]


def all_games() -> list[Game]:
    return [get_game(g) for g in GAME_CLASSES]


def register(game_id: str, target: str) -> None:
    """Add the game class ``target`` (``"package.module:ClassName"``) under ``game_id``.

    The class is imported now, so a wrong path or class fails here rather than at the first
    request; it must be a :class:`~reelforge.game.contract.Game` whose ``id`` is ``game_id``. Worker
    processes see the registration when they are forked from this one (the local simulation
    pool is). Raises ValueError naming the problem; nothing is registered then.
    """
    if not isinstance(game_id, str) or not GAME_ID_PATTERN.fullmatch(game_id):
        raise ValueError(f"game id {game_id!r} must be lower-case words joined by hyphens (e.g. 'toy-line')")
    if game_id in GAME_CLASSES:
        raise ValueError(f"game {game_id!r} is already registered (as {GAME_CLASSES[game_id]})")
    module_name, sep, class_name = target.partition(":") if isinstance(target, str) else ("", "", "")
    if not (sep and module_name and class_name):
        raise ValueError(f"game class {target!r} must be written 'package.module:ClassName'")
    try:
        cls = _load_class(target)
    except ImportError as exc:
        raise ValueError(f"game class {target!r}: cannot import {module_name!r} ({exc})") from exc
    except AttributeError:
        raise ValueError(f"game class {target!r}: module {module_name!r} has no {class_name!r}") from None
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise ValueError(f"game class {target!r} is not a subclass of reelforge.game.contract.Game")
    if getattr(cls, "id", None) != game_id:
        raise ValueError(f"game class {target!r} has id {getattr(cls, 'id', None)!r}, not {game_id!r}")
    GAME_CLASSES[game_id] = target


def unregister(game_id: str) -> None:
    """Remove a game added by :func:`register` (and its cached object)."""
    if game_id in SHIPPED_GAMES:
        raise ValueError(f"{game_id!r} is a shipped game; only games added by register() can be removed")
    if game_id not in GAME_CLASSES:
        raise UnknownGame(f"unknown game {game_id!r}; valid games: {', '.join(GAME_CLASSES)}")
    del GAME_CLASSES[game_id]
    _instances.pop(game_id, None)


@contextmanager
def registered(game_id: str, target: str) -> Iterator[Game]:
    """Register a game for the ``with`` block and leave the registry as it was afterwards."""
    register(game_id, target)
    try:
        yield get_game(game_id)
    finally:
        unregister(game_id)
