"""The Forge of Gems stratified estimate from paid spins and whole features simulated apart (the tuner's,
:mod:`.design`; :mod:`.split_spins` builds the game's estimator on it): RTP with its 99% interval.

At SD >= 30 x bet a 99% half-width of 0.10 pp needs about 6e9 plain rounds per build. Instead the
RTP is estimated by stratification with a control variate, all parts honest and independent:

* RTP = E[B] + sum_k P(final scatter class k) * V_k - cap correction, where B is
  the paid spin's win and V_k = sum_j pi_kj (prize_kj + E[F_n_kj]) the GEMBOX
  value of class k (3, 4, 5+ scatters), F_n the win of an n-spin feature;
* the paid-spin stratum is simulated alone (no features); the class
  probabilities use the first board's scatter class as control variate, whose
  distribution is exact (cells are independent), so only the scatters the
  cascades add carry sampling noise;
* features are simulated alone; one 20-spin feature gives the 8, 10, 15 and 20
  spin features as prefixes (the same process), so one sample serves all;
* the feature is independent of the paid spin that triggered it, and wins
  are never negative, so the cap is E[min(B + prize + F, cap)]: features from
  the tail threshold up are kept whole and every other feature is counted in a
  histogram of its wins, so the correction sums over every feature whatever
  paid-spin win B triggered it; B and the histogram's F are known to their
  bins, so the correction is bounded between the bins' low and high edges
  and the interval is widened by half that gap;
* every sample is in paytable units, independent of the GEMBOX weights (the
  draws never depend on amounts, and the feature is simulated apart from the
  GEMBOX draw), so one sample estimates all five builds.

Each sample depends only on its seed and sizes (chunked SeedSequence streams).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.core.calibration import Estimate, map_chunks, mean_estimate
from reelforge.core.stats import Z99, clopper_pearson, wilson_ci
from reelforge.game.estimation import META, Sample, SampleError
from reelforge.game.results import StratifiedEstimate
from reelforge.games.forge_of_gems import kernel, stratified_kernel
from reelforge.games.forge_of_gems.build import GAME_ID, GEMBOX_REWARDS, Build, reward_name
from reelforge.games.forge_of_gems.template import UNIT, initial_scatter_classes, sampling_build

KIND = "strata"
MARKS = (8, 10, 15, 20)
"""Feature lengths the seed's rewards use."""
HIST_BINS = 20000
HIST_WIDTH = 5
TAIL_THRESHOLD = 5000 * UNIT
"""Features whose 20-spin win is at least this many units are kept whole for the cap correction; every
other feature is counted in :attr:`Strata.hist_f`, so the correction sees every feature whatever the paid
spin before it won (a 4.6e9-spin sample had a GEMBOX after a paid-spin win of 19,612x: the cap was then in
reach of a feature of 388x)."""
FEATURE_HIST_WIDTH = UNIT
"""Width (units) of the bins of the features below the tail threshold: 1 x bet."""


