"""The numba kernel plays the same rounds as the reference rules on the same draw stream."""

import pytest

from reelforge.core.draws import SeededDraws
from reelforge.games.forge_of_gems import rules
from reelforge.games.forge_of_gems.build import load_build
from reelforge.games.forge_of_gems.game import ForgeOfGems

GAME = ForgeOfGems()
ROUNDS = 100_000


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


def test_the_round_function_alone_plays_the_harness_loops_rounds():
    """``play_round`` called on its own (as a tool would) draws and wins as the harness loop does,
    and splits each win into its parts (paid spin, GEMBOX prize, free spins)."""
    import numpy as np

    from reelforge.game.loop import round_tables
    from reelforge.games.forge_of_gems import kernel
    from reelforge.mechanics.rng import pcg_state

    build = load_build("96.2")
    rounds, seed = 2_000, 31
    wins = GAME.kernel_round_wins(build, rounds, seed)
    t = round_tables(build, kernel.make_tables, kernel.SCRATCH)
    st = pcg_state(np.random.Generator(np.random.PCG64(seed)))
    parts = np.zeros(len(GAME.components), dtype=np.int64)
    counters = np.zeros(len(kernel.COUNTERS), dtype=np.int64)
    alone = np.zeros(rounds, dtype=np.int64)
    for i in range(rounds):
        parts[:] = 0
        kernel.play_round(st, t, 0, GAME.cap_units(build), parts, counters)
        assert parts.min() >= 0
        alone[i] = parts.sum()
    assert np.array_equal(alone, wins) and wins.sum() > 0
    assert counters[kernel.COUNTERS.index("triggers")] == GAME.simulate_chunk(build, rounds, seed).counter("triggers")
