"""Calibration of the Gemstones Gold build (rerunnable, deterministic).

Entry points::

    python -m reelforge.games.gemstones_gold.design [--reuse-strips] [--write] [--paid N] [--features N]
    reelforge tune gemstones-gold --build 96.71 [--sample S.json]   # weights + price on the shipped strips

:func:`calibrate` prints every figure and with ``--write`` writes
``builds/96.71.toml`` (the shipped build is its output: ``--reuse-strips`` with
the defaults, :data:`SHIPPED_SAMPLE`). :func:`verify` produces the
published-figure report (99% intervals and round counts) from an independent
stratified simulation. Samples run in seeded chunks on all cores
(:func:`reelforge.calibration.chunked_sums`): the same for any worker count.

Strip design (why it can reach the published hit rate): every strip is an
*anti-clustered background* (any six consecutive paying symbols are distinct,
so a reel alone shows at most one of each) with a few *stacks*: six equal
paying symbols in a row. A win needs 8+ of one symbol on 36 cells, so it
essentially needs stacks of the same symbol on two or more reels; the number
of stacks per reel sets the hit rate, and because the refills above a stack
are again anti-clustered, chains of three winning cascades in one column (what
reveals a paid-spin multiplier) stay rare. One scatter per strip; the strip
lengths set the trigger rate.

Calibration steps, each a function below:

1. :func:`make_strips` builds the strips from integer design parameters and a seed.
2. :func:`initial_board_probabilities` gives EXACT probabilities over the
   uniform stops of the initial board (inclusion-exclusion over symbol sets
   with a capped-count dynamic programme): P(win), P(scatters = j), and
   P(no win and 3+ scatters). Stack counts and strip lengths are searched on
   these exact numbers for the hit rate and trigger rate.
3. The paid-spin multiplier: values and lanes are drawn independently of the
   board, so given the cascade sequence (W coins, columns with 3+ qualifying
   cascades m) the expected paid-spin win is ``W * (P(no lane in those m) +
   mu * m / 2)``, linear in the mean value ``mu``. :func:`paid_coefficients`
   estimates the two coefficients by simulating boards only.
4. Free spins: every lane has a value, so given the boards the expected feature
   win is ``A + B * mu_free`` (:func:`feature_coefficients`, per initial spin
   count); the cap's cost is measured once near the optimum (:func:`cap_excess`).
5. Weights of a fixed value set follow ``v ** -alpha`` scaled to integers;
   ``alpha`` is solved for the wanted mean (:func:`weights_for_mean`). The two
   means are the free parameters of the generic tuner (:func:`tuning_space`,
   :func:`reelforge.tuning.climb`), every candidate measured on the same sample.
6. Feature Buy price = E[10-spin feature] / target RTP, rounded to 0.1x.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
from numba import njit

from reelforge.buildfile import fraction_text
from reelforge.calibration import chunked_sums
from reelforge.games.gemstones_gold import kernel
from reelforge.games.gemstones_gold.build import (
    BUILDS_DIR,
    FILES,
    N_PAYING,
    PUBLISHED_PAYTABLE,
    REELS,
    ROWS,
    SCATTER,
    SYMBOL_CHARS,
    Build,
    parse_build,
)
from reelforge.mechanics.rng import draw
from reelforge.stats import Z99
from reelforge.tuning import Param, TuningSpace, climb, pattern_steps

TARGET_RTP = 0.9671
TARGET_PAID = 0.6889
TARGET_FREE = 0.2782
TARGET_HIT = 0.3509
TARGET_TRIGGER = 0.0051
VALUES = (2, 3, 4, 5, 8, 10, 15, 20, 25, 50, 100, 250, 500)
WEIGHT_TOTAL = 1_000_000


@dataclass
class DesignParams:
    """Integer design of the six strips (see the module docstring)."""

    lengths: tuple[int, ...] = (138, 138, 138, 138, 138, 138)
    stacks: tuple[str, ...] = ("PL", "PL", "PL", "PL", "PL", "PL")
    """Stack symbols per reel (one character per stack)."""
    background: tuple[int, ...] = (1, 1, 1, 1, 1, 1, 1, 1)
    """Relative weights of the 8 paying symbols in the background."""
    seed: int = 1671262
    scatters: tuple[int, ...] = (2, 2, 1, 1, 1, 1)
    stack_length: int = 6
    background_gap: int = 4
    scatter_lead: tuple[int, ...] = (15, 15, 15, 15, 15, 15)
    """Background symbols between a scatter and the stack below it on the strip."""
    """A background symbol differs from the previous ``background_gap`` paying symbols."""


def make_strips(p: DesignParams) -> list[str]:
    """Six strips: anti-clustered background with evenly spaced stacks; scatter i sits
    ``scatter_lead[r]`` background symbols above stack i (closer = pulled in by cascades more often)."""
    strips = []
    weights = np.array(p.background, dtype=float)
    for r in range(REELS):
        rng = np.random.default_rng([p.seed, r])
        length = p.lengths[r]
        stacks = [SYMBOL_CHARS.index(ch) for ch in p.stacks[r]]
        if p.scatters[r] > len(stacks):
            raise ValueError(f"reel {r + 1}: at most one scatter per stack")
        n_bg = length - p.stack_length * len(stacks) - p.scatters[r]
        gaps = [n_bg * (i + 1) // len(stacks) - n_bg * i // len(stacks) for i in range(len(stacks))]
        lead = p.scatter_lead[r]
        if min(gaps) < lead + 6:
            raise ValueError(f"reel {r + 1}: strip too short for its stacks and scatter lead")
        seq: list[int] = []
        paying_tail: list[int] = []   # last paying symbols (scatters skipped)
        for i, (sym, gap) in enumerate(zip(stacks, gaps, strict=True)):
            for k in range(gap):
                if i < p.scatters[r] and k == gap - lead:
                    seq.append(SCATTER)
                banned = set(paying_tail[-p.background_gap:]) if p.background_gap else set()
                if gap - k <= 5:
                    banned.add(sym)      # keep the stack's symbol away from it
                w = weights.copy()
                for b in banned:
                    w[b] = 0.0
                x = int(rng.choice(N_PAYING, p=w / w.sum()))
                seq.append(x)
                paying_tail.append(x)
            seq += [sym] * p.stack_length
            paying_tail += [sym] * p.stack_length
        strips.append("".join(SYMBOL_CHARS[v] for v in seq))
    return strips


def build_from(strips: list[str], base_w: tuple[int, ...], free_w: tuple[int, ...], price: str = "50",
               name: str = "design", rtp: str = "0.9671") -> Build:
    data = {"game": "gemstones-gold", "name": name, "rtp": rtp, "feature_buy_price_x": price,
            "paytable": {k: list(v) for k, v in PUBLISHED_PAYTABLE.items()},
            "reels": {"strips": strips},
            "multipliers": {"values": list(VALUES), "base_weights": list(base_w), "free_weights": list(free_w)}}
    return parse_build(data, name)


# -- exact initial-board probabilities -------------------------------------

@njit(cache=True)
def _all_at_cap(vecs, mult, starts, caps) -> float:
    """P(every tracked count reaches its cap) over independent reels.

    ``vecs[i]`` are count vectors (tracked dims) of reel windows, ``mult[i]``
    their probability, reel r owning rows ``starts[r]:starts[r+1]``."""
    d = caps.shape[0]
    radix = np.ones(d + 1, dtype=np.int64)
    for j in range(d):
        radix[j + 1] = radix[j] * (caps[j] + 1)
    n = radix[d]
    state = np.zeros(n, dtype=np.float64)
    state[0] = 1.0
    digits = np.zeros(d, dtype=np.int64)
    for r in range(starts.shape[0] - 1):
        new = np.zeros(n, dtype=np.float64)
        for idx in range(n):
            p = state[idx]
            if p == 0.0:
                continue
            rem = idx
            for j in range(d):
                digits[j] = rem % (caps[j] + 1)
                rem //= caps[j] + 1
            for i in range(starts[r], starts[r + 1]):
                t = 0
                for j in range(d):
                    v = digits[j] + vecs[i, j]
                    if v > caps[j]:
                        v = caps[j]
                    t += v * radix[j]
                new[t] += p * mult[i]
        state = new
    full = 0
    for j in range(d):
        full += caps[j] * radix[j]
    return state[full]


def _reel_windows(strips: list[str]) -> list[np.ndarray]:
    out = []
    for s in strips:
        codes = [SYMBOL_CHARS.index(c) for c in s]
        n = len(codes)
        w = np.zeros((n, 9), dtype=np.int64)
        for st in range(n):
            for k in range(ROWS):
                w[st, codes[(st + k) % n]] += 1
        out.append(w)
    return out


def _joint(windows: list[np.ndarray], dims: list[int], caps: list[int]) -> float:
    vecs, mult, starts = [], [], [0]
    radix = 7 ** np.arange(len(dims))
    for w in windows:
        sub = w[:, dims]
        keys, first, counts = np.unique(sub @ radix, return_index=True, return_counts=True)
        uniq = sub[first]
        vecs.append(uniq)
        mult.append(counts / w.shape[0])
        starts.append(starts[-1] + len(uniq))
    return float(_all_at_cap(np.vstack(vecs).astype(np.int64), np.concatenate(mult),
                             np.array(starts, dtype=np.int64), np.array(caps, dtype=np.int64)))


def initial_board_probabilities(strips: list[str]) -> dict[str, float]:
    """Exact probabilities over uniform stops of the INITIAL board.

    ``win``: some paying symbol 8+ times; ``scatters_ge_j``: P(scatters >= j);
    ``nowin_trigger``: no win and 3+ scatters (such a board has no cascade, so
    it is final)."""
    windows = _reel_windows(strips)
    win = 0.0
    win_and_trig = 0.0
    for size in range(1, 5):
        sign = 1.0 if size % 2 else -1.0
        for combo in itertools.combinations(range(N_PAYING), size):
            dims = list(combo)
            win += sign * _joint(windows, dims, [8] * size)
            win_and_trig += sign * _joint(windows, dims + [SCATTER], [8] * size + [3])
    out = {"win": win}
    for j in range(1, 7):
        out[f"scatters_ge_{j}"] = _joint(windows, [SCATTER], [j])
    out["nowin_trigger"] = out["scatters_ge_3"] - win_and_trig
    return out


# -- conditional (Rao-Blackwell) estimators ----------------------------------

@njit(cache=True, inline="always")
def _board(rng, strips, lens, packed, pay, stops, board, q, counts, work):
    """Draw the stops and play the board's cascades: (win in coins, initial scatters, final
    scatters, columns whose lane would be fully revealed)."""
    init_sc = 0
    for r in range(6):
        stops[r] = draw(rng, lens[r])
        init_sc += (packed[r, stops[r]] >> 56) & 127
    w, sc = kernel.spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
    m = 0
    for r in range(6):
        if q[r] >= 3:
            m += 1
    return w, init_sc, sc, m


@njit(cache=True)
def _paid_boards(rng, n, strips, lens, packed, pay, cap, sums, trans):
    """Boards only (stops drawn per round, no multiplier draws).

    ``sums``: [sum W, sum W*P0, sum W*m/2, sum (W*P0)^2, sum (W*m/2)^2, sum W*P0*W*m/2, hits]
    (W in coins; P0 = P(no chosen lane among the m revealed columns)).
    ``trans[i, j]``: rounds with initial scatters i and final scatters j."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    for _ in range(n):
        w, init_sc, sc, m = _board(rng, strips, lens, packed, pay, stops, board, q, counts, work)
        trans[init_sc, sc] += 1
        if w > 0:
            p0 = 0.0
            if m <= 3:
                p0 = 1.0
                for j in range(3):
                    p0 *= (6 - m - j) / (6.0 - j)
            x = w * p0
            y = w * m / 2.0
            sums[0] += w
            sums[1] += x
            sums[2] += y
            sums[3] += x * x
            sums[4] += y * y
            sums[5] += x * y
            sums[6] += 1


