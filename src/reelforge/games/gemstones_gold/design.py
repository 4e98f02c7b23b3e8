"""Calibration of the Gemstones Gold build's multiplier weights and Feature Buy price (rerunnable,
deterministic by seed); the strips come from the strip design (:mod:`.strips`).

Steps:

1. :func:`reelforge.games.gemstones_gold.strips.make_strips` builds the strips from integer design
   parameters and a seed; :func:`~.strips.search_trigger` and :func:`~.strips.search_hit` search
   them on the EXACT initial-board probabilities (:mod:`.board`) for the hit and trigger rates.
2. The paid-spin multiplier: given the cascade sequence the expected paid-spin win is linear in the
   mean value ``mu`` (:func:`.sampling.paid_coefficients`); free spins: given the boards the
   expected feature win is ``A + B * mu_free`` (:func:`.sampling.feature_coefficients`, per initial
   spin count); the cap's cost is measured once near the optimum (:func:`cap_excess`).
3. Weights of a fixed value set follow ``v ** -alpha`` scaled to integers; ``alpha`` is solved for
   the wanted mean (:func:`weights_for_mean`). The two means are the free parameters of the generic
   tuner (:func:`tuning_space`, :func:`reelforge.core.tuning.climb`), every candidate measured on the
   same sample.
4. Feature Buy price = E[10-spin feature] / target RTP, rounded to 0.1x.

``reelforge design gemstones-gold calibrate`` runs it (``--write`` writes the build file; the
shipped build is its output with ``--reuse-strips`` and the defaults, :data:`SHIPPED_SAMPLE`);
``reelforge tune gemstones-gold --build 96.71 [--sample S.npz]`` retunes weights and price on the
shipped strips (:func:`tune_build`). ``reelforge design gemstones-gold verify`` reports every
published figure from an independent stratified sample (:mod:`.stratified`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from reelforge.core.stats import Z99
from reelforge.core.tuning import Param, TuningSpace, climb, pattern_steps
from reelforge.game.buildschema import fraction_text
from reelforge.game.results import TuneResult
from reelforge.games.gemstones_gold.build import BUILDS_DIR, FILES, GAME_ID, Build
from reelforge.games.gemstones_gold.sampling import (
    VALUES,
    build_from,
    feature_coefficients,
    load_sample,
    sample_coefficients,
    save_sample,
)
from reelforge.games.gemstones_gold.strips import DesignParams, make_strips, search_hit, search_trigger

TARGET_RTP = 0.9671
TARGET_PAID = 0.6889
TARGET_FREE = 0.2782
WEIGHT_TOTAL = 1_000_000


def weights_for_mean(mu: float, values: tuple[int, ...] = VALUES, total: int = WEIGHT_TOTAL,
                     tail: float = 1.0) -> tuple[int, ...]:
    """Integer weights ``~ v ** -alpha`` (times ``tail`` for values of 100 and more) whose mean
    value is ``mu`` (bisection on alpha). A larger ``tail`` keeps the mean but fattens the top."""
    v = np.array(values, dtype=float)

    def weights(alpha: float) -> np.ndarray:
        w = v ** -alpha * np.where(v >= 100, tail, 1.0)
        w = np.maximum(np.round(w / w.sum() * total), 1)
        return w

    lo, hi = 0.0, 8.0
    if not (v * weights(hi)).sum() / weights(hi).sum() <= mu <= (v * weights(lo)).sum() / weights(lo).sum():
        raise ValueError(f"mean {mu} not reachable with values {values}")
    for _ in range(80):
        mid = (lo + hi) / 2
        w = weights(mid)
        if (v * w).sum() / w.sum() > mu:
            lo = mid
        else:
            hi = mid
    w = weights(hi).astype(np.int64)
    # fine-tune the mean with the weight of the value v[0] (closest integer, solved directly):
    # mean(d) = (S_vw + v0 d) / (S_w + d) = mu  <=>  d = (mu S_w - S_vw) / (v0 - mu)
    s_w, s_vw = float(w.sum()), float((v * w).sum())
    d0 = math.floor((mu * s_w - s_vw) / (v[0] - mu))
    best = None
    for d in (d0, d0 + 1):
        if w[0] + d < 1:
            continue
        err = abs((s_vw + v[0] * d) / (s_w + d) - mu)
        if best is None or err < best[0]:
            best = (err, d)
    if best is not None:
        w[0] += best[1]
    return tuple(int(x) for x in w)


def mean_of(weights: tuple[int, ...], values: tuple[int, ...] = VALUES) -> float:
    return sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)


@dataclass
class Calibration:
    params: DesignParams
    strips: list[str]
    exact: dict[str, float]
    paid: dict
    features: dict[int, dict] = field(default_factory=dict)
    final_scatters: dict[int, float] = field(default_factory=dict)
    mu_base: float = 0.0
    mu_free: float = 0.0
    base_weights: tuple[int, ...] = ()
    free_weights: tuple[int, ...] = ()
    price: Fraction = Fraction(0)
    log: list[str] = field(default_factory=list)
    settings: str = ""
    sample: dict = field(default_factory=dict)
    """The :func:`sample_coefficients` result the weights were tuned on."""
    rtp: float = TARGET_RTP


BASE_TAIL = 20.0
FREE_TAIL = 30.0
"""Tail factors of the value weights (see :func:`weights_for_mean`): chosen for a round-win SD of
about 16x bet (volatility level 8, needs 14+) at the calibrated means."""


SHIPPED_SAMPLE = {"paid_n": 2_500_000_000, "feature_n": 50_000_000, "seed": 20261130}
"""The sample the shipped build's weights were tuned on (``reelforge tune gemstones-gold --build 96.71``)."""

