"""Forge of Gems rules, each checked on a constructed board (GAMES.md section 3)."""

from fractions import Fraction

import numpy as np
import pytest

from reelforge.core.draws import RecordedDraws, SeededDraws
from reelforge.game.contract import RulesError
from reelforge.games.forge_of_gems import rules
from reelforge.games.forge_of_gems.build import (
    CAP_X,
    F_HSPLIT,
    F_HWILD,
    F_MULT,
    F_VSPLIT,
    F_VWILD,
    MAX_WAYS,
    NORMAL,
    PAYING,
    load_build,
)
from reelforge.games.forge_of_gems.rules import apply_forge, evaluate

from .helpers import EveryDraw, Scripted, board_draws, cells, forge_draw, target_draw, value_for

BUILD = load_build("96.2")
K, Q, J, A = (PAYING.index(s) for s in ("K", "Q", "J", "A"))


def board(columns):
    return np.array(cells(columns), dtype=np.int64)


def names(b):
    return rules.board_names(b)


# -- ways ----------------------------------------------------------------------------
def test_split_cells_count_their_copies_and_wild_substitutes():
    b = board([["K*2", "Q", "J"], ["WILD", "K", "A"], ["K*3", "A", "Q"], ["Q", "J", "A"], ["TOPAZ"] * 3])
    wins = {NORMAL[w.symbol]: (w.length, w.ways) for w in evaluate(BUILD, b, 1)}
    # K: 2 x (WILD 1 + K 1) x 3 on reels 1-3; Q: 1 x 1 x 1 x 1 on reels 1-4 (WILD on reel 2).
    assert wins == {"K": (3, 12), "Q": (4, 1)}


def test_only_the_longest_match_per_symbol_pays_and_wins_add():
    b = board([["K", "Q", "J"], ["K", "Q", "A"], ["K", "Q", "A"], ["K", "J", "A"], ["TOPAZ"] * 3])
    wins = evaluate(BUILD, b, 1)
    by = {NORMAL[w.symbol]: w for w in wins}
    assert set(by) == {"K", "Q"}
    assert (by["K"].length, by["K"].ways) == (4, 1)
    assert by["K"].units == BUILD.paytable[K][4]
    assert (by["Q"].length, by["Q"].ways) == (3, 1)


def test_ways_made_only_of_wilds_do_not_pay():
    b = board([["WILD", "A", "A"], ["WILD", "A", "J"], ["WILD", "A", "Q"], ["J", "Q", "TOPAZ"], ["TOPAZ"] * 3])
    wins = {NORMAL[w.symbol]: (w.length, w.ways) for w in evaluate(BUILD, b, 1)}
    # K would be WILD x WILD x WILD only: no win. A has (2+1)(1+1)(1+1) = 12 ways minus the 1 all-WILD way.
    assert "K" not in wins
    assert wins["A"] == (3, 11)


def test_scatter_is_not_substituted_and_does_not_pay_on_ways():
    b = board([["SCATTER", "A", "Q"], ["SCATTER", "WILD", "J"], ["SCATTER", "K", "Q"], ["J"] * 3, ["J"] * 3])
    assert all(NORMAL[w.symbol] != "SCATTER" for w in evaluate(BUILD, b, 1))
    assert rules.count_scatters(b) == 3


def test_win_is_paytable_times_ways_times_multiplier():
    b = board([["K*2", "Q", "J"], ["WILD", "K", "A"], ["K*3", "A", "Q"], ["Q", "J", "A"], ["TOPAZ"] * 3])
    k_win = next(w for w in evaluate(BUILD, b, 3) if w.symbol == K)
    assert k_win.units == BUILD.paytable[K][3] * 12 * 3


def test_splitters_reach_exactly_36288_ways_and_the_reel_limits_stop_further_splits():
    """Two Vertical Splitters per reel on an all-DIAMOND board: 3 copies per cell until the limits
    9, 9, 8, 8, 7 stop the splits that would pass them."""
    b = board([["DIAMOND"] * 3] * 5)
    for c in range(5):
        for _ in range(2):
            apply_forge(b, F_VSPLIT, c, 2, PAYING.index("DIAMOND"))
    assert rules.ways_shown(b) == MAX_WAYS == 9 * 9 * 8 * 8 * 7
    assert names(b)[0] == ["DIAMOND*3"] * 3
    assert names(b)[2] == ["DIAMOND*3", "DIAMOND*3", "DIAMOND*2"]
    assert names(b)[4] == ["DIAMOND*3", "DIAMOND*2", "DIAMOND*2"]
    apply_forge(b, F_HSPLIT, 4, 2, PAYING.index("DIAMOND"))   # nothing has room left
    assert rules.ways_shown(b) == MAX_WAYS
    win = evaluate(BUILD, b, 1)
    assert [(NORMAL[w.symbol], w.length) for w in win] == [("DIAMOND", 5)]