@njit(cache=True)
def _features(rng, n, spins0, strips, lens, packed, pay, values, free_cum, cap, out):
    """``n`` features of ``spins0`` initial spins, boards and values played.

    Per feature: A = sum W_t over spins with nothing revealed, B = sum W_t * C_t
    over spins with a reveal (C_t = revealed lanes so far), the actual win with the
    drawn values uncapped (U) and capped at ``cap`` (K). ``out`` accumulates
    [A, B, A^2, B^2, AB, U-K, (U-K)^2, A(U-K), B(U-K), K, K^2, spins, caps, hits]."""
    stops, board, q, counts, work, _, vals, _ = kernel.make_bufs()
    for _ in range(n):
        a = 0.0
        b = 0.0
        c = 0
        m_tot = 0
        u = 0
        k = 0
        capped = False
        left = spins0
        played = 0
        while left > 0:
            for r in range(6):
                stops[r] = draw(rng, lens[r])
            for r in range(6):
                vals[r] = kernel.weighted(rng, values, free_cum)
            w, sc = kernel.spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
            s = 0
            mr = 0
            if w > 0:
                for r in range(6):
                    if q[r] >= 2:
                        s += vals[r]
                        mr += 1
            if mr > 0:
                c += mr
                b += w * c
                m_tot += s
                win = w * m_tot
            else:
                a += w
                win = w
            u += win
            if not capped:
                if k + win >= cap:
                    k = cap
                    capped = True
                else:
                    k += win
            played += 1
            left -= 1
            if sc >= 2:
                left += 5
        d = float(u - k)
        out[0] += a
        out[1] += b
        out[2] += a * a
        out[3] += b * b
        out[4] += a * b
        out[5] += d
        out[6] += d * d
        out[7] += a * d
        out[8] += b * d
        out[9] += k
        out[10] += float(k) * k
        out[11] += played
        out[12] += 1 if capped else 0
        out[13] += 1 if k > 0 else 0