MEAN_SCALE = 10_000
"""The tuner's integer parameters are the mean multiplier values in units of 1/10000."""


def tuning_space(smp: dict) -> TuningSpace:
    """The two free parameters (mean paid-spin and free-spin multiplier values) for the generic tuner.

    Given the sample's boards the expected paid-spin RTP is ``a + b mu_base`` and the free-spin RTP
    ``sum_k P_k (A_k + B_k mu_free)`` (:func:`paid_coefficients`, :func:`feature_coefficients`): every
    candidate is measured on the same sample (common random numbers), exactly linear in the means.
    The weights of a mean follow :func:`weights_for_mean` with the tail factors below. The 7,500x cap
    takes ``cap_excess`` (x bet per paid round) off the free-spin part when the sample has it
    (:func:`cap_excess`)."""
    paid = smp["paid"]
    feats = [f for f in smp["features"].values() if f["p"] > 0]
    total_a = sum(f["p"] * f["A"] for f in feats)
    total_b = sum(f["p"] * f["B"] for f in feats)
    strips = smp["strips"]

    def make(v: dict[str, int]) -> Build:
        return build_from(strips, weights_for_mean(v["base_mean"] / MEAN_SCALE, tail=BASE_TAIL),
                          weights_for_mean(v["free_mean"] / MEAN_SCALE, tail=FREE_TAIL))

    cap_excess = smp.get("cap_excess", {}).get("value", 0.0)

    def measure(b: Build) -> dict[str, float]:
        rp = paid["a"] + paid["b"] * mean_of(b.base_weights)
        rf = total_a + total_b * mean_of(b.free_weights) - cap_excess
        return {"rtp_paid": rp, "rtp_free": rf, "rtp": rp + rf}

    lo, hi = 2 * MEAN_SCALE + 1, 400 * MEAN_SCALE
    return TuningSpace(params=[Param("base_mean", lo, hi), Param("free_mean", lo, hi)],
                       start={"base_mean": 10 * MEAN_SCALE, "free_mean": 10 * MEAN_SCALE},
                       make_build=make, measure=measure, tolerances={"rtp_paid": 1e-5, "rtp_free": 1e-5})


