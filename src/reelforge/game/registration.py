"""A game's registration, the ``game.toml`` in its folder: its id, class and place among the games, written
there once. The registry (``reelforge.games.registry``) finds the games by these files, and a game's class
reads its id from the same file (:class:`RegisteredId`), so the id is declared in one place."""

from __future__ import annotations

import functools
import sys
import tomllib
from pathlib import Path
from typing import Any

REGISTRATION = "game.toml"
"""The file in a game's folder that registers it (``id``, ``class``, ``order``) and locks its builds."""


@functools.cache
def folder_id(folder: Path) -> str:
    """The id the registration in ``folder`` gives its game (raises LookupError where there is none)."""
    path = folder / REGISTRATION
    if not path.is_file():
        raise LookupError(f"no {REGISTRATION} in {folder}")
    data = tomllib.loads(path.read_text())
    if not isinstance(data.get("id"), str):
        raise LookupError(f"{path}: a game's registration needs an id")
    return data["id"]


def id_beside(module_file: str) -> str:
    """The id the registration beside ``module_file`` (a game's ``__file__``) gives its game."""
    return folder_id(Path(module_file).resolve().parent)


@functools.cache  # Game.id is read many times per round on the server: look it up once per class
def registered_id(cls: type) -> str:
    """The id of game class ``cls`` from the registration beside its module, or beside the module of the
    game it extends (a subclass of a shipped game, kept elsewhere, is that game)."""
    for c in cls.__mro__:
        path = getattr(sys.modules.get(c.__module__), "__file__", None)
        if path and (Path(path).resolve().parent / REGISTRATION).is_file():
            return id_beside(path)
    raise LookupError(f"no {REGISTRATION} lies beside its module or those of the games it extends")


class RegisteredId:
    """``Game.id`` of a game registered by its folder: read from that ``game.toml`` (a game kept elsewhere,
    a plugin or a test's toy game, declares ``id`` on its class instead)."""

    def __get__(self, obj: Any, cls: type) -> str:
        try:
            return registered_id(cls)
        except LookupError as exc:
            # an AttributeError, so getattr(cls, "id", None) and hasattr see a class without an id
            raise AttributeError(f"{cls.__name__} declares no id and {exc}") from None


class IdByDefault:
    """``Game.reference_id`` where the game has no other reference id: its registry id."""

    def __get__(self, obj: Any, cls: type) -> str:
        return cls.id
