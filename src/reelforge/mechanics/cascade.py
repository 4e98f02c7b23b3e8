"""Cascades ("tumbles"): clear the winning cells, let the rest fall (:mod:`.tumble`: :func:`fall` for
a board of any shape), refill the gaps from the strip above each reel's window or by weighted draws.
The refills allocate nothing and are inlined where they are called, so a kernel's round calls them.

Boards are ``int64`` arrays ``[reel, row]``, row 0 at the top; empty cells are
:data:`reelforge.mechanics.tumble.EMPTY`. Plain Python over arrays compiled by numba
(``NUMBA_DISABLE_JIT=1`` runs it as Python): the reference engine and the kernel call it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from reelforge.mechanics.pays import paid_symbols, reel_symbols, ways_from_symbols
from reelforge.mechanics.reels import pick_weighted
from reelforge.mechanics.tumble import collapse_board_nb, fall_symbols


@njit(cache=True)
def clear_and_fall(board: np.ndarray, removed: np.ndarray) -> np.ndarray:
    """Clear the ``removed`` cells and let each reel's survivors fall in order; the empty cells
    gather at the top. Returns the empty cells per reel (``removed`` is cleared for the next step).
    It allocates that array, so a kernel calls :func:`reelforge.mechanics.tumble.fall` instead."""
    empties = collapse_board_nb(board, removed)
    removed[:, :] = False
    return empties


@njit(cache=True, inline="always")
def refill_from_strips(board: np.ndarray, empties: np.ndarray, codes: np.ndarray, lengths: np.ndarray,
                       tops: np.ndarray) -> None:
    """Fill each reel's top ``empties[reel]`` cells with the symbols above its window on its strip:
    ``tops[reel]`` is the stop at the top row, moved up by the cells added (the strip keeps turning)."""
    for r in range(board.shape[0]):
        n = lengths[r]
        for row in range(empties[r] - 1, -1, -1):
            tops[r] = tops[r] - 1 if tops[r] > 0 else n - 1   # a compare, not a modulo (reels.py says why)
            board[r, row] = codes[r, tops[r]]


@njit(cache=True, inline="always")
def refill_count(empties: np.ndarray) -> int:
    """How many draws :func:`refill_from_weights` needs (one per empty cell)."""
    return empties.sum()


@njit(cache=True, inline="always")
def refill_from_weights(board: np.ndarray, empties: np.ndarray, cum: np.ndarray, draws: np.ndarray) -> None:
    """Fill the empty cells, reel by reel, each top to bottom, with the symbol its draw picks from the
    reel's running weights ``cum[reel]`` (one draw in ``[0, cum[reel, -1])`` per empty cell, in that
    order)."""
    k = 0
    for r in range(board.shape[0]):
        for row in range(empties[r]):
            board[r, row] = pick_weighted(cum[r], draws[k])
            k += 1


WAYS_SCRATCH = "heights stops board masks leaving empties out counts shown"
"""The scratch a tumbling ways game's tables hold (:func:`ways_scratch`, read by :func:`tumble_tables`, and
``counts`` and ``shown`` by :mod:`reelforge.mechanics.counts`' twins, which play on counts)."""


def ways_scratch(reels: int, rows: int, symbols: int) -> tuple[np.ndarray, ...]:
    """Zeroed scratch, in the order of :data:`WAYS_SCRATCH`, for a board of ``reels`` reels up to ``rows``
    high and ``symbols`` symbols: what a spin (:func:`reelforge.mechanics.reels.spin_by_heights`) and
    :func:`tumble_ways` write."""
    per_reel = np.zeros(reels, np.int64)
    return (per_reel, per_reel.copy(), np.zeros((reels, rows), np.int64), per_reel.copy(), per_reel.copy(),
            per_reel.copy(), np.zeros((symbols, 4), np.int64), per_reel.copy(), per_reel.copy())


@njit(cache=True, inline="always")
def tumble_tables(t: Any, wild: int) -> tuple[int, int]:
    """:func:`tumble_ways` on a game's tables ``t`` holding :data:`WAYS_SCRATCH` beside its strips (``codes``,
    ``lens``, wrapped), ``pays`` and ``copies``: the call a game's rules and kernel share."""
    return tumble_ways(t.board, t.heights, t.stops, t.codes, t.lens, t.pays, wild, t.copies, t.masks, t.leaving,
                       t.empties, t.out)


@njit(cache=True, inline="always")
def tumble_ways(board: np.ndarray, heights: np.ndarray, stops: np.ndarray, codes: np.ndarray, lengths: np.ndarray,
                pays: np.ndarray, wild: int, copies: np.ndarray, masks: np.ndarray, leaving: np.ndarray,
                empties: np.ndarray, out: np.ndarray) -> tuple[int, int]:
    """One tumble of a ways game on a board of any shape (reel ``r`` of ``heights[r]`` rows): the ways the
    board pays (:func:`reelforge.mechanics.pays.ways_wins`, rows in ``out``) and their total; where it pays,
    the paid cells are cleared, the rest fall and each reel's strip refills it from above
    (:func:`refill_from_strips`, ``stops`` the stop at each reel's top row). No draws. ``masks`` and
    ``leaving`` are scratch of a slot per reel.

    The paid cells are not marked: each reel's paid symbols (:func:`reelforge.mechanics.pays.paid_symbols`,
    into ``leaving``) fall out (:func:`reelforge.mechanics.tumble.fall_symbols`), and a reel none left is
    not read again (docs/performance.md has the figures)."""
    for r in range(board.shape[0]):
        reel_symbols(board, heights, wild, masks, r)
    n = ways_from_symbols(board, heights, pays, wild, copies, masks, out)
    win = 0
    for i in range(n):
        win += out[i, 3]
    if n:
        for r in range(board.shape[0]):
            leaving[r] = paid_symbols(out, n, wild, r)
        fall_symbols(board, heights, leaving, empties)
        refill_from_strips(board, empties, codes, lengths, stops)
    return n, win
