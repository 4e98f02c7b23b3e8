"""Mergeable statistics: merging equals one run over both; derived figures."""

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from reelforge.mechanics.tally import tally_round
from reelforge.stats import Accumulator, Tally, bucket_edges_units, volatility_level


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
