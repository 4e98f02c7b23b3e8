"""math-sdk's sample lines game (StakeEngine/math-sdk ``games/0_0_lines``, MIT), reproduced on
reelforge's engine from its published configuration, so the two engines can be compared on the same
game: its figures (docs/maths.md) and the writing of its Stake books (``bench/stake_race.py``).

A benchmark game: not in the shipped lobby (:data:`reelforge.games.registry.GAME_CLASSES`); the race
and the tests add it with :func:`registered` (or :func:`register`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

GAME_ID = "mathsdk-lines"
TARGET = "reelforge.games.mathsdk_lines.game:MathSdkLines"


def register() -> bool:
    """Add the game to the registry (if not there yet); True if this call added it."""
    from reelforge.games import registry

    if GAME_ID in registry.GAME_CLASSES:
        return False
    registry.register(GAME_ID, TARGET)
    return True


@contextmanager
def registered() -> Iterator[str]:
    """The game registered for the ``with`` block; the registry is as it was afterwards."""
    from reelforge.games import registry

    added = register()
    try:
        yield GAME_ID
    finally:
        if added:
            registry.unregister(GAME_ID)