PAID_CHUNK = 1 << 22
FEATURE_CHUNK = 1 << 15


def _boards_args(build: Build) -> tuple:
    A = build.arrays
    return A["strips"], A["lens"], A["packed"], A["pay"]


def _feature_sums(build: Build, spins: int, n: int, seed, workers: int | None, log: bool) -> np.ndarray:
    """Accumulated :func:`_features` sums of ``n`` features of ``spins`` initial spins (chunked, parallel)."""
    A = build.arrays
    (out,) = chunked_sums(_features, n, seed, (spins, *_boards_args(build), A["values"], A["free_cum"],
                                                build.cap_units), [((14,), np.float64)], FEATURE_CHUNK, workers,
                          f"{spins}-spin features", log)
    return out


def paid_coefficients(build: Build, n: int, seed: int, workers: int | None = None, log: bool = False) -> dict:
    """Estimate E[W*P0] and E[W*m/2] (x bet) and the scatter transitions from ``n`` boards."""
    sums, trans = chunked_sums(_paid_boards, n, seed, (*_boards_args(build), build.cap_units),
                               [((7,), np.float64), ((7, 13), np.int64)], PAID_CHUNK, workers, "boards", log)
    u = 20.0
    return {"n": n, "W": sums[0] / n / u, "a": sums[1] / n / u, "b": sums[2] / n / u,
            "sxx": sums[3] / n / u**2, "syy": sums[4] / n / u**2, "sxy": sums[5] / n / u**2,
            "hits_init": sums[6] / n, "trans": trans}


