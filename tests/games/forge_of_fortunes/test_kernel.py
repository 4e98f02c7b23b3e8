"""The numba kernel plays the same rounds as the reference engine on the same stream."""

import numpy as np
import pytest

from reelforge.draws import SeededDraws
from reelforge.games.forge_of_fortunes.game import ForgeOfFortunes

GAME = ForgeOfFortunes()
ROUNDS = 100_000


@pytest.mark.parametrize("name", ["96.2", "94.2", "91.2", "87.2", "84.2"])
def test_kernel_wins_equal_reference_wins_for_100000_rounds(name):
    build = GAME.load_build(name)
    seed = np.random.SeedSequence(777)
    kernel_wins = GAME.kernel_round_wins(build, ROUNDS, seed)
    ref = SeededDraws(np.random.SeedSequence(777))
    unit = GAME.win_unit(build)
    reference_wins = np.array([int(GAME.play_round(build, ref).total_win * unit) for _ in range(ROUNDS)])
    assert (kernel_wins == reference_wins).all()
    assert (reference_wins > 2).sum() > 1000  # many features were compared, not just base spins


def test_chunk_statistics_are_reproducible_by_seed():
    build = GAME.load_build("96.2")
    a = GAME.simulate_chunk(build, 200_000, np.random.SeedSequence(5))
    b = GAME.simulate_chunk(build, 200_000, np.random.SeedSequence(5))
    c = GAME.simulate_chunk(build, 200_000, np.random.SeedSequence(6))
    assert a.key() == b.key() != c.key()
    assert a.counter("triggers") == sum(a.counter(f"end_{v}x") for v in build.ladder)
