"""7,500x is reachable in the shipped build: a constructed bought feature plays to the cap."""

from fractions import Fraction

import numpy as np

from reelforge.core.draws import RecordedDraws
from reelforge.games.gemstones_gold import rules
from reelforge.games.gemstones_gold.build import FREE_BLOCKERS, load_build
from reelforge.games.gemstones_gold.game import GemstonesGold


def find_free_spin_board(build, min_product: int):
    """Stops whose free spin wins W coins revealing m lanes with W * m >= min_product, no retrigger."""
    rng = np.random.default_rng(0)
    for _ in range(100_000):
        stops = [int(rng.integers(len(s))) for s in build.strips]
        spin = rules.Spin(build, stops, {lane: 500 for lane in range(6)}, FREE_BLOCKERS)
        spin.run()
        m = len(spin.revealed())
        if spin.win_coins * m >= min_product and spin.scatters() < 2:
            return stops, spin.win_coins, m
    raise AssertionError("no such board")


def test_a_bought_feature_with_500x_values_reaches_7500x_and_stops():
    build = load_build("96.71")
    assert build.free_weights[build.values.index(500)] > 0   # 500x can appear in free spins
    stops, w, m = find_free_spin_board(build, 6)
    idx = build.values.index(500)
    # value draw: the first draw in [cum(500) - weight(500), cum(500)) maps to 500
    draw_500 = sum(build.free_weights[:idx])
    spin_draws = stops + [draw_500] * 6
    draws = RecordedDraws(spin_draws * 10)
    result = GemstonesGold().play_round(build, draws, mode="buy")
    # spin t pays W * 500 m t coins; the total passes 150000 coins within 10 spins when W m >= 6
    assert result.total_win == 7500
    assert any(e["type"] == "cap_reached" for e in result.steps[-1].events)
    paid_before = sum(s.win for s in result.steps[:-1])
    assert paid_before < 7500 and result.steps[-1].win == Fraction(7500) - paid_before
