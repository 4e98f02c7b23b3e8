"""The rules of Gemstones Gold, played on a hand-built board (see scenario.py)."""

from fractions import Fraction

import pytest

from reelforge.core.draws import RecordedDraws
from reelforge.game.contract import RulesError
from reelforge.games.gemstones_gold import rules
from reelforge.games.gemstones_gold.game import GemstonesGold

from .scenario import WIN_COINS, free_draws, paid_draws, scenario_build

GAME = GemstonesGold()


def cascades(events):
    return [e for e in events if e["type"] == "cascade"]


def blockers_of(cascade, value):
    return next(b for b in cascade["blockers"] if b["value"] == value)


def test_worked_unlock_ledger_only_the_fully_revealed_5x_applies():
    # seed: values 5x, 20x, 3x; cascade 1 removes one blocker from 5x and 20x,
    # cascades 2 and 3 only from 5x; at the end only 5x applies.
    build = scenario_build()
    draws = RecordedDraws(paid_draws([(0, 5), (1, 20), (2, 3)]))
    events, win, awarded = rules.play_paid_spin(build, draws)
    assert draws.remaining == 0
    assert [m["value"] for m in events[0]["multiplier_reel"]] == [5, 20, 3]
    assert all(m["blockers"] == 3 for m in events[0]["multiplier_reel"])
    c = cascades(events)
    assert len(c) == 3
    assert [(blockers_of(x, 5)["removed"], blockers_of(x, 20)["removed"], blockers_of(x, 3)["removed"])
            for x in c] == [(1, 1, 0), (1, 0, 0), (1, 0, 0)]
    assert [blockers_of(x, 5)["remaining"] for x in c] == [2, 1, 0]
    assert blockers_of(c[2], 5)["revealed_now"]
    assert blockers_of(c[2], 20)["remaining"] == 2 and blockers_of(c[2], 3)["remaining"] == 3
    result = events[-1]
    assert result["revealed_values"] == [5] and result["multiplier_sum"] == 5
    assert result["win_before_multiplier_x"] == str(Fraction(WIN_COINS, 20))
    assert win == WIN_COINS * 5 and result["win_x"] == str(Fraction(WIN_COINS * 5, 20))
    assert awarded == 0


def test_one_blocker_per_cascade_however_many_winning_symbols():
    build = scenario_build()
    events, _, _ = rules.play_paid_spin(build, RecordedDraws(paid_draws([(0, 5), (1, 20), (2, 3)])))
    first = cascades(events)[0]
    # reel 1 holds 4 winning Pink Stones in cascade 1, yet 5x loses only one blocker
    assert sum(1 for ch in first["board"][0] if ch == "P") == 4
    assert blockers_of(first, 5)["removed"] == 1 and blockers_of(first, 5)["remaining"] == 2


def test_a_win_elsewhere_never_removes_a_blocker_from_an_empty_or_other_lane():
    build = scenario_build()
    # 3x under reel 3 (never holds a winning symbol) keeps all its blockers; the lane under reel 4
    # is advanced by cascades 2 and 3 only.
    events, win, _ = rules.play_paid_spin(build, RecordedDraws(paid_draws([(2, 3), (3, 20), (5, 2)])))
    c = cascades(events)
    assert [blockers_of(x, 3)["remaining"] for x in c] == [3, 3, 3]
    assert [blockers_of(x, 20)["remaining"] for x in c] == [3, 2, 1]
    assert [blockers_of(x, 2)["removed"] for x in c] == [0, 0, 0]
    assert events[-1]["multiplier_sum"] == 0
    assert win == WIN_COINS       # nothing revealed: the win is paid unmultiplied


def test_revealed_values_are_added_25x_not_100x():
    # free spin, 2 blockers each: reel 1 (3 qualifying cascades) and reel 4 (2) reveal 5x and 20x
    build = scenario_build()
    events, win, new_m, awarded = rules.play_free_spin(build, 0, RecordedDraws(free_draws([5, 2, 3, 20, 2, 2])))
    result = events[-1]
    assert sorted(result["revealed_values"]) == [5, 20]
    assert result["multiplier_sum"] == 25 and new_m == 25
    assert win == WIN_COINS * 25
    assert awarded == 0


def test_two_lanes_advance_independently():
    build = scenario_build()
    events, _, _, _ = rules.play_free_spin(build, 0, RecordedDraws(free_draws([5, 2, 3, 20, 2, 2])))
    c = cascades(events)
    lane1 = [next(b for b in x["blockers"] if b["lane"] == 1)["remaining"] for x in c]
    lane4 = [next(b for b in x["blockers"] if b["lane"] == 4)["remaining"] for x in c]
    lane2 = [next(b for b in x["blockers"] if b["lane"] == 2)["remaining"] for x in c]
    assert lane1 == [1, 0, 0] and lane4 == [2, 1, 0] and lane2 == [1, 1, 1]


