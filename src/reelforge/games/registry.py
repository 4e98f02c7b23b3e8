"""The games this installation knows. A new game is one line here."""

from __future__ import annotations

import importlib

from reelforge.game import Game

# game id -> "module:ClassName"; imported lazily so the CLI starts fast.
GAME_CLASSES: dict[str, str] = {
    "forge-of-fortunes": "reelforge.games.forge_of_fortunes.game:ForgeOfFortunes",
    "gemstones-gold": "reelforge.games.gemstones_gold.game:GemstonesGold",
    "forge-of-gems": "reelforge.games.forge_of_gems.game:ForgeOfGems",
}

_instances: dict[str, Game] = {}


class UnknownGame(KeyError):
    """No game with that id."""

    def __str__(self) -> str:
        return str(self.args[0])


def game_ids() -> list[str]:
    return list(GAME_CLASSES)


def get_game(game_id: str) -> Game:
    """The game object for ``game_id`` (raises :class:`UnknownGame`)."""
    if game_id not in GAME_CLASSES:
        raise UnknownGame(f"unknown game {game_id!r}; valid games: {', '.join(GAME_CLASSES)}")
    if game_id not in _instances:
        module_name, class_name = GAME_CLASSES[game_id].split(":")
        _instances[game_id] = getattr(importlib.import_module(module_name), class_name)()
    return _instances[game_id]


def all_games() -> list[Game]:
    return [get_game(g) for g in GAME_CLASSES]
