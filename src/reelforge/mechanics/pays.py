"""Pays of a window: paylines from a line table, ways, pay-anywhere counts.

Boards are ``int64`` arrays ``[reel, row]`` of symbol codes, row 0 at the top. A paytable is an
``int64`` array ``pays[symbol, count]``: what ``count`` of a kind of ``symbol`` pays, in the game's
win units (0 where it pays nothing; a scatter's row is all 0). ``wild`` is the wild's code (-1: the
game has none); a wild substitutes for every symbol whose row pays, and pays its own row.

Each function writes one row per win into ``out`` and returns how many it wrote (``out`` needs a
row per line, twice for both ways; a row per symbol for ways and pay-anywhere). Plain Python over
arrays, compiled by numba (``NUMBA_DISABLE_JIT=1`` runs it as the Python it reads as): the
reference engine and the kernel call the same functions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

LINE_COLUMNS = ("line", "symbol", "count", "pay", "right_to_left")
"""The columns of a line win row in ``out`` of :func:`line_wins`."""
WAYS_COLUMNS = ("symbol", "count", "ways", "pay")
ANYWHERE_COLUMNS = ("symbol", "count", "pay")


@njit(cache=True)
def line_win(cells: np.ndarray, pays: np.ndarray, wild: int) -> tuple[int, int, int]:
    """``(symbol, count, pay)`` of the highest win on one line read from ``cells[0]`` on: the run of
    leading wilds paid as wilds, or the first other symbol with the wilds before and after it
    substituting for it, whichever pays more (a tie goes to the symbol); ``(-1, 0, 0)`` for none."""
    n = cells.shape[0]
    w = 0
    while w < n and cells[w] == wild:
        w += 1
    wild_pay = pays[wild, w] if wild >= 0 and w > 0 else 0
    if w == n:
        return wild, w, wild_pay
    symbol = cells[w]
    count = w + 1
    while count < n and (cells[count] == symbol or cells[count] == wild):
        count += 1
    pay = pays[symbol, count]
    if wild_pay > pay:
        return wild, w, wild_pay
    if pay > 0:
        return symbol, count, pay
    return -1, 0, 0


@njit(cache=True)
def line_wins(window: np.ndarray, lines: np.ndarray, pays: np.ndarray, wild: int, both_ways: bool,
              out: np.ndarray) -> int:
    """Every line's highest win, ``lines[line, reel]`` giving the row the line crosses on each reel;
    read left to right and, with ``both_ways``, also right to left (a win across every reel is paid
    once). Rows ``(line, symbol, count, pay, right_to_left)`` go to ``out``; returns their number."""
    reels = window.shape[0]
    cells = np.empty(reels, dtype=np.int64)
    k = 0
    for line in range(lines.shape[0]):
        for r in range(reels):
            cells[r] = window[r, lines[line, r]]
        symbol, count, pay = line_win(cells, pays, wild)
        if pay > 0:
            out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 4] = line, symbol, count, pay, 0
            k += 1
        if both_ways and count < reels:
            for r in range(reels):
                cells[r] = window[reels - 1 - r, lines[line, reels - 1 - r]]
            symbol, count, pay = line_win(cells, pays, wild)
            if pay > 0 and count < reels:
                out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 4] = line, symbol, count, pay, 1
                k += 1
    return k


@njit(cache=True)
def ways_wins(window: np.ndarray, pays: np.ndarray, wild: int, copies: np.ndarray, out: np.ndarray) -> int:
    """Ways from the leftmost reel: for each paying symbol, the run of adjacent reels from reel 1 that
    show it (or a wild); it pays ``pays[symbol, run] x ways``, ways the product over the run of the
    matching cells per reel, each cell counting ``copies[reel, row]`` times (1 for a plain cell, 2 for
    a doubled symbol). Rows ``(symbol, count, ways, pay)`` go to ``out``; returns their number."""
    reels, rows = window.shape[0], window.shape[1]
    k = 0
    for symbol in range(pays.shape[0]):
        if symbol == wild or pays[symbol].max() == 0:
            continue
        ways = 1
        run = 0
        for r in range(reels):
            m = 0
            for row in range(rows):
                cell = window[r, row]
                if cell == symbol or cell == wild:
                    m += copies[r, row]
            if m == 0:
                break
            ways *= m
            run += 1
        if run > 0 and pays[symbol, run] > 0:
            out[k, 0], out[k, 1], out[k, 2], out[k, 3] = symbol, run, ways, pays[symbol, run] * ways
            k += 1
    return k


@njit(cache=True)
def anywhere_wins(window: np.ndarray, pays: np.ndarray, out: np.ndarray) -> int:
    """Pay anywhere: each symbol pays by how many cells show it wherever they are,
    ``pays[symbol, min(count, last column)]``. Rows ``(symbol, count, pay)`` go to ``out``."""
    counts = np.zeros(pays.shape[0], dtype=np.int64)
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            counts[window[r, row]] += 1
    top = pays.shape[1] - 1
    k = 0
    for symbol in range(pays.shape[0]):
        pay = pays[symbol, min(counts[symbol], top)]
        if pay > 0:
            out[k, 0], out[k, 1], out[k, 2] = symbol, counts[symbol], pay
            k += 1
    return k


def paytable(pays: dict[str, list[int] | tuple[int, ...]], alphabet: str | list[str], reels: int,
             first_count: int = 3) -> np.ndarray:
    """A ``pays[symbol, count]`` array from ``{symbol: [pay for first_count, first_count + 1, ...]}``
    (symbols missing from ``pays`` pay nothing)."""
    table = np.zeros((len(alphabet), reels + 1), dtype=np.int64)
    for i, s in enumerate(alphabet):
        for j, v in enumerate(pays.get(s, ())):
            table[i, first_count + j] = v
    return table
