"""Gemstones Gold numba kernel: the rules of :mod:`.rules` for simulation.

Same draws in the same order as the reference engine (see its docstring), so
fed the same seed both play identical rounds (tests/games/gemstones_gold).
Speed: the first evaluation of a spin adds six per-stop packed counts
(``packed[reel, stop]``, 7 bits per symbol) so the ~65% of spins without a win never
build a board; buffers are allocated once per chunk; statistics stream into a
:class:`reelforge.stats.Tally`.

Counters (order of :data:`COUNTERS`): rounds that trigger free spins, those
of them with a win, rounds reaching the cap, free spins played, retriggers,
rounds with a paid-spin multiplier applied, the sum of the features' final total
multipliers; then two histograms on the bins of :data:`MULT_EDGES` (see
:func:`mult_bin`): the multiplier sum applied to a paid spin (``paid_sum_*``, one
count per multiplied paid spin) and the persistent total multiplier M at the end of
each free-spin feature (``feature_m_*``, one count per feature; ``feature_m_0``: no
value revealed in the whole feature; a feature stopped by the cap counts its M then).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from reelforge.games.gemstones_gold.build import VALUE_MAX
from reelforge.mechanics.rng import draw
from reelforge.mechanics.tally import tally_round
from reelforge.mechanics.tumble import collapse_column_nb

COMPONENTS = ("paid_spins", "free_spins")

MULT_EDGES = np.array([3, 4, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000], dtype=np.int64)
"""Upper edges of the multiplier-sum bins: [2], [3], [4], [5,10), [10,20) ... [2000,5000), [5000,inf).
Exact for the single small values that dominate, 1-2-5 steps (log scale) above."""
N_MULT_BINS = MULT_EDGES.shape[0] + 1
N_PAID_SUM_BINS = int(np.searchsorted(MULT_EDGES, 3 * VALUE_MAX, side="right")) + 1
"""A paid spin reveals at most 3 values of at most VALUE_MAX (1,500: bins up to [1000,2000))."""


def mult_bin_labels(n: int = N_MULT_BINS) -> list[str]:
    """Labels of the first ``n`` multiplier-sum bins (``2``, ``3``, ``4``, ``5-9`` ... ``5000+``)."""
    lows = [2, *(int(e) for e in MULT_EDGES)]
    out = []
    for i in range(n):
        lo = lows[i]
        hi = lows[i + 1] - 1 if i + 1 < len(lows) else None
        out.append(str(lo) if hi == lo else (f"{lo}-{hi}" if hi is not None else f"{lo}+"))
    return out


COUNTERS = (("triggers", "trigger_hits", "cap_hits", "free_spins_played", "retriggers", "paid_multiplied",
             "feature_m_total")
            + tuple(f"paid_sum_{lab}" for lab in mult_bin_labels(N_PAID_SUM_BINS))
            + ("feature_m_0",) + tuple(f"feature_m_{lab}" for lab in mult_bin_labels()))
C_TRIG, C_TRIG_HIT, C_CAP, C_FS, C_RETRIG, C_PMULT, C_MTOT = range(7)
C_PSUM = 7
C_FM = C_PSUM + N_PAID_SUM_BINS

REELS = 6
ROWS = 6
N_PAYING = 8
SCATTER = 8


PAYING_ADD = sum(56 << (7 * s) for s in range(N_PAYING))
"""Added to packed counts: a paying field reaches bit 6 (64) exactly when its count is 8 or more."""
PAYING_HIGH = sum(64 << (7 * s) for s in range(N_PAYING))


@njit(cache=True, inline="always")
def spin_core(strips, lens, packed, pay, stops, board, q, counts, work) -> tuple[int, int]:
    """Play one spin's cascades from ``stops``.

    Returns ``(W, scatters)``: the unmultiplied win in coins and the scatters on
    the final board; ``q[c]`` receives the number of winning cascades with a
    winning cell in column ``c`` (what removes blockers, one per cascade).
    ``work`` (int64[12]) holds the refill pointers and one column's removal flags.
    """
    total_packed = 0
    for r in range(REELS):
        q[r] = 0
        total_packed += packed[r, stops[r]]
    if (total_packed + PAYING_ADD) & PAYING_HIGH == 0:
        return 0, (total_packed >> (7 * SCATTER)) & 127
    for s in range(9):
        counts[s] = (total_packed >> (7 * s)) & 127
    nabove = work[0:REELS]
    removed = work[REELS:2 * REELS]
    for r in range(REELS):
        n = lens[r]
        st = stops[r]
        for k in range(ROWS):
            p = st + k
            if p >= n:
                p -= n
            board[r, k] = strips[r, p]
        nabove[r] = st - 1
    total = 0
    while True:
        wmask = 0
        for s in range(N_PAYING):
            if counts[s] >= 8:
                wmask |= 1 << s
                total += pay[s, counts[s]]
        if wmask == 0:
            break
        for r in range(REELS):
            hit = False
            for k in range(ROWS):
                v = board[r, k]
                if v < N_PAYING and (wmask >> v) & 1:
                    removed[k] = 1
                    hit = True
                else:
                    removed[k] = 0
            if hit:
                q[r] += 1
                empty = collapse_column_nb(board[r], removed)
                n = lens[r]
                for row in range(empty - 1, -1, -1):
                    p = nabove[r] % n
                    board[r, row] = strips[r, p]
                    nabove[r] -= 1
        for s in range(9):
            counts[s] = 0
        for r in range(REELS):
            for k in range(ROWS):
                counts[board[r, k]] += 1
    return total, counts[SCATTER]


@njit(cache=True, inline="always")
def mult_bin(s) -> int:
    """Bin of a multiplier sum ``s >= 2`` on :data:`MULT_EDGES`."""
    i = 0
    while i < MULT_EDGES.shape[0] and s >= MULT_EDGES[i]:
        i += 1
    return i


@njit(cache=True, inline="always")
def weighted(rng, values, cum) -> int:
    x = draw(rng, cum[cum.shape[0] - 1])
    i = 0
    while x >= cum[i]:
        i += 1
    return values[i]


@njit(cache=True, inline="always")
def paid_spin(rng, strips, lens, packed, pay, values, base_cum, stops, board, q, counts, work, lanes, vals):
    """The paid spin: ``(win coins, scatters, multiplier sum)`` (win before the round cap)."""
    for r in range(REELS):
        stops[r] = draw(rng, lens[r])
    # three distinct lanes: draw over the free lanes in ascending order
    for r in range(REELS):
        lanes[r] = r
    nfree = REELS
    for i in range(3):
        j = draw(rng, nfree)
        chosen = lanes[j]
        for t in range(j, nfree - 1):
            lanes[t] = lanes[t + 1]
        nfree -= 1
        lanes[REELS - 1 - i] = chosen  # keep chosen lanes at the end, placement order reversed
    for i in range(3):
        vals[i] = weighted(rng, values, base_cum)
    w, sc = spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
    s = 0
    if w > 0:
        for i in range(3):
            if q[lanes[REELS - 1 - i]] >= 3:
                s += vals[i]
    if s > 0:
        return w * s, sc, s
    return w, sc, 0


@njit(cache=True)
def free_spins(rng, strips, lens, packed, pay, values, free_cum, stops, board, q, counts, work, vals,
               spins, start_units, cap, out):
    """Play a feature of ``spins`` free spins; the round already holds ``start_units``.

    Returns the units the feature adds (capped) and fills ``out`` with
    ``[spins played, retriggers, cap reached, final total multiplier M]``.
    """
    m = 0
    total = start_units
    played = 0
    retrig = 0
    left = spins
    while left > 0:
        for r in range(REELS):
            stops[r] = draw(rng, lens[r])
        for r in range(REELS):
            vals[r] = weighted(rng, values, free_cum)
        w, sc = spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
        s = 0
        if w > 0:
            for r in range(REELS):
                if q[r] >= 2:
                    s += vals[r]
        if s > 0:
            m += s
            win = w * m
        else:
            win = w
        played += 1
        left -= 1
        if sc >= 2:
            left += 5
            retrig += 1
        if total + win >= cap:
            out[0] = played
            out[1] = retrig
            out[2] = 1
            out[3] = m
            return cap - start_units
        total += win
    out[0] = played
    out[1] = retrig
    out[2] = 0
    out[3] = m
    return total - start_units


@njit(cache=True, inline="always")
def paid_round(rng, strips, lens, packed, pay, values, base_cum, free_cum, cap, bufs, out):
    """One paid round: returns ``(paid units, free units)``; ``out`` gets
    ``[triggered, spins played, retriggers, capped, paid multiplier sum (0: none), feature's final M]``."""
    stops, board, q, counts, work, lanes, vals, fout = bufs
    win, sc, s = paid_spin(rng, strips, lens, packed, pay, values, base_cum, stops, board, q, counts, work, lanes, vals)
    out[4] = s
    if win >= cap:
        out[0] = 0
        out[1] = 0
        out[2] = 0
        out[3] = 1
        return cap, 0
    if sc >= 3:
        spins = 10 + 2 * (sc - 3)
        f = free_spins(rng, strips, lens, packed, pay, values, free_cum, stops, board, q, counts, work, vals,
                       spins, win, cap, fout)
        out[0] = 1
        out[1] = fout[0]
        out[2] = fout[1]
        out[3] = fout[2]
        out[5] = fout[3]
        return win, f
    out[0] = 0
    out[1] = 0
    out[2] = 0
    out[3] = 0
    return win, 0


@njit(cache=True)
def make_bufs():
    return (np.zeros(REELS, dtype=np.int64), np.zeros((REELS, ROWS), dtype=np.int8),
            np.zeros(REELS, dtype=np.int64), np.zeros(9, dtype=np.int64), np.zeros(2 * REELS, dtype=np.int64),
            np.zeros(REELS, dtype=np.int64), np.zeros(REELS, dtype=np.int64), np.zeros(4, dtype=np.int64))


@njit(cache=True)
def simulate_paid(rng, rounds, strips, lens, packed, pay, values, base_cum, free_cum, cap,
                  totals, comps, hist, edges, counters):
    """Simulate ``rounds`` paid rounds into a tally."""
    bufs = make_bufs()
    out = np.zeros(6, dtype=np.int64)
    for _ in range(rounds):
        p, f = paid_round(rng, strips, lens, packed, pay, values, base_cum, free_cum, cap, bufs, out)
        w = p + f
        comps[0] += p
        comps[1] += f
        comps[2] += p * p  # sums of squares: the RTP split's intervals
        comps[3] += f * f
        if out[0]:
            counters[C_TRIG] += 1
            if w > 0:
                counters[C_TRIG_HIT] += 1
            counters[C_FS] += out[1]
            counters[C_RETRIG] += out[2]
            m = out[5]
            counters[C_MTOT] += m
            counters[C_FM + (1 + mult_bin(m) if m > 0 else 0)] += 1
        if out[3]:
            counters[C_CAP] += 1
        if out[4] > 0:
            counters[C_PMULT] += 1
            counters[C_PSUM + mult_bin(out[4])] += 1
        tally_round(totals, hist, edges, cap, w)


@njit(cache=True)
def simulate_buy(rng, rounds, strips, lens, packed, pay, values, free_cum, cap,
                 totals, comps, hist, edges, counters):
    """Simulate ``rounds`` bought features (10 free spins each) into a tally."""
    stops, board, q, counts, work, lanes, vals, fout = make_bufs()
    for _ in range(rounds):
        f = free_spins(rng, strips, lens, packed, pay, values, free_cum, stops, board, q, counts, work, vals,
                       10, 0, cap, fout)
        comps[1] += f
        comps[3] += f * f
        counters[C_TRIG] += 1
        if f > 0:
            counters[C_TRIG_HIT] += 1
        counters[C_FS] += fout[0]
        counters[C_RETRIG] += fout[1]
        if fout[2]:
            counters[C_CAP] += 1
        m = fout[3]
        counters[C_MTOT] += m
        counters[C_FM + (1 + mult_bin(m) if m > 0 else 0)] += 1
        tally_round(totals, hist, edges, cap, f)


@njit(cache=True)
def round_wins(rng, rounds, buy, strips, lens, packed, pay, values, base_cum, free_cum, cap):
    """Per-round total wins (units) for conformance tests."""
    res = np.zeros(rounds, dtype=np.int64)
    bufs = make_bufs()
    stops, board, q, counts, work, lanes, vals, fout = bufs
    out = np.zeros(6, dtype=np.int64)
    for i in range(rounds):
        if buy:
            res[i] = free_spins(rng, strips, lens, packed, pay, values, free_cum, stops, board, q, counts, work,
                                vals, 10, 0, cap, fout)
        else:
            p, f = paid_round(rng, strips, lens, packed, pay, values, base_cum, free_cum, cap, bufs, out)
            res[i] = p + f
    return res
