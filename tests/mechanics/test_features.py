"""Rules-style tests of clusters, cascades, free spins, the cap, multipliers and hold-and-respin."""

import numpy as np

from reelforge.mechanics.cascade import clear_and_fall, refill_from_strips, refill_from_weights
from reelforge.mechanics.clusters import cluster_wins
from reelforge.mechanics.features import add_spins, by_count, cap_events, capped, cell_multiplier, spins_for
from reelforge.mechanics.holdspin import board_full, collect, empty_cells, land_coins, respins_after
from reelforge.mechanics.tumble import EMPTY

A, B, C, W = range(4)


def board(*reels: str) -> np.ndarray:
    return np.array([["ABCW".index(ch) for ch in reel] for reel in reels], dtype=np.int64)


def clusters(window, min_size=4):
    pays = np.zeros((4, 8), dtype=np.int64)
    pays[A, 4:] = [5, 6, 7, 10]
    pays[B, 4:] = [2, 3, 4, 5]
    removed = np.zeros(window.shape, dtype=np.bool_)
    out = np.zeros((16, 3), dtype=np.int64)
    n = cluster_wins(window, pays, W, min_size, removed, out)
    return [tuple(int(v) for v in out[i]) for i in range(n)], removed


def test_clusters_join_side_by_side_cells_and_a_wild_joins_clusters_of_two_symbols():
    window = board("AAC", "CWB", "CAB", "CCB")
    wins, removed = clusters(window)
    # A: (0,0) (0,1) the wild (1,1) (2,1) = 4; B: (1,2) (2,2) (3,2) + the wild (1,1) = 4
    assert wins == [(A, 4, 5), (B, 4, 2)]
    assert removed.tolist() == [[True, True, False], [False, True, True], [False, True, True], [False, False, True]]


def test_diagonals_do_not_join_and_small_clusters_pay_nothing():
    window = board("ACA", "CAC", "ACA", "CAC")
    assert clusters(window)[0] == []
    assert clusters(board("AAA", "ACC", "CCC", "CCC"))[0] == [(A, 4, 5)]


def test_a_cascade_clears_winners_lets_the_rest_fall_and_refills_from_the_strip_above():
    window = board("AAC", "CWB", "CAB", "CCB")
    _, removed = clusters(window)
    empties = clear_and_fall(window, removed)
    assert empties.tolist() == [2, 2, 2, 1]
    assert window[0].tolist() == [EMPTY, EMPTY, C] and window[1].tolist() == [EMPTY, EMPTY, C]
    codes = np.array([[A, B, C, C, C]] * 4, dtype=np.int64)
    tops = np.array([2, 2, 2, 2])
    refill_from_strips(window, empties, codes, np.array([5, 5, 5, 5]), tops)
    assert window[0].tolist() == [A, B, C] and tops.tolist() == [0, 0, 0, 1]
    weighted = board("ABC")
    weighted[0, :2] = EMPTY
    refill_from_weights(weighted, np.array([2]), np.cumsum(np.array([[1, 1, 0, 0]]), axis=1), np.array([1, 0]))
    assert weighted[0].tolist() == [B, A, C]


def test_free_spins_award_by_count_retrigger_within_the_limit():
    awards = np.array([0, 0, 0, 10, 15, 20])
    assert [spins_for(n, awards) for n in (2, 3, 5, 9)] == [0, 10, 20, 20]
    assert add_spins(0, 0, 10, 0) == 10
    assert add_spins(4, 6, 10, 0) == 14           # a retrigger adds
    assert add_spins(4, 6, 10, 15) == 9            # the limit of 15 spins in all: 6 played + 9
    assert add_spins(9, 6, 10, 15) == 9


def test_the_cap_ends_the_round_and_forfeits_the_rest():
    assert capped(0, 30, 100) == (30, False)
    assert capped(90, 30, 100) == (10, True)
    assert capped(90, 10, 100) == (10, True)


def test_cell_multipliers_add_or_multiply_over_the_winning_cells():
    cells = np.array([[True, False], [True, True]])
    mults = np.array([[2, 5], [1, 3]])
    assert cell_multiplier(cells, mults, True) == 5 and cell_multiplier(cells, mults, False) == 6
    assert cell_multiplier(np.zeros((2, 2), dtype=np.bool_), mults, True) == 1


def test_hold_and_respin_coins_stick_a_new_coin_resets_the_respins_a_full_board_ends():
    values = np.array([[5, 0], [0, 0]], dtype=np.int64)
    cum = np.cumsum(np.array([6, 3, 1]))                 # empty 6, coin 1 (value 2) 3, coin 2 (value 50) 1
    prizes = np.array([0, 2, 50])
    assert empty_cells(values) == 3
    assert land_coins(values, cum, prizes, np.array([0, 7, 9])) == 2   # empty, a 2, a 50
    assert values.tolist() == [[5, 0], [2, 50]]
    assert respins_after(1, 2, 3) == 3 and respins_after(3, 0, 3) == 2
    assert not board_full(values)
    assert land_coins(values, cum, prizes, np.array([8])) == 1 and board_full(values)
    assert collect(values) == 59


def test_by_count_reads_a_count_beyond_the_table_as_its_last_entry():
    table = np.array([0, 0, 0, 5, 20, 100])
    assert [int(by_count(n, table)) for n in (0, 2, 3, 5, 9)] == [0, 0, 5, 100, 100]


def test_cap_events_name_the_cap_only_when_the_round_reached_it():
    assert cap_events(20_000, 20_000, 10) == [{"type": "cap", "cap_x": "2000"}]
    assert cap_events(19_999, 20_000, 10) == []
