"""Pays of a window: paylines from a line table, ways, pay-anywhere counts.

Boards are ``int64`` arrays ``[reel, row]`` of symbol codes, row 0 at the top. A paytable is an
``int64`` array ``pays[symbol, count]``: what ``count`` of a kind of ``symbol`` pays, in the game's
win units (0 where it pays nothing; a scatter's row is all 0). ``wild`` is the wild's code (-1: the
game has none); a wild substitutes for every symbol whose row pays, and pays its own row.

Each function writes one row per win into ``out`` and returns how many it wrote (``out`` needs a
row per line, twice for both ways; a row per symbol for ways and pay-anywhere). Plain Python over
arrays, compiled by numba (``NUMBA_DISABLE_JIT=1`` runs it as the Python it reads as): the
reference engine and the kernel call the same functions.
Kernels inline these functions (``inline="always"``; :mod:`reelforge.mechanics.reels` says why).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

LINE_COLUMNS = ("line", "symbol", "count", "pay", "right_to_left")
"""The columns of a line win row in ``out`` of :func:`line_wins`."""
WAYS_COLUMNS = ("symbol", "count", "ways", "pay")
ANYWHERE_COLUMNS = ("symbol", "count", "pay")


@njit(cache=True, inline="always")
def line_scan(window: np.ndarray, lines: np.ndarray, pays: np.ndarray, wild: int, out: np.ndarray, k: int,
              right_to_left: int) -> int:
    """Every line's highest win read from the first reel of ``window`` on (``lines[line, reel]`` is
    the row the line crosses on each reel): the run of leading wilds paid as wilds, or the first other
    symbol with the wilds before and after it substituting for it, whichever pays more (a tie goes to
    the symbol). Rows ``(line, symbol, count, pay, right_to_left)`` go to ``out`` from row ``k``;
    returns the next free row. (:func:`line_wins` reads right to left through reversed views.)"""
    n = window.shape[0]
    for line in range(lines.shape[0]):
        w = 0
        while w < n and window[w, lines[line, w]] == wild:
            w += 1
        wild_pay = pays[wild, w] if w > 0 else 0   # w > 0 only where there is a wild
        if w == n:
            symbol, count, pay = wild, w, wild_pay
        else:
            symbol = window[w, lines[line, w]]
            count = w + 1
            while count < n:
                cell = window[count, lines[line, count]]
                if cell != symbol and cell != wild:
                    break
                count += 1
            pay = pays[symbol, count]
            if wild_pay > pay:
                symbol, count, pay = wild, w, wild_pay
        if pay > 0:
            out[k, 0] = line
            out[k, 1] = symbol
            out[k, 2] = count
            out[k, 3] = pay
            out[k, 4] = right_to_left
            k += 1
    return k


@njit(cache=True, inline="always")
def line_wins(window: np.ndarray, lines: np.ndarray, pays: np.ndarray, wild: int, both_ways: bool,
              out: np.ndarray) -> int:
    """Every line's highest win (:func:`line_scan`), read left to right and, with ``both_ways``, also
    right to left (a win across every reel is paid once). ``wild`` is -1 for a game without one.
    Rows ``(line, symbol, count, pay, right_to_left)`` go to ``out``; returns their number."""
    k = line_scan(window, lines, pays, wild, out, 0, 0)
    if not both_ways:
        return k
    ltr = k
    k = line_scan(window[::-1], lines[:, ::-1], pays, wild, out, k, 1)
    kept = ltr
    for i in range(ltr, k):      # a win across every reel was paid left to right already
        if out[i, 2] < window.shape[0]:
            for c in range(out.shape[1]):      # cell by cell: a row copy would allocate (kernels run without NRT)
                out[kept, c] = out[i, c]
            kept += 1
    return kept


MAX_WAYS_SYMBOLS = 63
"""The most symbols :func:`ways_wins` evaluates: a reel's symbols are the bits of one ``int64``."""


@njit(cache=True, inline="always")
def reel_symbols(window: np.ndarray, heights: np.ndarray, wild: int, masks: np.ndarray, reel: int) -> None:
    """``masks[reel]``: the symbols reel ``reel`` shows in its ``heights[reel]`` rows, as bits (bit ``s`` for
    symbol ``s``); every bit where it shows the ``wild`` (the wild stands in for every symbol)."""
    m = 0
    h = heights[reel]
    for row in range(window.shape[1]):
        # every row, the padding masked out by a sign mask (reels.window_by_heights says why not a select): a
        # loop as long as the reel's height, which a spin draws, missed its exit about once a reel
        m |= (1 << (window[reel, row] & 63)) & ~((h - 1 - row) >> 63)
    masks[reel] = -1 if wild >= 0 and (m >> wild) & 1 else m


@njit(cache=True, inline="always")
def ways_from_symbols(window: np.ndarray, heights: np.ndarray, pays: np.ndarray, wild: int, copies: np.ndarray,
                      masks: np.ndarray, out: np.ndarray) -> int:
    """:func:`ways_wins`' rows once ``masks`` holds every reel's symbols (:func:`reel_symbols`), no cell
    marked: :func:`paid_symbols` says, reel by reel, which symbols the paid ways cross."""
    reels, rows = window.shape
    # the symbols on reel 1 (the wild never runs: it pays only through the symbols it stands in for), taken
    # lowest first; a symbol not on reel 1, most of them, costs nothing
    left = masks[0] & ((1 << pays.shape[0]) - 1)
    if wild >= 0:
        left &= ~(1 << wild)
    k = 0
    while left:
        symbol = trailing_zeros(left)
        left &= left - 1
        run = 1
        alive = 1
        for r in range(1, reels):       # every reel, no early exit: the run's length is a coin toss
            alive &= masks[r] >> symbol
            run += alive & 1
        pay = pays[symbol, run]
        if pay > 0:
            ways = 1
            for r in range(run):
                m = 0
                h = heights[r]
                for row in range(rows):
                    cell = window[r, row]
                    # bitwise, not `or`/`and`: no branch per cell on what it shows
                    match = ((cell == symbol) | (cell == wild)) & (row < h)
                    m += copies[r, row] * match
                ways *= m
            out[k, 0], out[k, 1], out[k, 2], out[k, 3] = symbol, run, ways, pay * ways
            k += 1
    return k


