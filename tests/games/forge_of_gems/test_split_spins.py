"""The split-spins estimator's parts: a whole feature is the sum of its spins split into multiplier x pays +
the rest; one continuation per first board is exactly the strata's paid-spin tally; the feature means'
unbiased product (pairs of different spins only)."""

import dataclasses
from itertools import permutations

import numpy as np
import pytest

from reelforge.games.forge_of_gems import kernel, stratified, stratified_kernel, template
from reelforge.games.forge_of_gems.build import load_build
from reelforge.games.forge_of_gems.split_spins import FreeSpins, RepeatedPaid, RepeatedPaidSpins, SplitFeatureValues
from reelforge.games.forge_of_gems.stratified import HIST_BINS, HIST_WIDTH, MARKS, Strata
from reelforge.games.forge_of_gems.template import sampling_build

T = kernel.tables(sampling_build())


def _feature(seed: int, spins: int) -> int:
    """A whole uncapped feature of ``spins`` free spins (the strata's kernel)."""
    sums, cross = np.zeros(1, dtype=np.int64), np.zeros((1, 1))
    tail, n_tail = np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64)
    stratified_kernel.run_features(np.random.default_rng(seed), T.cell_code, T.cell_total, T.forge_free, T.targets, T.paytable,
                        T.limits, T.cap_units, 1, np.array([spins]), sums, cross, tail, 0, n_tail,
                        np.zeros((1, 0), dtype=np.int64), 1)
    return int(sums[0])


def test_a_feature_is_its_free_spins_split_into_multiplier_times_pays_plus_the_rest():
    grown = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)   # the same stream, spin by spin, each started at multiplier 1
        total, multiplier = 0.0, 1
        for _ in range(10):
            sums, cross = np.zeros(3), np.zeros((3, 3))
            stratified_kernel.run_free_spin_parts(rng, T.cell_code, T.cell_total, T.forge_free, T.targets, T.paytable, T.limits,
                                       T.cap_units, 1, 1, sums, cross)
            win, pays, landed = (int(v) for v in sums)
            total += win + (multiplier - 1) * pays
            grown += multiplier > 1 and pays > 0
            multiplier += landed
        assert total == _feature(seed, 10), seed
    assert grown > 20   # decisive: many spins paid at a multiplier the single spin never had


def test_one_continuation_per_first_board_is_the_strata_paid_spin_tally():
    n = 3_000
    n_cls, sum_b = np.zeros((4, 4), dtype=np.int64), np.zeros((5, 4))
    max_b, hist_b = np.zeros(1, dtype=np.int64), np.zeros((4, HIST_BINS), dtype=np.int64)
    stratified_kernel.run_base_spins(np.random.default_rng(5), T.cell_code, T.cell_total, T.forge_base, T.targets, T.paytable,
                          T.limits, T.cap_units, n, n_cls, sum_b, max_b, hist_b, HIST_WIDTH)
    counts, first, second = np.zeros(4, dtype=np.int64), np.zeros((4, 5)), np.zeros((4, 5, 5))
    squares, max_r, hist_r, capped = np.zeros(1), np.zeros(1, dtype=np.int64), np.zeros((4, HIST_BINS)), np.zeros(1)
    stratified_kernel.run_repeated_paid_spins(np.random.default_rng(5), T.cell_code, T.cell_total, T.forge_base, T.targets,
                                   T.paytable, T.limits, T.cap_units, n, np.ones(5, dtype=np.int64), counts, first,
                                   second, squares, max_r, hist_r, HIST_WIDTH, capped)
    assert (counts == n_cls.sum(axis=1)).all() and (first[:, 1:] == n_cls).all()
    assert (first[:, 0] == sum_b[:4].sum(axis=1)).all() and squares[0] == sum_b[4, 0]
    assert max_r[0] == max_b[0] > 0 and (hist_r == hist_b).all() and capped[0] == 0
    assert sum_b[:4].sum() > 0 and n_cls[:, 1:].sum() > 0   # decisive: wins and GEMBOX classes were tallied


def test_the_feature_means_take_the_product_of_means_over_pairs_of_different_spins():
    spins = np.array([[30.0, 10.0, 2.0], [0.0, 0.0, 0.0], [12.0, 4.0, 1.0], [5.0, 5.0, 0.0]])  # (W, A, D)
    free = FreeSpins(len(spins), spins.sum(axis=0), spins.T @ spins)
    pairs = list(permutations(range(len(spins)), 2))
    product = sum(spins[i, 1] * spins[j, 2] for i, j in pairs) / len(pairs)
    means = SplitFeatureValues(Strata(features=2), free).means()
    for n, got in zip(MARKS, means, strict=True):
        assert got == n * spins[:, 0].mean() + n * (n - 1) / 2 * product


