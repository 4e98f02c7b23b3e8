"""Shared calibration pieces: parallel chunked samples and the generic tuner's coarse-to-fine search."""

from fractions import Fraction

import numpy as np
import pytest
from numba import njit

from reelforge.core.calibration import chunked_sums
from reelforge.core.tuning import Param, TuningSpace, climb, pattern_steps
from reelforge.games.forge_of_gems import design as fog
from reelforge.games.forge_of_gems import stratified as fogs
from reelforge.games.forge_of_gems.template import make_build
from reelforge.mechanics.rng import draw


@njit(cache=True)
def _dice(rng, n, sides, faces, total):
    for _ in range(n):
        k = draw(rng, sides)
        faces[k] += 1
        total[0] += k * 0.1


def test_chunked_sums_do_not_depend_on_the_number_of_workers():
    spec = [((6,), np.int64), ((1,), np.float64)]
    one = chunked_sums(_dice, 100_003, 42, (6,), spec, chunk=10_000, workers=1)
    two = chunked_sums(_dice, 100_003, 42, (6,), spec, chunk=10_000, workers=2)
    assert one[0].sum() == 100_003
    assert np.array_equal(one[0], two[0]) and one[1][0] == two[1][0]   # bit for bit, floats included
    other = chunked_sums(_dice, 100_003, 43, (6,), spec, chunk=10_000, workers=2)
    assert not np.array_equal(one[0], other[0])


def test_forge_of_gems_sample_is_the_same_for_one_or_two_workers():
    a = fogs.simulate_strata(150_000, 3_000, seed=7, tail_threshold=fogs.TAIL_THRESHOLD, chunk=40_000, log=False, workers=1)
    b = fogs.simulate_strata(150_000, 3_000, seed=7, tail_threshold=fogs.TAIL_THRESHOLD, chunk=40_000, log=False, workers=2)
    for field in ("n_cls", "sum_b", "hist_b", "sums", "cross", "hist_f"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.max_b == b.max_b and np.array_equal(a.tail, b.tail) and a.spins == 150_000 and a.features == 3_000


def test_pattern_steps_run_from_a_quarter_of_the_width_down_to_one():
    assert pattern_steps(10_000) == (2048, 1024, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1)
    assert pattern_steps(3) == (1,)


@pytest.mark.parametrize("target", [0.123456, 0.5, 0.987])
def test_coarse_to_fine_climb_finds_the_closest_integer_of_a_monotone_figure(target):
    def figure(w: int) -> float:
        return (w / 10_000) ** 1.7

    space = TuningSpace(params=[Param("w", 0, 10_000)], start={"w": 5_000}, make_build=lambda v: v["w"],
                        measure=lambda w: {"x": figure(w)}, tolerances={"x": 1e-6})
    found = climb(space, {"x": target}, steps=pattern_steps(10_000))["w"]
    best = min(range(10_001), key=lambda w: abs(figure(w) - target))
    assert found == best


def test_forge_of_gems_tuner_lands_on_the_closest_prize_weight():
    st = fogs.simulate_strata(300_000, 5_000, seed=3, tail_threshold=fogs.TAIL_THRESHOLD, log=False)
    build = fog.calibrate_one(st, "91.2", 0.912)
    w = build.gembox[3].weights[0]
    err = {d: abs(fogs.estimate(st, make_build("91.2", w + d))["rtp"] - 0.912) for d in (-1, 0, 1)}
    assert err[0] <= err[-1] and err[0] <= err[1]


def test_the_coordinate_search_moves_one_parameter_at_a_time_and_stops_at_the_tolerance():
    """Eight parameters, two targets (their mean and the spread of the first two): met within the
    tolerance in a number of candidates linear in the parameters, never a pair search's quadratic."""
    from reelforge.core.tuning import Figure, Param, Target, coordinate_search

    params = [Param(f"p{i}", 0, 200) for i in range(8)]
    start = {p.name: 50 for p in params}

    def measure(v):
        return {"mean": Figure(sum(v.values()) / 8), "spread": Figure(v["p0"] - v["p1"])}

    targets = [Target("mean", Fraction(90), Fraction(1, 2)), Target("spread", Fraction(30), Fraction(1))]
    found = coordinate_search(params, start, measure, targets)
    assert found.met and abs(found.measured["mean"].value - 90) <= 0.5 and abs(found.measured["spread"].value - 30) <= 1
    assert found.evaluations <= 4 * 2 * len(params) * 6      # a handful of sweeps of 2 moves per parameter
    unreachable = coordinate_search(params, start, measure, [Target("mean", Fraction(500), Fraction(1))])
    assert not unreachable.met and unreachable.values == {p.name: 200 for p in params}