@njit(cache=True, inline="always")
def paid_symbols(out: np.ndarray, n: int, wild: int, reel: int) -> int:
    """The symbols whose cells on reel ``reel`` (from 0) the ``n`` ways rows of ``out`` paid, as bits (bit ``s``
    for symbol ``s``), the wild's bit with them where any did: a way of count ``c`` crosses reels ``0 .. c - 1``.
    A tumble removes exactly these cells of the reel (:func:`reelforge.mechanics.tumble.fall_symbols`)."""
    paid = 0
    for i in range(n):
        bit = 1 << out[i, 0]
        paid |= bit if out[i, 1] > reel else 0
    if paid and wild >= 0:
        paid |= 1 << wild
    return paid


@njit(cache=True, inline="always")
def ways_wins(window: np.ndarray, heights: np.ndarray, pays: np.ndarray, wild: int, copies: np.ndarray,
              masks: np.ndarray, removed: np.ndarray, out: np.ndarray) -> int:
    """Ways from the leftmost reel on a board of any shape (reel ``r`` shows ``heights[r]`` rows):
    for each paying symbol, the run of adjacent reels from reel 1 that show it (or a wild); it pays
    ``pays[symbol, run] x ways``, ways the product over the run of the matching cells per reel, each
    cell counting ``copies[reel, row]`` times (1 for a plain cell, 2 for a doubled symbol). Rows
    ``(symbol, count, ways, pay)`` go to ``out`` (returns their number) and ``removed[reel, row]`` is
    set on every cell a paid way crosses (what a tumble clears). ``masks`` is scratch of a slot per reel
    (:func:`reel_symbols`); at most :data:`MAX_WAYS_SYMBOLS` symbols.

    Each reel is read once into the set of symbols it shows, a bit each, and a symbol's run is then a
    few bit tests; only a run that pays reads its cells again, for its ways. The cells are marked
    afterwards, a reel at a time, from the set of symbols paid on it (:func:`paid_symbols`): marking
    inside the ways loop, a read and a write of ``removed`` per cell read, cost a third of the call
    (93.6 -> 60.3 ns without it, ``bench/mechanics_bench.py``). A tumble
    (:func:`reelforge.mechanics.cascade.tumble_ways`) skips the marks and lets the paid symbols fall out."""
    reels, rows = window.shape
    for r in range(reels):
        reel_symbols(window, heights, wild, masks, r)
    n = ways_from_symbols(window, heights, pays, wild, copies, masks, out)
    for r in range(reels):
        paid = paid_symbols(out, n, wild, r)
        if paid:
            h = heights[r]
            for row in range(rows):
                removed[r, row] |= (((paid >> (window[r, row] & 63)) & 1) == 1) & (row < h)
    return n


@njit(cache=True, inline="always")
def anywhere_wins(window: np.ndarray, pays: np.ndarray, out: np.ndarray) -> int:
    """Pay anywhere: each symbol pays by how many cells show it wherever they are,
    ``pays[symbol, min(count, last column)]`` (a pay never falls as the count grows). Rows ``(symbol,
    count, pay)`` go to ``out``."""
    top = pays.shape[1] - 1
    k = 0
    for symbol in range(pays.shape[0]):
        if pays[symbol, top] == 0:       # pays grow with the count: a symbol paying nothing for the most never pays
            continue
        count = 0
        for r in range(window.shape[0]):
            for row in range(window.shape[1]):
                count += window[r, row] == symbol
        pay = pays[symbol, min(count, top)]
        if pay > 0:
            out[k, 0], out[k, 1], out[k, 2] = symbol, count, pay
            k += 1
    return k


def ways_events(rows: np.ndarray, names: Sequence[str], multiplier: int, unit: int) -> list[dict[str, Any]]:
    """The audit events of ways wins, one per row ``(symbol, count, ways, pay)`` of :func:`ways_wins`' ``out``:
    what paid (``"4 Eagle"``, ``names`` by symbol code), its ways, the ``multiplier`` it was paid times and the
    win as an exact multiple of the bet (``unit`` win units per bet)."""
    return [{"type": "win", "pay": f"{count} {names[s]}", "ways": ways, "multiplier": multiplier,
             "win_x": str(Fraction(pay * multiplier, unit))} for s, count, ways, pay in rows.tolist()]


def paytable(pays: dict[str, list[int] | tuple[int, ...]], alphabet: str | list[str], reels: int,
             first_count: int = 3) -> np.ndarray:
    """A ``pays[symbol, count]`` array from ``{symbol: [pay for first_count, first_count + 1, ...]}``
    (symbols missing from ``pays`` pay nothing)."""
    table = np.zeros((len(alphabet), reels + 1), dtype=np.int64)
    for i, s in enumerate(alphabet):
        for j, v in enumerate(pays.get(s, ())):
            table[i, first_count + j] = v
    return table
