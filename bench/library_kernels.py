"""The rich games' own evaluators against the mechanics library's functions, on the same spins.

Gemstones Gold, Forge of Gems and problab's demo_cascade evaluate wins in their kernels with code of
their own (packed counts, packed copy counts, bit-mask clusters). This script plays the same spins
through the library's functions (:mod:`reelforge.mechanics.pays`, :mod:`~reelforge.mechanics.clusters`,
:mod:`~reelforge.mechanics.cascade`), checks that every spin pays the same, and times both in CPU
seconds (``time.process_time``, one process, the same run), so each kernel's docstring can say why it
keeps its own code with the figure::

    .venv/bin/python bench/library_kernels.py [--spins N] [--json]

Forge of Gems is compared on its first boards (before any forge effect): the library's ``ways_wins``
counts ways made only of WILDs, which Forge of Gems' rules do not pay, so on boards with WILDs the two
differ by the rules, not by speed; the script counts those boards too (a column turned WILD, as the
Vertical WILD does).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from reelforge.games.forge_of_gems import kernel as fog
from reelforge.games.forge_of_gems.build import N_PAY, REELS, SCATTER, WILD
from reelforge.games.gemstones_gold import kernel as gg
from reelforge.games.gemstones_gold.build import ROWS as GG_ROWS
from reelforge.games.gemstones_gold.build import SCATTER as GG_SCATTER
from reelforge.games.problab.demo_cascade import kernel as dc
from reelforge.games.registry import get_game
from reelforge.mechanics.cascade import clear_and_fall, refill_from_strips
from reelforge.mechanics.clusters import cluster_wins
from reelforge.mechanics.pays import anywhere_wins, ways_wins
from reelforge.mechanics.reels import window_from_stops
from reelforge.mechanics.rng import draw_pcg, pcg_state


# -- Gemstones Gold: pay anywhere with cascades refilled from the strips ---------------------------
@njit(cache=True)
def _gg_kernel(strips, lens, packed, pay, stops, board, q, above, wins):
    for i in range(stops.shape[0]):
        w, s = gg.cascades(strips, lens, packed, pay, gg.PAYING_ADD, gg.PAYING_HIGH, stops[i], board, q, above)
        wins[i] = w * 64 + s


@njit(cache=True)
def _gg_library(strips, lens, pay, stops, board, q, tops, removed, out, wins):
    for i in range(stops.shape[0]):
        window_from_stops(strips, lens, stops[i], GG_ROWS, board)
        tops[:] = stops[i]
        total = 0
        while True:
            k = anywhere_wins(board, pay, out)
            if k == 0:
                break
            for j in range(k):
                total += out[j, 2]
                for r in range(board.shape[0]):
                    for row in range(board.shape[1]):
                        removed[r, row] |= board[r, row] == out[j, 0]
            empties = clear_and_fall(board, removed)
            refill_from_strips(board, empties, strips, lens, tops)
        scatters = 0
        for r in range(board.shape[0]):
            for row in range(board.shape[1]):
                scatters += board[r, row] == GG_SCATTER
        wins[i] = total * 64 + scatters


def gemstones(spins: int) -> dict:
    game = get_game("gemstones-gold")
    build = game.load_build(game.default_build())
    a = build.arrays
    rng = np.random.default_rng(20261205)
    stops = (rng.random((spins, a["lens"].shape[0])) * a["lens"]).astype(np.int64)
    board = np.zeros((6, GG_ROWS), np.int64)
    q, above, tops = np.zeros(6, np.int64), np.zeros(6, np.int64), np.zeros(6, np.int64)
    removed, out = np.zeros((6, GG_ROWS), np.bool_), np.zeros((8, 3), np.int64)
    mine, lib = np.zeros(spins, np.int64), np.zeros(spins, np.int64)
    _gg_kernel(a["strips"], a["lens"], a["packed"], a["pay"], stops[:10], board, q, above, mine)       # compile
    _gg_library(a["strips"], a["lens"], a["pay"], stops[:10], board, q, tops, removed, out, lib)
    t0 = time.process_time()
    _gg_kernel(a["strips"], a["lens"], a["packed"], a["pay"], stops, board, q, above, mine)
    t1 = time.process_time()
    _gg_library(a["strips"], a["lens"], a["pay"], stops, board, q, tops, removed, out, lib)
    t2 = time.process_time()
    return {"game": "gemstones-gold", "spins": spins, "same_wins": bool((mine == lib).all()),
            "kernel_ns_per_spin": (t1 - t0) / spins * 1e9, "library_ns_per_spin": (t2 - t1) / spins * 1e9,
            "library": "window_from_stops, anywhere_wins, clear_and_fall, refill_from_strips"}


# -- problab demo_cascade: clusters with tumbles refilled from the fill reels -----------------------
@njit(cache=True)
def _dc_library_spin(st, t, m, board, removed, out, stops, tops):
    for r in range(board.shape[0]):
        stops[r] = draw_pcg(st, t.lens[m, r])
    for r in range(board.shape[0]):
        tops[r] = draw_pcg(st, t.fill_lens[m, r])
    window_from_stops(t.reels[m], t.lens[m], stops, board.shape[1], board)
    total = 0
    for _ in range(t.max_step):
        k = cluster_wins(board, t.pays[m], t.wild, 1, removed, out)
        if k == 0:
            break
        for j in range(k):
            total += out[j, 2]
        empties = clear_and_fall(board, removed)
        refill_from_strips(board, empties, t.fill[m], t.fill_lens[m], tops)
    return total


@njit(cache=True)
def run_kernel(st, t, n, wins):
    for i in range(n):
        wins[i] = dc._spin(st, t, dc.BASE)


@njit(cache=True)
def run_library(st, t, n, wins, board, removed, out, stops, tops):
    for i in range(n):
        wins[i] = _dc_library_spin(st, t, dc.BASE, board, removed, out, stops, tops)


def demo_cascade(spins: int) -> dict:
    from reelforge.games import problab

    with problab.registered():
        game = get_game("problab-demo-cascade")
        build = game.load_build(game.default_build())
    t = dc.tables(build)
    board = np.zeros_like(t.board)
    removed, out = np.zeros(board.shape, np.bool_), np.zeros((board.size, 3), np.int64)
    stops, tops = np.zeros(board.shape[0], np.int64), np.zeros(board.shape[0], np.int64)
    mine, lib = np.zeros(spins, np.int64), np.zeros(spins, np.int64)
    st0 = pcg_state(np.random.Generator(np.random.PCG64(20261205)))
    run_kernel(st0.copy(), t, 10, mine)                                                # compile
    run_library(st0.copy(), t, 10, lib, board, removed, out, stops, tops)
    t0 = time.process_time()
    run_kernel(st0.copy(), t, spins, mine)
    t1 = time.process_time()
    run_library(st0.copy(), t, spins, lib, board, removed, out, stops, tops)
    t2 = time.process_time()
    return {"game": "problab-demo-cascade", "spins": spins, "same_wins": bool((mine == lib).all()),
            "kernel_ns_per_spin": (t1 - t0) / spins * 1e9, "library_ns_per_spin": (t2 - t1) / spins * 1e9,
            "library": "window_from_stops, cluster_wins, clear_and_fall, refill_from_strips"}


# -- Forge of Gems: ways with split cells ------------------------------------------------------------
@njit(cache=True)
def _fog_boards(st, cell_code, cell_total, boards, wild_column):
    for i in range(boards.shape[0]):
        for c in range(REELS):
            for r in range(boards.shape[2]):
                boards[i, c, r] = cell_code[c, draw_pcg(st, cell_total[c])]
        c = wild_column[i]
        if c >= 0:                      # a Vertical WILD: the column's non-scatter cells turn WILD, copies kept
            for r in range(boards.shape[2]):
                if boards[i, c, r] >> 2 != SCATTER:
                    boards[i, c, r] = WILD * 4 + (boards[i, c, r] & 3)


@njit(cache=True)
def _fog_kernel(boards, paytable, packs, remove, wins):
    for i in range(boards.shape[0]):
        wins[i] = fog._evaluate(boards[i], paytable, 1, packs, remove)


@njit(cache=True)
def _fog_library(boards, pays, window, copies, heights, masks, removed, out, wins):
    for i in range(boards.shape[0]):
        for c in range(boards.shape[1]):
            for r in range(boards.shape[2]):
                window[c, r] = boards[i, c, r] >> 2
                copies[c, r] = boards[i, c, r] & 3
        k = ways_wins(window, heights, pays, WILD, copies, masks, removed, out)
        total = 0
        for j in range(k):
            total += out[j, 3]
        wins[i] = total


def forge_of_gems(spins: int, wild: bool) -> dict:
    game = get_game("forge-of-gems")
    build = game.load_build(game.default_build())
    t = fog.tables(build)
    rng = np.random.Generator(np.random.PCG64(20261205))
    boards = np.zeros((spins, REELS, 3), np.int64)
    wild_column = rng.integers(0, REELS, spins) if wild else np.full(spins, -1, np.int64)
    _fog_boards(pcg_state(rng), t.cell_code, t.cell_total, boards, wild_column)
    # the library's paytable is by run length with every symbol's row (WILD and SCATTER pay nothing)
    pays = np.zeros((max(WILD, SCATTER) + 1, t.paytable.shape[1]), np.int64)
    pays[:N_PAY] = t.paytable
    packs, remove = np.zeros(REELS, np.int64), np.zeros(REELS, np.int64)
    window, copies = np.zeros((REELS, 3), np.int64), np.zeros((REELS, 3), np.int64)
    heights, masks = np.full(REELS, 3, np.int64), np.zeros(REELS, np.int64)
    removed = np.zeros((REELS, 3), np.bool_)
    out = np.zeros((pays.shape[0], 4), np.int64)
    mine, lib = np.zeros(spins, np.int64), np.zeros(spins, np.int64)
    _fog_kernel(boards[:10], t.paytable, packs, remove, mine)                              # compile
    _fog_library(boards[:10], pays, window, copies, heights, masks, removed, out, lib)
    t0 = time.process_time()
    _fog_kernel(boards, t.paytable, packs, remove, mine)
    t1 = time.process_time()
    _fog_library(boards, pays, window, copies, heights, masks, removed, out, lib)
    t2 = time.process_time()
    return {"game": "forge-of-gems", "boards": "a column turned WILD" if wild else "first boards", "spins": spins,
            "same_wins": bool((mine == lib).all()), "boards_paying_differently": int((mine != lib).sum()),
            "kernel_ns_per_spin": (t1 - t0) / spins * 1e9, "library_ns_per_spin": (t2 - t1) / spins * 1e9,
            "library": "ways_wins (the window and copies decoded from the cell codes)"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spins", type=int, default=1_000_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [gemstones(args.spins), demo_cascade(args.spins), forge_of_gems(args.spins, False),
            forge_of_gems(args.spins, True)]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        ratio = row["library_ns_per_spin"] / row["kernel_ns_per_spin"]
        print(f"{row['game']:22} {row.get('boards', 'spins'):22} same wins: {row['same_wins']!s:5} "
              f"kernel {row['kernel_ns_per_spin']:8.1f} ns  library {row['library_ns_per_spin']:8.1f} ns  "
              f"({ratio:.2f}x; {row['library']})"
              + (f"; {row['boards_paying_differently']:,} boards pay differently" if "boards" in row else ""))


if __name__ == "__main__":
    main()
