"""demo_cascade fast path: the rules of :mod:`.rules` over integer arrays, drawing in the same
order (five stops, five refill positions per spin).

Clusters are found on bit masks: cell ``(reel, row)`` is bit ``reel * rows + row``; a symbol's
cluster is the connected part of (its cells | the wilds) grown from one of its cells by shifting
the mask one row up and down (never across a reel's ends) and one reel left and right until it
stops growing. The wilds are shared by every symbol's masks, as in the peer's per-cluster wild
marks; the board array is touched only to tumble, and a tumble renews the masks of the reels it
moved only. After a tumble only the symbols whose cells changed are evaluated again (the others'
clusters are those that did not pay a moment ago), and cells without a neighbour in their symbol's
cells or the wilds never seed a cluster.

Why its own clusters and not the mechanics library's (the reference rules use the library:
:func:`~reelforge.mechanics.clusters.cluster_wins`, :func:`~reelforge.mechanics.cascade.clear_and_fall`,
:func:`~reelforge.mechanics.cascade.refill_from_strips`): played through those functions, the same 10^6
paid spins pay the same, at 1,497 CPU ns a spin against 312 ns here, 4.8x slower
(``bench/library_kernels.py``, one run); the flood fill and the fall allocate, which a round function may not."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from reelforge.game.loop import kernel_loop
from reelforge.games.problab.peer_builds import Mode, strip_arrays
from reelforge.mechanics.rng import draw_pcg

from .build import CascadeBuild

BASE, FREE = 0, 1
SCRATCH = ("board", "masks", "tops", "stops")
"""The tables the round function writes (the harness gives each simulation its own)."""


class Tables(NamedTuple):
    reels: np.ndarray       # [mode, reel, stop]: each strip followed by its first rows - 1 stops again
    lens: np.ndarray        # [mode, reel]
    reel_masks: np.ndarray  # [mode, reel, stop, symbol]: the cells of that reel's window showing the symbol
    fill: np.ndarray        # [mode, reel, stop]: the fill reels
    fill_lens: np.ndarray   # [mode, reel]
    pays: np.ndarray        # [mode, symbol, count]
    paying: np.ndarray      # [mode, k]: the symbols that pay, -1 padded
    min_size: np.ndarray    # [mode, symbol]: the smallest cluster that pays
    board: np.ndarray       # scratch [reel, row]
    masks: np.ndarray       # scratch [symbol]: the cells showing each symbol
    tops: np.ndarray        # scratch [reel]: the refill positions
    stops: np.ndarray       # scratch [reel]: the spin's stops
    not_top: int            # cells not on a reel's top row
    not_bottom: int         # cells not on a reel's bottom row
    wild: int
    scatter: int
    max_step: int
    free_rounds: int
    scatter_pay: int
    trigger: int


def _padded(strips_of_modes: list[tuple[tuple[int, ...], ...]]) -> tuple[np.ndarray, np.ndarray]:
    arrays = [strip_arrays(s) for s in strips_of_modes]
    width = max(a.shape[1] for a, _ in arrays)
    codes = np.zeros((len(arrays), arrays[0][0].shape[0], width), dtype=np.int64)
    for m, (a, _) in enumerate(arrays):
        codes[m, :, : a.shape[1]] = a
    return codes, np.stack([n for _, n in arrays])


def tables(build: CascadeBuild) -> Tables:
    modes: tuple[Mode, Mode] = (build.base, build.free)
    rows = build.rows
    # each strip followed by its first rows - 1 stops: a window is rows consecutive entries, no wrap
    reels, lens = _padded([tuple(s + s[: rows - 1] for s in m.reels) for m in modes])
    lens -= rows - 1
    fill, fill_lens = _padded([m.fill_reels for m in modes])
    pays = np.stack([m.pays_by_count() for m in modes])
    wild = build.code("wild")
    paying = np.full((2, pays.shape[1]), -1, dtype=np.int64)
    for m in range(2):
        ks = [s for s in range(pays.shape[1]) if s != wild and pays[m, s].max() > 0]
        paying[m, : len(ks)] = ks
    n_reels = reels.shape[1]
    if n_reels * rows > 62:
        raise ValueError(f"{n_reels}x{rows} boards do not fit the kernel's 62-bit cell masks")
    top = sum(1 << (r * rows) for r in range(n_reels))
    bottom = sum(1 << (r * rows + rows - 1) for r in range(n_reels))
    everything = (1 << (n_reels * rows)) - 1
    reel_masks = np.zeros((2, n_reels, reels.shape[2], pays.shape[1]), dtype=np.int64)
    for m in range(2):
        for r in range(n_reels):
            for stop in range(lens[m, r]):
                for w in range(rows):
                    reel_masks[m, r, stop, reels[m, r, stop + w]] |= 1 << (r * rows + w)
    paying_sizes = pays > 0
    min_size = np.where(paying_sizes.any(axis=2), paying_sizes.argmax(axis=2), pays.shape[2])
    return Tables(reels, lens, reel_masks, fill, fill_lens, pays, paying, min_size, np.zeros((n_reels, rows), np.int64),
                  np.zeros(pays.shape[1], np.int64), np.zeros(n_reels, np.int64), np.zeros(n_reels, np.int64),
                  everything & ~top,
                  everything & ~bottom, wild, build.code("scatter"), build.max_step, build.free_rounds,
                  build.scatter_pay, build.trigger)


@intrinsic
def _popcount(typingctx, x):
    """The set bits of the int64 ``x``: LLVM's ctpop, one popcnt instruction where the CPU has it (a
    cluster's size and each symbol's cell count are popcounts, the hottest arithmetic of a spin)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [value])

    return sig, codegen