def sample_intervals(smp: dict, build: Build) -> dict[str, list[float]]:
    """99% intervals of the tuner's figures for ``build`` on the sample ``smp`` (the paid part from
    the per-board moments of ``W P0`` and ``W m / 2``, the free part from the per-feature moments of
    ``A`` and ``B``, per spin class, weighted by the class probabilities)."""
    paid = smp["paid"]
    mu, n = mean_of(build.base_weights), paid["n"]
    rp = paid["a"] + mu * paid["b"]
    var_p = (paid["sxx"] + 2 * mu * paid["sxy"] + mu * mu * paid["syy"] - rp * rp) / n
    fm = mean_of(build.free_weights)
    var_f = 0.0
    for f in smp["features"].values():
        if f["p"] > 0:
            m = f["A"] + fm * f["B"]
            var_f += f["p"] ** 2 * (f["AA"] + 2 * fm * f["AB"] + fm * fm * f["BB"] - m * m) / f["n"]
    figures = tuning_space(smp).measure(build)
    out = {}
    for key, var in (("rtp_paid", var_p), ("rtp_free", var_f), ("rtp", var_p + var_f)):
        h = Z99 * math.sqrt(max(var, 0.0))
        out[key] = [figures[key] - h, figures[key] + h]
    return out


def cap_excess(smp: dict, build: Build, n: int, seed: int, workers: int | None, log: bool) -> dict:
    """E[uncapped - capped feature win] x P(class), summed over the sample's trigger classes, for
    ``build``'s free-spin weights (``n`` features split by class probability)."""
    feats = {int(k): f for k, f in smp["features"].items() if f["p"] > 0}
    trig = sum(f["p"] for f in feats.values())
    total, count = 0.0, 0
    for k, f in sorted(feats.items()):
        m = max(10_000, int(n * f["p"] / trig))
        total += f["p"] * feature_coefficients(build, k, m, seed + k, workers, log)["D"]
        count += m
    return {"value": total, "features": count, "free_mean": mean_of(build.free_weights)}


def feature_buy_price(smp: dict, free_weights: tuple[int, ...], rtp: float = TARGET_RTP) -> Fraction:
    """E[10-spin feature] / target RTP, rounded to 0.1x."""
    f10 = smp["features"]["10"]
    return Fraction(round((f10["A"] + f10["B"] * mean_of(free_weights)) / rtp * 10), 10)


