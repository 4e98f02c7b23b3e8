"""The games this installation knows. A new game inside the package is one line in
:data:`GAME_CLASSES`; a game kept elsewhere (a plugin, a test's toy game) is added at run time
with :func:`register` and removed with :func:`unregister` (or :func:`registered` for a block)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from contextlib import contextmanager

from reelforge.game.contract import Game

# game id -> "module:ClassName"; imported lazily so the CLI starts fast.
GAME_CLASSES: dict[str, str] = {
    "forge-of-fortunes": "reelforge.games.forge_of_fortunes.game:ForgeOfFortunes",
    "gemstones-gold": "reelforge.games.gemstones_gold.game:GemstonesGold",
    "forge-of-gems": "reelforge.games.forge_of_gems.game:ForgeOfGems",
    "seven-lines": "reelforge.games.seven_lines.game:SevenLines",
    "golden-vault": "reelforge.games.golden_vault.game:GoldenVault",
    "canyon-ways": "reelforge.games.canyon_ways.game:CanyonWays",
}

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
        _instances[game_id] = _load_class(GAME_CLASSES[game_id])()
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
