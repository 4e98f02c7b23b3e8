"""Mergeable statistics: merging equals one run over both; derived figures."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reelforge.core.stats import Accumulator, Tally, bucket_edges_units, volatility_level
from reelforge.mechanics.tally import tally_round


def new(unit=20, cap=2500):
    return Accumulator(unit=unit, cap_units=cap * unit, stake_units=unit, component_names=("a", "b"),
                       counter_names=("triggers",))


wins = st.lists(st.tuples(st.integers(0, 60000), st.integers(0, 5000)), max_size=60)


@given(wins, wins)
def test_merge_equals_one_run_over_both(xs, ys):
    a, b, both = new(), new(), new()
    for x in xs:
        a.add_round(x, {"triggers": x[1] > 0})
        both.add_round(x, {"triggers": x[1] > 0})
    for y in ys:
        b.add_round(y, {"triggers": y[1] > 0})
        both.add_round(y, {"triggers": y[1] > 0})
    assert a.merge(b).key() == both.key()


def test_kernel_tally_equals_python_accumulator():
    rng = np.random.default_rng(1)
    ws = rng.choice([0, 0, 0, 20, 40, 100, 2000, 50000], size=5000)
    acc_py = new()
    for w in ws:
        acc_py.add_round((int(w), 0))
    tally = Tally.empty(2, 1)
    edges = bucket_edges_units(20)
    for w in ws:
        tally_round(tally.totals, tally.hist, edges, 2500 * 20, int(w))
        tally.components[0] += w
        tally.components[2] += w * w
    acc_k = new()
    acc_k.add_tally(tally)
    assert acc_k.key() == acc_py.key()


def test_derived_figures():
    acc = new(unit=1, cap=100)
    for w in [0, 0, 0, 1, 2, 5, 100, 0]:
        acc.add_round((w, 0))
    assert acc.rounds == 8 and acc.hits == 4
    assert acc.rtp == 108 / 8
    assert math.isclose(acc.sd, float(np.std([0, 0, 0, 1, 2, 5, 100, 0], ddof=1)))
    lo, hi = acc.rtp_ci99()
    assert lo < acc.rtp < hi
    assert acc.max_win == 100 and acc.max_count == 1
    assert acc.hist[-1] == 1  # the cap bucket
    assert sum(d["probability"] for d in acc.distribution()) == 1


def test_volatility_scale():
    assert volatility_level(0.5) == 1
    assert volatility_level(1.0) == 2
    assert volatility_level(8.99) == 6
    assert volatility_level(9) == 7
    assert volatility_level(13.99) == 7
    assert volatility_level(14) == 8
    assert volatility_level(45) == 10


def test_power_sums_stay_exact_up_to_the_largest_cap():
    top = (1 << 20) - 1
    acc_py = Accumulator(unit=20, cap_units=top, stake_units=20, component_names=("a",))
    tally = Tally.empty(1, 0)
    edges = bucket_edges_units(20)
    for w in [top] * 3000 + [top - 12345, 7, 0, 1 << 19]:
        acc_py.add_round((w,))
        tally_round(tally.totals, tally.hist, edges, top, w)
        tally.components[0] += w
        tally.components[1] += w * w
    acc_k = Accumulator(unit=20, cap_units=top, stake_units=20, component_names=("a",))
    acc_k.add_tally(tally)
    assert acc_k.win_quad == acc_py.win_quad and acc_k.win_cube == acc_py.win_cube
    assert acc_k.key() == acc_py.key()


def test_sd_interval_holds_the_sd_and_shrinks_with_the_sample():
    rng = np.random.default_rng(7)
    small, big = new(), new()
    for i, w in enumerate(rng.choice([0, 0, 0, 20, 40, 100, 2000], size=40_000)):
        (small if i < 4000 else big).add_round((int(w), 0))
    big.merge_in(small)
    for acc in (small, big):
        lo, hi = acc.sd_ci99()
        assert lo < acc.sd < hi
    assert big.sd_ci99()[1] - big.sd_ci99()[0] < 0.5 * (small.sd_ci99()[1] - small.sd_ci99()[0])


def test_a_stale_kernel_that_leaves_the_power_sums_empty_is_refused():
    tally = Tally.empty(2, 1)
    tally_round(tally.totals, tally.hist, bucket_edges_units(20), 2500 * 20, 40)
    tally.totals[6:] = 0  # what a kernel compiled before the power sums leaves
    with pytest.raises(RuntimeError, match="numba cache"):
        new().add_tally(tally)


def test_one_bucket_definition_serves_win_units_fractions_and_the_kernels():
    from fractions import Fraction

    from reelforge.core.stats import BUCKET_EDGES_X, BUCKET_LABELS, bucket_bounds, bucket_index
    from reelforge.mechanics.tally import _bucket_index

    unit, cap_x = 20, 2500
    edges = bucket_edges_units(unit)
    # every edge, one unit each side of it, no win and the cap
    wins = sorted({0, 1, cap_x * unit - 1, cap_x * unit} | {e + d for e in edges.tolist() for d in (-1, 0, 1)})
    got = [bucket_index(w, edges, cap_x * unit) for w in wins]
    assert got == [_bucket_index(w, edges, cap_x * unit) for w in wins]  # the compiled twin
    assert got == [bucket_index(Fraction(w, unit), BUCKET_EDGES_X, Fraction(cap_x)) for w in wins]  # x bet
    assert got[0] == 0 and got[-1] == len(BUCKET_LABELS) - 1 and got == sorted(got)
    for w, b in zip(wins, got, strict=True):  # each win lies inside its bucket's bounds
        lo, hi = bucket_bounds(cap_x)[b]
        assert lo <= w / unit < hi or lo == hi == w / unit


@pytest.mark.parametrize("cap_x, last_bands", [
    (2500, ["[500,1000)", "[1000,cap)", "cap"]),        # the shipped games' caps: every band
    (1000, ["[100,500)", "[500,1000)", "cap"]),         # the cap on an edge: no empty [1000, cap) band
    (300, ["[50,100)", "[100,500)", "cap"]),            # below an edge: the last band ends at the cap
])
def test_the_distribution_shows_only_bands_a_round_can_fall_in(cap_x, last_bands):
    from reelforge.core.stats import buckets

    unit = 10
    acc = Accumulator(unit=unit, cap_units=cap_x * unit, stake_units=unit, component_names=("paid",))
    acc.add_round([cap_x * unit])                        # one capped round
    acc.add_round([3 * unit])
    dist = acc.distribution()
    assert [d["bucket"] for d in dist[-3:]] == last_bands
    assert dist[-1]["count"] == 1 and sum(d["count"] for d in dist) == 2
    inner = [(d["from"], d["to"]) for d in dist[1:-1]]
    assert all(lo < hi <= cap_x for lo, hi in inner) and inner[-1][1] == cap_x
    assert [b[1] for b in buckets(cap_x)] == [d["bucket"] for d in dist]


def test_a_narrow_interval_prints_with_the_decimals_that_tell_its_ends_apart():
    """An interval narrower than its printed precision reads as a point ([35.0842%, 35.0842%] in a package): the
    ends get as many more decimals as they need; a wide one, an exact point and no interval print as before."""
    from reelforge.core.numbers import pct_ci

    assert pct_ci([0.35084152, 0.35084168]) == "[35.08415%, 35.08417%]"  # four places read [35.0842%, 35.0842%]
    assert pct_ci([0.35, 0.36]) == "[35.0000%, 36.0000%]"
    assert pct_ci([0.5, 0.5]) == "[50.0000%, 50.0000%]"
    assert pct_ci([0.96118, 0.96212], 3) == "[96.118%, 96.212%]"
    assert pct_ci(None) == "-"
