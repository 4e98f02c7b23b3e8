"""Gravity for cascading ("tumble") boards, shared by every cascade game.

Boards are ``int`` arrays indexed ``[column, row]`` with row 0 at the TOP.
After winning cells are removed, the survivors of each column fall to the
bottom keeping their order, and the empty cells gather at the top. What
fills them is the game's business (strip continuation, a forge symbol, new
draws); these functions only move cells and say how many are empty.

``collapse_column`` is plain Python-on-numpy that numba compiles unchanged
(``collapse_column_nb``), so the reference engines and kernels share it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = -1


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