def feature_coefficients(build: Build, spins: int, n: int, seed: int, workers: int | None = None,
                         log: bool = False) -> dict:
    """Estimate A, B (x bet) of ``E[F] = A + B mu_free`` for features of ``spins`` initial spins."""
    out = _feature_sums(build, spins, n, seed, workers, log)
    u = 20.0
    return {"n": n, "A": out[0] / n / u, "B": out[1] / n / u, "AA": out[2] / n / u**2, "BB": out[3] / n / u**2,
            "AB": out[4] / n / u**2, "D": out[5] / n / u, "DD": out[6] / n / u**2, "AD": out[7] / n / u**2,
            "BD": out[8] / n / u**2, "K": out[9] / n / u, "KK": out[10] / n / u**2,
            "spins": out[11] / n, "caps": int(out[12]), "hits": out[13] / n}


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


# -- calibration ------------------------------------------------------------------

def spins_for(scatters: int) -> int:
    """Free spins a paid spin with ``scatters`` (>= 3) scatters awards."""
    return 10 + 2 * (scatters - 3)


def final_scatter_distribution(exact: dict[str, float], trans: np.ndarray) -> dict[int, float]:
    """P(final scatters = j) for j >= 3: exact initial distribution, cascade transitions
    post-stratified from the simulated ``trans[initial, final]`` counts."""
    p_init = {i: exact.get(f"scatters_ge_{i}", 1.0 if i == 0 else 0.0) - exact.get(f"scatters_ge_{i + 1}", 0.0)
              for i in range(0, 7)}
    out: dict[int, float] = {}
    for i, pi in p_init.items():
        row = trans[i]
        if row.sum() == 0:
            if i >= 3 and pi > 0:
                out[i] = out.get(i, 0.0) + pi    # never observed: no cascade estimate, keep it where it is
            continue
        for j in range(max(i, 3), trans.shape[1]):
            if row[j]:
                out[j] = out.get(j, 0.0) + pi * row[j] / row.sum()
    return out


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


def _hit_estimate(exact: dict[str, float]) -> float:
    # a board without a win has no cascade, so its scatters are final; a feature
    # almost surely wins (P(F>0) measured ~1 - 1e-4), counted as a hit
    return exact["win"] + exact["nowin_trigger"]