def test_persistent_total_multiplier_carries_into_the_next_winning_free_spin():
    build = scenario_build()
    events, win, new_m, _ = rules.play_free_spin(build, 40, RecordedDraws(free_draws([5, 2, 3, 20, 2, 2])))
    result = events[-1]
    assert result["total_multiplier_before"] == 40 and result["total_multiplier_after"] == 65
    assert new_m == 65 and win == WIN_COINS * 65


def test_cascade_events_record_wins_with_symbol_count_tier_and_amount():
    build = scenario_build()
    events, _, _ = rules.play_paid_spin(build, RecordedDraws(paid_draws([(0, 5), (1, 20), (2, 3)])))
    c = cascades(events)
    assert [w["symbol"] for x in c for w in x["wins"]] == ["PINK_STONE", "BLUE_STONE", "BRONZE_ORE"]
    assert all(w["count"] == 8 and w["tier"] == 1 for x in c for w in x["wins"])
    assert [x["wins"][0]["amount_x"] for x in c] == ["3/20", "3/20", "1/4"]
    assert [x["columns_with_wins"] for x in c] == [[1, 2], [1, 4], [1, 4]]


def test_bought_feature_reaches_the_cap_pays_exactly_7500x_and_forfeits_the_rest():
    # every free spin shows the scenario board with 500x in every lane: 5x, 20x... here all 500x.
    # Revealed: reels 1 and 4 -> S = 1000 per spin; M = 1000, 2000, ... win 11 coins x M.
    build = scenario_build()
    draws = RecordedDraws(sum((free_draws([500] * 6) for _ in range(10)), []))
    result = GAME.play_round(build, draws, mode="buy")
    assert result.total_win == 7500
    assert len(result.steps) == 5      # 11000 + 22000 + 33000 + 44000 coins, then 55000 passes 150000
    last = result.steps[-1]
    cap = next(e for e in last.events if e["type"] == "cap_reached")
    assert cap["forfeited_spins"] == 5 and cap["win_x"] == "7500"
    assert last.win == Fraction(150000 - 110000, 20)
    assert last.finished
    with pytest.raises(RulesError):
        GAME.play_step(build, last.state, draws)


def test_free_spin_events_show_m_before_and_after_and_spins_remaining():
    build = scenario_build()
    draws = RecordedDraws(sum((free_draws([2] * 6) for _ in range(10)), []))
    result = GAME.play_round(build, draws, mode="buy")
    ms = [next(e for e in s.events if e["type"] == "free_spins_remaining") for s in result.steps]
    assert [m["remaining"] for m in ms] == list(range(9, -1, -1))
    assert [m["total_multiplier_after"] for m in ms] == [4 * (i + 1) for i in range(10)]
    assert [m["total_multiplier_before"] for m in ms] == [4 * i for i in range(10)]
    assert result.total_win == Fraction(sum(WIN_COINS * 4 * (i + 1) for i in range(10)), 20)


def scatter_build(n_scatter_reels: int):
    from reelforge.games.gemstones_gold.build import PUBLISHED_PAYTABLE, parse_build
    strips = ["XGRASE"] * n_scatter_reels + ["GRASEB"] * (6 - n_scatter_reels)
    data = {"game": "gemstones-gold", "name": "sc", "rtp": "0.9671", "feature_buy_price_x": "50",
            "paytable": {k: list(v) for k, v in PUBLISHED_PAYTABLE.items()}, "reels": {"strips": strips},
            "multipliers": {"values": [2, 3], "base_weights": [1, 1], "free_weights": [1, 1]}}
    return parse_build(data, "sc")


def test_three_scatters_award_10_free_spins_and_each_extra_scatter_2_more():
    for reels, spins in ((2, 0), (3, 10), (4, 12), (6, 16)):
        build = scatter_build(reels)
        step = GAME.play_step(build, GAME.start_round(build), RecordedDraws([0] * 6 + [0, 0, 0, 0, 0, 0]))
        awarded = [e for e in step.events if e["type"] == "free_spins_awarded"]
        assert next(e for e in step.events if e["type"] == "spin_result")["scatters"] == reels
        if spins:
            assert awarded[0]["awarded"] == spins and step.state["spins_left"] == spins
            assert not step.finished and step.next_step == "free_spin"
        else:
            assert not awarded and step.finished and step.total_win == 0


def test_two_scatters_in_a_free_spin_award_five_more_every_time():
    build = scatter_build(2)
    _, win, m, awarded = rules.play_free_spin(build, 7, RecordedDraws([0] * 6 + [0] * 6))
    assert awarded == 5 and win == 0 and m == 7          # no win: M unchanged
    build3 = scatter_build(3)
    assert rules.play_free_spin(build3, 0, RecordedDraws([0] * 12))[3] == 5   # always 5, not 5 + extras
