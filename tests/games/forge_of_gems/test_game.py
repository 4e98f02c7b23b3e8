"""Forge of Gems through the common game interface: steps, replay, help, summary figures."""

import json
from fractions import Fraction

import pytest

from reelforge.core.draws import DrawError, SeededDraws
from reelforge.game.contract import RulesError
from reelforge.games.registry import get_game

GAME = get_game("forge-of-gems")
BUILD = GAME.load_build("96.2")


def feature_round(seed=0, limit=20000):
    draws = SeededDraws(seed)
    for _ in range(limit):
        r = GAME.play_round(BUILD, draws)
        if any(s.kind == "free_spin" for s in r.steps):
            return r
    raise AssertionError("no feature round in the limit")


def test_rounds_replay_from_their_recorded_draws_to_identical_events():
    draws = SeededDraws(3)
    for _ in range(200):
        r = GAME.play_round(BUILD, draws)
        again = GAME.replay(BUILD, "paid", r.draws)
        assert [s.events for s in again.steps] == [s.events for s in r.steps]
        assert again.total_win == r.total_win
    r = feature_round()
    actions = [("open" if s.kind == "gembox" else None) for s in r.steps]
    again = GAME.replay(BUILD, "paid", r.draws, actions)
    assert [s.events for s in again.steps] == [s.events for s in r.steps]
    assert [s.kind for s in r.steps][:2] == ["paid_spin", "gembox"]


def test_feature_round_steps_are_json_and_add_up():
    r = feature_round(1)
    json.dumps([s.events for s in r.steps])
    json.dumps([s.state for s in r.steps])
    assert sum(s.win for s in r.steps) == r.total_win
    spins = [s for s in r.steps if s.kind == "free_spin"]
    assert len(spins) == r.steps[1].state["free_total"] or r.total_win == BUILD.cap_x
    remaining = [next(e for e in s.events if e["type"] == "free_spins_remaining")["remaining"] for s in spins]
    assert remaining == list(range(len(spins) - 1, -1, -1)) or r.total_win == BUILD.cap_x
    multipliers = [s.state["multiplier"] for s in spins]
    assert multipliers == sorted(multipliers)  # never resets in the feature


def test_replay_rejects_tampered_draws():
    r = feature_round(2)
    bad = [list(d) for d in r.draws]
    bad[0] = bad[0][:-1]
    with pytest.raises((DrawError, RulesError)):
        GAME.replay(BUILD, "paid", bad)


def test_help_and_modes():
    h = GAME.help(BUILD)
    assert h.game == "forge-of-gems" and h.game_id == GAME.reference_id and h.published_id is None
    assert h.extra["max_ways"] == 36288 and h.max_win_x == 20000
    assert set(h.extra["paytable_x_per_way"]) == {"DIAMOND", "EMERALD", "SAPPHIRE", "TOPAZ", "A", "K", "Q", "J"}
    # the build file states its name's RTP; the help shows the proven one: the certified interval's centre
    # (certify --record), the interval inside +-0.05 pp of the name
    assert BUILD.rtp == Fraction(BUILD.name) / 100
    proof = h.to_json()["rtp_proof"]
    assert proof["method"] == "certified" and h.rtp == Fraction(proof["rtp"]) and proof["confidence"] == 0.99
    low, high = (Fraction(x) for x in proof["interval"])
    assert BUILD.rtp - Fraction(5, 10000) <= low < h.rtp < high <= BUILD.rtp + Fraction(5, 10000)
    with pytest.raises(RulesError):
        GAME.start_round(BUILD, "buy")


def test_extra_summary_reports_gembox_rewards_and_free_spin_frequency():
    acc = GAME.simulate_chunk(BUILD, 200_000, 5)
    extra = GAME.extra_summary(BUILD, acc)
    g3 = extra["gembox"]["3"]
    assert g3["awarded"]["count"] == sum(r["count"] for r in g3["rewards"].values()) > 0
    assert extra["free_spins"]["triggers"]["count"] > 0
    assert 0 < extra["paid_spin_hit_rate"] < 1
    assert abs(sum(extra["first_board_ways"].values()) - 1) < 1e-12
    json.dumps(extra)


def test_tune_accepts_only_an_rtp_target():
    with pytest.raises(ValueError, match="tunes only 'rtp'"):
        GAME.tune("96.2", {"sd": 40.0})