def initial_win(strips: list[str]) -> float:
    """Exact P(initial board has a win) (inclusion-exclusion up to 4 symbols: 5 need 40 cells)."""
    windows = _reel_windows(strips)
    win = 0.0
    for size in range(1, 5):
        sign = 1.0 if size % 2 else -1.0
        for combo in itertools.combinations(range(N_PAYING), size):
            win += sign * _joint(windows, list(combo), [8] * size)
    return win


def initial_trigger(strips: list[str]) -> float:
    """Exact P(3+ scatters on the initial board)."""
    return _joint(_reel_windows(strips), [SCATTER], [3])


def measured_trigger(strips: list[str], boards: int, seed: int) -> float:
    """Exact initial scatter distribution with simulated cascade transitions (post-stratified)."""
    probe = build_from(strips, (1,) * len(VALUES), (1,) * len(VALUES))
    trans = paid_coefficients(probe, boards, seed)["trans"]
    windows = _reel_windows(strips)
    ex = {f"scatters_ge_{j}": _joint(windows, [SCATTER], [j]) for j in range(1, 7)}
    return sum(final_scatter_distribution(ex, trans).values())


def search_trigger(params: DesignParams, log: list[str], seed: int, boards: int = 3_000_000) -> DesignParams:
    """Scatter counts for the initial part (about 60% of the target), then the scatter lead
    (distance above a stack) for the part cascades add, by bisection on simulated boards."""
    best, best_gap = params, math.inf
    for n2 in range(REELS + 1):
        scatters = tuple(2 if r < n2 else 1 for r in range(REELS))
        cand = DesignParams(**{**params.__dict__, "scatters": scatters})
        init = initial_trigger(make_strips(cand))
        if init < TARGET_TRIGGER and abs(init - 0.6 * TARGET_TRIGGER) < best_gap:
            best, best_gap = cand, abs(init - 0.6 * TARGET_TRIGGER)
    params = best
    log.append(f"scatters per reel {params.scatters}: initial trigger {initial_trigger(make_strips(params)):.6f}")
    lo, hi = 1, 24          # trigger falls as the lead grows
    results: dict[int, float] = {}

    def at(lead: int) -> float:
        if lead not in results:
            cand = DesignParams(**{**params.__dict__, "scatter_lead": (lead,) * REELS})
            results[lead] = measured_trigger(make_strips(cand), boards, seed)
            log.append(f"scatter lead {lead}: trigger {results[lead]:.6f}")
        return results[lead]

    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at(mid) > TARGET_TRIGGER:
            lo = mid
        else:
            hi = mid
    lead = min((lo, hi), key=lambda d: abs(at(d) - TARGET_TRIGGER))
    return DesignParams(**{**params.__dict__, "scatter_lead": (lead,) * REELS})


def search_hit(strips: list[str], log: list[str], seed: int, gap: int = 4, tries: int = 400) -> list[str]:
    """Local edits of background symbols (keeping six-in-a-row anti-clustering rules) until the
    exact hit estimate is within 0.005 pp of the target."""
    rng = np.random.default_rng([seed, 99])
    strips = list(strips)
    nowin_trig = initial_board_probabilities(strips)["nowin_trigger"]
    err = initial_win(strips) + nowin_trig - TARGET_HIT
    log.append(f"hit before edits {err + TARGET_HIT:.6f}")
    for _ in range(tries):
        if abs(err) < 0.00005:
            break
        r = int(rng.integers(REELS))
        s = strips[r]
        n = len(s)
        pos = int(rng.integers(n))
        run = [s[(pos + k) % n] for k in range(-6, 7)]
        if run[6] == "X" or any(run[5 + j] == run[6] for j in (0, 2)):
            continue          # never touch scatters or stacks
        neighbours = {c for k, c in enumerate(run) if 6 - gap <= k <= 6 + gap and k != 6}
        choices = [c for c in SYMBOL_CHARS[:N_PAYING] if c not in neighbours and c != run[6]]
        if not choices:
            continue
        new = s[:pos] + choices[int(rng.integers(len(choices)))] + s[pos + 1:]
        cand = strips[:r] + [new] + strips[r + 1:]
        e = initial_win(cand) + nowin_trig - TARGET_HIT
        if abs(e) < abs(err):
            strips, err = cand, e
            log.append(f"edit reel {r + 1} stop {pos}: hit {err + TARGET_HIT:.6f}")
    return strips