def test_first_boards_land_single_even_when_every_draw_is_the_same_symbol():
    values = board_draws(BUILD, [["DIAMOND"] * 3] * 5) + [forge_draw(BUILD.forge_base, "BLANK")] * 5
    events = []
    rules.play_spin(BUILD, Scripted(values), False, 1, 0, events)
    assert events[0]["ways"] == 243 and events[0]["board"] == [["DIAMOND"] * 3] * 5


def _single(board_names: list[list[str]]) -> bool:
    return all("*" not in cell for col in board_names for cell in col)


@pytest.mark.parametrize("free", [False, True])
def test_every_first_board_is_243_ways_and_copies_come_only_from_splitters(free):
    """Seeded spins of every build: every first board holds one copy per cell (243 ways), and a
    spin's boards stay single until a Splitter lands."""
    splits = 0
    for i, name in enumerate(["96.2", "94.2", "91.2", "87.2", "84.2"]):
        build = load_build(name)
        draws = SeededDraws(70 + i)
        for _ in range(300):
            events = []
            rules.play_spin(build, draws, free, 1, 0, events)
            assert events[0]["ways"] == 243 and _single(events[0]["board"])
            splitter_landed = False
            for ev in (e for e in events if e["type"] == "cascade"):
                splitter_landed |= any(x["forge"] in ("VERTICAL_SPLITTER", "HORIZONTAL_SPLITTER")
                                       for x in ev["landings"])
                assert splitter_landed or _single(ev["board"])
                splits += not _single(ev["board"])
    assert splits > 0   # the spins did exercise the Splitters


# -- the FORGE REEL symbols ----------------------------------------------------------
def test_vertical_wild_turns_the_column_wild_except_scatter():
    b = board([["K", "SCATTER", "Q*2"], ["A"] * 3, ["J"] * 3, ["J"] * 3, ["J"] * 3])
    apply_forge(b, F_VWILD, 0, 0, K)
    assert names(b)[0] == ["WILD", "SCATTER", "WILD*2"]
    assert names(b)[1] == ["A"] * 3


def test_horizontal_wild_turns_target_and_matching_symbols_on_its_row_wild():
    b = board([["A", "K", "Q"], ["A", "Q*2", "K"], ["J", "K*3", "A"], ["Q", "J", "K"], ["K", "SCATTER", "A"]])
    apply_forge(b, F_HWILD, 1, 1, Q)   # landed on reel 2 row 2 with target Q
    assert [col[1] for col in names(b)] == ["K", "WILD*2", "K*3", "J", "SCATTER"]
    b = board([["A", "K", "Q"], ["A", "K", "Q"], ["J", "K*3", "A"], ["Q", "J", "K"], ["K", "SCATTER", "A"]])
    apply_forge(b, F_HWILD, 1, 1, K)
    assert [col[1] for col in names(b)] == ["WILD", "WILD", "WILD*3", "J", "SCATTER"]
    assert [col[0] for col in names(b)] == ["A", "A", "J", "Q", "K"]


def test_vertical_splitter_splits_matching_symbols_on_the_reel_up_to_three():
    b = board([["K", "K*3", "Q"], ["A"] * 3, ["J"] * 3, ["J"] * 3, ["J"] * 3])
    apply_forge(b, F_VSPLIT, 0, 0, K)
    assert names(b)[0] == ["K*2", "K*3", "Q"]


def test_vertical_splitter_respects_the_reel_copy_limit():
    b = board([["A"] * 3, ["A"] * 3, ["J"] * 3, ["J"] * 3, ["K*2", "K*2", "K*2"]])
    apply_forge(b, F_VSPLIT, 4, 2, K)   # reel 5 holds at most 7 copies: only the top cell gains
    assert names(b)[4] == ["K*3", "K*2", "K*2"]


def test_horizontal_splitter_is_wild_and_splits_its_row_except_scatter():
    b = board([["A", "K", "Q"], ["A", "Q*3", "K"], ["J", "SCATTER", "A"], ["Q", "J", "K"], ["K", "A*2", "A"]])
    apply_forge(b, F_HSPLIT, 0, 1, K)
    assert [col[1] for col in names(b)] == ["WILD*2", "Q*3", "SCATTER", "J*2", "A*3"]
    assert [col[0] for col in names(b)] == ["A", "A", "J", "Q", "K"]


def test_multiplier_raises_the_win_multiplier_and_blank_does_nothing():
    b = board([["A", "K", "Q"]] * 5)
    before = b.copy()
    assert apply_forge(b, F_MULT, 0, 0, A)[1] == 1
    assert apply_forge(b, rules.F_BLANK, 0, 0, A)[1] == 0
    assert (b == before).all()


