"""The split-spins estimator's parts: a whole feature is the sum of its spins split into multiplier x pays +
the rest; one continuation per first board is exactly the strata's paid-spin tally; the feature means'
unbiased product (pairs of different spins only); the cascades' SCATTER draws tallied for the control variate."""

import copy
from itertools import permutations

import numpy as np

from reelforge.games.forge_of_gems import kernel, stratified_kernel
from reelforge.games.forge_of_gems.split_spins import (
    FreeSpins,
    SplitFeatureValues,
    SplitSpinsEstimator,
    scatter_probabilities,
    scatter_values,
)
from reelforge.games.forge_of_gems.stratified import HIST_BINS, HIST_WIDTH, MARKS, Strata
from reelforge.games.forge_of_gems.template import sampling_build
from reelforge.games.registry import get_game
from reelforge.mechanics.rng import pcg_state

T = kernel.tables(sampling_build())


def _feature(seed: int, spins: int) -> int:
    """A whole uncapped feature of ``spins`` free spins (the strata's kernel)."""
    sums, cross = np.zeros(1, dtype=np.int64), np.zeros((1, 1))
    tail, n_tail = np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64)
    stratified_kernel.run_features(np.random.default_rng(seed), T.cell_code, T.cell_total, T.forge_free, T.targets, T.paytable,
                        T.limits, T.cap_units, 1, np.array([spins]), sums, cross, tail, 2**62, n_tail)
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
    parts = stratified_kernel.PAID_PARTS
    counts, first, second = np.zeros(4, dtype=np.int64), np.zeros((4, parts)), np.zeros((4, parts, parts))
    squares, max_r, hist_r = np.zeros(1), np.zeros(1, dtype=np.int64), np.zeros((4, HIST_BINS))
    stratified_kernel.run_repeated_paid_spins(np.random.default_rng(5), T.cell_code, T.cell_total, T.forge_base, T.targets,
                                   T.paytable, T.limits, T.cap_units, n, np.ones(5, dtype=np.int64),
                                   scatter_probabilities(sampling_build()), counts, first, second, squares, max_r,
                                   hist_r, HIST_WIDTH)
    assert (counts == n_cls.sum(axis=1)).all() and (first[:, 1:5] == n_cls).all()
    assert (first[:, 0] == sum_b[:4].sum(axis=1)).all() and squares[0] == sum_b[4, 0]
    assert max_r[0] == max_b[0] > 0 and (hist_r == hist_b).all()
    assert sum_b[:4].sum() > 0 and n_cls[:, 1:].sum() > 0   # decisive: wins and GEMBOX classes were tallied


def test_the_feature_means_take_the_product_of_means_over_pairs_of_different_spins():
    spins = np.array([[30.0, 10.0, 2.0], [0.0, 0.0, 0.0], [12.0, 4.0, 1.0], [5.0, 5.0, 0.0]])  # (W, A, D)
    free = FreeSpins(len(spins), spins.sum(axis=0), spins.T @ spins)
    pairs = list(permutations(range(len(spins)), 2))
    product = sum(spins[i, 1] * spins[j, 2] for i, j in pairs) / len(pairs)
    means = SplitFeatureValues(Strata(features=2), free).means()
    for n, got in zip(MARKS, means, strict=True):
        assert got == n * spins[:, 0].mean() + n * (n - 1) / 2 * product


def test_the_cascades_scatter_draws_are_tallied_by_the_scatters_on_the_board_before_them():
    """The control variate's tallies add up to the spin's own SCATTERs, FORGE REEL landings and refilled cells."""
    board, forge, packs, remove, land, res = kernel._workspace()
    rng = np.random.default_rng(8)
    st = pcg_state(rng)
    checked = landed_any = 0
    for _ in range(20_000):
        kernel._spin(st, T.cell_code, T.cell_total, T.forge_base, T.targets, T.paytable, T.limits, T.cap_units,
                     False, 1, 0, board, forge, packs, remove, land, res, True)
        tally = res[kernel.R_SCAT_DRAWS:].reshape(kernel.SCAT_COUNTS, 4)
        first, final = res[kernel.R_FIRST_SCAT], res[kernel.R_SCAT]
        assert (tally[:first] == 0).all()    # no cascade starts with fewer SCATTERs than the first board's
        if final < kernel.SCAT_COUNTS:       # every cascade tallied
            checked += 1
            assert tally[:, 0].sum() == final - first
            assert tally[:, 1].sum() == res[kernel.R_FORGE_DRAWS] - kernel.REELS
            assert tally[:, 2].sum() == res[kernel.R_REFILL_FIRST]
            assert tally[:, 3].sum() == res[kernel.R_REFILL_OTHER]
            landed_any += final > first
    assert checked > 19_000 and landed_any > 50   # decisive: SCATTERs landed in the cascades


def test_a_scatter_is_worth_the_step_to_the_next_class_value():
    beta = scatter_values(np.array([0.0, 170.0, 290.0, 620.0]))
    assert beta[2:].tolist() == [170.0, 120.0, 330.0]
    assert 0 < beta[0] < beta[1] < beta[2]
    p = scatter_probabilities(sampling_build())
    assert p.tolist() == [4 / 107, 11 / 851, 11 / 857]


def test_a_sample_kept_before_the_scatter_surprises_estimates_as_without_the_control_variate():
    est = SplitSpinsEstimator()
    build = get_game("forge-of-gems").load_build("96.2")
    sample = est.sample(build, 20_000, 200, 4, workers=1)
    old = copy.deepcopy(sample)
    old.arrays["paid_first"] = sample.arrays["paid_first"][:, :5]
    old.arrays["paid_second"] = sample.arrays["paid_second"][:, :5, :5]
    zeroed = copy.deepcopy(sample)
    zeroed.arrays["paid_first"][:, 5:] = 0.0
    zeroed.arrays["paid_second"][:, 5:, :] = 0.0
    zeroed.arrays["paid_second"][:, :, 5:] = 0.0
    new, kept, plain = (est.estimate(s, build) for s in (sample, old, zeroed))
    assert kept.rtp == plain.rtp and kept.rtp_ci99 == plain.rtp_ci99
    assert new.rtp != kept.rtp   # decisive: the surprises moved this sample's estimate
