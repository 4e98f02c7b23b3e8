"""Nanoseconds per call of each kernel mechanic, called from a kernel the way a game calls it.

    python bench/mechanics_bench.py [--calls 2e6] [--repeats 5]

Each mechanic runs in a loop compiled as a game's round is (``round_function``: no reference counting,
the helper inlined), over 1,024 boards of 6 reels of 2-7 rows (Canyon Ways' shape: 12 symbols, a wild,
heights drawn 2-7) taken in turn, so no branch is learnt from one board. A mechanic that changes its board
(fall, refills, tumbles, wilds) works on a copy made in the loop; the ``copy`` rows are those copies alone, to
subtract. The count functions (:mod:`reelforge.mechanics.counts`) play the same boards held as counts. Times
are thread CPU time, best of ``--repeats`` runs, beside numpy's PCG64 float fill measured in the same process
(what ``reelforge bench`` compares kernels with).
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

from reelforge.mechanics.cascade import refill_from_strips, refill_from_weights, tumble_ways  # noqa: E402
from reelforge.mechanics.clusters import clusters_into  # noqa: E402
from reelforge.mechanics.counts import (  # noqa: E402
    counted_ways,
    spin_counted,
    strip_counts,
    symbol_count,
    tumble_counted,
)
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


Inputs = namedtuple("Inputs", "codes lens heights stops boards pays height_cum cum board tops copies masks removed "
                               "empties leaving out seen stack members mults reel_mults sticky draws running board_counts "
                               "counts shown")


def inputs(seed: int = 1) -> Inputs:
    """Strips, pays, boards with their heights and stops, and the scratch the mechanics write."""
    rng = np.random.default_rng(seed)
    codes, lens = strip_codes([strip_from_counts(COUNTS)] * REELS, "WSEBCHAKQJTN", ROWS)
    heights = rng.integers(2, ROWS + 1, size=(BOARDS, REELS)).astype(np.int64)
    stops = rng.integers(0, lens[0], size=(BOARDS, REELS)).astype(np.int64)
    boards = np.zeros((BOARDS, REELS, ROWS), np.int64)
    for b in range(BOARDS):
        window_by_heights(codes, lens, stops[b], heights[b], boards[b])
    pays = paytable({s: [1, 2, 4, 8] for s in "EBCHAKQJTN"}, "WSEBCHAKQJTN", REELS)
    running = strip_counts(codes, lens, ROWS)
    board_counts = np.array([[running[r, s[r] + h[r]] - running[r, s[r]] for r in range(REELS)]
                             for s, h in zip(stops, heights, strict=True)], np.int64)
    return Inputs(codes, lens, heights, stops, boards, pays, np.array([cumulative([0, 0, 4, 3, 2, 1, 1, 1])] * REELS),
                  np.array([cumulative(list(COUNTS.values()))] * REELS), np.zeros((REELS, ROWS), np.int64),
                  np.zeros(REELS, np.int64), np.ones((REELS, ROWS), np.int64), np.zeros(REELS, np.int64),
                  np.zeros((REELS, ROWS), np.bool_), np.zeros(REELS, np.int64), np.zeros(REELS, np.int64),
                  np.zeros((REELS * ROWS, 4), np.int64),
                  np.zeros((REELS, ROWS), np.bool_), np.zeros(REELS * ROWS, np.int64),
                  np.zeros(REELS * ROWS, np.int64), np.full((REELS, ROWS), 2, np.int64),
                  np.array([1, 2, 1, 3, 1, 2], np.int64), np.full((REELS, ROWS), -1, np.int64),
                  np.zeros(REELS * ROWS, np.int64), running, board_counts, np.zeros(REELS, np.int64),
                  np.zeros(REELS, np.int64))


@njit(inline="always")
def _copy(d, i):
    """Board ``i`` (of the 1,024, in turn) into the scratch board; returns its heights."""
    src = d.boards[i & (BOARDS - 1)]
    for r in range(REELS):
        for k in range(ROWS):
            d.board[r, k] = src[r, k]
    return d.heights[i & (BOARDS - 1)]


def looped(call):
    """``call(st, d, i)`` n times in a loop compiled as a game's round is (no NRT, the call inlined)."""
    def run(st, n, d):
        acc = 0
        for i in range(n):
            acc += call(st, d, i)
        return acc
    return njit(_nrt=False)(run)


case = njit(inline="always")


@case
def c_copy(st, d, i):
    return _copy(d, i)[0]


@case
def c_window_by_heights(st, d, i):
    j = i & (BOARDS - 1)
    window_by_heights(d.codes, d.lens, d.stops[j], d.heights[j], d.board)
    return d.board[0, 0]