def calibrate(params: DesignParams | None = None, paid_n: int = SHIPPED_SAMPLE["paid_n"],
              feature_n: int = SHIPPED_SAMPLE["feature_n"], seed: int = SHIPPED_SAMPLE["seed"], strips: list[str] | None = None, workers: int | None = None,
              log_progress: bool = False, sample: dict | None = None,
              targets: dict[str, float] | None = None) -> Calibration:
    """Design the build: strips (hit rate, trigger rate), then the value weights (RTP split, by the
    generic tuner), then the price.

    ``strips`` skips the (deterministic, slow) strip search and reuses given strips, e.g. those of
    the shipped build, which the search with the default parameters reproduces. ``sample`` reuses a
    kept :func:`sample_coefficients` result (its strips) instead of simulating."""
    params = params or DesignParams()
    log: list[str] = []
    if sample is not None:
        strips = sample["strips"]
        log.append(f"sample reused ({sample['settings']})")
    elif strips is None:
        params = search_trigger(params, log, seed + 1)
        strips = search_hit(make_strips(params), log, seed)
    else:
        log.append("strips reused (no search)")
    smp = sample or sample_coefficients(strips, paid_n, feature_n, seed, workers, log_progress)
    paid = smp["paid"]
    cal = Calibration(params=params, strips=strips, exact=smp["exact"], paid=paid, log=log,
                      settings=smp["settings"] + f" strips_reused={sample is not None or 'strips reused' in log[-1]}")
    cal.sample = smp
    cal.final_scatters = {int(j): p for j, p in smp["final_scatters"].items()}
    cal.features = {int(k): v for k, v in smp["features"].items()}
    log.append(f"trigger rate (exact initial + simulated cascades): {sum(cal.final_scatters.values()):.6f}")
    log.append(f"paid spin: W {paid['W']:.5f} a {paid['a']:.6f} b {paid['b']:.6f}")
    for k, fc in sorted(cal.features.items()):
        log.append(f"feature {k} spins (P {fc['p']:.4e}): A {fc['A']:.5f} B {fc['B']:.5f} over {fc['n']} features")
    goal = {"rtp_paid": TARGET_PAID, "rtp_free": TARGET_FREE, **(targets or {})}
    space = tuning_space(smp)
    values = climb(space, goal, steps=pattern_steps(space.params[0].high - space.params[0].low))
    if "cap_excess" not in smp:
        # the cap's cost depends on the drawn values: measured once at the uncapped optimum, then retuned
        smp["cap_excess"] = cap_excess(smp, space.make_build(values), max(feature_n // 4, 20_000), seed + 100,
                                       workers, log_progress)
    log.append(f"cap excess (7,500x) {smp['cap_excess']['value']:.3e} x bet per paid round "
               f"over {smp['cap_excess']['features']} features")
    space = tuning_space(smp)
    values = climb(space, goal, start=values, steps=(64, 16, 4, 1))
    best = space.make_build(values)
    cal.base_weights, cal.free_weights = best.base_weights, best.free_weights
    cal.mu_base, cal.mu_free = mean_of(cal.base_weights), mean_of(cal.free_weights)
    figures = space.measure(best)
    log.append(f"tuner: {values} -> mean values {cal.mu_base:.5f} / {cal.mu_free:.5f}; on the sample: "
               + ", ".join(f"{k} {v:.6f}" for k, v in figures.items()))
    cal.rtp = goal.get("rtp", goal["rtp_paid"] + goal["rtp_free"])
    cal.price = feature_buy_price(smp, cal.free_weights, cal.rtp)
    f10 = smp["features"]["10"]
    value10 = f10["A"] + f10["B"] * cal.mu_free
    log.append(f"feature buy: E[10-spin feature] {value10:.4f}x -> price {cal.price}x "
               f"(buy RTP {value10 / float(cal.price):.5f})")
    return cal


def build_toml(cal: Calibration, name: str = "96.71") -> str:
    """The build file text for a calibration (the shared writer, :mod:`reelforge.game.buildfile`)."""
    build = build_from(cal.strips, cal.base_weights, cal.free_weights, fraction_text(cal.price), name,
                       rtp=f"{cal.rtp:.4f}")
    header = (f"Gemstones Gold build {name}: generated by `reelforge design gemstones-gold calibrate --write`.\n"
              "Do not edit by hand; change the design parameters (strips.py, design.py) and rerun.\n"
              f"design: {cal.params}, then seeded background edits (search_hit)\n"
              f"calibration: {cal.settings}")
    return FILES.text(build, header)


TUNABLE = ("rtp", "rtp_paid", "rtp_free")


def tune_build(name: str, targets: dict[str, float], strips: list[str], out: Path | None = None,
               sample: Path | None = None) -> TuneResult:
    """Recalibrate the multiplier weights and Feature Buy price of build ``name`` on ``strips`` toward
    ``targets`` (``rtp_paid``, ``rtp_free``, or ``rtp``; fractions) and write its file; ``sample`` keeps
    (or reuses, when it exists) the tuning sample (about 15 minutes on 2 cores for the shipped settings)."""
    goal = {"rtp_paid": targets.get("rtp_paid", TARGET_PAID)}
    goal["rtp_free"] = targets.get("rtp_free", targets.get("rtp", TARGET_RTP) - goal["rtp_paid"])
    if "rtp" in targets:
        goal["rtp"] = targets["rtp"]
    cal = calibrate(strips=strips, sample=load_sample(sample), targets=goal, **SHIPPED_SAMPLE)
    if sample is not None and not Path(sample).exists():
        save_sample(Path(sample), cal.sample)
    target = Path(out) if out else BUILDS_DIR / f"{name}.toml"
    target.write_text(build_toml(cal, name))
    made = build_from(cal.strips, cal.base_weights, cal.free_weights)
    figures = tuning_space(cal.sample).measure(made)
    return TuneResult(game=GAME_ID, build=name, file=str(target), method="simulation (common random numbers)",
                      figures={**figures, "feature_buy_price_x": cal.price},
                      figures_ci99=sample_intervals(cal.sample, made), log=tuple(cal.log),
                      note="figures on the tuning sample; `reelforge design gemstones-gold verify` reports them "
                           "with 99% intervals from an independent sample",
                      extra={"sample": cal.sample["settings"]})
