"""Every outcome of one spin, counted exactly: the joint distribution of (win units, a count) over
every stop combination of independent reels, or every cell outcome of independent weighted cells.

A spin of strips stops each reel uniformly on its strip, independently; what a reel shows is the
column of ``rows`` stops from its stop. Reels with the same column at several stops show it with
that multiplicity, so the spin is enumerated over distinct columns (Seven Lines: 13,004,992 column
combinations for 71,971,200 stop combinations), each weighted by the product of its multiplicities.
The result is an integer table ``weights[win, count]`` adding up to the product of the strip lengths:
``count`` is what decides the feature (scatters on the window), ``win`` the spin's pay in win units.

Weighted cells (a cell's outcome drawn by weights, cells independent) pay anywhere by counts, so
their joint distribution is a convolution over cells, never a product over outcomes.

Exact integers throughout: a probability is a weight over the total weight.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from numba import njit

from reelforge.mechanics.pays import line_wins
from reelforge.mechanics.reels import count_symbol


def distinct_columns(codes: np.ndarray, lengths: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each reel's distinct columns (the ``rows`` symbols from a stop, wrapping) and how many stops show
    each: ``(columns[reel, k, row], multiplicity[reel, k], distinct[reel])`` (padded with zeros)."""
    per = []
    for r in range(codes.shape[0]):
        n = int(lengths[r])
        per.append(sorted(Counter(tuple(int(codes[r, (s + k) % n]) for k in range(rows)) for s in range(n)).items()))
    width = max(len(p) for p in per)
    columns = np.zeros((len(per), width, rows), dtype=np.int64)
    mult = np.zeros((len(per), width), dtype=np.int64)
    for r, p in enumerate(per):
        for k, (col, m) in enumerate(p):
            columns[r, k] = col
            mult[r, k] = m
    return columns, mult, np.array([len(p) for p in per], dtype=np.int64)


def line_win_bound(lines: np.ndarray, pays: np.ndarray, scatter_pays: np.ndarray) -> int:
    """An upper bound of a spin's line and scatter pays (every line at the highest pay): sizes the table."""
    return int(lines.shape[0] * pays.max() + scatter_pays.max())


@njit(cache=True)
def _enumerate_lines(columns, mult, distinct, lines, pays, wild, scatter, scatter_pays, weights):  # pragma: no cover
    reels, rows = columns.shape[0], columns.shape[2]
    window = np.zeros((reels, rows), dtype=np.int64)
    out = np.zeros((lines.shape[0], 5), dtype=np.int64)
    idx = np.zeros(reels, dtype=np.int64)
    while True:
        w = 1
        for r in range(reels):
            for row in range(rows):
                window[r, row] = columns[r, idx[r], row]
            w *= mult[r, idx[r]]
        n = line_wins(window, lines, pays, wild, False, out)
        win = 0
        for i in range(n):
            win += out[i, 3]
        count = count_symbol(window, scatter) if scatter >= 0 else 0
        win += scatter_pays[min(count, scatter_pays.shape[0] - 1)]
        weights[win, min(count, weights.shape[1] - 1)] += w
        r = reels - 1                       # the next combination, the last reel fastest
        while r >= 0:
            idx[r] += 1
            if idx[r] < distinct[r]:
                break
            idx[r] = 0
            r -= 1
        if r < 0:
            return


def line_spin(codes: np.ndarray, lengths: np.ndarray, rows: int, lines: np.ndarray, pays: np.ndarray, wild: int,
              scatter: int = -1, scatter_pays: np.ndarray | None = None, max_count: int | None = None) -> np.ndarray:
    """``weights[win, scatters]`` of a line game's spin (left-to-right lines, :func:`line_wins`) plus the
    scatter pays by count (``scatter_pays[count]``, the last entry for more), over every stop combination;
    scatter counts above ``max_count`` (default: every cell) are counted as ``max_count``. The weights add
    up to the product of the strip lengths."""
    columns, mult, distinct = distinct_columns(codes, lengths, rows)
    sp = np.zeros(1, dtype=np.int64) if scatter_pays is None else np.asarray(scatter_pays, dtype=np.int64)
    top = codes.shape[0] * rows if max_count is None else max_count
    weights = np.zeros((line_win_bound(lines, pays, sp) + 1, top + 1), dtype=np.int64)
    _enumerate_lines(columns, mult, distinct, np.asarray(lines, dtype=np.int64), pays, wild, scatter, sp, weights)
    return weights


def anywhere_cells(cells: int, weights: dict[str, int], pays: dict[str, list[int]], first: int,
                   counted: str) -> dict[tuple[int, int], int]:
    """``{(win, count of the counted outcome): weight}`` of ``cells`` independent cells, each an outcome
    drawn by ``weights``: each paying outcome pays ``pays[outcome][count - first]`` (the last entry for
    more) by how many cells show it, anywhere. Weights add up to ``sum(weights) ** cells``.

    Convolved outcome by outcome (how many cells show it, by multinomial counts), never enumerated
    cell by cell."""
    from math import comb

    # state: (cells used, win so far, counted so far) -> weight; one outcome at a time takes k of the rest
    states: dict[tuple[int, int, int], int] = {(0, 0, 0): 1}
    for outcome, w in weights.items():
        nxt: dict[tuple[int, int, int], int] = {}
        row = pays.get(outcome)
        for (used, win, cnt), v in states.items():
            for k in range(cells - used + 1):
                pay = row[min(k - first, len(row) - 1)] if row is not None and k >= first else 0
                key = (used + k, win + pay, cnt + (k if outcome == counted else 0))
                nxt[key] = nxt.get(key, 0) + v * comb(cells - used, k) * w ** k
        states = nxt
    out: dict[tuple[int, int], int] = {}
    for (used, win, cnt), v in states.items():
        if used == cells:
            out[(win, cnt)] = out.get((win, cnt), 0) + v
    return out
