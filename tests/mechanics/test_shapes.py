"""Rules-style tests of the mechanics on boards of any shape: a reel ``r`` shows ``heights[r]`` rows,
the rows below are padding (EMPTY) that nothing counts, moves or fills."""

import numpy as np
import pytest

from reelforge.core.draws import SeededDraws
from reelforge.mechanics.cascade import refill_from_strips, tumble_ways
from reelforge.mechanics.clusters import clusters_into
from reelforge.mechanics.features import apply_sticky, expand_wilds, reel_multiplier, stick, walk_wilds
from reelforge.mechanics.pays import paid_symbols, paytable, ways_wins
from reelforge.mechanics.reels import (
    count_symbol,
    cumulative,
    draw_by_heights,
    reels_with_symbol,
    spin_by_heights,
    strip_codes,
    window_by_heights,
)
from reelforge.mechanics.rng import pcg_state
from reelforge.mechanics.tumble import EMPTY, fall, fall_symbols

ALPHA = "ABCWS"
A, B, C, W, S = range(5)
E = EMPTY


def board(*reels: str) -> np.ndarray:
    """Reels top to bottom, ``.`` a padding cell."""
    width = max(len(r) for r in reels)
    return np.array([[E if ch == "." else ALPHA.index(ch) for ch in reel.ljust(width, ".")] for reel in reels],
                    dtype=np.int64)


def test_a_window_by_heights_shows_each_reels_height_from_its_stop_and_pads_below():
    codes, lens = strip_codes(["ABCWS", "SSA", "CB"], ALPHA, wrap=4)   # "CB" is shorter than the window
    assert codes[2, :6].tolist() == [C, B, C, B, C, B]
    window = np.full((3, 4), 9, dtype=np.int64)
    window_by_heights(codes, lens, np.array([3, 1, 1]), np.array([4, 2, 3]), window)
    assert window.tolist() == board("WSAB", "SA", "BCB").tolist()
    assert count_symbol(window, S) == 2 and reels_with_symbol(window, S) == 2
    assert count_symbol(window, EMPTY) == 3           # the padding is there, and no symbol matches it


def test_the_kernel_draws_heights_then_stops_as_the_reference_does():
    codes, lens = strip_codes(["ABCWSABC", "SSABCA", "ABWCC"], ALPHA, wrap=5)
    cum = np.array([cumulative([0, 0, 1, 2, 3, 1])] * 3)   # heights 2-5 by weights 1, 2, 3, 1
    kernel = [np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros((3, 5), np.int64)]
    reference = [np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros((3, 5), np.int64)]
    st = pcg_state(np.random.Generator(np.random.PCG64(11)))
    draws = SeededDraws(11)
    seen = set()
    for _ in range(60):
        spin_by_heights(st, codes, lens, cum, *kernel)
        draw_by_heights(draws, codes, lens, cum, *reference)
        assert [k.tolist() for k in kernel] == [r.tolist() for r in reference]
        seen |= set(kernel[0].tolist())
        assert all((kernel[2][r, kernel[0][r]:] == EMPTY).all() for r in range(3))
    assert seen == {2, 3, 4, 5}
    bare, _ = strip_codes(["ABCWSABC", "SSABCA", "ABWCC"], ALPHA, wrap=4)   # wrapped by fewer stops than rows
    with pytest.raises(ValueError, match=r"reel 1's strip is not wrapped by 5 stops: .*wrap=5"):
        draw_by_heights(draws, bare, lens, cum, *reference)


def test_a_tumble_falls_within_each_reels_height_and_the_padding_never_drops_into_play():
    b = board("ABC.", "CA..", "ABCA")
    heights = np.array([3, 2, 4])
    removed = np.zeros(b.shape, np.bool_)
    removed[0, 2] = removed[1, 0] = removed[2, 1] = removed[2, 3] = True
    empties = np.zeros(3, np.int64)
    assert fall(b, heights, removed, empties) == 4
    assert b.tolist() == board(".AB.", ".A..", "..AC").tolist()
    assert empties.tolist() == [1, 1, 2] and not removed.any()
    tops = np.array([0, 1, 2])
    codes, lens = strip_codes(["ABCW", "SSAB", "CCAW"], ALPHA)
    refill_from_strips(b, empties, codes, lens, tops)
    # each reel's strip keeps turning above its window: the stop before the top comes in first
    assert b.tolist() == board("WAB.", "SA..", "CCAC").tolist() and tops.tolist() == [3, 0, 0]


