import numpy as np

from reelforge.mechanics.tumble import EMPTY, collapse_board, collapse_board_nb, collapse_column


def test_survivors_fall_in_order_and_empties_gather_on_top():
    col = np.array([1, 2, 3, 4, 5, 6])
    removed = np.array([False, True, False, False, True, False])
    assert collapse_column(col, removed) == 2
    assert col.tolist() == [EMPTY, EMPTY, 1, 3, 4, 6]


def test_numba_twin_matches_python():
    rng = np.random.default_rng(7)
    for _ in range(50):
        board = rng.integers(0, 9, size=(6, 6))
        removed = rng.random((6, 6)) < 0.3
        a, b = board.copy(), board.copy()
        ea = collapse_board(a, removed)
        eb = collapse_board_nb(b, removed)
        assert ea.tolist() == eb.tolist()
        assert a.tolist() == b.tolist()
