"""The numba kernel plays exactly the reference rules on identical draw streams."""

import numpy as np

from reelforge.draws import SeededDraws
from reelforge.games.gemstones_gold import rules
from reelforge.games.gemstones_gold.build import load_build
from reelforge.games.gemstones_gold.game import GemstonesGold

GAME = GemstonesGold()


def reference_wins(build, rounds: int, seed: int, mode: str) -> np.ndarray:
    draws = SeededDraws(seed)
    out = np.zeros(rounds, dtype=np.int64)
    for i in range(rounds):
        state = rules.new_state(mode)
        while True:
            step = rules.play_step(build, state, draws)
            if step.finished:
                break
            state = step.state
        out[i] = step.state["total_units"]
    return out


def test_kernel_matches_reference_on_100000_paid_rounds():
    build = load_build("96.71")
    ref = reference_wins(build, 100_000, 2026, "paid")
    ker = GAME.kernel_round_wins(build, 100_000, 2026, "paid")
    assert np.array_equal(ref, ker)
    assert (ref > 0).mean() > 0.3          # the stream really exercised wins
    assert ref.max() > 20 * 50               # ...and multiplied / feature wins


def test_kernel_matches_reference_on_10000_bought_features():
    build = load_build("96.71")
    ref = reference_wins(build, 10_000, 7, "buy")
    ker = GAME.kernel_round_wins(build, 10_000, 7, "buy")
    assert np.array_equal(ref, ker)


def test_kernel_matches_reference_on_the_scenario_build_with_frequent_cascades():
    from .scenario import scenario_build
    build = scenario_build()
    for mode, n in (("paid", 3000), ("buy", 300)):
        assert np.array_equal(reference_wins(build, n, 99, mode), GAME.kernel_round_wins(build, n, 99, mode))


def test_simulate_chunk_tallies_match_the_per_round_wins():
    build = load_build("96.71")
    acc = GAME.simulate_chunk(build, 50_000, 11)
    wins = GAME.kernel_round_wins(build, 50_000, 11)
    assert acc.rounds == 50_000
    assert acc.win == int(wins.sum()) and acc.hits == int((wins > 0).sum())
    assert acc.win_sq == int((wins.astype(object) ** 2).sum())
    assert sum(acc.components) == acc.win
    assert acc.counter("trigger_hits") <= acc.counter("triggers")
