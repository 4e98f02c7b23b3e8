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


@njit(cache=True, inline="always")
def _line_pay(pays, wild, symbol, count, wilds):  # pragma: no cover - numba
    """What a finished run pays, as :func:`reelforge.mechanics.pays.line_scan` says: the run of leading
    wilds as wilds, or the symbol's run (wilds substituting), whichever pays more (a tie to the symbol)."""
    wild_pay = pays[wild, wilds] if wilds > 0 else 0
    if symbol < 0:
        return wild_pay
    pay = pays[symbol, count]
    return wild_pay if wild_pay > pay else pay


@njit(cache=True)
def _enumerate_lines(columns, mult, distinct, lines, pays, wild, scatter, scatter_pays, suffix, weights):  # pragma: no cover
    """Depth first over the reels' columns, each line's run followed reel by reel (the symbol, its
    length, the leading wilds); where no line's run reaches the reel just placed, the later reels change
    only the scatter count: their combinations are added at once (``suffix[r]``: the weights of the
    scatters the reels after ``r`` show), never enumerated."""
    reels = columns.shape[0]
    nl = lines.shape[0]
    paying = np.zeros(pays.shape[0], dtype=np.bool_)
    for s in range(pays.shape[0]):
        paying[s] = pays[s].max() > 0
    symbol = np.zeros((reels, nl), dtype=np.int64)    # [reel, line]: after that reel; -1 while only wilds
    count = np.zeros((reels, nl), dtype=np.int64)
    wilds = np.zeros((reels, nl), dtype=np.int64)
    alive = np.zeros((reels, nl), dtype=np.bool_)
    paid = np.zeros(reels, dtype=np.int64)            # what the lines finished by that reel pay
    scatters = np.zeros(reels, dtype=np.int64)
    prefix = np.ones(reels + 1, dtype=np.int64)       # prefix[r + 1]: weight of the columns of reels 0..r
    idx = np.zeros(reels, dtype=np.int64)
    top = weights.shape[1] - 1
    last = scatter_pays.shape[0] - 1
    r = 0
    while r >= 0:
        col = idx[r]
        prefix[r + 1] = prefix[r] * mult[r, col]
        sc = 0
        if scatter >= 0:
            for row in range(columns.shape[2]):
                sc += columns[r, col, row] == scatter
        scatters[r] = sc + (scatters[r - 1] if r > 0 else 0)
        win = paid[r - 1] if r > 0 else 0
        any_alive = False
        for line in range(nl):
            if r > 0 and not alive[r - 1, line]:
                alive[r, line] = False
                continue
            cell = columns[r, col, lines[line, r]]
            if r == 0:
                sym, cnt, w = -1, 0, 0
            else:
                sym, cnt, w = symbol[r - 1, line], count[r - 1, line], wilds[r - 1, line]
            live = True
            if sym < 0:
                if cell == wild:
                    w += 1
                else:
                    sym = cell
                    # a symbol that never pays ends the run: only its leading wilds can pay
                    live = paying[sym]
                cnt += 1
            elif cell == sym or cell == wild:
                cnt += 1
            else:
                live = False
            if live and r < reels - 1:
                symbol[r, line], count[r, line], wilds[r, line] = sym, cnt, w
                alive[r, line] = True
                any_alive = True
            else:
                alive[r, line] = False
                if not live and sym >= 0 and not (cell == sym or cell == wild):
                    win += _line_pay(pays, wild, sym, cnt, w)      # the run ended before this reel
                elif not live:
                    win += _line_pay(pays, wild, -1, cnt - 1, w)   # a non-paying symbol after the wilds
                else:
                    win += _line_pay(pays, wild, sym, cnt, w)      # the run reaches the last reel
        paid[r] = win
        if any_alive:
            r += 1
            idx[r] = 0
            continue
        for s in range(suffix.shape[1]):
            if suffix[r, s]:
                c = scatters[r] + s
                weights[win + scatter_pays[min(c, last)], min(c, top)] += prefix[r + 1] * suffix[r, s]
        while r >= 0:                       # the next column of this reel, or back up
            idx[r] += 1
            if idx[r] < distinct[r]:
                break
            r -= 1


def scatter_suffixes(columns: np.ndarray, mult: np.ndarray, distinct: np.ndarray, scatter: int) -> np.ndarray:
    """``suffix[r, s]``: the weight of the column combinations of the reels after ``r`` showing ``s``
    scatters (``suffix[last, 0]`` = 1)."""
    reels, rows = columns.shape[0], columns.shape[2]
    suffix = np.zeros((reels, reels * rows + 1), dtype=np.int64)
    dist = np.zeros(reels * rows + 1, dtype=np.int64)
    dist[0] = 1
    for r in range(reels - 1, -1, -1):
        suffix[r] = dist
        per = np.zeros(rows + 1, dtype=np.int64)
        for k in range(distinct[r]):
            per[int((columns[r, k] == scatter).sum()) if scatter >= 0 else 0] += mult[r, k]
        nxt = np.zeros_like(dist)
        for s in range(rows + 1):
            if per[s]:
                nxt[s:] += per[s] * dist[: len(dist) - s]
        dist = nxt
    return suffix


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
    suffix = scatter_suffixes(columns, mult, distinct, scatter)
    _enumerate_lines(columns, mult, distinct, np.asarray(lines, dtype=np.int64), pays, wild, scatter, sp, suffix,
                     weights)
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