def test_the_paid_symbols_of_each_reel_fall_out_as_the_marked_cells_would():
    """A ways tumble marks no cells: each reel loses the symbols its paid ways crossed (and the wild where any
    did), which must be exactly the cells ways_wins marks, within each reel's height."""
    b = board("ACA", "WB.", "CAB", "BS.")       # A and C run 3 reels through the wild; only A pays
    heights = np.array([3, 2, 3, 2])
    pays = paytable({"A": [5, 9], "B": [4, 8]}, ALPHA, 4)
    out, masks = np.zeros((5, 4), np.int64), np.zeros(4, np.int64)
    removed = np.zeros(b.shape, np.bool_)
    n = ways_wins(b, heights, pays, W, np.ones(b.shape, np.int64), masks, removed, out)
    assert out[:n].tolist() == [[A, 3, 2, 10]]          # 2 x 1 (the wild) x 1 ways
    leaving = np.array([paid_symbols(out, n, W, r) for r in range(4)])
    assert leaving.tolist() == [(1 << A) | (1 << W)] * 3 + [0]          # no way crosses reel 4
    empties = np.zeros(4, np.int64)
    marked = b.copy()
    assert fall_symbols(b, heights, leaving, empties) == fall(marked, heights, removed, np.zeros(4, np.int64)) == 4
    assert b.tolist() == marked.tolist() == board("..C", ".B.", ".CB", "BS.").tolist()
    assert empties.tolist() == [2, 1, 1, 0]


def test_a_ways_tumble_pays_clears_the_paid_symbols_and_refills_from_the_strips():
    codes, lens = strip_codes(["SSCAW", "SBCAC", "SBCCA", "BBCCS"], ALPHA, wrap=3)
    b = board("ACA", "WB.", "CAB", "BS.")
    heights, tops = np.array([3, 2, 3, 2]), np.array([3, 3, 3, 0])
    pays = paytable({"A": [5, 9], "B": [4, 8]}, ALPHA, 4)
    scratch = np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros((5, 4), np.int64)
    assert tumble_ways(b, heights, tops, codes, lens, pays, W, np.ones(b.shape, np.int64), *scratch) == (1, 10)
    # reels 1-3 lost their A and Wild cells; the stops above each window came in, the nearest at the bottom
    assert b.tolist() == board("SCC", "CB.", "CCB", "BS.").tolist() and tops.tolist() == [1, 2, 2, 0]
    assert tumble_ways(b, heights, tops, codes, lens, pays, W, np.ones(b.shape, np.int64), *scratch) == (0, 0)
    assert b.tolist() == board("SCC", "CB.", "CCB", "BS.").tolist()      # a board paying nothing stays


def test_clusters_into_uses_the_scratch_given_and_padding_joins_nothing():
    pays = np.zeros((5, 8), dtype=np.int64)
    pays[A, 4:] = [5, 6, 7, 10]
    b = board("AA..", "A...", "AC..")
    removed = np.zeros(b.shape, np.bool_)
    out = np.zeros((12, 3), np.int64)
    seen, stack, members = np.zeros(b.shape, np.bool_), np.empty(12, np.int64), np.empty(12, np.int64)
    assert clusters_into(b, pays, -1, 4, removed, out, seen, stack, members) == 1   # no wild: padding is no wild
    assert out[0].tolist() == [A, 4, 5] and int(removed.sum()) == 4


def test_clusters_compile_inside_a_kernels_round_which_runs_without_nrt():
    from reelforge.game.loop import round_function

    @round_function
    def round_(board, pays, removed, out, seen, stack, members):
        return clusters_into(board, pays, 3, 4, removed, out, seen, stack, members)

    pays = np.zeros((5, 8), dtype=np.int64)
    pays[A, 4:] = 1
    b = board("AAW", "ACC", "CCC")
    assert round_(b, pays, np.zeros(b.shape, np.bool_), np.zeros((9, 3), np.int64), np.zeros(b.shape, np.bool_),
                  np.empty(9, np.int64), np.empty(9, np.int64)) == 1


def test_reel_multipliers_count_each_reel_a_win_crosses_once():
    cells = board("AA.", "A..", "C..") == A
    heights = np.array([2, 1, 1])
    mults = np.array([2, 3, 5])
    assert reel_multiplier(cells, heights, mults, True) == 5 and reel_multiplier(cells, heights, mults, False) == 6
    assert reel_multiplier(cells, heights, np.array([1, 0, 5]), True) == 1


def test_sticky_cells_stay_for_the_next_spins_within_the_height_shown():
    sticky = np.full((3, 3), E, np.int64)
    heights = np.array([3, 2, 3])
    assert stick(board("AWB", "WC.", "ABC"), heights, W, sticky) == 2
    assert stick(board("AWB", "AC.", "ABC"), heights, W, sticky) == 0      # already stuck
    nxt = board("ABC", "CC.", "BBB")
    assert apply_sticky(nxt, np.array([3, 1, 3]), sticky) == 2
    assert nxt.tolist() == board("AWC", "WC.", "BBB").tolist()


def test_expanding_wilds_fill_their_reel_and_walking_wilds_step_left_then_off():
    b = board("AB.", "CWA", "ABC")
    assert expand_wilds(b, np.array([2, 3, 3]), W) == 1
    assert b.tolist() == board("AB.", "WWW", "ABC").tolist()
    sticky = board("W..", "...", ".W.")
    assert walk_wilds(sticky) == 1 and sticky.tolist() == board("...", ".W.", "...").tolist()
    assert walk_wilds(sticky) == 1 and walk_wilds(sticky) == 0
