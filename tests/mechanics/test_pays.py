"""Rules-style tests of the mechanics library: build a board, assert the wins."""

import numpy as np
import pytest

from reelforge.core.draws import SeededDraws
from reelforge.game.buildfile import BuildError
from reelforge.game.buildschema import At
from reelforge.mechanics.pays import anywhere_wins, line_wins, paytable, ways_wins
from reelforge.mechanics.reels import (
    count_symbol,
    draw_reels,
    pick_weighted,
    reel_counts_check,
    reels_with_symbol,
    spin_reels,
    strip_codes,
    window_from_stops,
)
from reelforge.mechanics.rng import pcg_state

ALPHA = "ABCWS"          # A, B, C pay; W wild; S scatter
A, B, C, W, S = range(5)
PAYS = paytable({"A": [10, 20, 50], "B": [5, 10, 25], "C": [2, 4, 8], "W": [20, 100, 500]}, ALPHA, 5)
LINES = np.array([[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0]], dtype=np.int64)


def board(*reels: str) -> np.ndarray:
    """Reels written top to bottom, one string each."""
    return np.array([[ALPHA.index(ch) for ch in reel] for reel in reels], dtype=np.int64)


def wins(window, both_ways=False):
    out = np.zeros((2 * LINES.shape[0], 5), dtype=np.int64)
    n = line_wins(window, LINES, PAYS, W, both_ways, out)
    return [tuple(int(v) for v in row) for row in out[:n]]


def test_a_line_pays_left_to_right_with_wild_substitution_and_stops_at_the_first_other_symbol():
    # middle row A W A B A: A x3 (the wild substitutes), the fifth A is not adjacent
    assert wins(board("CAB", "BWC", "CAB", "CBC", "BAC")) == [(0, A, 3, 10, 0)]


def test_leading_wilds_pay_as_wilds_when_they_pay_more_than_the_symbol_they_complete():
    # middle row W W W C B: three wilds pay 20, C x4 would pay 4
    assert wins(board("AWB", "BWC", "AWB", "ACB", "CBA")) == [(0, W, 3, 20, 0)]
    # W W C C C: C x5 pays 8, two wilds pay nothing: the symbol wins
    assert wins(board("AWB", "BWA", "ACB", "ACB", "BCA")) == [(0, C, 5, 8, 0)]


def test_a_line_follows_its_rows_and_a_scatter_breaks_it():
    # the V line (rows 0 1 2 1 0) reads B B B B S: B x4
    assert wins(board("BCA", "CBA", "ACB", "CBA", "SAC")) == [(3, B, 4, 10, 0)]


def test_both_ways_pays_right_to_left_too_and_a_full_line_once():
    window = board("CBA", "CAB", "ABC", "CAA", "BAC")   # middle row B A B A A: A x2 from the right only
    assert wins(window) == []
    two = paytable({"A": [1, 10, 20, 50]}, ALPHA, 5, first_count=2)
    out = np.zeros((8, 5), dtype=np.int64)
    assert line_wins(window, LINES, two, W, True, out) == 1 and tuple(out[0]) == (0, A, 2, 1, 1)
    full = board("BAC", "BAC", "BAC", "BAC", "BAC")     # A on every reel of the middle row
    n = line_wins(full, LINES, PAYS, W, True, out)
    assert [tuple(out[i]) for i in range(n)] == [(0, A, 5, 50, 0), (1, B, 5, 25, 0), (2, C, 5, 8, 0)]


def ways(window, copies, heights=None):
    heights = np.full(window.shape[0], window.shape[1], np.int64) if heights is None else np.array(heights)
    out = np.zeros((len(ALPHA), 4), dtype=np.int64)
    masks = np.zeros(window.shape[0], dtype=np.int64)
    removed = np.zeros(window.shape, dtype=np.bool_)
    n = ways_wins(window, heights, PAYS, W, copies, masks, removed, out)
    return [tuple(int(v) for v in out[i]) for i in range(n)], removed


