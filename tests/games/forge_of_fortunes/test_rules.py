"""Forge of Fortunes rules, played on constructed strips with chosen stops.

Every strip below is "GS-" (stop 0 GOLD, 1 SLAG, 2 blank) on reels 1-2 and
"GS-C" on feature reel 3 (stop 3 COAL), so a recorded draw picks a symbol.
"""


import pytest

from reelforge.core.draws import RecordedDraws
from reelforge.game.contract import BuildError
from reelforge.games.forge_of_fortunes.build import REFERENCE_LADDER, REFERENCE_SAFE, parse_build
from reelforge.games.forge_of_fortunes.game import ForgeOfFortunes

G, S, B, C = 0, 1, 2, 3
GAME = ForgeOfFortunes()


def make_build(**over):
    data = {
        "game": "forge-of-fortunes", "name": "t", "rtp": "0.9", "coins": 10, "two_of_a_kind_coins": 10,
        "ladder": list(REFERENCE_LADDER), "safe": list(REFERENCE_SAFE),
        "base": {"reels": ["GS-", "GS-", "GS-"]},
        "feature": {"sets": {"all": {"reels": ["GS-", "GS-", "GS-C"]}}, "runner_sets": ["all"] * 14},
    }
    data.update(over)
    return parse_build(data, "t")


BUILD = make_build()


def play(stops_per_step, build=BUILD):
    flat = [s for step in stops_per_step for s in step]
    draws = RecordedDraws(flat)
    state = GAME.start_round(build)
    steps = []
    while True:
        step = GAME.play_step(build, state, draws)
        steps.append(step)
        if step.finished:
            assert draws.remaining == 0
            return steps
        state = step.state


def moves(steps):
    return [e["move"] for s in steps for e in s.events if e["type"] == "ladder"]


def test_two_gold_on_reels_1_and_2_pay_one_times_total_bet():
    steps = play([[G, G, B]])
    assert steps[-1].total_win == 1
    assert any(e["type"] == "win" and e["combination"] == "two_of_a_kind" for e in steps[0].events)


@pytest.mark.parametrize("stops", [[G, B, G], [B, G, G], [G, S, G], [S, S, S], [G, B, B]])
def test_other_lines_pay_nothing(stops):
    steps = play([stops])
    assert steps[-1].total_win == 0 and steps[-1].finished


def test_three_gold_trigger_then_slag_pays_the_first_runner():
    steps = play([[G, G, G], [B, S, B]])
    assert steps[0].next_step == "respin" and steps[0].win == 0
    assert moves(steps) == ["slag_end"]
    assert steps[-1].total_win == 2


def test_advance_advance_then_slag_pays_5x():
    steps = play([[G, G, G], [G, G, G], [G, G, G], [S, G, G]])
    assert moves(steps) == ["advance", "advance", "slag_end"]
    assert steps[-1].total_win == 5


def test_coal_moves_back_only_off_safe_runners_and_award_is_last_reached():
    # 2x -> 3x, coal back to 2x (3x unsafe), coal on 2x (safe) stays, up to 3x, 5x, 8x, coal back to 5x? no:
    # 8x is unsafe, so coal takes it to 5x; then slag pays 5x although 8x was visited.
    steps = play([[G, G, G], [G, G, G], [B, B, C], [B, B, C], [G, G, G], [G, G, G], [G, G, G], [G, B, C],
                  [B, B, S]])
    assert moves(steps) == ["advance", "coal_back", "coal_safe", "advance", "advance", "advance", "coal_back",
                            "slag_end"]
    assert steps[-1].total_win == 5


def test_slag_beats_three_gold_and_coal():
    steps = play([[G, G, G], [S, G, C]])
    assert moves(steps) == ["slag_end"]


def test_nothing_changes_on_a_blank_respin():
    steps = play([[G, G, G], [B, G, B], [G, G, S]])
    assert moves(steps) == ["nothing", "slag_end"]
    assert steps[-1].total_win == 2


def test_reaching_the_top_ends_the_feature_paying_2500x():
    steps = play([[G, G, G]] + [[G, G, G]] * 14)
    assert moves(steps)[-1] == "top_reached"
    assert steps[-1].total_win == 2500 and steps[-1].finished


@pytest.mark.parametrize("over, message", [
    ({"base": {"reels": ["GS-", "GSC", "GS-"]}}, "not allowed"),
    ({"feature": {"sets": {"a": {"reels": ["GC-", "GS-", "GS-"]}}, "runner_sets": ["a"] * 14}}, "not allowed"),
    ({"feature": {"sets": {"a": {"reels": ["GS-", "GS-", "GS-"]}}, "runner_sets": ["a"] * 13}}, "14 entries"),
    ({"feature": {"sets": {"a": {"reels": ["GS-", "GS-", "GS-"]}}, "runner_sets": ["b"] * 14}}, "unknown strip"),
    ({"ladder": [2, 3, 3]}, "increasing"),
    ({"safe": [3]}, "first and the top runner must be safe"),
    ({"base": {"reels": ["S-", "GS-", "GS-"]}}, "no GOLD"),
])
def test_invalid_builds_are_refused_with_a_clear_message(over, message):
    with pytest.raises(BuildError, match=message):
        make_build(**over)



def test_a_spin_reads_the_strip_codes_without_numpy(monkeypatch):
    """The server plays these rules a spin at a time, where numpy array calls (and a numba call) cost more
    than the spin itself (issue 33): a spin reads the kernel's strip codes as lists."""
    import numpy as np

    play([[G, G, B]])  # the build's tables, made once (with numpy)

    def refused(*args, **kwargs):
        raise AssertionError("a spin called numpy")

    monkeypatch.setattr(np, "array", refused)
    monkeypatch.setattr(np, "zeros", refused)
    steps = play([[G, G, G], [G, G, G], [B, B, C], [S, B, B]])
    assert moves(steps) == ["advance", "coal_back", "slag_end"]  # runner 1 is not safe: back to 0
    assert [e["symbols"] for e in steps[0].events if e["type"] == "reels"] == [["GOLD", "GOLD", "GOLD"]]
