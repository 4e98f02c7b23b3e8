"""Nanoseconds per call of each kernel mechanic, called from a kernel the way a game calls it.

    python bench/mechanics_bench.py [--calls 2e6] [--repeats 5]

Each mechanic runs in a loop compiled as a game's round is (``round_function``: no reference counting,
the helper inlined), over 1,024 boards of 6 reels of 2-7 rows (Canyon Ways' shape: 12 symbols, a wild,
heights drawn 2-7) taken in turn, so no branch is learnt from one board. A mechanic that changes its board
(fall, refills, tumbles, wilds) works on a copy made in the loop; the ``copy`` row is that copy alone, to
subtract. Times are thread CPU time, best of ``--repeats`` runs, beside numpy's PCG64 float fill measured
in the same process (what ``reelforge bench`` compares kernels with).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import namedtuple
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from numba import njit  # noqa: E402

from reelforge.game.harness import round_function  # noqa: E402
from reelforge.mechanics.cascade import refill_from_strips, refill_from_weights, tumble_ways  # noqa: E402
from reelforge.mechanics.clusters import clusters_into  # noqa: E402
from reelforge.mechanics.features import (  # noqa: E402
    apply_sticky,
    cell_multiplier,
    expand_wilds,
    reel_multiplier,
    stick,
    walk_wilds,
)
from reelforge.mechanics.pays import anywhere_wins, paytable, ways_wins  # noqa: E402
from reelforge.mechanics.reels import (  # noqa: E402
    count_symbol,
    cumulative,
    spin_by_heights,
    strip_codes,
    strip_from_counts,
    window_by_heights,
)
from reelforge.mechanics.rng import pcg_state  # noqa: E402
from reelforge.mechanics.tumble import fall  # noqa: E402

REELS, ROWS, SYMBOLS, WILD, BOARDS = 6, 7, 12, 0, 1024
COUNTS = dict(zip("WSEBCHAKQJTN", (1, 1, 3, 4, 5, 6, 7, 7, 8, 8, 9, 9), strict=True))


Inputs = namedtuple("Inputs", "codes lens heights stops boards pays height_cum cum board tops copies counts removed "
                               "empties out seen stack members mults reel_mults sticky draws")


def inputs(seed: int = 1) -> Inputs:
    """Strips, pays, boards with their heights and stops, and the scratch the mechanics write."""
    rng = np.random.default_rng(seed)
    codes, lens = strip_codes([strip_from_counts(COUNTS)] * REELS, "WSEBCHAKQJTN")
    heights = rng.integers(2, ROWS + 1, size=(BOARDS, REELS)).astype(np.int64)
    stops = rng.integers(0, lens[0], size=(BOARDS, REELS)).astype(np.int64)
    boards = np.zeros((BOARDS, REELS, ROWS), np.int64)
    for b in range(BOARDS):
        window_by_heights(codes, lens, stops[b], heights[b], boards[b])
    pays = paytable({s: [1, 2, 4, 8] for s in "EBCHAKQJTN"}, "WSEBCHAKQJTN", REELS)
    return Inputs(codes, lens, heights, stops, boards, pays, np.array([cumulative([0, 0, 4, 3, 2, 1, 1, 1])] * REELS),
                  np.array([cumulative(list(COUNTS.values()))] * REELS), np.zeros((REELS, ROWS), np.int64),
                  np.zeros(REELS, np.int64), np.ones((REELS, ROWS), np.int64), np.zeros((REELS, SYMBOLS), np.int64),
                  np.zeros((REELS, ROWS), np.bool_), np.zeros(REELS, np.int64), np.zeros((REELS * ROWS, 4), np.int64),
                  np.zeros((REELS, ROWS), np.bool_), np.zeros(REELS * ROWS, np.int64),
                  np.zeros(REELS * ROWS, np.int64), np.full((REELS, ROWS), 2, np.int64),
                  np.array([1, 2, 1, 3, 1, 2], np.int64), np.full((REELS, ROWS), -1, np.int64),
                  np.zeros(REELS * ROWS, np.int64))


@njit(inline="always")
def _copy(d, i):
    """Board ``i`` (of the 1,024, in turn) into the scratch board; returns its heights."""
    src = d.boards[i & (BOARDS - 1)]
    for r in range(REELS):
        for k in range(ROWS):
            d.board[r, k] = src[r, k]
    return d.heights[i & (BOARDS - 1)]


@round_function
def b_copy(st, n, d):
    acc = 0
    for i in range(n):
        acc += _copy(d, i)[0]
    return acc


@round_function
def b_window_by_heights(st, n, d):
    acc = 0
    for i in range(n):
        j = i & (BOARDS - 1)
        window_by_heights(d.codes, d.lens, d.stops[j], d.heights[j], d.board)
        acc += d.board[0, 0]
    return acc


@round_function
def b_spin_by_heights(st, n, d):
    acc = 0
    for _ in range(n):
        spin_by_heights(st, d.codes, d.lens, d.height_cum, d.tops, d.stops[0], d.board)
        acc += d.board[0, 0]
    return acc


@round_function
def b_count_symbol(st, n, d):
    acc = 0
    for i in range(n):
        acc += count_symbol(d.boards[i & (BOARDS - 1)], 1)
    return acc


@round_function
def b_ways_wins(st, n, d):
    acc = 0
    for i in range(n):
        j = i & (BOARDS - 1)
        acc += ways_wins(d.boards[j], d.heights[j], d.pays, WILD, d.copies, d.counts, d.removed, d.out)
    return acc


@round_function
def b_anywhere_wins(st, n, d):
    acc = 0
    for i in range(n):
        acc += anywhere_wins(d.boards[i & (BOARDS - 1)], d.pays, d.out)
    return acc


@round_function
def b_clusters_into(st, n, d):
    acc = 0
    for i in range(n):
        acc += clusters_into(d.boards[i & (BOARDS - 1)], d.pays, WILD, 4, d.removed, d.out, d.seen, d.stack, d.members)
    return acc


@round_function
def b_fall_and_refill(st, n, d):
    acc = 0
    for i in range(n):
        heights = _copy(d, i)
        for r in range(REELS):               # clear the top cell of every reel
            d.removed[r, 0] = True
            d.tops[r] = 3
        acc += fall(d.board, heights, d.removed, d.empties)
        refill_from_strips(d.board, d.empties, d.codes, d.lens, d.tops)
    return acc


@round_function
def b_refill_from_weights(st, n, d):
    acc = 0
    for i in range(n):
        _copy(d, i)
        for r in range(REELS):
            d.empties[r] = 2
        refill_from_weights(d.board, d.empties, d.cum, d.draws)
        acc += d.board[0, 0]
    return acc


@round_function
def b_tumble_ways(st, n, d):
    acc = 0
    for i in range(n):
        heights = _copy(d, i)
        m, win = tumble_ways(d.board, heights, d.tops, d.codes, d.lens, d.pays, WILD, d.copies, d.counts, d.removed,
                             d.empties, d.out)
        acc += m + win
    return acc


@round_function
def b_multipliers(st, n, d):
    acc = 0
    for i in range(n):
        j = i & (BOARDS - 1)
        acc += cell_multiplier(d.removed, d.mults, True) + reel_multiplier(d.removed, d.heights[j], d.reel_mults, False)
    return acc


@round_function
def b_sticky_and_wilds(st, n, d):
    acc = 0
    for i in range(n):
        heights = _copy(d, i)
        acc += stick(d.board, heights, WILD, d.sticky) + apply_sticky(d.board, heights, d.sticky)
        acc += expand_wilds(d.board, heights, WILD) + walk_wilds(d.sticky)
    return acc


CASES = {
    "copy (the loop's board copy, to subtract)": b_copy,
    "window_by_heights": b_window_by_heights,
    "spin_by_heights (12 draws and the window)": b_spin_by_heights,
    "count_symbol (scatters)": b_count_symbol,
    "ways_wins (counts, pays, marks)": b_ways_wins,
    "anywhere_wins": b_anywhere_wins,
    "clusters_into (4-adjacency, min 4)": b_clusters_into,
    "fall + refill_from_strips (+ copy)": b_fall_and_refill,
    "refill_from_weights, 12 cells (+ copy)": b_refill_from_weights,
    "tumble_ways (ways, fall, refill; + copy)": b_tumble_ways,
    "cell_multiplier + reel_multiplier": b_multipliers,
    "stick + apply_sticky + expand_wilds + walk_wilds (+ copy)": b_sticky_and_wilds,
}


def raw_rate(seconds: float = 0.3) -> float:
    """numpy's PCG64 float fill, draws per second of thread CPU time."""
    rng, buf, n = np.random.Generator(np.random.PCG64(1)), np.empty(1 << 16), 0
    t0 = time.thread_time()
    while time.thread_time() - t0 < seconds:
        rng.random(out=buf)
        n += buf.size
    return n / (time.thread_time() - t0)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=float, default=2e6)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args(argv)
    d, n = inputs(), int(a.calls)
    st = pcg_state(np.random.Generator(np.random.PCG64(7)))
    for fn in CASES.values():
        fn(st, 1000, d)                      # compile
    best = {name: float("inf") for name in CASES}
    raws = []
    for _ in range(a.repeats):
        raws.append(raw_rate())
        for name, fn in CASES.items():
            t0 = time.thread_time()
            fn(st, n, d)
            best[name] = min(best[name], (time.thread_time() - t0) / n * 1e9)
    print(f"raw PCG64 draws/s (median of {a.repeats}): {sorted(raws)[len(raws) // 2]:,.0f}")
    print("| mechanic | ns per call |\n|---|---|")
    for name, ns in best.items():
        print(f"| {name} | {ns:.1f} |")


if __name__ == "__main__":
    main()