def feature_bins(tail_threshold: int) -> int:
    """Bins of :attr:`Strata.hist_f` for a tail threshold (every win below it has one)."""
    return -(-tail_threshold // FEATURE_HIST_WIDTH)


LEGACY_STRATA = ("spins", "n_cls", "sum_b", "max_b", "hist_b", "features", "sums", "cross", "tail",
                 "tail_threshold", "seconds", "seed")


def legacy_strata(path: Path, arrays: dict[str, np.ndarray] | None) -> Sample:
    """The earlier kept strata: the arrays alone, no metadata."""
    if arrays is None or not set(LEGACY_STRATA) <= set(arrays):
        raise SampleError(f"{path}: not a sample file of this format (no {META} entry)")
    scalars = ("spins", "max_b", "features", "tail_threshold", "seed")
    values: dict[str, Any] = {k: int(arrays.pop(k)) for k in scalars}
    values["seconds"] = float(arrays.pop("seconds"))
    seeds = arrays.pop("seeds", None)
    values["seeds"] = [int(s) for s in seeds] if seeds is not None else [values["seed"]]
    return Sample(game=GAME_ID, kind=KIND, settings={"seeds": values["seeds"]}, values=values, arrays=arrays)


@dataclass
class Strata:
    """Paid-spin and feature samples, in paytable units."""

    spins: int = 0
    n_cls: np.ndarray = field(default_factory=lambda: np.zeros((4, 4), dtype=np.int64))
    sum_b: np.ndarray = field(default_factory=lambda: np.zeros((5, 4), dtype=np.float64))
    max_b: int = 0
    hist_b: np.ndarray = field(default_factory=lambda: np.zeros((4, HIST_BINS), dtype=np.int64))
    """Paid-spin win B per final scatter class, in bins of HIST_WIDTH units (last bin: the rest)."""
    features: int = 0
    sums: np.ndarray = field(default_factory=lambda: np.zeros(len(MARKS), dtype=np.int64))
    cross: np.ndarray = field(default_factory=lambda: np.zeros((len(MARKS), len(MARKS)), dtype=np.float64))
    tail: np.ndarray = field(default_factory=lambda: np.zeros((0, len(MARKS)), dtype=np.int64))
    """The features at or above the tail threshold, one row each: the win after each of :data:`MARKS` spins (kept
    as an array: a certification's merged sample holds millions, which Python lists took minutes to convert)."""
    tail_threshold: int = 0
    hist_f: np.ndarray | None = None
    """Features below the tail threshold: ``hist_f[j, F // FEATURE_HIST_WIDTH]`` counts those whose win after
    ``MARKS[j]`` spins is F (None in samples kept before it: those estimate only where the threshold allows)."""
    seconds: float = 0.0
    seed: int = 0
    merged_seeds: list[int] = field(default_factory=list)
    """Seeds of every sample merged into this one (empty: just ``seed``)."""

    @property
    def seeds(self) -> list[int]:
        return self.merged_seeds or [self.seed]

    def to_sample(self) -> Sample:
        """The strata as a :class:`~reelforge.game.estimation.Sample` (kind ``strata``)."""
        values = {"spins": self.spins, "max_b": self.max_b, "features": self.features,
                  "tail_threshold": self.tail_threshold, "seconds": self.seconds, "seed": self.seed,
                  "seeds": self.seeds}
        arrays = {"n_cls": self.n_cls, "sum_b": self.sum_b, "hist_b": self.hist_b, "sums": self.sums,
                  "cross": self.cross, "tail": np.asarray(self.tail, dtype=np.int64).reshape(-1, len(MARKS))}
        if self.hist_f is not None:
            arrays["hist_f"] = self.hist_f
        return Sample(game=GAME_ID, kind=KIND, settings={"seeds": self.seeds, "paid_spins": self.spins,
                                                         "features": self.features, "marks": list(MARKS),
                                                         "hist_width": HIST_WIDTH,
                                                         "feature_hist_width": FEATURE_HIST_WIDTH},
                      values=values, arrays=arrays)

    @classmethod
    def from_sample(cls, s: Sample) -> "Strata":
        v, a = s.values, s.arrays
        seeds = [int(x) for x in v.get("seeds", [])]
        return cls(spins=int(v["spins"]), n_cls=a["n_cls"], sum_b=a["sum_b"], max_b=int(v["max_b"]),
                   hist_b=a["hist_b"], features=int(v["features"]), sums=a["sums"], cross=a["cross"],
                   tail=np.asarray(a["tail"], dtype=np.int64).reshape(-1, len(MARKS)), tail_threshold=int(v["tail_threshold"]), hist_f=a.get("hist_f"),
                   seconds=float(v["seconds"]),
                   seed=int(v["seed"]), merged_seeds=seeds if seeds != [int(v["seed"])] else [])

    def save(self, path: Path) -> Path:
        """Keep the strata (one sample file, :mod:`reelforge.game.estimation`) to estimate builds on later."""
        return self.to_sample().save(path)

    @classmethod
    def load(cls, path: Path) -> "Strata":
        return cls.from_sample(Sample.load(path, GAME_ID, KIND, legacy_strata))

    def merge(self, other: "Strata") -> "Strata":
        """Two independent samples as one (e.g. tune on everything simulated so far)."""
        if other.tail_threshold != self.tail_threshold:
            raise ValueError("samples with different tail thresholds cannot be merged")
        if (self.hist_f is None) != (other.hist_f is None):
            raise ValueError("a sample kept without the histogram of features below the tail threshold cannot be "
                             "merged with one that has it")
        hist_f = None if self.hist_f is None or other.hist_f is None else self.hist_f + other.hist_f
        return Strata(spins=self.spins + other.spins, n_cls=self.n_cls + other.n_cls, sum_b=self.sum_b + other.sum_b,
                      max_b=max(self.max_b, other.max_b), hist_b=self.hist_b + other.hist_b,
                      features=self.features + other.features, sums=self.sums + other.sums,
                      cross=self.cross + other.cross, tail=np.concatenate([self.tail, other.tail]),
                      tail_threshold=self.tail_threshold, hist_f=hist_f, seconds=self.seconds + other.seconds,
                      seed=self.seed,
                      merged_seeds=self.seeds + other.seeds)



def _base_chunk(rng, n, t, n_cls, aux, max_b, hist_b) -> None:
    stratified_kernel.run_base_spins(rng, t.cell_code, t.cell_total, t.forge_base, t.targets, t.paytable, t.limits,
                          t.cap_units, n, n_cls, aux, max_b, hist_b, HIST_WIDTH)


def _feature_chunk(rng, n, t, marks, tail_threshold, sums, cross, tail, n_tail, hist_f) -> None:
    stratified_kernel.run_features(rng, t.cell_code, t.cell_total, t.forge_free, t.targets, t.paytable, t.limits,
                        t.cap_units, n, marks, sums, cross, tail, tail_threshold, n_tail, hist_f,
                        FEATURE_HIST_WIDTH)


TAIL_ROWS = 10_000
"""Kept tail features per feature chunk (a chunk that fills it stops the sample with an error)."""


def simulate_strata(n_spins: int, n_features: int, seed: int, tail_threshold: int, chunk: int = 2_000_000,
           log: bool = True, workers: int | None = None) -> Strata:
    """Simulate the two strata from ``seed`` (chunks in parallel; the numbers depend only on the seed
    and sizes, not on the number of workers)."""
    t = kernel.tables(sampling_build())
    base_seq, feat_seq = np.random.SeedSequence(seed).spawn(2)
    st = Strata(tail_threshold=tail_threshold, seed=seed,
                hist_f=np.zeros((len(MARKS), feature_bins(tail_threshold)), dtype=np.int64))
    start = time.time()
    sum_b = np.zeros((4, 4), dtype=np.int64)
    base_outs = [((4, 4), np.int64), ((5, 4), np.float64), ((1,), np.int64), ((4, HIST_BINS), np.int64)]
    for n_cls, aux, max_b, hist_b in map_chunks(_base_chunk, n_spins, base_seq, (t,), base_outs, chunk, workers,
                                                "paid spins", log):
        st.n_cls += n_cls
        sum_b += aux[:4].astype(np.int64)
        st.sum_b[4, 0] += aux[4, 0]
        st.max_b = max(st.max_b, int(max_b[0]))
        st.hist_b += hist_b
    st.sum_b[:4] = sum_b
    st.spins = n_spins
    marks = np.array(MARKS, dtype=np.int64)
    feat_outs = [((len(MARKS),), np.int64), ((len(MARKS), len(MARKS)), np.float64),
                 ((TAIL_ROWS, len(MARKS)), np.int64), ((1,), np.int64),
                 ((len(MARKS), feature_bins(tail_threshold)), np.int64)]
    tails = [st.tail]  # joined once after the chunks: joining at each chunk would copy the whole tail each time
    for sums, cross, tail, n_tail, hist_f in map_chunks(_feature_chunk, n_features, feat_seq, (t, marks, tail_threshold),
                                                feat_outs, max(1, chunk // 20), workers, "features", log):
        if n_tail[0] >= TAIL_ROWS:
            raise RuntimeError("tail buffer full: raise TAIL_ROWS or the threshold")
        st.sums += sums
        st.cross += cross
        tails.append(tail[: n_tail[0]].copy())
        st.hist_f += hist_f
    st.tail = np.concatenate(tails)
    st.features = n_features
    st.seconds = time.time() - start
    return st


# -- the estimator -----------------------------------------------------------------
class FeatureValues:
    """The uncapped feature means E[F_n] (units, n in :data:`MARKS`) and the variance of an estimate
    ``a . means``: here from the whole features of the strata (:mod:`.split_spins` gives them from
    single free spins instead)."""

    separate = False
    """True where the means are estimated apart from the whole features (then the cap correction,
    which the whole features estimate, adds its own variance)."""

    def __init__(self, st: Strata) -> None:
        self.st = st

    def means(self) -> np.ndarray:
        return self.st.sums / self.st.features

    def variance(self, a: np.ndarray) -> float:
        """Variance (units squared) of ``a . means()``."""
        m, fbar = self.st.features, self.means()
        cov = (self.st.cross / m - np.outer(fbar, fbar)) * m / (m - 1)
        return float(a @ cov @ a) / m


class PaidSpins:
    """The paid-spin stratum's sums the estimate needs: here the strata's paid spins, one continuation
    each (:mod:`.split_spins` plays each first board on several times instead)."""

    capped: float | None = None
    """Paid spins that reached the cap alone (their share of continuations summed); None: not counted (the
    strata's paid spins), so a sample where one did cannot be estimated."""

    def __init__(self, st: Strata) -> None:
        self.spins, self.hist_b, self.max_b = st.spins, st.hist_b, st.max_b
        self.n = st.n_cls.astype(np.float64)
        self.sum_b, self.sum_b2 = st.sum_b[:4], float(st.sum_b[4, 0])

    def d_sums(self, dv: np.ndarray, unit: int) -> tuple[float, float]:
        """Sums over paid spins of D = B / unit + dv[i, f] and of D squared (i, f: first and final scatter class)."""
        n, sb = self.n, self.sum_b
        return (sb.sum() / unit + (n * dv).sum(),
                self.sum_b2 / unit**2 + 2.0 / unit * (sb * dv).sum() + (n * dv * dv).sum())

    def class_shift(self) -> list[float]:
        """Per scatter class, the share of paid spins ending in it less the share starting in it."""
        n, N = self.n, self.spins
        return [n[:, k].sum() / N - n[k, :].sum() / N for k in range(4)]

    def win_sum(self) -> float:
        return float(self.sum_b.sum())

    def win_square_sum(self) -> float:
        return self.sum_b2


def estimate(st: Strata, build: Build, values: FeatureValues | None = None,
             paid: PaidSpins | None = None) -> dict[str, Any]:
    """RTP of ``build`` from the strata: value, 99% interval and the parts (the feature means from
    ``values``, default the strata's whole features; the paid spins from ``paid``, default the strata's)."""
    U = build.unit
    cap = build.cap_x * U
    p0 = [float(p) for p in initial_scatter_classes(build)]
    m = st.features
    values = values or FeatureValues(st)
    fbar = values.means()
    mark_of = {n: MARKS.index(n) for n in MARKS}
    pi = {k: [float(p) for p in (build.gembox[k].probability(j) for j in range(3))] for k in (3, 4, 5)}
    V = [0.0] * 4
    for ci, k in enumerate((3, 4, 5), start=1):
        V[ci] = sum(pi[k][j] * (GEMBOX_REWARDS[k][j][0] + (fbar[mark_of[GEMBOX_REWARDS[k][j][1]]] / U
                                                           if GEMBOX_REWARDS[k][j][1] else 0.0))
                    for j in range(3))
    paid = paid or PaidSpins(st)
    N = paid.spins
    dv = np.array([[V[f] - V[i] for f in range(4)] for i in range(4)])
    sum_d, sum_d2 = paid.d_sums(dv, U)
    base = mean_estimate(sum_d, sum_d2, N)
    base = Estimate(base.value + sum(p0[k] * V[k] for k in range(1, 4)), base.var)
    # Effective final-class probabilities (control variate) and the feature coefficients.
    c = [p0[k] + shift for k, shift in enumerate(paid.class_shift())]
    a = np.zeros(len(MARKS))
    for ci, k in enumerate((3, 4, 5), start=1):
        for j in range(3):
            spins = GEMBOX_REWARDS[k][j][1]
            if spins:
                a[mark_of[spins]] += c[ci] * pi[k][j]
    feat_var = values.variance(a) / U**2
    rtp = Estimate(base.value, base.var + feat_var)
    # Cap: E[(B + prize + F - cap)+] for GEMBOX rounds, over every feature (kept whole or in the histogram).
    if st.hist_f is None:  # a sample kept before the histogram: only the kept features, where they suffice
        pmax = max(p for r in GEMBOX_REWARDS.values() for p, _ in r) * U
        b_trig = _largest_triggering_win(paid)
        if st.tail_threshold > cap - pmax - b_trig:
            raise ValueError(f"tail threshold {st.tail_threshold} too high for unit {U}: features below it could "
                             f"reach the cap after a paid-spin win of {b_trig} units (a sample kept without the "
                             "histogram of features below the threshold: simulate it again)")
    # A paid spin that reaches the cap ends the round there, paying exactly the cap: its B is the cap and its
    # final class 0 (no GEMBOX), so D and the classes above already count it; the cap's probability adds it.
    if paid.max_b >= cap and paid.capped is None:
        raise ValueError("a paid spin alone reached the cap in a sample that does not count such spins "
                         "(the strata's paid spins): estimate it from a split-spins sample")
    tail = np.array(st.tail, dtype=np.float64).reshape(-1, len(MARKS))
    weights = GemboxWeights(c, pi, mark_of, cap, U)
    corr = _over_features(_excess, st, paid, tail, weights).scaled(1 / U)
    lo, hi, corr_var = corr.low, corr.high, corr.variance
    rtp = Estimate(rtp.value - (lo + hi) / 2, rtp.var + (corr_var if values.separate else 0.0))
    bound = (hi - lo) / 2
    cap_p = _cap_probability(st, paid, tail, weights)
    freq = {}
    for ci, k in enumerate((3, 4, 5), start=1):
        freq[f"gembox_{k}"] = c[ci]
        for j in range(3):
            freq[reward_name(k, j)] = c[ci] * pi[k][j]
    fs = sum(c[ci] * pi[k][j] for ci, k in enumerate((3, 4, 5), start=1) for j in range(3)
             if GEMBOX_REWARDS[k][j][1])
    lo99, hi99 = rtp.ci99(bound)
    # Round SD (x bet), ignoring the (positive) paid-spin x feature cross term: a lower bound.
    second = paid.win_square_sum() / N / U**2
    for ci, k in enumerate((3, 4, 5), start=1):
        for j in range(3):
            prize, spins = GEMBOX_REWARDS[k][j]
            f2 = st.cross[mark_of[spins], mark_of[spins]] / m / U**2 if spins else 0.0
            f1 = fbar[mark_of[spins]] / U if spins else 0.0
            second += c[ci] * pi[k][j] * (prize * prize + 2 * prize * f1 + f2)
    round_sd = math.sqrt(max(second - rtp.value**2, 0.0))
    return {
        "build": build.name, "unit": U, "gembox_weights": {k: list(build.gembox[k].weights) for k in (3, 4, 5)},
        "rtp": rtp.value, "ci99": [lo99, hi99], "half_width": rtp.half_width99 + bound,
        "sd_of_estimate": rtp.sd, "sd_paid_spin_part": base.sd, "sd_feature_part": math.sqrt(feat_var),
        "cap_correction": (lo + hi) / 2, "cap_bound": bound, "sd_cap_correction": math.sqrt(corr_var),
        "paid_spin_rtp": paid.win_sum() / N / U,
        # the paid spins' own mean and its normal interval (their win sums and sums of squares, continuations of
        # one first board counted as one observation, as in the RTP's own variance)
        "paid_spin_rtp_ci99": list(mean_estimate(*paid.d_sums(np.zeros((4, 4)), U), N).ci99()),
        "gembox_rtp": rtp.value - paid.win_sum() / N / U,
        "round_sd_x_lower_bound": round_sd, "frequencies": freq, "free_spin_frequency": fs,
        "feature_means_x": {n: float(fbar[mark_of[n]] / U) for n in MARKS},
        "paid_spins": N, "features": m, "tail_features": len(st.tail), **cap_p,
    }


def _largest_triggering_win(paid: PaidSpins) -> int:
    """The largest paid-spin win followed by a GEMBOX (upper edge of its bin)."""
    b_trig = 0
    for ci in (1, 2, 3):
        nz = np.nonzero(paid.hist_b[ci])[0]
        if len(nz):
            b_trig = max(b_trig, paid.max_b if nz[-1] == HIST_BINS - 1 else int(nz[-1] + 1) * HIST_WIDTH)
    return b_trig


def _excess(prob: np.ndarray, edges: np.ndarray, t: np.ndarray) -> np.ndarray:
    """E[(B - t)+] for each t, B at ``edges`` (ascending) with probabilities ``prob`` (by suffix sums)."""
    s0 = np.concatenate((np.cumsum(prob[::-1])[::-1], [0.0]))
    s1 = np.concatenate((np.cumsum((prob * edges)[::-1])[::-1], [0.0]))
    idx = np.searchsorted(edges, t, side="right")
    return s1[idx] - t * s0[idx]


def _reaching(prob: np.ndarray, edges: np.ndarray, t: np.ndarray) -> np.ndarray:
    """P(B >= t) for each t, B at ``edges`` (ascending) with probabilities ``prob``."""
    suffix = np.concatenate((np.cumsum(prob[::-1])[::-1], [0.0]))
    return suffix[np.searchsorted(edges, t, side="left")]


@dataclass
class GemboxWeights:
    """What weighs a feature's part in the cap figures: the final scatter classes' (effective) probabilities
    ``c``, the rewards' ``pi``, the feature length of each mark, the cap and the unit."""

    c: list[float]
    pi: dict[int, list[float]]
    mark_of: dict[int, int]
    cap: int
    unit: int


@dataclass
class CapFigure:
    """A mean over GEMBOX rounds that involves the cap, bounded by the bins' low and high edges, with the
    variance of its estimate (from the features; the paid spins' histogram is taken as known)."""

    low: float
    high: float
    variance: float

    def scaled(self, k: float) -> "CapFigure":
        return CapFigure(self.low * k, self.high * k, self.variance * k * k)


def _over_features(stat, st: Strata, paid: PaidSpins, tail: np.ndarray, w: GemboxWeights) -> CapFigure:
    """Sum over GEMBOX rewards of P(reward) x E[stat(B, cap - prize - F)], B (the paid spin's win, independent
    of the feature) from its histogram per final scatter class, F over every feature (the kept ones exactly,
    the others from their histogram; F = 0 for a reward without free spins). ``stat(prob, edges, t)`` is increasing in B and in
    F, so B and F at their bins' low edges bound it from below and at their high edges from above.

    The variance is that of the mean of each feature's score (its part, mid of low and high); a feature in
    the histogram scores the sum of its marks' parts, whose second moment is bounded by Minkowski's
    inequality (the histogram does not pair a feature's marks)."""
    m = st.features
    low_b = np.arange(HIST_BINS, dtype=np.float64) * HIST_WIDTH
    high_b = np.minimum(low_b + HIST_WIDTH, float(paid.max_b))
    high_b[-1] = float(paid.max_b)
    hist = st.hist_f if st.hist_f is not None else np.zeros((len(MARKS), 0), dtype=np.int64)
    low_f = np.arange(hist.shape[1], dtype=np.float64) * FEATURE_HIST_WIDTH
    high_f = np.minimum(low_f + FEATURE_HIST_WIDTH - 1, st.tail_threshold - 1)
    parts = {side: (np.zeros(len(tail)), np.zeros(hist.shape)) for side in ("low", "high")}
    fixed = {"low": 0.0, "high": 0.0}  # rewards without free spins
    for ci, k in enumerate((3, 4, 5), start=1):
        counts = paid.hist_b[ci].astype(np.float64)
        if counts.sum() == 0:
            continue
        prob = counts / counts.sum()
        for j in range(3):
            prize, spins = GEMBOX_REWARDS[k][j]
            weight, room = w.c[ci] * w.pi[k][j], w.cap - prize * w.unit
            if not spins:
                for side, edges_b in (("low", low_b), ("high", high_b)):
                    fixed[side] += weight * float(stat(prob, edges_b, np.array([float(room)]))[0])
                continue
            a = w.mark_of[spins]
            for side, edges_b, edges_f in (("low", low_b, low_f), ("high", high_b, high_f)):
                kept, binned = parts[side]
                if len(tail):
                    kept += weight * stat(prob, edges_b, room - tail[:, a])
                binned[a] += weight * stat(prob, edges_b, room - edges_f)
    low, high = ((parts[s][0].sum() + (hist * parts[s][1]).sum()) / m for s in ("low", "high"))
    kept_mid, binned_mid = ((parts["low"][i] + parts["high"][i]) / 2 for i in (0, 1))
    second = float((kept_mid**2).sum()) + float(np.sqrt((hist * binned_mid**2).sum(axis=1)).sum()) ** 2
    variance = max(second / m - ((low + high) / 2) ** 2, 0.0) / (m - 1)
    return CapFigure(float(low) + fixed["low"], float(high) + fixed["high"], variance)


def _cap_probability(st: Strata, paid: PaidSpins, tail: np.ndarray, w: GemboxWeights) -> dict[str, Any]:
    """P(a paid round reaches the cap), stratified (:func:`_over_features` of P(B >= cap - prize - F)): the
    point is the middle of the bins' bounds, the 99% interval normal on the per-feature score (the rewards
    share the same simulated features) plus half the gap; the paid spins that reach the cap alone add their
    share and its exact binomial (Clopper-Pearson) interval, on the count rounded down and up (a sample whose
    paid spins are not counted has none: :func:`estimate` refuses it otherwise)."""
    p = _over_features(_reaching, st, paid, tail, w)
    point, half = (p.low + p.high) / 2, Z99 * math.sqrt(p.variance) + (p.high - p.low) / 2
    lo, hi = max(point - half, 0.0), point + half
    if paid.capped is not None:
        alone = float(paid.capped)
        point += alone / paid.spins
        lo += clopper_pearson(math.floor(alone), paid.spins)[0]
        hi += clopper_pearson(math.ceil(alone), paid.spins)[1]
    capped = int((tail.max(axis=1) >= w.cap).sum()) if len(tail) else 0
    if st.hist_f is not None:  # features below the threshold whose whole bin is at the cap (a lower count)
        capped += int(st.hist_f[-1, np.arange(st.hist_f.shape[1]) * FEATURE_HIST_WIDTH >= w.cap].sum())
    return {"cap_probability": point, "cap_probability_ci99": [lo, hi], "features_reaching_cap_alone": capped,
            "paid_spins_reaching_cap_alone": 0.0 if paid.capped is None else float(paid.capped)}


def _gembox_ci99(e: dict[str, Any]) -> tuple[float, float]:
    """The GEMBOX part (the RTP less the paid spins) with a derived 99% bound: its error is at most the RTP's
    plus the paid spins' (the two estimates share the paid spins, so no tighter covariance is claimed)."""
    lo, hi = e["ci99"]
    plo, phi = e["paid_spin_rtp_ci99"]
    half = (hi - lo) / 2 + (phi - plo) / 2
    return (e["gembox_rtp"] - half, e["gembox_rtp"] + half)


def estimate_of(st: Strata, build: Build, values: FeatureValues | None = None,
                paid: PaidSpins | None = None) -> StratifiedEstimate:
    """:func:`estimate` in the common shape: parts, frequencies and the cap correction under ``extra``."""
    e = estimate(st, build, values, paid)
    n = e["paid_spins"]
    freq = e["frequencies"]
    gembox = sum(freq[f"gembox_{k}"] for k in (3, 4, 5))
    extra = {k: v for k, v in e.items() if k not in ("rtp", "ci99", "paid_spins", "features", "frequencies")}
    # binomial intervals on the paid-spin sample (the estimator's control variate only narrows them)
    extra.update({"free_spin_frequency_ci99": list(wilson_ci(round(e["free_spin_frequency"] * n), n)),
                  "gembox_frequencies": freq, "seeds": st.seeds})
    return StratifiedEstimate(
        rounds=n, feature_rounds=st.features, seed=st.seed, rtp=e["rtp"], rtp_ci99=tuple(e["ci99"]),
        rtp_split={"paid_spins": e["paid_spin_rtp"], "gembox": e["gembox_rtp"]},
        rtp_split_ci99={"paid_spins": tuple(e["paid_spin_rtp_ci99"]), "gembox": _gembox_ci99(e)},
        feature_rate=gembox, feature_rate_ci99=wilson_ci(round(gembox * n), n),
        sd=e["round_sd_x_lower_bound"], sd_is_lower_bound=True, max_win_probability=e["cap_probability"],
        extra=extra)

