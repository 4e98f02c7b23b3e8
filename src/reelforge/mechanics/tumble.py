"""Gravity for cascading ("tumble") boards, shared by every cascade game.

Boards are ``int`` arrays indexed ``[column, row]`` with row 0 at the TOP.
After winning cells are removed, the survivors of each column fall to the
bottom keeping their order, and the empty cells gather at the top. What
fills them is the game's business (strip continuation, a forge symbol, new
draws); these functions only move cells and say how many are empty.

:func:`fall` is the kernel-safe one for a board of any shape (a reel ``r`` of ``heights[r]`` rows,
the padding below never moving), allocating nothing and inlined where it is called (:func:`fall_symbols`
the same, the cells leaving given as a set of symbols per reel);
``collapse_column`` is plain Python-on-numpy that numba compiles unchanged
(``collapse_column_nb``), so the reference engines and kernels share it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = -1
"""An empty cell (or a short reel's padding): -1, every bit set, so a window writes it by a mask
(:func:`reelforge.mechanics.reels.window_by_heights`) and no symbol's bit test ever matches it."""


@njit(cache=True, inline="always")
def fall(board: np.ndarray, heights: np.ndarray, removed: np.ndarray, empties: np.ndarray) -> int:
    """Clear the ``removed`` cells of each reel's ``heights[reel]`` rows and let the survivors fall in
    order to the reel's bottom row (``heights[reel] - 1``); the empty cells, :data:`EMPTY`, gather at
    the top and their number goes to ``empties[reel]``. The rows below a reel's height (a short
    reel's padding) are never read or moved. ``removed`` is cleared for the next tumble; returns the
    empty cells in all."""
    total = 0
    for r in range(board.shape[0]):
        write = heights[r] - 1
        for read in range(heights[r] - 1, -1, -1):
            # every cell is copied down and the write row moves only past a survivor: no branch on a
            # removed cell, a coin toss the branch predictor missed about once a tumble per reel
            board[r, write] = board[r, read]
            write -= 1 - removed[r, read]
            removed[r, read] = False
        for row in range(write + 1):
            board[r, row] = EMPTY
        empties[r] = write + 1
        total += write + 1
    return total


@njit(cache=True, inline="always")
def fall_symbols(board: np.ndarray, heights: np.ndarray, leaving: np.ndarray, empties: np.ndarray) -> int:
    """:func:`fall` of every cell of reel ``r`` showing a symbol of the set ``leaving[r]`` (bit ``s`` for
    symbol ``s``; :func:`reelforge.mechanics.pays.paid_symbols`, what a ways tumble removes): no marks to
    write, read and clear, and a reel losing nothing is not read."""
    total = 0
    for r in range(board.shape[0]):
        gone = leaving[r]
        write = -1
        if gone:
            write = heights[r] - 1
            for read in range(heights[r] - 1, -1, -1):
                cell = board[r, read]
                board[r, write] = cell                  # as in fall: no branch on a leaving cell
                write -= 1 - ((gone >> (cell & 63)) & 1)
            for row in range(write + 1):
                board[r, row] = EMPTY
        empties[r] = write + 1
        total += write + 1
    return total


def collapse_column(column: np.ndarray, removed: np.ndarray) -> int:
    """Drop the cells of one column whose ``removed`` flag is set.

    ``column`` (top to bottom) is rewritten in place: survivors move to the
    bottom in their order, the top ``k`` cells become ``EMPTY``; returns ``k``.
    """
    rows = column.shape[0]
    write = rows - 1
    for read in range(rows - 1, -1, -1):
        if not removed[read]:
            column[write] = column[read]
            write -= 1
    empty = write + 1
    for r in range(empty):
        column[r] = EMPTY
    return empty


collapse_column_nb = njit(cache=True)(collapse_column)


def collapse_board(board: np.ndarray, removed: np.ndarray) -> np.ndarray:
    """Collapse every column of ``board`` (``[column, row]``); return empties per column."""
    empties = np.zeros(board.shape[0], dtype=np.int64)
    for c in range(board.shape[0]):
        empties[c] = collapse_column(board[c], removed[c])
    return empties


@njit(cache=True)
def collapse_board_nb(board: np.ndarray, removed: np.ndarray) -> np.ndarray:
    """Numba twin of :func:`collapse_board`."""
    empties = np.zeros(board.shape[0], dtype=np.int64)
    for c in range(board.shape[0]):
        empties[c] = collapse_column_nb(board[c], removed[c])
    return empties
