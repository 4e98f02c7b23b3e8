"""Round features every genre shares: free spins (award by count, retrigger, a limit), the cap with
forfeit of what remains, win multipliers (global, per cell, per reel), sticky cells, expanding and
walking wilds. Boards may have any shape: a reel ``r`` shows ``heights[r]`` rows, the rows below
hold :data:`~reelforge.mechanics.tumble.EMPTY` and are never read.

Plain Python on integers and arrays, compiled by numba (``NUMBA_DISABLE_JIT=1`` runs it as
Python): the reference engine and the kernel call the same functions.
Kernels inline these functions (``inline="always"``; :mod:`reelforge.mechanics.reels` says why).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numba import njit

from reelforge.mechanics.tumble import EMPTY


@njit(cache=True, inline="always")
def spins_for(count: int, awards: np.ndarray) -> int:
    """Free spins a ``count`` of scatters awards: ``awards[min(count, last)]`` (0 below the first award)."""
    return awards[min(count, awards.shape[0] - 1)]


@njit(cache=True, inline="always")
def by_count(count: int, table: np.ndarray) -> int:
    """What a ``count`` (of scatters, of coins...) is worth in ``table[count]``, a count beyond the
    table's last entry worth that last entry (a scatter pay row of :func:`reelforge.mechanics.pays.paytable`)."""
    return table[min(count, table.shape[0] - 1)]


@njit(cache=True, inline="always")
def add_spins(left: int, played: int, award: int, limit: int) -> int:
    """Free spins left after an award (a trigger or a retrigger) of ``award`` while ``left`` remain
    and ``played`` were played: never more than ``limit`` in the whole feature (0: no limit)."""
    if limit > 0:
        award = max(0, min(award, limit - played - left))
    return left + award


@njit(cache=True, inline="always")
def capped(total: int, win: int, cap: int) -> tuple[int, bool]:
    """What a ``win`` adds to a round that has ``total`` so far under the round ``cap`` (all in win
    units), and whether the round reached the cap: it then ends, forfeiting whatever remains."""
    after = min(total + win, cap)
    return after - total, after == cap


def cap_events(total: int, cap: int, unit: int) -> list[dict[str, str]]:
    """The reference engine's audit event for a round that reached the ``cap`` (win units, ``unit``
    per total bet) with ``total``: ``[{"type": "cap", "cap_x": ...}]``, else none."""
    return [{"type": "cap", "cap_x": str(Fraction(cap, unit))}] if total == cap else []


@njit(cache=True, inline="always")
def multiplied(win: int, multiplier: int) -> int:
    """A win times a global multiplier (a free-spin multiplier, a progressive one)."""
    return win * multiplier


@njit(cache=True, inline="always")
def cell_multiplier(cells: np.ndarray, multipliers: np.ndarray, add: bool) -> int:
    """The multiplier the marked ``cells[reel, row]`` carry from ``multipliers[reel, row]`` (0 or 1
    on an unmarked-multiplier cell): their sum with ``add`` (``x2 + x3 = x5``), else their product;
    1 where no marked cell carries one."""
    total = 0 if add else 1
    seen = False
    for r in range(cells.shape[0]):
        for row in range(cells.shape[1]):
            m = multipliers[r, row]
            if cells[r, row] and m > 1:
                seen = True
                total = total + m if add else total * m
    return total if seen else 1


@njit(cache=True, inline="always")
def reel_multiplier(cells: np.ndarray, heights: np.ndarray, multipliers: np.ndarray, add: bool) -> int:
    """The multiplier of the reels holding a marked cell (``cells[reel, row]``, a win's cells),
    ``multipliers[reel]`` each (0 or 1: none): their sum with ``add``, else their product; 1 where no
    such reel carries one."""
    total = 0 if add else 1
    seen = False
    for r in range(cells.shape[0]):
        m = multipliers[r]
        if m > 1:
            for row in range(heights[r]):
                if cells[r, row]:
                    seen = True
                    total = total + m if add else total * m
                    break
    return total if seen else 1


@njit(cache=True, inline="always")
def stick(window: np.ndarray, heights: np.ndarray, symbol: int, sticky: np.ndarray) -> int:
    """Keep every cell showing ``symbol`` in ``sticky[reel, row]`` (:data:`EMPTY` where nothing sticks),
    for :func:`apply_sticky` on the next spins; returns the cells newly stuck."""
    new = 0
    for r in range(window.shape[0]):
        for row in range(heights[r]):
            if window[r, row] == symbol and sticky[r, row] != symbol:
                sticky[r, row] = symbol
                new += 1
    return new


@njit(cache=True, inline="always")
def apply_sticky(window: np.ndarray, heights: np.ndarray, sticky: np.ndarray) -> int:
    """Lay the sticky cells over a new spin's window (a cell below a reel's height this spin stays
    kept but unseen); returns how many show."""
    shown = 0
    for r in range(window.shape[0]):
        for row in range(heights[r]):
            if sticky[r, row] != EMPTY:
                window[r, row] = sticky[r, row]
                shown += 1
    return shown


@njit(cache=True, inline="always")
def expand_wilds(window: np.ndarray, heights: np.ndarray, wild: int) -> int:
    """Every reel showing a wild becomes wild from top to bottom (its height); returns the reels
    expanded."""
    n = 0
    for r in range(window.shape[0]):
        for row in range(heights[r]):
            if window[r, row] == wild:
                for k in range(heights[r]):
                    window[r, k] = wild
                n += 1
                break
    return n


@njit(cache=True, inline="always")
def walk_wilds(sticky: np.ndarray) -> int:
    """Walking wilds: every kept cell (``sticky[reel, row]``, :func:`stick`) steps one reel to the left
    in its row, those on reel 1 walking off the board; returns how many remain."""
    left = 0
    reels = sticky.shape[0]
    for r in range(reels):
        for row in range(sticky.shape[1]):
            v = sticky[r + 1, row] if r + 1 < reels else EMPTY
            sticky[r, row] = v
            left += v != EMPTY
    return left
