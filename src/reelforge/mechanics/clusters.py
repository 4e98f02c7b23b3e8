"""Cluster pays: groups of one symbol touching side by side (4-adjacency), wilds joining them.

A cluster of a symbol is a connected group of cells showing it or a wild, with at least one cell of
the symbol itself; one wild may belong to clusters of several symbols. A cluster of ``min_size``
cells or more pays ``pays[symbol, min(size, last column)]``. Plain Python over arrays compiled by
numba (``NUMBA_DISABLE_JIT=1`` runs it as Python): the reference engine and the kernel call it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

CLUSTER_COLUMNS = ("symbol", "size", "pay")


@njit(cache=True)
def cluster_wins(board: np.ndarray, pays: np.ndarray, wild: int, min_size: int, removed: np.ndarray,
                 out: np.ndarray) -> int:
    """:func:`clusters_into` with scratch of its own (for a reference engine; a kernel passes its
    scratch to :func:`clusters_into`, as it may not allocate)."""
    reels, rows = board.shape[0], board.shape[1]
    return clusters_into(board, pays, wild, min_size, removed, out, np.zeros((reels, rows), dtype=np.bool_),
                         np.empty(reels * rows, dtype=np.int64), np.empty(reels * rows, dtype=np.int64))


@njit(cache=True, inline="always")
def clusters_into(board: np.ndarray, pays: np.ndarray, wild: int, min_size: int, removed: np.ndarray,
                  out: np.ndarray, seen: np.ndarray, stack: np.ndarray, members: np.ndarray) -> int:
    """Every paying cluster, symbol by symbol, each scanned reel by reel, top to bottom: rows
    ``(symbol, size, pay)`` to ``out`` (returns their number); ``removed[reel, row]`` is set on every
    cell of a paying cluster (what a cascade clears). Scratch: ``seen`` (bool, the board's shape),
    ``stack`` and ``members`` (a cell each). A board of any shape: padding cells
    (:data:`~reelforge.mechanics.tumble.EMPTY`) join no cluster."""
    reels, rows = board.shape[0], board.shape[1]
    top = pays.shape[1] - 1
    k = 0
    for symbol in range(pays.shape[0]):
        paying = False
        for c in range(pays.shape[1]):       # a loop, not .max(): a kernel's round runs without NRT
            paying |= pays[symbol, c] > 0
        if symbol == wild or not paying:
            continue
        for r in range(reels):
            for w in range(rows):
                seen[r, w] = False
        for r0 in range(reels):
            for w0 in range(rows):
                if board[r0, w0] != symbol or seen[r0, w0]:
                    continue
                seen[r0, w0] = True
                stack[0] = r0 * rows + w0
                depth = 1
                size = 0
                while depth > 0:
                    depth -= 1
                    cell = stack[depth]
                    members[size] = cell
                    size += 1
                    r, w = cell // rows, cell % rows
                    for d in range(4):
                        nr = r + (1 if d == 0 else -1 if d == 1 else 0)
                        nw = w + (1 if d == 2 else -1 if d == 3 else 0)
                        if 0 <= nr < reels and 0 <= nw < rows and not seen[nr, nw] and (
                                board[nr, nw] == symbol or (wild >= 0 and board[nr, nw] == wild)):
                            seen[nr, nw] = True
                            stack[depth] = nr * rows + nw
                            depth += 1
                if size >= min_size and pays[symbol, min(size, top)] > 0:
                    out[k, 0], out[k, 1], out[k, 2] = symbol, size, pays[symbol, min(size, top)]
                    k += 1
                    for i in range(size):
                        removed[members[i] // rows, members[i] % rows] = True
    return k