def test_ways_multiply_matching_cells_per_reel_with_copies_and_mark_the_cells_they_paid():
    window = board("AAB", "CWC", "BAB", "CCC", "ACB")
    copies = np.ones((5, 3), dtype=np.int64)
    wins, removed = ways(window, copies)
    # A: 2 x 1 (the wild) x 1 ways over 3 reels; B: 1 x 1 x 2 over 3 reels; C is not on reel 1
    assert wins == [(A, 3, 2, 20), (B, 3, 2, 10)]
    assert removed.astype(int).tolist() == [[1, 1, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0], [0, 0, 0]]
    copies[0, 0] = 2                                    # the top A of reel 1 is a double
    assert ways(window, copies)[0][0] == (A, 3, 3, 30)


def test_ways_read_only_each_reels_height_the_padding_below_never_counts():
    window = board("ABB", "AAA", "ACC", "CCC", "CCC")
    window[0, 1:] = window[2, 1:] = -1                  # reels 1 and 3 show one row: their padding is EMPTY
    wins, removed = ways(window, np.ones((5, 3), dtype=np.int64), heights=[1, 3, 1, 3, 3])
    assert wins == [(A, 3, 3, 30)]
    assert removed.astype(int).tolist() == [[1, 0, 0], [1, 1, 1], [1, 0, 0], [0, 0, 0], [0, 0, 0]]


def test_pay_anywhere_counts_cells_wherever_they_are():
    table = np.zeros((5, 8), dtype=np.int64)
    table[A, 5:] = [10, 12, 15]                        # 5, 6, 7+ of A anywhere
    window = board("AAB", "CAC", "BAB", "CCA", "ACA")
    out = np.zeros((5, 3), dtype=np.int64)
    n = anywhere_wins(window, table, out)
    assert [tuple(out[i]) for i in range(n)] == [(A, 7, 15)]


def test_windows_come_from_strip_stops_and_weighted_draws_pick_by_running_totals():
    codes, lens = strip_codes(["ABCW", "SSA"], ALPHA)
    window = np.zeros((2, 3), dtype=np.int64)
    window_from_stops(codes, lens, np.array([3, 2]), 3, window)
    assert window.tolist() == [[W, A, B], [A, S, S]]
    assert count_symbol(window, S) == 2 and reels_with_symbol(window, S) == 1
    cum = np.cumsum(np.array([3, 0, 2]))
    assert [pick_weighted(cum, u) for u in range(5)] == [0, 0, 0, 2, 2]


def test_a_strip_from_counts_holds_each_count_spread_evenly():
    from reelforge.mechanics.reels import strip_from_counts

    assert "".join(strip_from_counts({"A": 2, "B": 4, "C": 2})) == "BACBBACB"
    strip = "".join(strip_from_counts({"W": 1, "S": 2, "C": 8}))
    assert sorted(strip) == sorted("WSS" + "C" * 8) and "SS" not in strip + strip[0]


def test_a_kernel_spin_of_strips_draws_the_stops_the_reference_draws_and_shows_their_window():
    codes, lens = strip_codes(["ABCWSA", "SSA", "AB"], ALPHA)    # a strip shorter than the window wraps twice
    kernel = [np.zeros(3, dtype=np.int64), np.zeros((3, 3), dtype=np.int64)]
    reference = [np.zeros(3, dtype=np.int64), np.zeros((3, 3), dtype=np.int64)]
    st = pcg_state(np.random.Generator(np.random.PCG64(4)))
    draws = SeededDraws(4)
    for _ in range(50):
        spin_reels(st, codes, lens, kernel[0], 3, kernel[1])
        draw_reels(draws, codes, lens, reference[0], 3, reference[1])
        assert kernel[0].tolist() == reference[0].tolist() and kernel[1].tolist() == reference[1].tolist()
        expected = [[codes[r, (kernel[0][r] + k) % lens[r]] for k in range(3)] for r in range(3)]
        assert kernel[1].tolist() == expected


def test_reels_given_as_counts_must_leave_every_reel_a_window_of_stops():
    check = reel_counts_check("reels", 3)
    check({"reels": {"A": [1, 2], "B": [2, 1]}}, At("x.toml"))
    with pytest.raises(BuildError, match=r"x\.toml: 'reels' leaves reel 2 with fewer than 3 stops"):
        check({"reels": {"A": [1, 2], "B": [2, 0]}}, At("x.toml"))
