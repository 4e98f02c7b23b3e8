"""Responsible-play limits the server enforces whatever the client (issue 20, findings 3 and 4): the stake
limit with feature buys included, the reality check and the session time limit refused at round start
until acknowledged, and the jurisdiction profiles; on both back ends."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from reelforge.core.draws import SeededDraws
from reelforge.games.registry import get_game
from reelforge.server.config import load_config, parse_config
from reelforge.server.config_play import PROFILES, PlayRules
from reelforge.server.config_values import ConfigError
from reelforge.server.schema import players, rounds, sessions

from .conftest import demo_config

GEMS = "gemstones-gold"
FOF = "forge-of-fortunes"


def _rounds(server) -> int:
    with server.engine.connect() as conn:
        return len(conn.execute(select(rounds.c.id)).all())


def _age_session(server, player, minutes: float) -> None:
    """Move the player's sessions' and play session's start (and acknowledgements) ``minutes`` into the past."""
    with server.engine.begin() as conn:
        for token_sha, created, checked in conn.execute(select(sessions.c.token_sha256, sessions.c.created_at,
                                                               sessions.c.reality_checked_at)).all():
            conn.execute(update(sessions).where(sessions.c.token_sha256 == token_sha).values(
                created_at=created - timedelta(minutes=minutes),
                reality_checked_at=None if checked is None else checked - timedelta(minutes=minutes)))
        # the play session's clocks are the player's (kept across sessions): they move with it
        for player_id, started, checked in conn.execute(select(players.c.id, players.c.play_started_at,
                                                               players.c.play_checked_at)).all():
            conn.execute(update(players).where(players.c.id == player_id).values(
                play_started_at=None if started is None else started - timedelta(minutes=minutes),
                play_checked_at=None if checked is None else checked - timedelta(minutes=minutes)))


def test_a_feature_buy_costing_more_than_max_stake_is_refused_and_changes_nothing(make_server):
    server = make_server(demo_config(play=PlayRules(max_bet=10000)))  # max_stake unset: max_bet limits the stake
    player = server.session("buyer")
    price = get_game(GEMS).feature_buy_price_x(server.service.games[GEMS].build)
    top = max(server.config.games[GEMS].bet_ladder)
    assert top * price > 10000  # the finding: 56.1 x max_bet was accepted
    balance = player.balance()
    r = server.client.post(f"/api/v1/games/{GEMS}/rounds", json={"bet": top, "buy_feature": True},
                           headers=player.key())
    assert r.status_code == 422 and r.json()["error"] == "stake_above_maximum", r.text
    detail = r.json()["detail"]
    assert "10000" in detail and str(int(top * price)) in detail and "highest bet" in detail
    assert player.balance() == balance and _rounds(server) == 0
    # The highest bet the detail names is accepted, and a paid round at the top bet is too.
    highest = max(b for b in server.config.games[GEMS].bet_ladder if b * price <= 10000)
    assert f"is offered at is {highest}" in detail
    server.draws.source = SeededDraws(3)
    player.finish(player.start(GEMS, highest, buy_feature=True))
    player.finish(player.start(GEMS, top))


def test_max_stake_separately_from_max_bet_caps_the_ladder_and_the_buys(make_server):
    data = {"server": {"mode": "demo", "expiry_check_seconds": 0},
            "responsible_play": {"max_bet": 2000, "max_stake": 1000},
            "games": {GEMS: {"bet_ladder": [20, 200, 1000, 2000]}}}
    config = parse_config(data)
    assert config.games[GEMS].bet_ladder == (20, 200, 1000)  # a paid round's stake is the bet
    assert config.play.public()["max_stake"] == 1000
    server = make_server(config)
    player = server.session("capped")
    r = server.client.post(f"/api/v1/games/{GEMS}/rounds", json={"bet": 200, "buy_feature": True},
                           headers=player.key())
    assert r.status_code == 422 and r.json()["error"] == "stake_above_maximum"