BASE_TAIL = 20.0
FREE_TAIL = 30.0
"""Tail factors of the value weights (see :func:`weights_for_mean`): chosen for a round-win SD of
about 16x bet (volatility level 8, needs 14+) at the calibrated means."""


SHIPPED_SAMPLE = {"paid_n": 2_500_000_000, "feature_n": 50_000_000, "seed": 20261130}
"""The sample the shipped build's weights were tuned on (``reelforge tune gemstones-gold --build 96.71``)."""

MEAN_SCALE = 10_000
"""The tuner's integer parameters are the mean multiplier values in units of 1/10000."""


def sample_coefficients(strips: list[str], paid_n: int, feature_n: int, seed: int, workers: int | None = None,
                        log_progress: bool = False) -> dict:
    """Everything the weight tuning needs from simulation, independent of the weights (JSON-able):
    exact initial-board figures, paid-spin coefficients, final scatter classes and the feature
    coefficients ``A_k, B_k`` per initial spin count ``k``."""
    ex = initial_board_probabilities(strips)
    probe = build_from(strips, (1,) * len(VALUES), (1,) * len(VALUES))
    paid = paid_coefficients(probe, paid_n, seed, workers, log_progress)
    final = final_scatter_distribution(ex, paid["trans"])
    trig = sum(final.values())
    features: dict[int, dict] = {}
    for j, pj in sorted(final.items()):
        k = spins_for(j)
        n = max(20_000, int(feature_n * pj / trig))
        features[k] = {**feature_coefficients(probe, k, n, seed + k, workers, log_progress), "p": pj}
    if 10 not in features:
        features[10] = {**feature_coefficients(probe, 10, feature_n, seed + 10, workers, log_progress), "p": 0.0}
    paid["trans"] = paid["trans"].tolist()
    return {"settings": f"paid_n={paid_n} feature_n={feature_n} seed={seed}", "strips": list(strips),
            "exact": ex, "paid": paid, "final_scatters": {str(j): p for j, p in final.items()},
            "features": {str(k): v for k, v in features.items()}}


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
    """The build file text for a calibration (the shared writer, :mod:`reelforge.buildfile`)."""
    build = build_from(cal.strips, cal.base_weights, cal.free_weights, fraction_text(cal.price), name,
                       rtp=f"{cal.rtp:.4f}")
    header = ("Gemstones Gold build 96.71: generated by `python -m reelforge.games.gemstones_gold.design --write`.\n"
              "Do not edit by hand; change the design parameters in design.py and rerun.\n"
              f"design: {cal.params}, then seeded background edits (search_hit)\n"
              f"calibration: {cal.settings}")
    return FILES.text(build, header)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Calibrate the Gemstones Gold 96.71 build.")
    ap.add_argument("--paid", type=int, default=SHIPPED_SAMPLE["paid_n"], help="boards for the paid-spin coefficients")
    ap.add_argument("--features", type=int, default=SHIPPED_SAMPLE["feature_n"],
                    help="features for the free-spin coefficients")
    ap.add_argument("--seed", type=int, default=SHIPPED_SAMPLE["seed"])
    ap.add_argument("--reuse-strips", action="store_true",
                    help="keep the shipped build's strips (the search reproduces them) and recalibrate the weights")
    ap.add_argument("--write", action="store_true", help="write builds/96.71.toml")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores; "
                    "the figures do not depend on it)")
    ap.add_argument("--progress", action="store_true", help="print chunk progress to stderr")
    ap.add_argument("--sample", type=Path, default=None,
                    help="JSON file keeping the simulated coefficients: reused if it exists, else written")
    ap.add_argument("--verify", action="store_true",
                    help="instead of calibrating, print the stratified report (JSON) of the shipped build "
                         "(--paid boards, --features features, --seed)")
    args = ap.parse_args(argv)
    if args.verify:
        from reelforge.games.gemstones_gold.build import load_build
        report = verify(load_build("96.71"), paid_n=args.paid, feature_n=args.features, seed=args.seed,
                        workers=args.workers, log=args.progress)
        print(json.dumps(report, indent=1, default=float))
        return
    strips = None
    if args.reuse_strips:
        from reelforge.games.gemstones_gold.build import load_build
        strips = list(load_build("96.71").strips)
    cal = calibrate(paid_n=args.paid, feature_n=args.features, seed=args.seed, strips=strips,
                    workers=args.workers, log_progress=args.progress, sample=load_sample(args.sample))
    for line in cal.log:
        print(line)
    text = build_toml(cal)
    if args.sample and not args.sample.exists():
        save_sample(args.sample, cal)
        print(f"kept the sample in {args.sample}")
    if args.write:
        path = Path(BUILDS_DIR) / "96.71.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path}")
    else:
        print(text)


