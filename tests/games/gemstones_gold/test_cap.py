"""7,500x is reachable in the shipped build: the game's constructed bought feature (max_win_round) plays to the
cap and stops there."""

from fractions import Fraction

from reelforge.games.gemstones_gold.build import load_build
from reelforge.games.gemstones_gold.game import GemstonesGold


def test_a_bought_feature_with_500x_values_reaches_7500x_and_stops():
    game = GemstonesGold()
    build = load_build("96.71")
    assert build.free_weights[build.values.index(500)] > 0   # 500x can appear in free spins
    mode, draws = game.max_win_round(build)
    # every free spin the same board, the value draw picking 500x on all six lanes
    value_draw = sum(build.free_weights[:build.values.index(500)])
    assert mode == "buy" and all(step[-6:] == [value_draw] * 6 for step in draws)
    result = game.replay(build, "buy", draws)
    assert result.total_win == 7500
    assert any(e["type"] == "cap_reached" for e in result.steps[-1].events)
    paid_before = sum(s.win for s in result.steps[:-1])
    assert paid_before < 7500 and result.steps[-1].win == Fraction(7500) - paid_before
    found = game.max_win(build)
    assert (found.x, found.method, found.mode) == (7500, "constructed round", "buy")