def test_a_due_reality_check_refuses_round_starts_until_acknowledged(make_server):
    server = make_server(demo_config(play=PlayRules(reality_check_minutes=30)))
    player = server.session("checked")
    bet = server.config.games[FOF].bet_ladder[0]
    state = player.get("/api/v1/reality-check").json()
    assert state["due"] is False and state["elapsed_seconds"] >= 0 and state["net_position"] == 0
    assert state["next_due_at"] > state["session_started_at"]
    server.draws.source = SeededDraws(next(s for s in range(5000) if len(
        get_game(FOF).play_round(server.service.games[FOF].build, SeededDraws(s)).steps) > 1))
    open_round = player.start(FOF, bet, key="first-start")
    assert open_round["status"] == "open"
    _age_session(server, player, 31)
    state = player.get("/api/v1/reality-check").json()
    assert state["due"] is True and state["elapsed_seconds"] >= 31 * 60
    balance, before = player.balance(), _rounds(server)
    key = player.key()
    r = server.client.post(f"/api/v1/games/{GEMS}/rounds", json={"bet": 20}, headers=key)
    assert r.status_code == 409 and r.json()["error"] == "reality_check_due", r.text
    assert "POST /api/v1/reality-check" in r.json()["detail"]
    assert player.balance() == balance and _rounds(server) == before
    # A retry of an earlier start still gets its first answer; a round already started plays on.
    assert player.start(FOF, bet, key="first-start")["id"] == open_round["id"]
    player.finish(open_round)
    # Acknowledged: the next check is due reality_check_minutes from now, and play goes on.
    acked = server.client.post("/api/v1/reality-check", headers=player.headers)
    assert acked.status_code == 200 and acked.json()["due"] is False
    assert set(acked.json()) >= {"due", "session_started_at", "next_due_at", "elapsed_seconds", "net_position"}
    assert server.client.post(f"/api/v1/games/{GEMS}/rounds", json={"bet": 20}, headers=key).status_code == 201
    assert server.client.get("/api/v1/reality-check").status_code == 401


def test_the_session_time_limit_refuses_round_starts(make_server):
    server = make_server(demo_config(play=PlayRules(session_limit_minutes=60)))
    player = server.session("limited")
    bet = server.config.games[FOF].bet_ladder[0]
    player.finish(player.start(FOF, bet))
    state = player.get("/api/v1/reality-check").json()
    assert state["next_due_at"] is None and state["session_ends_at"] is not None
    _age_session(server, player, 61)
    r = server.client.post(f"/api/v1/games/{FOF}/rounds", json={"bet": bet}, headers=player.key())
    assert r.status_code == 409 and r.json()["error"] == "session_limit_reached" and "60 minutes" in r.json()["detail"]
    # Acknowledging a reality check does not lift it, nor does a new session (issue 32: the limit is the
    # player's); a new session after the break (session_break_minutes, 30 by default) starts a new play session.
    server.client.post("/api/v1/reality-check", headers=player.headers)
    assert server.client.post(f"/api/v1/games/{FOF}/rounds", json={"bet": bet},
                              headers=player.key()).status_code == 409
    fresh = server.session("limited")
    fresh.start(FOF, bet, expect=409)
    _age_session(server, player, 30)
    fresh = server.session("limited")
    fresh.finish(fresh.start(FOF, bet))


def test_profiles_set_the_jurisdiction_rules_and_keys_override_them(make_server):
    base = {"server": {"mode": "demo", "expiry_check_seconds": 0}, "games": {FOF: {"bet_ladder": [10, 20]}}}
    uk = parse_config({**base, "responsible_play": {"profile": "uk"}}).play
    assert (uk.turbo, uk.autoplay, uk.min_round_seconds, uk.reality_check_minutes) == (False, False, 2.5, 60)
    overridden = parse_config({**base, "responsible_play": {"profile": "uk", "reality_check_minutes": 30}}).play
    assert overridden.reality_check_minutes == 30 and overridden.min_round_seconds == 2.5
    default = parse_config(base).play
    assert default == PlayRules() and set(PROFILES) >= {"default", "uk"}
    assert (default.turbo, default.autoplay, default.min_round_seconds) == (True, False, 0.0)
    server = make_server(replace(demo_config(), play=uk))
    settings = server.client.get("/api/v1/settings").json()
    assert settings["profile"] == "uk" and settings["autoplay"] is False and settings["turbo"] is False
    assert settings["min_round_seconds"] == 2.5 and "autoplay_max_rounds" in settings
    with pytest.raises(ConfigError, match="unknown profile"):
        parse_config({**base, "responsible_play": {"profile": "nowhere"}})


def test_the_demo_stays_playable_with_autoplay_off_by_default():
    play = load_config(None).play
    # autoplay is off unless the operator allows it (as in the UK); the demo keeps the default
    assert not play.autoplay and play.stake_limit >= play.max_bet
    assert play.reality_check_minutes == 60 and not play.session_limit_minutes