# -- a whole cascade, in the documented draw order -------------------------------------
FIRST = [["A", "Q", "K"], ["J", "Q", "K"], ["A", "J", "K"], ["Q", "A", "J"], ["TOPAZ"] * 3]


def cascade_draws(forge: list[str], targets: list[str], table=None) -> list[int]:
    table = table or BUILD.forge_base
    return board_draws(BUILD, FIRST) + [forge_draw(table, f) for f in forge] + [target_draw(BUILD, t) for t in targets]


def test_cascade_removes_winners_lands_forge_symbols_on_their_target_and_applies_them():
    forge = ["HORIZONTAL_WILD", "MULTIPLIER", "VERTICAL_SPLITTER", "BLANK", "BLANK"]
    events = []
    rules.play_spin(BUILD, Scripted(cascade_draws(forge, ["A", "Q", "Q"])), False, 1, 0, events)
    spin, win, cascade = events[0], events[1], next(e for e in events if e["type"] == "cascade")
    assert spin["forge_reel"] == forge and spin["multiplier"] == 1
    assert (win["symbol"], win["length"], win["ways"], win["multiplier"]) == ("K", 3, 1, 1)
    assert win["win_x"] == str(Fraction(BUILD.paytable[K][3], BUILD.unit))
    assert cascade["removed"] == [[1, 3], [2, 3], [3, 3]]
    landings = cascade["landings"]
    assert [(x["column"], x["row"], x["forge"], x["target"]) for x in landings] == [
        (1, 1, "HORIZONTAL_WILD", "A"), (2, 1, "MULTIPLIER", "Q"), (3, 1, "VERTICAL_SPLITTER", "Q")]
    # Reel 1's A landed on the top row and became WILD; no other A on that row.
    assert cascade["board"][:4] == [["WILD", "A", "Q"], ["Q", "J", "Q"], ["Q*2", "A", "J"], ["Q", "A", "J"]]
    assert cascade["multiplier"] == 2
    assert any(e["type"] == "multiplier" and (e["from"], e["to"]) == (1, 2) for e in events)
    # Used FORGE positions redrew; unused ones stayed.
    assert cascade["forge_reel"][3:] == ["BLANK", "BLANK"]


def test_multiplier_applies_to_wins_evaluated_after_it_rose():
    forge = ["HORIZONTAL_WILD", "MULTIPLIER", "VERTICAL_SPLITTER", "BLANK", "BLANK"]
    events = []
    rules.play_spin(BUILD, Scripted(cascade_draws(forge, ["A", "Q", "Q"])), False, 1, 0, events)
    second = [e for e in events if e["type"] == "win"][1:]
    # Board after cascade 1: Q on reels 1-4 with ways (WILD+Q) 2 x 2 x Q*2 2 x 1 = 8, multiplier 2.
    q = next(e for e in second if e["symbol"] == "Q")
    assert (q["length"], q["ways"], q["multiplier"]) == (4, 8, 2)
    assert q["win_x"] == str(Fraction(BUILD.paytable[Q][4] * 8 * 2, BUILD.unit))


def test_forge_scatter_lands_as_a_scatter_without_a_target_draw():
    forge = ["SCATTER", "BLANK", "BLANK", "BLANK", "BLANK"]
    events = []
    rules.play_spin(BUILD, Scripted(cascade_draws(forge, ["A", "A"])), False, 1, 0, events)
    cascade = next(e for e in events if e["type"] == "cascade")
    assert cascade["landings"][0]["target"] is None
    assert cascade["board"][0][0] == "SCATTER"
    assert [x["target"] for x in cascade["landings"][1:]] == ["A", "A"]


# -- GEMBOX, free spins, cap -------------------------------------------------------------
NO_WIN_3_SCATTERS = [["SCATTER", "A", "Q"], ["SCATTER", "K", "J"], ["SCATTER", "TOPAZ", "DIAMOND"],
                     ["A", "K", "Q"], ["J", "A", "K"]]


def paid_with_gembox():
    values = board_draws(BUILD, NO_WIN_3_SCATTERS) + [forge_draw(BUILD.forge_base, "BLANK")] * 5
    return rules.play_step(BUILD, rules.new_state(), RecordedDraws(values))


def test_three_scatters_award_the_gembox_as_a_separate_step():
    step = paid_with_gembox()
    assert not step.finished and step.next_step == "gembox" and step.win == 0
    assert step.state["scatters"] == 3
    with pytest.raises(RulesError):
        rules.play_step(BUILD, step.state, RecordedDraws([0]), "spin")


@pytest.mark.parametrize("index,prize,spins", [(0, 20, 0), (1, 0, 8), (2, 0, 10)])
def test_gembox_reward_is_drawn_from_the_build_weights(index, prize, spins):
    state = paid_with_gembox().state
    step = rules.play_step(BUILD, state, RecordedDraws([value_for(BUILD.gembox[3], index)]), "open")
    reward = next(e for e in step.events if e["type"] == "gembox_reward")
    assert (reward["prize_x"], reward["free_spins"]) == (str(prize), spins)
    assert step.win == prize
    assert step.finished == (spins == 0)
    if spins:
        assert step.state["free_left"] == spins and step.state["multiplier"] == 1