@case
def c_spin_by_heights(st, d, i):
    spin_by_heights(st, d.codes, d.lens, d.height_cum, d.tops, d.stops[0], d.board)
    return d.board[0, 0]


@case
def c_count_symbol(st, d, i):
    return count_symbol(d.boards[i & (BOARDS - 1)], 1)


@case
def c_ways_wins(st, d, i):
    j = i & (BOARDS - 1)
    return ways_wins(d.boards[j], d.heights[j], d.pays, WILD, d.copies, d.masks, d.removed, d.out)


@case
def c_anywhere_wins(st, d, i):
    return anywhere_wins(d.boards[i & (BOARDS - 1)], d.pays, d.out)


@case
def c_clusters_into(st, d, i):
    return clusters_into(d.boards[i & (BOARDS - 1)], d.pays, WILD, 4, d.removed, d.out, d.seen, d.stack, d.members)


@case
def c_fall_and_refill(st, d, i):
    heights = _copy(d, i)
    for r in range(REELS):               # clear the top cell of every reel
        d.removed[r, 0] = True
        d.tops[r] = 3
    n = fall(d.board, heights, d.removed, d.empties)
    refill_from_strips(d.board, d.empties, d.codes, d.lens, d.tops)
    return n


@case
def c_refill_from_weights(st, d, i):
    _copy(d, i)
    for r in range(REELS):
        d.empties[r] = 2
    refill_from_weights(d.board, d.empties, d.cum, d.draws)
    return d.board[0, 0]


@case
def c_tumble_ways(st, d, i):
    heights = _copy(d, i)
    n, win = tumble_ways(d.board, heights, d.tops, d.codes, d.lens, d.pays, WILD, d.copies, d.masks, d.leaving,
                         d.empties, d.out)
    return n + win


@case
def c_copy_counts(st, d, i):
    j = i & (BOARDS - 1)
    for r in range(REELS):
        d.counts[r] = d.board_counts[j, r]
        d.tops[r] = d.stops[j, r]
    return d.counts[0]


@case
def c_spin_counted(st, d, i):
    spin_counted(st, d.lens, d.height_cum, d.running, d.empties, d.tops, d.counts)
    return d.counts[0]


@case
def c_counted_ways(st, d, i):
    return counted_ways(d.board_counts[i & (BOARDS - 1)], d.pays, WILD, d.shown, d.out)


@case
def c_symbol_count(st, d, i):
    return symbol_count(d.board_counts[i & (BOARDS - 1)], 1)


@case
def c_tumble_counted(st, d, i):
    c_copy_counts(st, d, i)
    n, win = tumble_counted(d.counts, d.tops, d.lens, d.running, d.pays, WILD, d.shown, d.out)
    return n + win


@case
def c_multipliers(st, d, i):
    return cell_multiplier(d.removed, d.mults, True) + reel_multiplier(d.removed, d.heights[i & (BOARDS - 1)],
                                                                       d.reel_mults, False)


@case
def c_sticky_and_wilds(st, d, i):
    heights = _copy(d, i)
    n = stick(d.board, heights, WILD, d.sticky) + apply_sticky(d.board, heights, d.sticky)
    return n + expand_wilds(d.board, heights, WILD) + walk_wilds(d.sticky)


CASES = {
    "copy (the loop's board copy, to subtract)": looped(c_copy),
    "window_by_heights": looped(c_window_by_heights),
    "spin_by_heights (12 draws and the window)": looped(c_spin_by_heights),
    "count_symbol (scatters)": looped(c_count_symbol),
    "ways_wins (symbol sets, pays, marks)": looped(c_ways_wins),
    "anywhere_wins": looped(c_anywhere_wins),
    "clusters_into (4-adjacency, min 4)": looped(c_clusters_into),
    "fall + refill_from_strips (+ copy)": looped(c_fall_and_refill),
    "refill_from_weights, 12 cells (+ copy)": looped(c_refill_from_weights),
    "tumble_ways (ways, paid symbols fall, refill; + copy)": looped(c_tumble_ways),
    "copy of counts and stops (to subtract)": looped(c_copy_counts),
    "spin_counted (12 draws and the counts)": looped(c_spin_counted),
    "symbol_count (scatters, on counts)": looped(c_symbol_count),
    "counted_ways (ways on counts)": looped(c_counted_ways),
    "tumble_counted (ways, paid counts leave, refill; + copy of counts)": looped(c_tumble_counted),
    "cell_multiplier + reel_multiplier": looped(c_multipliers),
    "stick + apply_sticky + expand_wilds + walk_wilds (+ copy)": looped(c_sticky_and_wilds),
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
