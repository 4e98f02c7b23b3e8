"""Hold and respin (cash collect): coins with values stick; each respin lands new coins on the empty
cells; every new coin resets the respins; the feature ends when no respin is left or the board is
full, paying the coins' values and, for a full board, the grand prize.

A board is an ``int64`` array ``values[reel, row]``: 0 for an empty cell, else the value of the coin
on it (win units). A cell's outcome is a weighted pick over ``[empty, coin 1, coin 2, ...]``
(``cum`` running weights, ``prizes`` the value of each outcome, ``prizes[0] == 0``). Plain Python
over arrays compiled by numba (``NUMBA_DISABLE_JIT=1`` runs it as Python): the reference engine and
the kernel call it.
Kernels inline these functions (``inline="always"``; :mod:`reelforge.mechanics.reels` says why).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from reelforge.mechanics.reels import pick_weighted


@njit(cache=True, inline="always")
def empty_cells(values: np.ndarray) -> int:
    """How many cells are empty: the draws one respin takes (one per empty cell)."""
    n = 0
    for r in range(values.shape[0]):
        for row in range(values.shape[1]):
            n += values[r, row] == 0
    return n


@njit(cache=True, inline="always")
def land_coins(values: np.ndarray, cum: np.ndarray, prizes: np.ndarray, draws: np.ndarray) -> int:
    """One respin: each empty cell, reel by reel, top to bottom, takes the outcome its draw picks
    (``draws`` in ``[0, cum[-1])``, one per empty cell in that order); coins already there stay.
    Returns how many coins landed."""
    k = 0
    landed = 0
    for r in range(values.shape[0]):
        for row in range(values.shape[1]):
            if values[r, row] == 0:
                v = prizes[pick_weighted(cum, draws[k])]
                k += 1
                if v > 0:
                    values[r, row] = v
                    landed += 1
    return landed


@njit(cache=True, inline="always")
def respins_after(left: int, landed: int, reset: int) -> int:
    """Respins left after a respin: back to ``reset`` when a coin landed, else one fewer."""
    return reset if landed > 0 else left - 1


@njit(cache=True, inline="always")
def board_full(values: np.ndarray) -> bool:
    """Every cell holds a coin (the grand prize, and the feature's end)."""
    return empty_cells(values) == 0


@njit(cache=True, inline="always")
def collect(values: np.ndarray) -> int:
    """The coins' values added up (what the feature pays before the grand prize)."""
    return values.sum()