@njit(cache=True, inline="always")
def _neighbours(comp, rows, not_top, not_bottom):
    """The cells next to ``comp`` (4-adjacency on the board's bits; ``comp`` itself not included)."""
    return ((comp << 1) & not_top) | ((comp >> 1) & not_bottom) | (comp << rows) | (comp >> rows)


@njit(cache=True, inline="always")
def _grow(seed, allowed, rows, not_top, not_bottom):
    """The connected part of ``allowed`` holding ``seed``."""
    comp = seed
    while True:
        grown = (comp | _neighbours(comp, rows, not_top, not_bottom)) & allowed
        if grown == comp:
            return comp
        comp = grown


@njit(cache=True, inline="always")
def _evaluate(t, m, todo):
    """Pay the clusters of the board in ``t.masks``: (units, the cells of the paying clusters as a mask).
    Only the symbols whose bit is set in ``todo`` are looked at (all of them when the wild's bit is set:
    every cluster may grow through a moved wild); a symbol whose cells and the wilds number fewer than
    the smallest paying size is skipped."""
    masks = t.masks
    rows = t.board.shape[1]
    wilds = masks[t.wild] if t.wild >= 0 else 0
    if t.wild >= 0 and (todo >> t.wild) & 1:
        todo = -1                      # the wilds moved: every symbol's clusters may have changed
    top = t.pays.shape[2] - 1
    win = 0
    removed = 0
    for k in range(t.paying.shape[1]):
        s = t.paying[m, k]
        if s < 0:
            break
        if not (todo >> s) & 1:
            continue
        left = masks[s]
        allowed = left | wilds
        least = t.min_size[m, s]
        if _popcount(allowed) < least:
            continue
        if least > 1:
            # a cell with no neighbour among the allowed ones is a cluster of one: grow none from it
            left &= _neighbours(allowed, rows, t.not_top, t.not_bottom)
            if _popcount(left | wilds) < least:
                continue
        while left != 0:
            comp = _grow(left & -left, allowed, rows, t.not_top, t.not_bottom)
            left &= ~comp
            pay = t.pays[m, s, min(_popcount(comp), top)]
            if pay > 0:
                win += pay
                removed |= comp
    return win, removed


