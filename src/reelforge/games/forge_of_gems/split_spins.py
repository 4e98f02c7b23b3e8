"""The Forge of Gems estimator with the free spins split apart (:class:`SplitSpinsEstimator`): the
stratified estimate of :mod:`.stratified` with the features' means taken from single free spins.

A free spin's boards and cascades never depend on the win multiplier (it only scales the wins), and
every free spin draws a fresh board and FORGE REEL: the spins of a feature are independent but for
the multiplier they carry. A spin started at multiplier ``m`` wins ``W + (m - 1) A``, where ``W`` is
its win started at 1 and ``A`` its wins at multiplier 1 throughout, and raises the multiplier by the
Multipliers it lands, ``D``. With ``m_s = 1 + D_1 + ... + D_{s-1}`` independent of spin ``s``,

    E[F_n] = n E[W] + n (n - 1) / 2 E[A] E[D]

for the (uncapped) win ``F_n`` of an ``n``-spin feature. Single free spins, each an independent
sample, estimate it: ``n mean(W)`` plus ``n (n - 1) / 2`` times the U-statistic
``(sum A sum D - sum A D) / (M (M - 1))``, unbiased for ``E[A] E[D]``; the variance is the delta
method's, from the spins' covariance of ``(W, A, D)``. A spin is a twentieth of a 20-spin feature's
work and the multiplier's path, which carries most of a feature's variance, is averaged exactly.

The whole 20-spin features stay, fewer of them, for what only they give: the cap correction (the
wins beyond 20,000x, a few tenths of a point of RTP) and the cap's probability; the correction's own
variance is added (it is independent of the single spins). The paid spins are simulated alone as in
:mod:`.stratified` (first-board scatter class as control variate), but each first board is played on
several times (:data:`PAID_REPEATS`, by its SCATTERs; each free-spin board :data:`FREE_SPIN_REPEATS`
times): the mean of a board's continuations is unbiased for its expected outcome, and most of a spin's
variance is in its cascades, so repeating them buys more precision per CPU second than fresh boards do
(1.6x for the paid spins, measured). Each stratum's share of the paid
spins is fixed (:data:`FREE_SPINS_PER_PAID_SPIN`, :data:`PAID_SPINS_PER_FEATURE`), chosen from the
strata's variances and CPU costs (Neyman allocation; docs/performance.md gives the figures).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from reelforge.core.calibration import map_chunks
from reelforge.core.chunks import chunk_stream
from reelforge.game.buildfile import content_hash
from reelforge.game.estimation import Sample, StratifiedEstimator
from reelforge.game.results import StratifiedEstimate
from reelforge.games.forge_of_gems import kernel, stratified_kernel
from reelforge.games.forge_of_gems.build import FILES, GAME_ID, Build
from reelforge.games.forge_of_gems.stratified import (
    HIST_BINS,
    HIST_WIDTH,
    MARKS,
    TAIL_THRESHOLD,
    FeatureValues,
    PaidSpins,
    Strata,
    estimate_of,
    simulate_strata,
)
from reelforge.games.forge_of_gems.template import sampling_build

KIND = "split-spins"
FREE_SPINS_PER_PAID_SPIN = 0.75
"""Free-spin first boards (each continued :data:`FREE_SPIN_REPEATS` times) per paid spin."""
PAID_SPINS_PER_FEATURE = 60
"""Paid spins per whole feature (the features behind the cap correction)."""
MIN_FEATURES = 5_000
"""Whole features at least (the cap correction needs its tail); below the share of 1e6 paid spins, the pilot of
``summary --precision``, so every stratum grows in proportion from there."""
FREE_SPIN_CHUNK = 1_000_000
FREE_SPIN_REPEATS = 2
"""Continuations of a free spin's first board (the spin's means over them are one sample)."""
PAID_CHUNK = 500_000
PAID_REPEATS = (3, 8, 16, 8, 8)
"""Continuations of a paid spin's first board by its SCATTERs (0, 1, 2, 3, 4 or more): most where the
cascades most often decide the GEMBOX (2 SCATTERs: one more triggers it)."""


@dataclass
class RepeatedPaidSpins:
    """The sums of :func:`stratified_kernel.run_repeated_paid_spins`: per first-board scatter class ``i``, paid spins,
    sums of ``x = (mean B, shares ending in class 0..3)`` and of ``x x^T``."""

    counts: np.ndarray = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    first: np.ndarray = field(default_factory=lambda: np.zeros((4, 5), dtype=np.float64))
    second: np.ndarray = field(default_factory=lambda: np.zeros((4, 5, 5), dtype=np.float64))
    win_squares: float = 0.0
    max_b: int = 0
    hist_b: np.ndarray = field(default_factory=lambda: np.zeros((4, HIST_BINS), dtype=np.float64))
    capped: float | None = 0.0
    """Paid spins that reached the cap alone (each spin's share of its continuations); None: a sample tallied
    before they were counted."""

    def merge(self, other: RepeatedPaidSpins) -> RepeatedPaidSpins:
        capped = None if self.capped is None or other.capped is None else self.capped + other.capped
        return RepeatedPaidSpins(self.counts + other.counts, self.first + other.first, self.second + other.second,
                                 self.win_squares + other.win_squares, max(self.max_b, other.max_b),
                                 self.hist_b + other.hist_b, capped)


class RepeatedPaid(PaidSpins):
    """The paid-spin stratum from repeated continuations: D = x . (1 / unit, dv[i, 0..3]) per paid spin."""

    def __init__(self, r: RepeatedPaidSpins) -> None:
        self.r = r
        self.spins, self.hist_b, self.max_b, self.capped = int(r.counts.sum()), r.hist_b, r.max_b, r.capped

    def d_sums(self, dv: np.ndarray, unit: int) -> tuple[float, float]:
        total = square = 0.0
        for i in range(4):
            v = np.concatenate(([1.0 / unit], dv[i]))
            total += float(self.r.first[i] @ v)
            square += float(v @ self.r.second[i] @ v)
        return total, square

    def class_shift(self) -> list[float]:
        return [(self.r.first[:, 1 + k].sum() - self.r.counts[k]) / self.spins for k in range(4)]

    def win_sum(self) -> float:
        return float(self.r.first[:, 0].sum())

    def win_square_sum(self) -> float:
        return self.r.win_squares


def _paid_chunk(rng, n, t, repeats, counts, first, second, squares, max_b, hist_b, capped) -> None:
    stratified_kernel.run_repeated_paid_spins(rng, t.cell_code, t.cell_total, t.forge_base, t.targets, t.paytable, t.limits,
                                   t.cap_units, n, repeats, counts, first, second, squares, max_b, hist_b,
                                   HIST_WIDTH, capped)


def simulate_paid_spins(count: int, seed: np.random.SeedSequence, workers: int | None = None,
                        log: bool = False) -> RepeatedPaidSpins:
    """``count`` paid spins from ``seed``, each first board continued :data:`PAID_REPEATS` times (the same sums
    for any number of workers)."""
    t = kernel.tables(sampling_build())
    out = RepeatedPaidSpins()
    outs = [((4,), np.int64), ((4, 5), np.float64), ((4, 5, 5), np.float64), ((1,), np.float64), ((1,), np.int64),
            ((4, HIST_BINS), np.float64), ((1,), np.float64)]
    repeats = np.array(PAID_REPEATS, dtype=np.int64)
    for counts, first, second, squares, max_b, hist_b, capped in map_chunks(_paid_chunk, count, seed, (t, repeats),
                                                                            outs, PAID_CHUNK, workers, "paid spins",
                                                                            log):
        out = out.merge(RepeatedPaidSpins(counts, first, second, float(squares[0]), int(max_b[0]), hist_b,
                                          float(capped[0])))
    return out


@dataclass
class FreeSpins:
    """Sums over single free spins of ``(W, A, D)`` and their products (:func:`stratified_kernel.run_free_spin_parts`)."""

    count: int = 0
    sums: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=np.float64))
    cross: np.ndarray = field(default_factory=lambda: np.zeros((3, 3), dtype=np.float64))

    def merge(self, other: FreeSpins) -> FreeSpins:
        return FreeSpins(self.count + other.count, self.sums + other.sums, self.cross + other.cross)


def _free_spin_chunk(rng, n, t, sums, cross) -> None:
    stratified_kernel.run_free_spin_parts(rng, t.cell_code, t.cell_total, t.forge_free, t.targets, t.paytable, t.limits,
                               t.cap_units, n, FREE_SPIN_REPEATS, sums, cross)


def simulate_free_spins(count: int, seed: np.random.SeedSequence, workers: int | None = None,
                        log: bool = False) -> FreeSpins:
    """``count`` single free spins from ``seed`` (the same sums for any number of workers)."""
    t = kernel.tables(sampling_build())
    out = FreeSpins(count=count)
    for sums, cross in map_chunks(_free_spin_chunk, count, seed, (t,), [((3,), np.float64), ((3, 3), np.float64)],
                                  FREE_SPIN_CHUNK, workers, "free spins", log):
        out.sums += sums
        out.cross += cross
    return out


class SplitFeatureValues(FeatureValues):
    """E[F_n] from single free spins (the module's formula) and its delta-method variance."""

    separate = True

    def __init__(self, st: Strata, spins: FreeSpins) -> None:
        super().__init__(st)
        if spins.count < 2:
            raise ValueError("the split estimate needs at least two single free spins")
        self.spins = spins
        n = spins.count
        self.mean = spins.sums / n
        # E[A] E[D] without the bias of a product of means: pairs of different spins only
        self.product = (float(spins.sums[1]) * float(spins.sums[2]) - spins.cross[1, 2]) / (n * (n - 1))

    def means(self) -> np.ndarray:
        return np.array([n * self.mean[0] + n * (n - 1) / 2 * self.product for n in MARKS])

    def variance(self, a: np.ndarray) -> float:
        n, marks = self.spins.count, np.array(MARKS, dtype=np.float64)
        alpha, beta = float(a @ marks), float(a @ (marks * (marks - 1) / 2))
        grad = np.array([alpha, beta * self.mean[2], beta * self.mean[1]])
        cov = (self.spins.cross / n - np.outer(self.mean, self.mean)) * n / (n - 1)
        return float(grad @ cov @ grad) / n


PAID_ARRAYS = ("counts", "first", "second", "hist_b")


def to_sample(st: Strata, paid: RepeatedPaidSpins, spins: FreeSpins) -> Sample:
    """The whole features (the strata, without paid spins), the repeated paid spins and the free spins as one
    :class:`~reelforge.game.estimation.Sample` (kind ``split-spins``)."""
    base = st.to_sample()
    base.kind = KIND
    base.values |= {"free_spins": spins.count, "paid_spins": int(paid.counts.sum()), "paid_max_b": paid.max_b,
                    "paid_win_squares": paid.win_squares}
    if paid.capped is not None:
        base.values["paid_capped"] = paid.capped
    base.settings |= {"free_spins": spins.count, "paid_spins": int(paid.counts.sum()),
                      "paid_repeats": list(PAID_REPEATS)}
    base.arrays |= {"free_spin_sums": spins.sums, "free_spin_cross": spins.cross,
                    **{f"paid_{k}": getattr(paid, k) for k in PAID_ARRAYS}}
    return base


def from_sample(s: Sample) -> tuple[Strata, RepeatedPaidSpins, FreeSpins]:
    v, a = s.values, s.arrays
    capped = v.get("paid_capped")  # absent: tallied before capped paid spins were counted
    paid = RepeatedPaidSpins(a["paid_counts"], a["paid_first"], a["paid_second"], float(v["paid_win_squares"]),
                             int(v["paid_max_b"]), a["paid_hist_b"], None if capped is None else float(capped))
    return Strata.from_sample(s), paid, FreeSpins(int(v["free_spins"]), a["free_spin_sums"], a["free_spin_cross"])


class SplitSpinsEstimator(StratifiedEstimator):
    """Paid spins, single free spins and (fewer) whole features, in paytable units: one sample estimates
    any build (the draws never depend on the GEMBOX weights)."""

    game = GAME_ID
    kind = KIND
    description = ("stratified with split free spins: paid spins alone, each first board continued several times "
                   "(its scatter class as control variate), the feature's mean from single free spins (its "
                   "multiplier path averaged exactly), whole features only for the cap correction")

    efficiency_vs_plain = {"ratio": 5.4, "how": "1 / (99% half-width^2 x CPU seconds) of this estimator against "
                           "plain simulation of whole rounds, build 96.2, two alternating pairs in one run of "
                           "`python bench/efficiency.py --game forge-of-gems --repeats 2` (docs/performance.md)"}
    """Measured, not derived (the figure the certification package quotes)."""

    def sample_design(self, build: Build) -> str:
        """The build's content less its name, RTP and GEMBOX weights: the samples simulate the shared design
        (:func:`.template.sampling_build`) in paytable units, and only the estimate reads the GEMBOX weights,
        which are all that the shipped builds differ in (one sample certifies all five)."""
        data = FILES.to_data(build)
        for key in ("name", "rtp", "gembox"):
            data.pop(key, None)
        return content_hash(GAME_ID, build.rules, data)

    def feature_rounds(self, rounds: int) -> int:
        """Whole features beside ``rounds`` paid spins: one per :data:`PAID_SPINS_PER_FEATURE`, at least
        :data:`MIN_FEATURES`."""
        return max(rounds // PAID_SPINS_PER_FEATURE, MIN_FEATURES)

    @staticmethod
    def free_spins(rounds: int) -> int:
        """Single free spins beside ``rounds`` paid spins."""
        return max(int(rounds * FREE_SPINS_PER_PAID_SPIN), 2)

    def sample(self, build: Build | None, rounds: int, feature_rounds: int, seed: int, workers: int | None = None,
               log: bool = False) -> Sample:
        """The strata of ``seed`` (streams 0 and 1 of its SeedSequence) and the free spins (stream 2)."""
        start = time.time()
        st = simulate_strata(0, feature_rounds, seed, TAIL_THRESHOLD, workers=workers, log=log)
        paid = simulate_paid_spins(rounds, chunk_stream(seed, 3), workers, log)
        spins = simulate_free_spins(self.free_spins(rounds), chunk_stream(seed, 2), workers, log)
        st.seconds = time.time() - start
        return to_sample(st, paid, spins)

    def estimate(self, sample: Sample, build: Build) -> StratifiedEstimate:
        st, paid, spins = from_sample(sample)
        est = estimate_of(st, build, SplitFeatureValues(st, spins), RepeatedPaid(paid))
        est.extra.update({"single_free_spins": spins.count, "paid_spin_repeats": list(PAID_REPEATS),
                          "estimator_method": self.description})
        return est

    def merge(self, first: Sample, second: Sample) -> Sample:
        """The strata merged (:meth:`Strata.merge`), the paid and free spins' sums added."""
        (a, pa, fa), (b, pb, fb) = from_sample(first), from_sample(second)
        return to_sample(a.merge(b), pa.merge(pb), fa.merge(fb))



def coverage_intervals(build: Build, rounds: int) -> Callable[[int], dict[str, tuple[float, float]]]:
    """One run of the estimator (``rounds`` paid spins, one worker): its 99% RTP interval, for the coverage proof
    (:mod:`reelforge.analysis.coverage`)."""
    est = SplitSpinsEstimator()

    def run(seed: int) -> dict[str, tuple[float, float]]:
        return {"RTP": est.run(build, rounds, seed, workers=1).rtp_ci99}

    return run
