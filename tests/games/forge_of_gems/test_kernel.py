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


def test_the_per_pay_kernel_plays_the_same_rounds_and_splits_each_win_as_the_reference_engine_does():
    """The per-pay kernel (the PAR sheet's) draws and wins exactly as the plain kernel, and splits each round's win
    into the same keys and units as the readable rules' win events: every way win by symbol, length and part, each
    GEMBOX prize, and (the cap lowered to 60x so that many rounds reach it) the cap's reduction."""
    import dataclasses

    import numpy as np

    from reelforge.game.parsheet import reference_sample
    from reelforge.games.forge_of_gems.reporting import attribute

    shipped = load_build("96.2")
    assert np.array_equal(GAME.kernel_pay_round_wins(shipped, 100_000, 5), GAME.kernel_round_wins(shipped, 100_000, 5))
    build = dataclasses.replace(shipped, cap_x=60)
    n, seed = 12_000, 99  # GEMBOX prizes come 0.87 times per 1,000 rounds: about 10 expected, P(none) 3e-5
    wins = GAME.kernel_round_wins(build, n, seed)
    assert np.array_equal(GAME.kernel_pay_round_wins(build, n, seed), wins)
    acc = GAME.simulate_pays_chunk(build, n, seed)
    tally = reference_sample(GAME, build, n, seed, attribute(build.unit))  # the rules' events on the same stream
    got = dict(zip(acc.component_names, acc.components))
    assert sum(got.values()) == int(wins.sum()) and acc.counter("rounds whose pays fell short") == 0
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in tally.total.items() if v}
    assert {k: acc.counter(f"hits {k}") for k in acc.component_names[:-1] if got[k]} == \
        {k: h for k, h in tally.hits.items() if k != "cap|reduction" and h}
    assert acc.counter("capped rounds") == tally.hits["cap|reduction"] > 0 and got["cap|reduction"] < 0
    assert any(got[k] for k in got if k.endswith("|free spins")) and any(got[k] for k in got if k.startswith("gembox"))
