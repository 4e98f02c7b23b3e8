"""The numba kernel plays the same rounds as the reference rules on the same draw stream."""

import numpy as np
import pytest

from reelforge.draws import SeededDraws
from reelforge.games.forge_of_gems import rules
from reelforge.games.forge_of_gems.build import build_names, load_build
from reelforge.games.forge_of_gems.game import ForgeOfGems

GAME = ForgeOfGems()
ROUNDS = 100_000


@pytest.mark.parametrize("name", ["96.2", "94.2", "91.2", "87.2", "84.2"])
def test_kernel_and_reference_give_identical_wins_on_identical_streams(name):
    build = load_build(name)
    seed = 4000 + build_names().index(name)
    kernel_wins = GAME.kernel_round_wins(build, ROUNDS, seed)
    draws = SeededDraws(seed)
    reference = np.array([rules.round_units(build, draws)[0] for _ in range(ROUNDS)], dtype=np.int64)
    mismatch = np.nonzero(kernel_wins != reference)[0]
    assert mismatch.size == 0, f"first differing round {mismatch[:5]}"
    # The stream must exercise the features, or the comparison would prove little.
    assert (reference >= 20 * build.unit).sum() > 0
    assert (reference > 0).mean() > 0.1


def test_simulate_chunk_totals_equal_the_per_round_wins_and_merge_exactly():
    build = load_build("96.2")
    wins = GAME.kernel_round_wins(build, 50_000, 11)
    acc = GAME.simulate_chunk(build, 50_000, 11)
    assert acc.rounds == 50_000 and acc.win == int(wins.sum()) and acc.win_sq == int((wins * wins).sum())
    assert sum(acc.components) == acc.win
    assert acc.hits == int((wins > 0).sum())
    a = GAME.simulate_chunk(build, 20_000, 1)
    b = GAME.simulate_chunk(build, 30_000, 2)
    assert a.merge(b).win == a.win + b.win


def test_ways_counters_match_the_reference_spins_and_split_the_paid_spin_win():
    from reelforge.games.forge_of_gems.kernel import MIN_WAYS, WAYS_EDGES, ways_bin_labels

    build = load_build("96.2")
    rounds, seed = 3_000, 21
    labels = ways_bin_labels()

    def label(ways: int) -> str:
        assert MIN_WAYS <= ways <= 36288
        return labels[sum(1 for e in WAYS_EDGES if ways >= e)]

    ref: dict[str, int] = {}

    def add(key: str, value: int) -> None:
        ref[key] = ref.get(key, 0) + value

    draws = SeededDraws(seed)
    for _ in range(rounds):
        step = rules.play_step(build, rules.new_state(), draws, None)
        first = next(ev["ways"] for ev in step.events if ev["type"] == "spin")
        # the first board and the board after each cascade are the boards the spin evaluates
        peak = max(ev["ways"] for ev in step.events if ev["type"] in ("spin", "cascade"))
        add(f"ways_{label(first)}", 1)
        add(f"ways_peak_{label(peak)}", 1)
        add(f"ways_peak_win_{label(peak)}", int(step.state["components"][0]))
        while not step.finished:
            step = rules.play_step(build, step.state, draws, None)
    acc = GAME.simulate_chunk(build, rounds, seed)
    ker = {k: acc.counter(k) for k in acc.counter_names if k.startswith("ways_") and acc.counter(k)}
    assert ker == {k: v for k, v in ref.items() if v}
    assert sum(acc.counter(f"ways_{lab}") for lab in labels) == rounds
    assert sum(acc.counter(f"ways_peak_{lab}") for lab in labels) == rounds
    assert sum(acc.counter(f"ways_peak_win_{lab}") for lab in labels) == acc.components[0]
    # every first board is 243 ways; Splitters lift some spins above it as they cascade
    assert acc.counter("ways_243") == rounds
    assert sum(acc.counter(f"ways_peak_{lab}") for lab in labels[1:]) > 0


@pytest.mark.parametrize("name", ["96.2", "94.2", "91.2", "87.2", "84.2"])
def test_kernel_paid_spin_first_boards_are_always_243_ways(name):
    acc = GAME.simulate_chunk(load_build(name), 200_000, 31)
    assert acc.counter("ways_243") == acc.rounds == 200_000
    assert acc.counter("ways_peak_243") < acc.rounds   # Splitters still split
