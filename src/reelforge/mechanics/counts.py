"""Ways boards held as counts: each reel as how many of each symbol it shows, four bits a symbol in one
integer (symbol ``s`` in bits ``4s .. 4s + 3``), never as cells.

A ways win depends only on how many cells of a symbol (and of the wild) each reel shows, and a ways tumble
(:func:`reelforge.mechanics.cascade.tumble_ways`) removes every cell of a paid symbol from the reels its way
crosses and refills the reel from its strip above the top row: where a cell stands never matters. A kernel
therefore plays such a game on one integer a reel: a spin's counts are a difference of running counts along
the strip (:func:`strip_counts`), a reel's symbols and its count of each are a few bit operations on its
integer, a tumble changes only the reels it crosses. The reference rules play the same rounds on the cells
(the game's identity test holds the two to identical rounds); docs/performance.md has the figures.

For a game of at most :data:`MAX_COUNTED_SYMBOLS` symbols, reels of at most :data:`MAX_COUNTED_ROWS` rows, at
most 15 reels, and every cell counting once (no doubled symbols).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from reelforge.mechanics.reels import check_wrapped, draw_heights_and_stops

MAX_COUNTED_SYMBOLS = 15
"""The most symbols a count holds: four bits each in an ``int64``, below its sign bit."""
MAX_COUNTED_ROWS = 15
"""The most rows a reel may show: a symbol's count with the wild's fits its four bits."""
ONES = 0x0111_1111_1111_1111
"""A 1 in each symbol's four bits: ``ONES * x`` gathers the sum of ``x``'s counts in bits 56-59."""


def strip_counts(codes: np.ndarray, lengths: np.ndarray, rows: int) -> np.ndarray:
    """Running counts along each wrapped strip (``strip_codes(..., wrap=rows)``): ``[reel, i]`` holds the
    counts of the strip's first ``i`` stops, so the window of ``h`` rows from stop ``s`` counts
    ``[reel, s + h] - [reel, s]`` (exact: a difference of integers that wrap at 64 bits, of counts under 16)."""
    if codes.max() >= MAX_COUNTED_SYMBOLS or rows > MAX_COUNTED_ROWS or codes.shape[0] > 15:
        raise ValueError(f"counts hold at most {MAX_COUNTED_SYMBOLS} symbols, {MAX_COUNTED_ROWS} rows and 15 reels")
    check_wrapped(codes, lengths, rows)
    running = np.zeros((codes.shape[0], codes.shape[1] + 1), np.int64)
    with np.errstate(over="ignore"):
        running[:, 1:] = np.cumsum(np.int64(1) << (4 * codes), axis=1, dtype=np.int64)
    return running


@njit(cache=True, inline="always")
def spin_counted(st: np.ndarray, lengths: np.ndarray, height_cum: np.ndarray, running: np.ndarray,
                 heights: np.ndarray, stops: np.ndarray, counts: np.ndarray) -> None:
    """:func:`reelforge.mechanics.reels.spin_by_heights`' draws, in its order, and the board they show as
    counts (``counts[reel]``), not cells."""
    draw_heights_and_stops(st, lengths, height_cum, heights, stops)
    for r in range(counts.shape[0]):
        counts[r] = running[r, stops[r] + heights[r]] - running[r, stops[r]]


@njit(cache=True, inline="always")
def counted_ways(counts: np.ndarray, pays: np.ndarray, wild: int, shown: np.ndarray, out: np.ndarray) -> int:
    """:func:`reelforge.mechanics.pays.ways_wins`' rows ``(symbol, count, ways, pay)``, the same in the same
    order, from the board's counts; ``shown[reel]`` gets each symbol's count with the wild's (scratch).

    Every symbol's run at once: a bit per symbol stays set while each reel shows it (a count not 0), and
    the runs add up those bits reel by reel, with no branch; only a symbol on reel 1 whose run pays is read
    again, for its ways (the product of its counts)."""
    field = ((np.int64(1) << (4 * pays.shape[0])) - 1) if pays.shape[0] < 16 else np.int64(-1)
    ones = ONES & field
    wild_field = np.int64(15) << (4 * wild) if wild >= 0 else np.int64(0)
    ones &= ~wild_field                     # the wild never runs: it pays only through what it stands in for
    alive = ones
    runs = np.int64(0)
    first = np.int64(0)
    for r in range(counts.shape[0]):
        c = counts[r]
        if wild >= 0:
            c = (c & ~wild_field) + ((c >> (4 * wild)) & 15) * ones
        shown[r] = c
        alive &= c | (c >> 1) | (c >> 2) | (c >> 3)     # bit 0 of each count: set where the count is not 0
        runs += alive
        first |= alive if r == 0 else 0
    k = 0
    while first:
        shift = trailing_zeros(first)
        first &= first - 1
        symbol = shift >> 2
        run = (runs >> shift) & 15
        pay = pays[symbol, run]
        if pay > 0:
            ways = 1
            for r in range(run):
                ways *= (shown[r] >> shift) & 15
            out[k, 0], out[k, 1], out[k, 2], out[k, 3] = symbol, run, ways, pay * ways
            k += 1
    return k


@njit(cache=True, inline="always")
def tumble_counted(counts: np.ndarray, stops: np.ndarray, lengths: np.ndarray, running: np.ndarray,
                   pays: np.ndarray, wild: int, shown: np.ndarray, out: np.ndarray) -> tuple[int, int]:
    """:func:`reelforge.mechanics.cascade.tumble_ways` on counts: the ways the board pays (rows in ``out``)
    and their total; where it pays, every count a way crosses (its symbol's and the wild's on reels 1 to its
    count) leaves, and the reel's strip above its top row (``stops[reel]``, moved up) brings as many in."""
    n = counted_ways(counts, pays, wild, shown, out)
    win = 0
    for i in range(n):
        win += out[i, 3]
    if n:
        wild_field = np.int64(15) << (4 * wild) if wild >= 0 else np.int64(0)
        for r in range(counts.shape[0]):
            gone = np.int64(0)
            for i in range(n):
                gone |= (np.int64(15) << (4 * out[i, 0])) if out[i, 1] > r else 0
            if gone:
                c = counts[r]
                gone |= wild_field
                k = (((c & gone) * ONES) >> 56) & 15         # how many cells leave: the sum of their counts
                top = stops[r] - k
                top += lengths[r] & (top >> 63)          # round the strip's end by a sign mask
                counts[r] = (c & ~gone) + running[r, top + k] - running[r, top]
                stops[r] = top
    return n, win


@njit(cache=True, inline="always")
def symbol_count(counts: np.ndarray, symbol: int) -> int:
    """How many cells of the board show ``symbol`` (scatters), from its counts."""
    n = 0
    for r in range(counts.shape[0]):
        n += (counts[r] >> (4 * symbol)) & 15
    return n


@njit(cache=True, inline="always")
def spin_tables_counted(st: np.ndarray, t: Any) -> None:
    """:func:`spin_counted` on a game's tables ``t`` holding :data:`~reelforge.mechanics.cascade.WAYS_SCRATCH`
    beside its ``lens``, ``height_cum`` and ``running`` (:func:`strip_counts`): the spin of a kernel playing on
    counts."""
    spin_counted(st, t.lens, t.height_cum, t.running, t.heights, t.stops, t.counts)


@njit(cache=True, inline="always")
def tumble_tables_counted(t: Any, wild: int) -> tuple[int, int]:
    """:func:`tumble_counted` on a game's tables ``t`` (as :func:`spin_tables_counted`): the kernel's twin of
    :func:`reelforge.mechanics.cascade.tumble_tables`."""
    return tumble_counted(t.counts, t.stops, t.lens, t.running, t.pays, wild, t.shown, t.out)
