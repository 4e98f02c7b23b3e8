"""Calibration of the Forge of Gems builds (rerunnable, deterministic by seed).

Design: all five builds share one win unit, ``UNIT`` = 20 per total bet (so
a cent bet ladder of multiples of 20 pays every win exactly: no rounding),
the paytable in those units, the cell weights (symbols land single: the
first board is always 243 ways, copies come only from the FORGE REEL's
Splitters), the FORGE REEL and target weights; a build chooses only the
GEMBOX weights of the 3-scatter class (instant 20x prize versus 8 or 10 free
spins), which set its RTP linearly: a feature is worth far more than 20x, so
the prize weight is a wide knob (about 6 pp of RTP per 1000 of 10000 weight,
from about 56% at 10000 to 116% at 0: every target is inside it) and fine
(0.006 pp per step). The paytable is the project's own (GAMES.md: the seed
publishes none) and stays the same for every build.

Why not plain simulation: at SD >= 30 x bet a 99% half-width of 0.10 pp
needs about 6e9 rounds per build. Instead the RTP is estimated by
stratification with a control variate, all parts honest and independent:

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
  are never negative, so the cap is E[min(B + prize + F, cap)]: features near
  the cap are kept and the correction is bounded between B = 0 and B = the
  largest paid-spin win seen; the interval is widened by half that gap;
* every sample is in paytable units, independent of the GEMBOX weights (the
  draws never depend on amounts, and the feature is simulated apart from the
  GEMBOX draw), so one run estimates all five builds.

The builds are tuned on one sample (``calibrate``) and reported on an
independent one (``verify``), so the reported interval is not fitted to its
own noise. The tuning is the generic tuner (:mod:`reelforge.tuning`) over one
free parameter per build, the class-3 prize weight (:func:`tuning_space`). The
shipped builds are reproduced byte for byte by::

    reelforge tune forge-of-gems --build 96.2 [--sample S.npz]   # likewise 94.2 91.2 87.2 84.2

which simulates and merges :data:`SHIPPED_SAMPLES` (seeds 20261201, 1201001-1201003:
2e9 paid spins + 1e8 features; with ``--sample`` kept for the other builds). The same with this
module (``M`` = ``python -m reelforge.games.forge_of_gems.design``; samples
kept as .npz)::

    M calibrate --seed 20261201 --spins 800000000 --features 40000000 --save t.npz
    M verify --seed 1201001 --spins 400000000 --features 20000000 --save v1.npz   # likewise 1201002, 1201003
    M calibrate --load t.npz --load v1.npz --load v2.npz --load v3.npz --write    # the shipped builds
    M verify --seed 1201011 --spins 400000000 --features 20000000 --save w1.npz   # likewise 1201012..1201016
    M verify --load w1.npz ... --load w6.npz   # the reported figures (README): +-0.059..0.071 pp

Each sample depends only on its seed and sizes (chunked SeedSequence streams).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.buildfile import fraction_text
from reelforge.calibration import Estimate, map_chunks, mean_estimate
from reelforge.games.forge_of_gems import kernel
from reelforge.games.forge_of_gems.build import (
    BUILDS_DIR,
    CAP_X,
    GAME_ID,
    GEMBOX_REWARDS,
    PAYING,
    REELS,
    ROWS,
    SCATTER,
    Build,
    build_to_toml,
    parse_build,
    reward_name,
)
from reelforge.stats import volatility_level
from reelforge.tuning import Param, TuningSpace, climb, pattern_steps

BUILD_NAMES = ("96.2", "94.2", "91.2", "87.2", "84.2")

# -- the shared design (paytable in UNIT = 20 per total bet, every build) ---------
UNIT = 20
"""Win units per total bet, the same for every build: a cent bet ladder of multiples of 20 pays every win
exactly (a build's RTP is set by its GEMBOX weights, never by the unit)."""
PAYTABLE = {  # units (1/20 of total bet) per way for 3, 4, 5 reels
    "DIAMOND": [4, 13, 42], "EMERALD": [3, 8, 25], "SAPPHIRE": [3, 6, 17], "TOPAZ": [2, 5, 13],
    "A": [1, 3, 6], "K": [1, 2, 5], "Q": [1, 2, 4], "J": [1, 1, 3],
}
CELLS = {  # weights of the paying symbols a cell lands as (single: only Splitters split), every reel
    "DIAMOND": 60, "EMERALD": 70, "SAPPHIRE": 80, "TOPAZ": 90, "A": 120, "K": 130, "Q": 140, "J": 150,
}
WILD_WEIGHTS = (0, 6, 6, 6, 6)
SCATTER_WEIGHTS = (11, 11, 11, 11, 11)
FORGE_BASE = {"VERTICAL_WILD": 2, "HORIZONTAL_WILD": 4, "VERTICAL_SPLITTER": 6, "HORIZONTAL_SPLITTER": 3,
              "MULTIPLIER": 8, "BLANK": 80, "SCATTER": 4}
FORGE_FREE = {"VERTICAL_WILD": 2, "HORIZONTAL_WILD": 4, "VERTICAL_SPLITTER": 6, "HORIZONTAL_SPLITTER": 3,
              "MULTIPLIER": 14, "BLANK": 0, "SCATTER": 5}
TARGETS = {p: 1 for p in PAYING}
GEMBOX_TOTAL = 10000
GEMBOX_FIXED = {4: [3000, 4500, 2500], 5: [3000, 4000, 3000]}
FS_SPLIT_3 = (0.6, 0.4)
"""Class 3 free-spin weight shared 60/40 between 8 and 10 spins; the prize weight is the knob."""
MARKS = (8, 10, 15, 20)
"""Feature lengths the seed's rewards use."""
HIST_BINS = 20000
HIST_WIDTH = 5
TAIL_THRESHOLD = 5000 * UNIT
"""Features at least this many units are kept for the cap correction. The estimator refuses a sample
where a paid spin followed by a GEMBOX won more than cap - prize - threshold (then a feature below the
threshold could reach the cap); a 4e8-spin sample had such a paid spin of 7,913x, too much for the
former 15,000x threshold. Lowering the threshold keeps more rows but never changes an estimate."""


def gembox_weights(prize3: int) -> dict[int, list[int]]:
    rest = GEMBOX_TOTAL - prize3
    fs8 = round(rest * FS_SPLIT_3[0])
    return {3: [prize3, fs8, rest - fs8], **{k: list(v) for k, v in GEMBOX_FIXED.items()}}


def make_build(name: str, prize3: int, rtp: str | None = None, cap_x: int = CAP_X, unit: int = UNIT) -> Build:
    """The shared design with a build's class-3 prize weight (``rtp``: a fraction of the stake as text,
    default the build's name read as a percentage; ``unit`` other than UNIT: sampling only)."""
    cells = {}
    for r in range(REELS):
        raw = dict(CELLS)
        raw["WILD"] = WILD_WEIGHTS[r]
        raw["SCATTER"] = SCATTER_WEIGHTS[r]
        cells[f"reel{r + 1}"] = raw
    data = {"game": GAME_ID, "name": name, "rtp": rtp or fraction_text(Fraction(name) / 100), "unit": unit, "cap_x": CAP_X,
            "paytable": {k: list(v) for k, v in PAYTABLE.items()}, "cells": cells,
            "forge": {"base": dict(FORGE_BASE), "free": dict(FORGE_FREE)}, "targets": dict(TARGETS),
            "gembox": {str(k): v for k, v in gembox_weights(prize3).items()}}
    build = parse_build(data, name)
    return build if cap_x == CAP_X else dataclasses.replace(build, cap_x=cap_x)


def sampling_build() -> Build:
    """The design in paytable units (read as unit 1) with no cap: what the strata simulate."""
    return make_build("sampling", GEMBOX_TOTAL // 2, rtp="0", cap_x=2**62, unit=1)


def initial_scatter_classes(build: Build) -> list[Fraction]:
    """Exact probability that the first board shows <3, 3, 4, 5+ SCATTER cells."""
    dist = [Fraction(1)]
    for r in range(REELS):
        q = build.cells[r].probability(SCATTER)
        for _ in range(ROWS):
            new = [Fraction(0)] * (len(dist) + 1)
            for n, p in enumerate(dist):
                new[n] += p * (1 - q)
                new[n + 1] += p * q
            dist = new
    return [sum(dist[:3]), dist[3], dist[4], sum(dist[5:])]


# -- the strata ------------------------------------------------------------------
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
    tail: list[list[int]] = field(default_factory=list)
    tail_threshold: int = 0
    seconds: float = 0.0
    seed: int = 0
    merged_seeds: list[int] = field(default_factory=list)
    """Seeds of every sample merged into this one (empty: just ``seed``)."""

    @property
    def seeds(self) -> list[int]:
        return self.merged_seeds or [self.seed]

    def save(self, path: Path) -> None:
        """Keep a sample (npz) so builds can be evaluated on it later."""
        np.savez_compressed(path, spins=self.spins, n_cls=self.n_cls, sum_b=self.sum_b, max_b=self.max_b,
                            hist_b=self.hist_b, features=self.features, sums=self.sums, cross=self.cross,
                            tail=np.array(self.tail, dtype=np.int64).reshape(-1, len(MARKS)),
                            tail_threshold=self.tail_threshold, seconds=self.seconds, seed=self.seed,
                            seeds=np.array(self.seeds, dtype=np.int64))

    def merge(self, other: "Strata") -> "Strata":
        """Two independent samples as one (e.g. tune on everything simulated so far)."""
        if other.tail_threshold != self.tail_threshold:
            raise ValueError("samples with different tail thresholds cannot be merged")
        return Strata(spins=self.spins + other.spins, n_cls=self.n_cls + other.n_cls, sum_b=self.sum_b + other.sum_b,
                      max_b=max(self.max_b, other.max_b), hist_b=self.hist_b + other.hist_b,
                      features=self.features + other.features, sums=self.sums + other.sums,
                      cross=self.cross + other.cross, tail=self.tail + other.tail,
                      tail_threshold=self.tail_threshold, seconds=self.seconds + other.seconds, seed=self.seed,
                      merged_seeds=self.seeds + other.seeds)

    @classmethod
    def load(cls, path: Path) -> "Strata":
        d = np.load(path)
        return cls(spins=int(d["spins"]), n_cls=d["n_cls"], sum_b=d["sum_b"], max_b=int(d["max_b"]),
                   hist_b=d["hist_b"], features=int(d["features"]), sums=d["sums"], cross=d["cross"],
                   tail=d["tail"].tolist(), tail_threshold=int(d["tail_threshold"]), seconds=float(d["seconds"]),
                   seed=int(d["seed"]), merged_seeds=[int(x) for x in d["seeds"]] if "seeds" in d else [])


def _base_chunk(rng, n, t, n_cls, aux, max_b, hist_b) -> None:
    kernel.run_base_spins(rng, t.cell_code, t.cell_total, t.forge_base, t.targets, t.paytable, t.limits,
                          t.cap_units, n, n_cls, aux, max_b, hist_b, HIST_WIDTH)


def _feature_chunk(rng, n, t, marks, tail_threshold, sums, cross, tail, n_tail) -> None:
    kernel.run_features(rng, t.cell_code, t.cell_total, t.forge_free, t.targets, t.paytable, t.limits,
                        t.cap_units, n, marks, sums, cross, tail, tail_threshold, n_tail)


TAIL_ROWS = 10_000
"""Kept tail features per feature chunk (a chunk that fills it stops the sample with an error)."""


def sample(n_spins: int, n_features: int, seed: int, tail_threshold: int, chunk: int = 2_000_000,
           log: bool = True, workers: int | None = None) -> Strata:
    """Simulate the two strata from ``seed`` (chunks in parallel; the numbers depend only on the seed
    and sizes, not on the number of workers)."""
    t = kernel.tables(sampling_build())
    base_seq, feat_seq = np.random.SeedSequence(seed).spawn(2)
    st = Strata(tail_threshold=tail_threshold, seed=seed)
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
                 ((TAIL_ROWS, len(MARKS)), np.int64), ((1,), np.int64)]
    for sums, cross, tail, n_tail in map_chunks(_feature_chunk, n_features, feat_seq, (t, marks, tail_threshold),
                                                feat_outs, max(1, chunk // 20), workers, "features", log):
        if n_tail[0] >= TAIL_ROWS:
            raise RuntimeError("tail buffer full: raise TAIL_ROWS or the threshold")
        st.sums += sums
        st.cross += cross
        st.tail += tail[: n_tail[0]].tolist()
    st.features = n_features
    st.seconds = time.time() - start
    return st


# -- the estimator -----------------------------------------------------------------
def estimate(st: Strata, build: Build) -> dict[str, Any]:
    """RTP of ``build`` from the strata: value, 99% interval and the parts."""
    U = build.unit
    cap = build.cap_x * U
    p0 = [float(p) for p in initial_scatter_classes(build)]
    m = st.features
    fbar = st.sums / m
    mark_of = {n: MARKS.index(n) for n in MARKS}
    pi = {k: [float(p) for p in (build.gembox[k].probability(j) for j in range(3))] for k in (3, 4, 5)}
    V = [0.0] * 4
    for ci, k in enumerate((3, 4, 5), start=1):
        V[ci] = sum(pi[k][j] * (GEMBOX_REWARDS[k][j][0] + (fbar[mark_of[GEMBOX_REWARDS[k][j][1]]] / U
                                                           if GEMBOX_REWARDS[k][j][1] else 0.0))
                    for j in range(3))
    N = st.spins
    n = st.n_cls.astype(np.float64)
    sb = st.sum_b[:4]
    dv = np.array([[V[f] - V[i] for f in range(4)] for i in range(4)])
    sum_d = sb.sum() / U + (n * dv).sum()
    sum_d2 = st.sum_b[4, 0] / U**2 + 2.0 / U * (sb * dv).sum() + (n * dv * dv).sum()
    base = mean_estimate(sum_d, sum_d2, N)
    base = Estimate(base.value + sum(p0[k] * V[k] for k in range(1, 4)), base.var)
    # Effective final-class probabilities (control variate) and the feature coefficients.
    c = [p0[k] + n[:, k].sum() / N - n[k, :].sum() / N for k in range(4)]
    a = np.zeros(len(MARKS))
    for ci, k in enumerate((3, 4, 5), start=1):
        for j in range(3):
            spins = GEMBOX_REWARDS[k][j][1]
            if spins:
                a[mark_of[spins]] += c[ci] * pi[k][j]
    cov = (st.cross / m - np.outer(fbar, fbar)) * m / (m - 1)
    feat_var = float(a @ cov @ a) / m / U**2
    rtp = Estimate(base.value, base.var + feat_var)
    # Cap: E[(B + prize + F - cap)+] for GEMBOX rounds, B between 0 and the largest seen.
    pmax = max(p for r in GEMBOX_REWARDS.values() for p, _ in r) * U
    # Largest paid-spin win that was followed by a GEMBOX (upper edge of its bin).
    b_trig = 0
    for ci in (1, 2, 3):
        nz = np.nonzero(st.hist_b[ci])[0]
        if len(nz):
            b_trig = max(b_trig, st.max_b if nz[-1] == HIST_BINS - 1 else int(nz[-1] + 1) * HIST_WIDTH)
    if st.tail_threshold > cap - pmax - b_trig:
        raise ValueError(f"tail threshold {st.tail_threshold} too high for unit {U}: features below it could "
                         f"reach the cap after a paid-spin win of {b_trig} units")
    if st.max_b >= cap:
        raise ValueError("a paid spin alone reached the cap in the sample: the estimator needs that handled")
    lo = hi = 0.0
    tail = np.array(st.tail, dtype=np.float64).reshape(-1, len(MARKS))
    for ci, k in enumerate((3, 4, 5), start=1):
        counts = st.hist_b[ci].astype(np.float64)
        if counts.sum() == 0 or not len(tail):
            continue
        prob = counts / counts.sum()
        low_edge = np.arange(HIST_BINS, dtype=np.float64) * HIST_WIDTH
        high_edge = np.minimum(low_edge + HIST_WIDTH, float(st.max_b))
        high_edge[-1] = float(st.max_b)
        for j in range(3):
            prize, spins = GEMBOX_REWARDS[k][j]
            if not spins:
                continue
            f = tail[:, mark_of[spins]]
            t = cap - prize * U - f          # the cap is passed when B > t
            for edges, acc in ((low_edge, "lo"), (high_edge, "hi")):
                # E over B of (B - t)+ with B at the bins' low (or high) edges, by suffix sums.
                s0 = np.concatenate((np.cumsum(prob[::-1])[::-1], [0.0]))
                s1 = np.concatenate((np.cumsum((prob * edges)[::-1])[::-1], [0.0]))
                idx = np.searchsorted(edges, t, side="right")
                excess = s1[idx] - t * s0[idx]
                value = c[ci] * pi[k][j] * float(excess.sum()) / m / U
                if acc == "lo":
                    lo += value
                else:
                    hi += value
    rtp = Estimate(rtp.value - (lo + hi) / 2, rtp.var)
    bound = (hi - lo) / 2
    freq = {}
    for ci, k in enumerate((3, 4, 5), start=1):
        freq[f"gembox_{k}"] = c[ci]
        for j in range(3):
            freq[reward_name(k, j)] = c[ci] * pi[k][j]
    fs = sum(c[ci] * pi[k][j] for ci, k in enumerate((3, 4, 5), start=1) for j in range(3)
             if GEMBOX_REWARDS[k][j][1])
    lo99, hi99 = rtp.ci99(bound)
    # Round SD (x bet), ignoring the (positive) paid-spin x feature cross term: a lower bound.
    second = st.sum_b[4, 0] / N / U**2
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
        "sd_of_estimate": rtp.sd, "sd_paid_spin_part": base.sd, "sd_feature_part": math.sqrt(feat_var), "cap_correction": (lo + hi) / 2, "cap_bound": bound,
        "paid_spin_rtp": st.sum_b[:4].sum() / N / U,
        "gembox_rtp": rtp.value - st.sum_b[:4].sum() / N / U,
        "round_sd_x_lower_bound": round_sd, "frequencies": freq, "free_spin_frequency": fs,
        "feature_means_x": {n: float(fbar[mark_of[n]] / U) for n in MARKS},
        "paid_spins": N, "features": m, "tail_features": len(st.tail),
    }


def tuning_space(st: Strata, name: str) -> TuningSpace:
    """One build's free parameter for the generic tuner: the class-3 GEMBOX prize weight (the
    instant 20x prize instead of 8 or 10 free spins lowers the RTP: a feature is worth far more
    than 20x). Every candidate is measured on the same sample ``st`` (common random numbers)."""
    return TuningSpace(params=[Param("prize3", 0, GEMBOX_TOTAL)], start={"prize3": GEMBOX_TOTAL // 2},
                       make_build=lambda v: make_build(name, v["prize3"]),
                       measure=lambda b: {"rtp": estimate(st, b)["rtp"]}, tolerances={"rtp": 1e-5})


def calibrate_one(st: Strata, name: str, target: float) -> Build:
    """One build tuned to ``target`` RTP on the sample ``st``."""
    space = tuning_space(st, name)
    return space.make_build(climb(space, {"rtp": target}, steps=pattern_steps(GEMBOX_TOTAL)))


def calibrate(st: Strata) -> list[Build]:
    """Every shipped build, tuned on the sample ``st``."""
    return [calibrate_one(st, name, float(name) / 100) for name in BUILD_NAMES]


SHIPPED_SAMPLES = ((20261201, 800_000_000, 40_000_000), (1201001, 400_000_000, 20_000_000),
                   (1201002, 400_000_000, 20_000_000), (1201003, 400_000_000, 20_000_000))
"""(seed, paid spins, features) of the samples the shipped builds were tuned on (merged)."""


def tune_build(name: str, rtp: float | None = None, out: Path | None = None, sample_path: Path | None = None,
               samples: tuple[tuple[int, int, int], ...] = SHIPPED_SAMPLES) -> dict[str, Any]:
    """``reelforge tune forge-of-gems --build NAME [-t rtp=...] [--sample S.npz]``: simulate the
    ``samples`` and merge them (or load the kept ``sample_path``), tune one build with the generic
    tuner, write it. The defaults reproduce the shipped builds."""
    if sample_path is not None and Path(sample_path).exists():
        st = Strata.load(Path(sample_path))
    else:
        st = merged_sample(samples)
        if sample_path is not None:
            st.save(Path(sample_path))
    build = calibrate_one(st, name, rtp if rtp is not None else float(name) / 100)
    path = Path(out) if out else BUILDS_DIR / f"{name}.toml"
    path.write_text(build_to_toml(build, comment=f"Forge of Gems build {name}: written by "
                                  f"reelforge.games.forge_of_gems.design (do not edit by hand).\n"
                                  f"Tuned on seed(s) {', '.join(map(str, st.seeds))}: {st.spins:,} paid spins, {st.features:,} features."))
    e = estimate(st, build)
    e["written"] = str(path)
    e["note"] = "figures on the tuning sample; run the design's 'verify' on an independent sample to report"
    return e


def merged_sample(samples: tuple[tuple[int, int, int], ...], log: bool = True) -> Strata:
    """The given (seed, spins, features) samples simulated and merged into one."""
    st = None
    for seed, spins, features in samples:
        one = sample(spins, features, seed, TAIL_THRESHOLD, log=log)
        st = one if st is None else st.merge(one)
    return st


def write_builds(builds: list[Build], note: str) -> None:
    for b in builds:
        text = build_to_toml(b, comment=f"Forge of Gems build {b.name}: written by "
                             f"reelforge.games.forge_of_gems.design (do not edit by hand).\n{note}")
        (BUILDS_DIR / f"{b.name}.toml").write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("calibrate", "verify", "simulate"))
    ap.add_argument("--rounds", type=int, default=10_000_000, help="simulate: plain rounds per build")
    ap.add_argument("--spins", type=int, default=100_000_000, help="paid spins in the paid-spin stratum")
    ap.add_argument("--features", type=int, default=4_000_000, help="20-spin features in the feature stratum")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores; "
                    "the sample does not depend on it)")
    ap.add_argument("--write", action="store_true", help="calibrate: write the build files")
    ap.add_argument("--json", type=Path, default=None, help="verify: write the figures here")
    ap.add_argument("--save", type=Path, default=None, help="keep the sample in this .npz file")
    ap.add_argument("--load", type=Path, action="append", default=None,
                    help="use kept samples (repeatable: merged) instead of simulating")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else (20261129 if args.command == "calibrate" else 9620842)
    if args.command == "simulate":
        return _plain(args.rounds, seed, args.json)
    if args.load:
        samples = [Strata.load(p) for p in args.load]
        st = samples[0]
        for other in samples[1:]:
            st = st.merge(other)
        seed = st.seed
    else:
        st = sample(args.spins, args.features, seed, TAIL_THRESHOLD, workers=args.workers)
        if args.save:
            st.save(args.save)
    print(f"sampled {st.spins:,} paid spins and {st.features:,} features in {st.seconds:.0f} s", file=sys.stderr)
    if args.command == "calibrate":
        builds = calibrate(st)
        for b in builds:
            e = estimate(st, b)
            print(f"{b.name}: unit {b.unit} gembox3 {list(b.gembox[3].weights)} tuned-sample rtp {e['rtp']:.5f}")
        if args.write:
            write_builds(builds, f"Tuned on seed(s) {', '.join(map(str, st.seeds))}: {st.spins:,} paid spins, {st.features:,} features.")
        return 0
    from reelforge.games.forge_of_gems.build import load_build
    out = []
    for name in BUILD_NAMES:
        e = estimate(st, load_build(name))
        e["seed"] = seed
        out.append(e)
        print(f"{name}: rtp {100 * e['rtp']:.3f}% 99% CI [{100 * e['ci99'][0]:.3f}, {100 * e['ci99'][1]:.3f}] "
              f"(half-width {100 * e['half_width']:.3f} pp) paid spin {100 * e['paid_spin_rtp']:.2f}% "
              f"free spins 1 in {1 / e['free_spin_frequency']:.0f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str))
    return 0


def _plain(rounds: int, seed: int, path: Path | None) -> int:
    """Cross-check: plain full-round simulation of every shipped build with the production kernel."""
    from reelforge.games.forge_of_gems.game import ForgeOfGems
    game = ForgeOfGems()
    out = []
    for i, name in enumerate(BUILD_NAMES):
        build = game.load_build(name)
        start = time.time()
        acc = game.simulate_chunk(build, rounds, np.random.SeedSequence([seed, i]))
        dt = time.time() - start
        lo, hi = acc.rtp_ci99()
        extra = game.extra_summary(build, acc)
        row = {"build": name, "rounds": rounds, "rtp": acc.rtp, "ci99": [lo, hi], "sd_x": acc.sd,
               "volatility_level": volatility_level(acc.sd),
               "components": acc.component_rtp(), "hit_rate": acc.hit_rate, "max_win_x": acc.max_win / acc.unit,
               "rounds_per_second": rounds / dt, "extra": extra}
        out.append(row)
        print(f"{name}: rtp {100 * acc.rtp:.2f}% 99% CI [{100 * lo:.2f}, {100 * hi:.2f}] sd {acc.sd:.1f} "
              f"max {acc.max_win / acc.unit:.0f}x caps {acc.counter('cap_hits')} "
              f"free spins 1 in {rounds / max(acc.counter('free_spin_triggers'), 1):.0f} "
              f"({rounds / dt:,.0f} rounds/s)")
    if path:
        path.write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