@njit(cache=True, inline="always")
def _tumble(t, m, removed):
    """Clear the ``removed`` cells, let each reel's survivors fall, refill upward from the fill reels,
    and bring the masks of the reels that moved up to date: returns the bit set of the symbols whose
    cells changed (a symbol whose cells and wilds did not change cannot pay now: it did not pay before)."""
    board, masks = t.board, t.masks
    rows = board.shape[1]
    column = (1 << rows) - 1
    changed = 0
    for r in range(board.shape[0]):
        gone = (removed >> (r * rows)) & column
        if gone == 0:
            continue
        write = rows - 1
        for read in range(rows - 1, -1, -1):
            # without a branch (which cells go is random): a cleared cell is copied too, and the next
            # survivor, or the refill, overwrites it (write never passes read)
            board[r, write] = board[r, read]
            write -= 1 - ((gone >> read) & 1)
        n = t.fill_lens[m, r]
        pos = t.tops[r]
        for row in range(write, -1, -1):
            pos = pos - 1 if pos > 0 else n - 1
            board[r, row] = t.fill[m, r, pos]
        t.tops[r] = pos
        # the reel's cells in every mask, again from its column
        cells = column << (r * rows)
        for w in range(rows):
            changed |= 1 << board[r, w]
        for s in range(masks.shape[0]):
            changed |= np.int64((masks[s] & cells) != 0) << s
            masks[s] &= ~cells
        for w in range(rows):
            masks[board[r, w]] |= 1 << (r * rows + w)
    return changed


@njit(cache=True, inline="always")
def _spin(st, t, m):
    """One spin of mode ``m`` with its tumbles: the units the clusters paid (the final board's cells
    stay in t.masks). The first board's masks come from the reels' windows; the board itself is written only
    when something tumbles."""
    masks = t.masks
    masks[:] = 0
    n_reels = t.board.shape[0]
    for r in range(n_reels):
        stop = draw_pcg(st, t.lens[m, r])
        t.stops[r] = stop
        for s in range(masks.shape[0]):
            masks[s] |= t.reel_masks[m, r, stop, s]
    for r in range(n_reels):
        t.tops[r] = draw_pcg(st, t.fill_lens[m, r])
    win, removed = _evaluate(t, m, -1)
    if win == 0:
        return 0
    _fill_board(t, m)
    total = win
    for _ in range(t.max_step - 1):
        changed = _tumble(t, m, removed)
        win, removed = _evaluate(t, m, changed)
        if win == 0:
            break
        total += win
    else:
        _tumble(t, m, removed)     # the last allowed evaluation still won: it tumbles, as in the peer
    return total


@njit(cache=True, inline="always")
def _fill_board(t, m):
    board = t.board
    for r in range(board.shape[0]):
        stop = t.stops[r]
        for w in range(board.shape[1]):
            board[r, w] = t.reels[m, r, stop + w]


@njit(cache=True)
def _free_rounds(st, t, paid, cap):
    """The free rounds' units (a call of its own: the paid round's hot loop stays small)."""
    free = 0
    for _ in range(t.free_rounds):
        free = min(paid + free + _spin(st, t, FREE), cap) - paid
        if paid + free == cap:
            break
    return free


@njit(cache=True, inline="always")  # inlined into the harness loop: a call would pass (and count references of) every table
def play_round(st, t, mode, cap, parts, counters):
    """One paid round: parts[0] the paid spin's clusters and scatter pay, parts[1] the free rounds'."""
    paid = _spin(st, t, BASE)
    triggered = _popcount(t.masks[t.scatter]) >= t.trigger
    if triggered:
        counters[0] += 1
        paid += t.scatter_pay
    paid = min(paid, cap)
    free = 0
    if triggered and paid < cap:
        free = _free_rounds(st, t, paid, cap)
    parts[0] = paid
    parts[1] = free


LOOP = kernel_loop(play_round)