def test_five_scatters_pay_40x_and_10_free_spins():
    state = {**rules.new_state(), "phase": rules.GEMBOX, "scatters": 5}
    step = rules.play_step(BUILD, state, RecordedDraws([value_for(BUILD.gembox[5], 0)]), None)
    assert step.win == 40 and step.state["free_left"] == 10 and step.next_step == "free_spin"


def free_state(multiplier=1, left=3):
    return {**rules.new_state(), "phase": rules.FREE, "free_total": 10, "free_left": left, "multiplier": multiplier}


def test_free_spin_forge_reel_always_shows_a_multiplier():
    ff = BUILD.forge_free
    assert ff.weights[rules.F_BLANK] == 0
    values = board_draws(BUILD, NO_WIN_3_SCATTERS) + [forge_draw(ff, "VERTICAL_WILD")] * 5 + [3]
    step = rules.play_step(BUILD, free_state(), RecordedDraws(values))
    spin = step.events[0]
    assert spin["guaranteed_multiplier_position"] == 3
    assert spin["forge_reel"] == ["VERTICAL_WILD"] * 3 + ["MULTIPLIER", "VERTICAL_WILD"]


def test_no_guarantee_draw_when_a_multiplier_is_already_shown_and_scatters_do_not_retrigger():
    ff = BUILD.forge_free
    values = board_draws(BUILD, NO_WIN_3_SCATTERS) + [forge_draw(ff, "MULTIPLIER")] + [forge_draw(ff, "SCATTER")] * 4
    step = rules.play_step(BUILD, free_state(left=2), RecordedDraws(values))
    assert step.events[0]["guaranteed_multiplier_position"] is None
    assert step.next_step == "free_spin" and step.state["free_left"] == 1
    assert not any(e["type"] == "gembox_awarded" for e in step.events)


def test_the_win_multiplier_carries_over_between_free_spins():
    ff = BUILD.forge_free
    values = board_draws(BUILD, FIRST) + [forge_draw(ff, "MULTIPLIER")] * 5
    step = rules.play_step(BUILD, free_state(multiplier=5), Scripted(values))
    first_win = next(e for e in step.events if e["type"] == "win")
    assert first_win["multiplier"] == 5
    assert first_win["win_x"] == str(Fraction(BUILD.paytable[K][3] * 5, BUILD.unit))
    # Three MULTIPLIER symbols landed in the first cascade (reels 1-3 lost a cell).
    assert step.state["multiplier"] >= 8


def test_last_free_spin_ends_the_round():
    values = board_draws(BUILD, NO_WIN_3_SCATTERS) + [forge_draw(BUILD.forge_free, "MULTIPLIER")] * 5
    step = rules.play_step(BUILD, free_state(left=1), RecordedDraws(values))
    assert step.finished and step.events[-1]["type"] == "round_end"
    with pytest.raises(RulesError):
        rules.play_step(BUILD, step.state, RecordedDraws([]))


@pytest.mark.parametrize("name", ["96.2", "94.2", "91.2", "87.2", "84.2"])
def test_a_constructed_round_reaches_the_cap_and_pays_exactly_20000x(name):
    build = load_build(name)
    # Every cell DIAMOND and every FORGE REEL symbol a Horizontal Splitter: 243 ways first, then each
    # cascade leaves the bottom row WILD*3 (5^5 - 3^5 = 2,882 DIAMOND ways) until the cap stops it.
    draws = EveryDraw(build, "DIAMOND", "DIAMOND", "HORIZONTAL_SPLITTER", build.forge_base)
    step = rules.play_step(build, rules.new_state(), draws)
    assert step.finished and step.total_win == CAP_X == build.cap_x
    spin = step.events[0]
    assert spin["ways"] == 243
    assert [e["ways"] for e in step.events if e["type"] == "win"] == [243] + [2882] * 4
    cap = next(e for e in step.events if e["type"] == "cap")
    assert Fraction(cap["paid_x"]) == CAP_X - Fraction((243 + 3 * 2882) * build.paytable[0][5], build.unit)


def test_cap_during_free_spins_stops_the_round_at_the_cap():
    state = {**free_state(multiplier=1, left=5), "total_units": BUILD.cap_units - 1}
    values = board_draws(BUILD, FIRST) + [forge_draw(BUILD.forge_free, "MULTIPLIER")] * 5
    step = rules.play_step(BUILD, state, Scripted(values))
    assert step.finished and step.total_win == CAP_X and step.win == Fraction(1, BUILD.unit)
