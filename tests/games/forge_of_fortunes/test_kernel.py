"""The numba kernel plays the same rounds as the reference engine on the same stream."""

import numpy as np

from reelforge.games.forge_of_fortunes.game import ForgeOfFortunes

GAME = ForgeOfFortunes()
ROUNDS = 100_000


def test_chunk_statistics_are_reproducible_by_seed():
    build = GAME.load_build("96.2")
    a = GAME.simulate_chunk(build, 200_000, np.random.SeedSequence(5))
    b = GAME.simulate_chunk(build, 200_000, np.random.SeedSequence(5))
    c = GAME.simulate_chunk(build, 200_000, np.random.SeedSequence(6))
    assert a.key() == b.key() != c.key()
    assert a.counter("triggers") == sum(a.counter(f"end_{v}x") for v in build.ladder)
