"""Exact probabilities over the uniform stops of Gemstones Gold's INITIAL board (before any cascade):
inclusion-exclusion over symbol sets with a capped-count dynamic programme over the independent reels.
The strip design (:mod:`.strips`) searches hit and trigger rates on these numbers."""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

from reelforge.games.gemstones_gold.build import (
    MIN_COUNT,
    N_PAYING,
    N_SYMBOLS,
    ROWS,
    SCATTER,
    SYMBOL_CHARS,
    TRIGGER_SCATTERS,
)


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
        w = np.zeros((n, N_SYMBOLS), dtype=np.int64)
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
            win += sign * _joint(windows, dims, [MIN_COUNT] * size)
            win_and_trig += sign * _joint(windows, dims + [SCATTER], [MIN_COUNT] * size + [TRIGGER_SCATTERS])
    out = {"win": win, **scatter_probabilities(strips, windows)}
    out["nowin_trigger"] = out[f"scatters_ge_{TRIGGER_SCATTERS}"] - win_and_trig
    return out


def initial_win(strips: list[str]) -> float:
    """Exact P(initial board has a win) (inclusion-exclusion up to 4 symbols: 5 need 40 cells)."""
    windows = _reel_windows(strips)
    win = 0.0
    for size in range(1, 5):
        sign = 1.0 if size % 2 else -1.0
        for combo in itertools.combinations(range(N_PAYING), size):
            win += sign * _joint(windows, list(combo), [MIN_COUNT] * size)
    return win


def initial_trigger(strips: list[str]) -> float:
    """Exact P(3+ scatters on the initial board)."""
    return _joint(_reel_windows(strips), [SCATTER], [TRIGGER_SCATTERS])


def scatter_probabilities(strips: list[str], windows: list[np.ndarray] | None = None) -> dict[str, float]:
    """Exact P(scatters >= j) on the initial board, j = 1..6 (``scatters_ge_j``)."""
    windows = windows if windows is not None else _reel_windows(strips)
    return {f"scatters_ge_{j}": _joint(windows, [SCATTER], [j]) for j in range(1, 7)}