def test_the_cap_correction_counts_the_features_below_the_tail_threshold_after_a_large_paid_spin():
    """A cap in reach of a feature below the tail threshold after the sample's largest paid spin (the 96.2
    certification met one: a GEMBOX after a paid-spin win of 19,611x, 388x under the cap). The former rule
    refused such a sample; the histogram of the other features gives the correction that keeping every
    feature whole gives (the same draws), within its bins' bound."""
    run = {"chunk": 100_000, "workers": 1, "log": False}
    binned = stratified.simulate_strata(100_000, 5_000, seed=4, tail_threshold=stratified.TAIL_THRESHOLD, **run)
    whole = stratified.simulate_strata(100_000, 5_000, seed=4, tail_threshold=0, **run)
    assert len(whole.tail) == 5_000 and (binned.hist_f.sum(axis=1) == 5_000 - len(binned.tail)).all()
    build = dataclasses.replace(load_build("96.2"), cap_x=binned.max_b // template.UNIT + 1)  # above every paid spin
    got, exact = stratified.estimate(binned, build), stratified.estimate(whole, build)
    low, high = got["cap_correction"] - got["cap_bound"], got["cap_correction"] + got["cap_bound"]
    assert low <= exact["cap_correction"] - exact["cap_bound"] <= exact["cap_correction"] + exact["cap_bound"] <= high
    assert got["cap_bound"] < 1e-3 * got["cap_correction"]
    assert abs(got["rtp"] - exact["rtp"]) <= got["cap_bound"] + exact["cap_bound"]
    assert got["ci99"][0] < exact["rtp"] < got["ci99"][1]
    # decisive: the kept features alone give barely half the correction, which the former rule had to refuse
    kept_only = stratified.estimate(dataclasses.replace(binned, hist_f=np.zeros_like(binned.hist_f)), build)
    assert kept_only["cap_correction"] < 0.7 * got["cap_correction"]
    with pytest.raises(ValueError, match="tail threshold 100000 too high"):
        stratified.estimate(dataclasses.replace(binned, hist_f=None), build)


def _paid_spins_at(cap_x: int, n: int, seed: int) -> tuple[RepeatedPaidSpins, int]:
    """``n`` paid spins of one continuation each, under a cap of ``cap_x`` x bet; and the cap in units."""
    t = kernel.tables(dataclasses.replace(load_build("96.2"), cap_x=cap_x))
    counts, first, second = np.zeros(4, dtype=np.int64), np.zeros((4, 5)), np.zeros((4, 5, 5))
    squares, max_b, hist_b, capped = np.zeros(1), np.zeros(1, dtype=np.int64), np.zeros((4, HIST_BINS)), np.zeros(1)
    stratified_kernel.run_repeated_paid_spins(np.random.default_rng(seed), t.cell_code, t.cell_total, t.forge_base,
                                              t.targets, t.paytable, t.limits, t.cap_units, n,
                                              np.ones(5, dtype=np.int64), counts, first, second, squares, max_b,
                                              hist_b, HIST_WIDTH, capped)
    return RepeatedPaidSpins(counts, first, second, float(squares[0]), int(max_b[0]), hist_b, float(capped[0])), \
        int(t.cap_units)


def test_a_paid_spin_that_reaches_the_cap_ends_its_round_there_without_a_gembox():
    """The rules stop a round at the cap, GEMBOX or not; the samplers once kept a capped spin's SCATTERs (a
    GEMBOX its round never opens), and the estimate refused any sample with a paid spin at the cap (a 96.2
    certification met one after 2e9 paid spins). Under a cap of 1x bet many paid spins reach it."""
    paid, cap = _paid_spins_at(1, 300_000, 7)
    at_cap = cap // HIST_WIDTH   # B never exceeds the cap: this bin holds exactly the spins that reached it
    assert paid.capped == paid.hist_b[0, at_cap] > 10_000 and paid.max_b == cap
    assert not paid.hist_b[1:, at_cap:].any()   # no GEMBOX class holds a spin at the cap
    # decisive: SCATTERs never leave the board, so a first board of 3 or more that ends without a GEMBOX was capped
    ended_without = paid.first[1:, 1].sum()
    assert 0 < ended_without <= paid.capped
    # the strata's sampler (one continuation, the same draws) classes its spins the same way
    t = kernel.tables(dataclasses.replace(load_build("96.2"), cap_x=1))
    n_cls, sum_b = np.zeros((4, 4), dtype=np.int64), np.zeros((5, 4))
    max_b, hist_b = np.zeros(1, dtype=np.int64), np.zeros((4, HIST_BINS), dtype=np.int64)
    stratified_kernel.run_base_spins(np.random.default_rng(7), t.cell_code, t.cell_total, t.forge_base, t.targets,
                                     t.paytable, t.limits, t.cap_units, 300_000, n_cls, sum_b, max_b, hist_b, HIST_WIDTH)
    assert (paid.first[:, 1:] == n_cls).all() and (paid.hist_b == hist_b).all()


def test_the_estimate_counts_paid_spins_at_the_cap_in_its_probability_and_refuses_a_sample_that_cannot():
    paid, cap = _paid_spins_at(1, 100_000, 11)
    build = dataclasses.replace(load_build("96.2"), cap_x=1)
    st = stratified.simulate_strata(0, 2_000, seed=4, tail_threshold=0, chunk=100_000, workers=1, log=False)
    got = stratified.estimate(st, build, paid=RepeatedPaid(paid))
    alone = paid.capped / paid.counts.sum()
    lo, hi = got["cap_probability_ci99"]
    assert got["cap_probability"] >= alone > 0.05 and lo <= got["cap_probability"] <= hi
    assert got["paid_spins_reaching_cap_alone"] == paid.capped
    # a sample that did not count its capped paid spins (tallied before they were) cannot be estimated
    with pytest.raises(ValueError, match="reached the cap in a sample that does not count"):
        stratified.estimate(st, build, paid=RepeatedPaid(dataclasses.replace(paid, capped=None)))
