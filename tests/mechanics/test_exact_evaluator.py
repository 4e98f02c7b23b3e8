"""The exact evaluator against brute force on tiny games: every stop combination of three short strips
played by the mechanics' own line and scatter functions; every cell outcome of three weighted cells;
free spins with retriggers and a limit, and hold and respin, against plain recursion in Fractions."""

from collections import Counter
from fractions import Fraction
from itertools import product
from math import prod

import numpy as np

from reelforge.mechanics.enumeration import anywhere_cells, line_spin
from reelforge.mechanics.exact_features import free_spins_feature, hold_and_respin_feature, poly, round_distribution
from reelforge.mechanics.pays import line_wins
from reelforge.mechanics.reels import count_symbol, strip_codes, window_from_stops

W, S = 0, 1   # wild, scatter; 2..4 paying symbols, 5 a blank that pays nothing
STRIPS = ["0234", "2213350", "324155"]
LINES = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]])
PAYS = np.zeros((6, 4), dtype=np.int64)
PAYS[W] = [0, 0, 5, 40]
PAYS[2] = [0, 0, 3, 10]
PAYS[3] = [0, 0, 2, 6]
PAYS[4] = [0, 0, 1, 4]
SCATTER_PAYS = np.array([0, 0, 2, 20])


def _brute_line_spin():
    codes, lens = strip_codes([list(s) for s in STRIPS], list("012345"))
    out = np.zeros((len(LINES), 5), dtype=np.int64)
    window = np.zeros((3, 2), dtype=np.int64)
    got = Counter()
    for stops in product(*(range(n) for n in lens)):
        window_from_stops(codes, lens, np.array(stops), 2, window)
        n = line_wins(window, LINES, PAYS, W, False, out)
        stars = count_symbol(window, S)
        got[(int(out[:n, 3].sum() + SCATTER_PAYS[min(stars, 3)]), min(stars, 3))] += 1
    return codes, lens, got


def test_every_stop_combination_counted_as_brute_force_plays_it():
    codes, lens, want = _brute_line_spin()
    w = line_spin(codes, lens, 2, LINES, PAYS, W, S, SCATTER_PAYS, max_count=3)
    got = {(int(win), int(s)): int(w[win, s]) for win, s in zip(*w.nonzero(), strict=True)}
    assert got == dict(want) and w.sum() == prod(lens)


def test_weighted_cells_paying_anywhere_as_brute_force_over_every_outcome():
    weights = {"b": 3, "r": 2, "j": 1, "c": 4}
    pays = {"r": [5, 9], "j": [7]}          # 2 of r pay 5, 3 or more 9; 2 or more j pay 7
    want = Counter()
    for cells in product(weights, repeat=4):
        n = Counter(cells)
        win = sum(p[min(n[s] - 2, len(p) - 1)] for s, p in pays.items() if n[s] >= 2)
        want[(win, n["c"])] += prod(weights[c] for c in cells)
    assert anywhere_cells(4, weights, pays, 2, "c") == dict(want)


def _free_spins_brute(spin, limit, left, room):
    """Win distribution (Fractions) of free spins from (left, room), by plain recursion over every outcome."""
    if left == 0:
        return {0: Fraction(1)}
    out = Counter()
    total = sum(w for _, _, w in spin)
    for win, award, w in spin:
        a = min(award, room)
        for rest, p in _free_spins_brute(spin, limit, left - 1 + a, room - a).items():
            out[win + rest] += Fraction(w, total) * p
    return out


def test_free_spins_chain_with_retriggers_up_to_the_limit_as_plain_recursion():
    spin = [(0, 0, 5), (1, 0, 3), (4, 2, 1), (2, 3, 1)]      # (win, spins awarded, weight)
    classes = {}
    for win, award, w in spin:
        classes.setdefault(award, Counter())[win] += w
    L, limit = 10, 6
    got = free_spins_feature([(poly(dict(c)), a) for a, c in classes.items()], limit, [2, 3], 100)
    for start in (2, 3):
        want = _free_spins_brute(spin, limit, start, limit - start)
        coeffs = got[start].coeffs()
        assert {i: Fraction(int(c), L ** limit) for i, c in enumerate(coeffs) if c} == dict(want)


def test_a_round_stops_at_the_cap_and_splits_its_rtp():
    paid = {0: poly({0: 6, 3: 2}), 2: poly({1: 2})}            # weights over 10: 2 of them start 2 free spins
    features = {2: poly({0: 16, 5: 8, 10: 1})}                 # two spins paying 0 or 5 (weights 4, 1): over 25
    d = round_distribution(paid, features, 25, 2, 18)           # free-spin wins doubled, the round capped at 18
    assert d.total == 250 and d.weights == {0: 150, 3: 50, 1: 32, 11: 16, 18: 2}
    assert Fraction(*d.paid_mean_units) == Fraction(8, 10) and d.feature_weight == 50


def _respin_brute(cells, held, left, respins, blank, coins, grand):
    if held == cells:
        return {grand: Fraction(1)}
    if left == 0:
        return {0: Fraction(1)}
    outcomes = [(0, blank)] + list(coins.items())
    total = sum(w for _, w in outcomes)
    out = Counter()
    for draw in product(outcomes, repeat=cells - held):
        p = prod(Fraction(w, total) for _, w in draw)
        landed = [v for v, _ in draw if v]
        after = _respin_brute(cells, held + len(landed), respins if landed else left - 1, respins, blank, coins, grand)
        for rest, q in after.items():
            out[sum(landed) + rest] += p * q
    return out


def test_hold_and_respin_chain_as_plain_recursion_over_every_respin():
    coins, grand = {1: 2, 3: 1}, 20
    got = hold_and_respin_feature(4, 2, 5, coins, grand, 100)
    for held in (1, 2, 3):
        want = _respin_brute(4, held, 2, 2, 5, coins, grand)
        coeffs = got[held].coeffs()
        assert {i: Fraction(int(c.p), int(c.q)) for i, c in enumerate(coeffs) if c} == dict(want)
