"""The delete-a-piece jackknife behind a stratified estimate's SD interval (reelforge.analysis.jackknife): exact
algebra on small made-up pieces, no simulation (the coverage of its intervals is measured in
bench/interval_coverage.py)."""

import math

import pytest

from reelforge.analysis.jackknife import MIN_PIECES, leave_one_out, piece_interval, t99, weighted_jackknife


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def test_leave_one_out_merges_every_piece_but_one_in_order():
    pieces = [[1], [2, 2], [3], [4, 4, 4]]
    assert leave_one_out(pieces, lambda a, b: a + b) == [[2, 2, 3, 4, 4, 4], [1, 3, 4, 4, 4], [1, 2, 2, 4, 4, 4],
                                                          [1, 2, 2, 3]]
    with pytest.raises(ValueError):
        leave_one_out([[1]], lambda a, b: a + b)


def test_the_weighted_jackknife_of_a_mean_averages_each_pieces_own_spread_whatever_its_size():
    # pieces of unequal size, as a certification run grows them: for a mean, each piece's pseudo-value is its own
    # mean, and V = (1/g) sum_j m_j / (n - m_j) (mean_j - mean)^2
    pieces = [[3.0, 5.0], [1.0, 2.0, 9.0, 4.0], [7.0], [0.0, 2.0, 2.0, 8.0, 1.0, 6.0, 3.0, 4.0]]
    everything = [v for p in pieces for v in p]
    full = _mean(everything)
    without = [_mean(p) for p in leave_one_out(pieces, lambda a, b: a + b)]
    sizes = [len(p) for p in pieces]
    n, g = len(everything), len(pieces)
    expected = sum(m / (n - m) * (_mean(p) - full) ** 2 for m, p in zip(sizes, pieces)) / g
    assert weighted_jackknife(full, without, sizes) == pytest.approx(expected, rel=1e-12)
    # equal pieces: the textbook delete-a-group jackknife (g - 1)/g sum (T_j - mean T_j)^2
    equal = [[1.0, 4.0], [2.0, 2.0], [9.0, 3.0], [5.0, 0.0]]
    t = [_mean(p) for p in leave_one_out(equal, lambda a, b: a + b)]
    textbook = (len(t) - 1) / len(t) * sum((x - _mean(t)) ** 2 for x in t)
    assert weighted_jackknife(_mean([v for p in equal for v in p]), t, [2] * 4) == pytest.approx(textbook, rel=1e-12)


def test_the_interval_is_students_t_on_pieces_less_one_and_needs_three_pieces():
    assert t99(9) == pytest.approx(3.2498355, rel=1e-6) and t99(10_000) == pytest.approx(2.5758, rel=1e-3)
    found = piece_interval(10.0, [9.0, 11.0, 10.5, 9.5], [5, 5, 5, 5])
    half = t99(3) * math.sqrt(weighted_jackknife(10.0, [9.0, 11.0, 10.5, 9.5], [5, 5, 5, 5]))
    assert found["df"] == 3 and found["ci99"] == pytest.approx([10.0 - half, 10.0 + half])
    assert MIN_PIECES == 3 and piece_interval(10.0, [9.0, 11.0], [5, 5]) is None
