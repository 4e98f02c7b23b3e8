"""problab's two demo games (zintix-labs/problab, Apache-2.0): demo_normal (5x3 lines) and
demo_cascade (5x5 clusters with tumbles), each in its folder, reproduced on reelforge's engine from the peer's published
configurations so the two engines can be compared on the same games.

They are benchmark games: not in the shipped lobby (:data:`reelforge.games.registry.GAME_CLASSES`);
the peer benchmark (``bench/peers/race.py``), ``reelforge bench`` and the tests add them with
:func:`registered` (or :func:`register`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

PEER_GAMES = {
    "problab-demo-normal": "reelforge.games.problab.demo_normal.game:DemoNormal",
    "problab-demo-cascade": "reelforge.games.problab.demo_cascade.game:DemoCascade",
}
"""Registry id -> game class."""
PEER_NAMES = {"problab-demo-normal": "demo_normal", "problab-demo-cascade": "demo_cascade"}
"""Registry id -> the peer's own game name."""


def register() -> list[str]:
    """Add the demo games to the registry (those not yet there); returns the ids added."""
    from reelforge.games import registry

    added = []
    for game_id, target in PEER_GAMES.items():
        if game_id not in registry.GAME_CLASSES:
            registry.register(game_id, target)
            added.append(game_id)
    return added


@contextmanager
def registered() -> Iterator[list[str]]:
    """The demo games registered for the ``with`` block; the registry is as it was afterwards."""
    from reelforge.games import registry

    added = register()
    try:
        yield list(PEER_GAMES)
    finally:
        for game_id in added:
            registry.unregister(game_id)
