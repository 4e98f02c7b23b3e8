"""The count functions (a board as each reel's count of each symbol) play the same tumbles as the cell functions:
the same spins from the same stream, the same ways rows, the same counts and strip stops after every tumble."""

import numpy as np
import pytest

from reelforge.mechanics.cascade import tumble_ways
from reelforge.mechanics.counts import spin_counted, strip_counts, symbol_count, tumble_counted
from reelforge.mechanics.pays import paytable
from reelforge.mechanics.reels import cumulative, spin_by_heights, strip_codes, strip_from_counts
from reelforge.mechanics.rng import pcg_state

ALPHA = "WSEBCHAKQJTN"          # 12 symbols, the wild first, a scatter second, as Canyon Ways'
REELS, ROWS = 6, 7


def as_counts(window: np.ndarray, heights: np.ndarray) -> list[int]:
    """Each reel's shown cells as four bits a symbol."""
    return [sum(1 << (4 * int(c)) for c in window[r, : heights[r]]) for r in range(window.shape[0])]


@pytest.mark.parametrize("seed", [1, 2])
def test_counts_play_the_tumbles_the_cells_play(seed):
    rng = np.random.default_rng(seed)
    # short strips rich in wilds (on reel 1 too) wrap round often and pay long ways; E pays from 2 of a kind
    strips = [strip_from_counts({s: int(rng.integers(1, 4)) for s in ALPHA}) for _ in range(REELS)]
    codes, lens = strip_codes(strips, ALPHA, wrap=ROWS)
    running = strip_counts(codes, lens, ROWS)
    pays = paytable({s: [1, 2, 3, 5] for s in ALPHA[2:]}, ALPHA, REELS)
    pays[2, 2] = 1
    cum = np.array([cumulative([0, 0, 3, 3, 2, 2, 1, 1])] * REELS)
    cells = [np.zeros(REELS, np.int64), np.zeros(REELS, np.int64), np.zeros((REELS, ROWS), np.int64)]
    counted = [np.zeros(REELS, np.int64), np.zeros(REELS, np.int64), np.zeros(REELS, np.int64)]
    scratch = [np.zeros(REELS, np.int64) for _ in range(4)]
    out, out_counted = np.zeros((12, 4), np.int64), np.zeros((12, 4), np.int64)
    st, st_counted = (pcg_state(np.random.Generator(np.random.PCG64(seed))) for _ in range(2))
    tumbles, wrapped, longest = 0, 0, 0
    for _ in range(150):
        spin_by_heights(st, codes, lens, cum, *cells)
        spin_counted(st_counted, lens, cum, running, *counted)
        heights, stops, window = cells
        assert counted[0].tolist() == heights.tolist() and counted[1].tolist() == stops.tolist()
        while True:
            assert counted[2].tolist() == as_counts(window, heights)
            assert symbol_count(counted[2], 1) == int((window == 1).sum())
            before = stops.copy()
            n, win = tumble_ways(window, heights, stops, codes, lens, pays, 0, np.ones((REELS, ROWS), np.int64),
                                 *scratch[:3], out)
            assert tumble_counted(counted[2], counted[1], lens, running, pays, 0, scratch[3], out_counted) == (n, win)
            assert out_counted[:n].tolist() == out[:n].tolist() and counted[1].tolist() == stops.tolist()
            if not n:
                break
            tumbles += 1
            wrapped += int((stops > before).any())
            longest = max(longest, int(out[:n, 1].max()))
    assert tumbles > 100 and wrapped > 10 and longest == REELS     # strips wrapped round, ways ran every reel


def test_counts_refuse_what_four_bits_cannot_hold():
    codes, lens = strip_codes(["AB"] * 3, "AB", wrap=16)
    with pytest.raises(ValueError, match="at most 15 symbols, 15 rows"):
        strip_counts(codes, lens, 16)
    codes, lens = strip_codes(["AB"] * 3, "AB", wrap=3)
    with pytest.raises(ValueError, match="not wrapped by 4 stops"):
        strip_counts(codes, lens, 4)
