"""The numba kernel plays exactly the reference rules on identical draw streams."""

import numpy as np

from reelforge.core.draws import SeededDraws
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


def reference_multiplier_counts(build, rounds: int, seed: int, mode: str) -> dict[str, int]:
    """The picture's histograms rebuilt from the reference engine's events."""
    from reelforge.games.gemstones_gold.kernel import MULT_EDGES, mult_bin_labels

    labels = mult_bin_labels()

    def label(s: int) -> str:
        return labels[sum(1 for e in MULT_EDGES if s >= e)]

    counts: dict[str, int] = {}
    draws = SeededDraws(seed)
    for _ in range(rounds):
        state = rules.new_state(mode)
        feature = mode == "buy"
        while True:
            step = rules.play_step(build, state, draws)
            for ev in step.events:
                if ev["type"] == "spin_result" and ev["kind"] == "paid" and ev["multiplier_sum"] > 0:
                    key = f"paid_sum_{label(ev['multiplier_sum'])}"
                    counts[key] = counts.get(key, 0) + 1
                if ev["type"] == "free_spins_awarded":
                    feature = True
            if step.finished:
                break
            state = step.state
        if feature:
            m = step.state["total_multiplier"]
            key = f"feature_m_{label(m) if m else 0}"
            counts[key] = counts.get(key, 0) + 1
            counts["feature_m_total"] = counts.get("feature_m_total", 0) + m
    return counts


def test_multiplier_histograms_count_what_the_reference_rounds_show():
    build = load_build("96.71")
    for mode, n, seed in (("paid", 10_000, 5), ("buy", 500, 6)):
        acc = GAME.simulate_chunk(build, n, seed, mode)
        ref = reference_multiplier_counts(build, n, seed, mode)
        names = [k for k in acc.counter_names if k.startswith(("paid_sum_", "feature_m_"))]
        assert {k: acc.counter(k) for k in names if acc.counter(k)} == ref
        paid_bins = sum(acc.counter(k) for k in names if k.startswith("paid_sum_"))
        feature_bins = sum(acc.counter(k) for k in names if k.startswith("feature_m_") and k != "feature_m_total")
        # one paid-sum count per multiplied paid spin, one final-M count per feature
        assert paid_bins == acc.counter("paid_multiplied")
        assert feature_bins == acc.counter("triggers")
        assert acc.counter("triggers") > (20 if mode == "paid" else 499)
    assert paid_bins == 0 and acc.counter("feature_m_0") < n  # buy mode: no paid spin; some features multiply


def test_the_kernel_plays_by_the_rule_numbers_it_is_given(monkeypatch):
    """The kernel reads the rules' numbers from kernel.RULES (made from the build module), not from
    literals: other numbers, set alike in the reference engine, still give identical rounds."""
    from reelforge.games.gemstones_gold import kernel

    numbers = {"TRIGGER_SCATTERS": 2, "FREE_SPINS_AWARD": 4, "FREE_SPINS_PER_EXTRA_SCATTER": 1,
               "RETRIGGER_SCATTERS": 3, "RETRIGGER_SPINS": 2, "BASE_LANES": 2, "BASE_BLOCKERS": 2,
               "FREE_BLOCKERS": 1, "MIN_COUNT": 9}
    for name, value in numbers.items():
        monkeypatch.setattr(rules, name, value)
    table = kernel.rules_table(2, 4, 1, 3, 2, 2, 2, 1, 9)
    build = load_build("96.71")
    a = build.arrays
    for mode, n in (("paid", 4000), ("buy", 200)):
        ker = kernel.round_wins(kernel.seed_state(31), n, mode == "buy", a["strips"], a["lens"], a["packed"],
                                a["pay"], a["values"], a["base_cum"], a["free_cum"], table, build.cap_units)
        ref = reference_wins(build, n, 31, mode)
        assert np.array_equal(ref, ker)
        assert not np.array_equal(ker, GAME.kernel_round_wins(build, n, 31, mode))  # the numbers mattered


def test_the_generator_entry_to_free_spins_plays_the_kernels_features_and_advances_the_generator():
    from reelforge.games.gemstones_gold import kernel

    build = load_build("96.71")
    a = build.arrays
    stops, board, q, counts, work, _, vals, fout = kernel.make_bufs()
    rng = np.random.Generator(np.random.PCG64(8))
    wins = [kernel.free_spins(rng, a["strips"], a["lens"], a["packed"], a["pay"], a["values"], a["free_cum"], stops,
                              board, q, counts, work, vals, 10, 0, build.cap_units, fout) for _ in range(200)]
    assert wins == GAME.kernel_round_wins(build, 200, 8, "buy").tolist()


def test_the_per_pay_kernel_plays_the_same_rounds_and_splits_each_win_as_the_reference_engine_does():
    from reelforge.game.parsheet import reference_sample
    from reelforge.games.gemstones_gold.reporting import attribute

    from .scenario import scenario_build
    build = scenario_build()
    for mode, n in (("paid", 2000), ("buy", 150)):
        wins = GAME.kernel_round_wins(build, n, 99, mode)
        assert np.array_equal(GAME.kernel_pay_round_wins(build, n, 99, mode), wins)
        acc = GAME.simulate_pays_chunk(build, n, 99, mode)
        tally = reference_sample(GAME, build, n, 99, attribute, mode)  # the rules' events on the same stream
        got = dict(zip(acc.component_names, acc.components))
        assert sum(got.values()) == int(wins.sum()) and acc.counter("rounds whose pays fell short") == 0
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in tally.total.items() if v}
        assert {k: acc.counter(f"hits {k}") for k in acc.component_names[:-1] if got[k]} == \
            {k: h for k, h in tally.hits.items() if k != "cap|reduction" and h}