def load_sample(path: Path | None) -> dict | None:
    """A kept :func:`sample_coefficients` result, or None when ``path`` is None or missing."""
    if path is None or not path.exists():
        return None
    return json.loads(path.read_text())


def save_sample(path: Path, cal: Calibration) -> None:
    """Keep the calibration's sample (coefficients, not boards: a few kB) for a later rerun."""
    path.write_text(json.dumps(cal.sample, indent=1))



# -- verification (independent stratified simulation) --------------------------------

@njit(cache=True)
def _comb(n: int, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    out = 1.0
    for i in range(k):
        out = out * (n - i) / (i + 1)
    return out


@njit(cache=True)
def _paid_verify(rng, n, strips, lens, packed, pay, mu, var_v, sums, trans):
    """Paid spins, conditional on the board (Rao-Blackwell over lanes and values).

    Per board, z = E[paid-spin win | board] = W (P(k=0) + mu E[k]) with k ~ hypergeometric
    (3 lanes among 6 columns, m revealable columns); z2 = E[win^2 | board]
    = W^2 (P(k=0) + sum_k P(k) (k var + k^2 mu^2)). ``sums``: [z, z^2, z2, hits, near-cap boards]."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    for _ in range(n):
        w, init_sc, sc, m = _board(rng, strips, lens, packed, pay, stops, board, q, counts, work)
        trans[init_sc, sc] += 1
        if w > 0:
            e1 = 0.0
            e2 = 0.0
            for k in range(4):
                pk = _comb(m, k) * _comb(6 - m, 3 - k) / 20.0
                if k == 0:
                    e1 += pk
                    e2 += pk
                else:
                    e1 += pk * mu * k
                    e2 += pk * (k * var_v + k * k * mu * mu)
            z = w * e1
            sums[0] += z
            sums[1] += z * z
            sums[2] += float(w) * w * e2
            sums[3] += 1
            if m > 0 and w * 500 * m >= 150000:
                sums[4] += 1


def _moments(weights: tuple[int, ...], values: tuple[int, ...]) -> tuple[float, float]:
    v = np.array(values, dtype=float)
    w = np.array(weights, dtype=float) / sum(weights)
    mu = float((v * w).sum())
    return mu, float((v * v * w).sum() - mu * mu)


def verify(build: Build, paid_n: int = 100_000_000, feature_n: int = 2_000_000, seed: int = 31337,
           exact: dict[str, float] | None = None, workers: int | None = None, log: bool = False) -> dict:
    """Every published figure with its 99% interval, from a stratified simulation.

    Strata: (1) paid spins, boards simulated and the multiplier reel integrated exactly per
    board; (2) the trigger: exact initial-board scatter distribution times simulated cascade
    transitions (post-stratified); (3) features of each initial spin count simulated with their
    values drawn, each feature scored by E[win | boards] minus its simulated cap excess
    (unbiased, low variance). Hit rate = exact P(initial win) + P(no win, 3+ scatters) x P(feature wins).
    The cross term between a trigger round's paid spin and its feature (cap sharing) is neglected
    in the second moment; the cap itself is applied per feature from 0 (the paid part of a
    trigger round is at most a few x bet)."""
    ex = exact or initial_board_probabilities(list(build.strips))
    mu_b, var_b = _moments(build.base_weights, build.values)
    mu_f, _ = _moments(build.free_weights, build.values)
    sums, trans = chunked_sums(_paid_verify, paid_n, [seed, 0], (*_boards_args(build), mu_b, var_b),
                               [((5,), np.float64), ((7, 13), np.int64)], PAID_CHUNK, workers, "boards", log)
    u = 20.0
    paid = sums[0] / paid_n / u
    paid_var = (sums[1] / paid_n / u**2 - paid**2) / paid_n
    paid_m2 = sums[2] / paid_n / u**2
    final = final_scatter_distribution(ex, trans)
    trig = sum(final.values())
    feats: dict[int, dict] = {}
    fs = fs_var = fs_m2 = cap_p = trig_hit = 0.0
    for j, pj in sorted(final.items()):
        k = spins_for(j)
        n = max(20_000, int(feature_n * pj / trig))
        out = _feature_sums(build, k, n, [seed, k], workers, log)
        # per-feature score Z = A + mu B - D (x bet); moments from the accumulated sums
        a, b, d = out[0] / u, out[1] / u, out[5] / u
        aa, bb, ab, dd, ad, bd = out[2] / u**2, out[3] / u**2, out[4] / u**2, out[6] / u**2, out[7] / u**2, out[8] / u**2
        mean_z = (a + mu_f * b - d) / n
        m2_z = (aa + mu_f**2 * bb + dd + 2 * mu_f * ab - 2 * ad - 2 * mu_f * bd) / n
        var_z = (m2_z - mean_z**2) / n
        kk = out[10] / u**2 / n
        feats[k] = {"p": pj, "n": n, "mean_x": mean_z, "sd_score": math.sqrt(max(m2_z - mean_z**2, 0)),
                    "caps": int(out[12]), "hits": out[13] / n, "spins": out[11] / n,
                    "mean_plain_x": out[9] / u / n}
        fs += pj * mean_z
        fs_var += pj**2 * var_z
        fs_m2 += pj * kk
        cap_p += pj * out[12] / n
        trig_hit += pj * out[13] / n
    # variance of the trigger probabilities (post-stratified multinomial), weighted by feature means
    p_init = {i: ex.get(f"scatters_ge_{i}", 1.0 if i == 0 else 0.0) - ex.get(f"scatters_ge_{i + 1}", 0.0)
              for i in range(7)}
    trig_var = 0.0
    for i, pi in p_init.items():
        row = trans[i]
        ni = row.sum()
        if ni < 2:
            continue
        mj = np.array([feats[spins_for(j)]["mean_x"] if j >= 3 and spins_for(j) in feats else 0.0
                       for j in range(row.shape[0])])
        pij = row / ni
        fs_var += pi**2 * (float((mj**2 * pij).sum()) - float((mj * pij).sum()) ** 2) / ni
        ind = (np.arange(row.shape[0]) >= 3).astype(float)
        trig_var += pi**2 * (float((ind * pij).sum()) * (1 - float((ind * pij).sum()))) / ni
    rtp = paid + fs
    rtp_hw = Z99 * math.sqrt(paid_var + fs_var)
    f10 = feats.get(10)
    p_feature_hit = f10["hits"] if f10 else 1.0
    hit = ex["win"] + ex["nowin_trigger"] * p_feature_hit
    hit_hw = Z99 * ex["nowin_trigger"] * math.sqrt(p_feature_hit * (1 - p_feature_hit) / f10["n"]) if f10 else 0.0
    m2 = paid_m2 + fs_m2
    sd = math.sqrt(max(m2 - rtp**2, 0.0))
    price = float(build.feature_buy_price_x)
    buy = {"price_x": str(build.feature_buy_price_x), "rtp": f10["mean_x"] / price if f10 else None,
           "rtp_ci99": [(f10["mean_x"] - Z99 * f10["sd_score"] / math.sqrt(f10["n"])) / price,
                        (f10["mean_x"] + Z99 * f10["sd_score"] / math.sqrt(f10["n"])) / price] if f10 else None,
           "features": f10["n"] if f10 else 0}
    return {
        "paid_boards": paid_n, "feature_counts": {k: v["n"] for k, v in feats.items()},
        "rtp": rtp, "rtp_ci99": [rtp - rtp_hw, rtp + rtp_hw],
        "rtp_paid": paid, "rtp_paid_ci99": [paid - Z99 * math.sqrt(paid_var), paid + Z99 * math.sqrt(paid_var)],
        "rtp_free": fs, "rtp_free_ci99": [fs - Z99 * math.sqrt(fs_var), fs + Z99 * math.sqrt(fs_var)],
        "hit_rate": hit, "hit_rate_ci99": [hit - hit_hw, hit + hit_hw],
        "trigger_rate": trig, "trigger_rate_ci99": [trig - Z99 * math.sqrt(trig_var), trig + Z99 * math.sqrt(trig_var)],
        "hit_split": {"trigger_with_win": trig_hit, "win_without_trigger": hit - trig_hit},
        "sd": sd, "cap_probability": cap_p, "caps_observed": {k: v["caps"] for k, v in feats.items()},
        "paid_boards_that_could_cap": int(sums[4]),
        "feature_buy": buy, "features": feats, "exact_initial": ex,
    }


if __name__ == "__main__":
    main()
