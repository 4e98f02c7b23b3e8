"""Limits belong to the player and the brand (issue 32, findings 1 and 2; issue 38 item 7): every session,
however opened, gets its brand's configured limits with the operator's stricter launch values over them,
and the play session's clocks survive reloads, new launches and the operator's end of the session."""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from reelforge.core.draws import SeededDraws
from reelforge.games.registry import GAME_CLASSES
from reelforge.ops.client import ApiClient
from reelforge.server.config import parse_config
from reelforge.server.config_values import ConfigError
from reelforge.server.schema import players, sessions

from .conftest import Player
from .seamless_support import API_KEY, SECRET, fresh_second, signed_call

GEMS = "gemstones-gold"  # its feature buy costs 56.1 x the bet: 5,610 at bet 100, 2,244 at bet 40


def uk_config(**play: Any) -> Any:
    """The operator's "uk" configuration of finding 1 (transfer wallet, launches signed with its secret)."""
    rules = {"profile": "uk", "max_stake": 2000, "session_limit_minutes": 60, "reality_check_minutes": 30, **play}
    return parse_config({
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(API_KEY.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0},
        "games": {GEMS: {"bet_ladder": [20, 40, 100]}},
        "responsible_play": {k: v for k, v in rules.items() if v is not None},
        "operator": {"secret": SECRET},
    }, "test")


def launched(server: Any, player: str, deposit: int = 100_000, **options: Any) -> Player:
    """A session opened the way an operator's site opens it (a signed launch, then the token's exchange),
    funded by a deposit."""
    r = signed_call(server.client, "POST", "/api/v1/operator/launches", {"player": player, "currency": "EUR",
                                                                       **options}, now=fresh_second())
    assert r.status_code == 201, r.text
    token = r.json()["launch_url"].split("launch=")[1].split("&")[0]
    r = server.client.post("/api/v1/launch", json={"token": token})
    assert r.status_code == 201, r.text
    session = Player(server, r.json()["token"], player)
    if deposit:
        r = ApiClient(server.client, operator_key=API_KEY).deposit(player, deposit)
        assert r.status_code == 200, r.text
    return session


def settings(player: Player) -> dict[str, Any]:
    r = player.get("/api/v1/settings")
    assert r.status_code == 200, r.text
    return r.json()


def age_play(server: Any, minutes: float) -> None:
    """Move every player's play session (and every session's start) ``minutes`` into the past."""
    back = timedelta(minutes=minutes)
    with server.engine.begin() as conn:
        for row in conn.execute(select(players.c.id, players.c.play_started_at, players.c.play_checked_at,
                                       players.c.play_ended_at)).all():
            conn.execute(update(players).where(players.c.id == row.id).values(
                **{name: None if value is None else value - back for name, value in (
                    ("play_started_at", row.play_started_at), ("play_checked_at", row.play_checked_at),
                    ("play_ended_at", row.play_ended_at))}))
        for token, created in conn.execute(select(sessions.c.token_sha256, sessions.c.created_at)).all():
            conn.execute(update(sessions).where(sessions.c.token_sha256 == token).values(created_at=created - back))


# -- finding 1: a launched session keeps the brand's configured limits ---------------------------------------------
def test_a_launched_session_refuses_a_feature_buy_above_the_configured_max_stake(make_server):
    server = make_server(uk_config())
    player = launched(server, "uk-buyer")
    shown = settings(player)
    assert (shown["max_stake"], shown["session_limit_minutes"], shown["reality_check_minutes"]) == (2000, 60, 30)
    assert shown["profile"] == "uk" and shown["turbo"] is False
    r = player.api.start_round(GEMS, 100, buy_feature=True)  # 5,610 > 2,000
    assert (r.status_code, r.json()["error"]) == (422, "stake_above_maximum"), r.text
    assert "2000" in r.json()["detail"]
    assert player.balance() == 100_000
    # the launch's max_bet adds to the configured max_stake, never replaces it: 2,244 > 2,000
    capped = launched(server, "uk-capped", max_bet=50)
    r = capped.api.start_round(GEMS, 40, buy_feature=True)
    assert (r.status_code, r.json()["error"]) == (422, "stake_above_maximum"), r.text
    assert settings(capped)["max_bet"] == 50 and settings(capped)["max_stake"] == 2000


def test_a_launch_max_bet_limits_the_stake_when_no_max_stake_is_configured(make_server):
    server = make_server(uk_config(max_stake=None))
    player = launched(server, "uk-bet-cap", max_bet=50)
    assert settings(player)["max_stake"] == 50
    r = player.api.start_round(GEMS, 40, buy_feature=True)  # 2,244 > 50
    assert (r.status_code, r.json()["error"]) == (422, "stake_above_maximum"), r.text


def test_a_launch_only_tightens_the_limits_and_a_looser_value_is_refused(make_server):
    server = make_server(uk_config())
    tight = launched(server, "uk-tight", max_stake=1000, session_limit_minutes=20, reality_check_minutes=10,
                     loss_limit=5000)
    shown = settings(tight)
    assert (shown["max_stake"], shown["session_limit_minutes"], shown["reality_check_minutes"],
            shown["loss_limit"]) == (1000, 20, 10, 5000)
    r = tight.api.start_round(GEMS, 20, buy_feature=True)  # 1,122 > 1,000
    assert (r.status_code, r.json()["error"]) == (422, "stake_above_maximum"), r.text
    for looser in ({"max_stake": 5000}, {"session_limit_minutes": 120}, {"reality_check_minutes": 45}):
        r = signed_call(server.client, "POST", "/api/v1/operator/launches",
                        {"player": "uk-loose", "currency": "EUR", **looser})
        assert (r.status_code, r.json()["error"]) == (422, "limit_looser_than_configured"), r.text
        assert next(iter(looser)) in r.json()["detail"]
    r = signed_call(server.client, "POST", "/api/v1/operator/launches",
                    {"player": "uk-loose", "currency": "EUR", "profile": "default"})
    assert r.status_code == 201  # a more permissive profile named at launch adds nothing looser
    token = r.json()["launch_url"].split("launch=")[1]
    session = server.client.post("/api/v1/launch", json={"token": token}).json()
    assert session["limits"]["max_stake"] == 2000 and session["limits"]["turbo"] is False
    assert session["limits"]["reality_check_minutes"] == 30


def test_every_way_in_gets_the_brands_limits(make_server):
    server = make_server(uk_config())
    r = ApiClient(server.client, operator_key=API_KEY).open_session("uk-direct", as_operator=True)
    assert r.status_code == 201, r.text
    direct = Player(server, r.json()["token"], "uk-direct")
    ApiClient(server.client, operator_key=API_KEY).deposit("uk-direct", 100_000)
    assert settings(direct)["max_stake"] == 2000
    r = direct.api.start_round(GEMS, 100, buy_feature=True)
    assert (r.status_code, r.json()["error"]) == (422, "stake_above_maximum"), r.text


def test_the_loss_limit_refuses_a_round_that_would_lose_more(make_server):
    server = make_server(uk_config(min_round_seconds=0))
    server.draws.source = SeededDraws(32)
    player = launched(server, "uk-loser", loss_limit=100)
    lost, refused = 0, None
    for _ in range(40):  # whatever the rounds pay, a start is refused exactly when it could lose past 100
        r = player.api.start_round(GEMS, 40)
        if lost + 40 > 100:
            refused = r
            break
        assert r.status_code == 201, r.text
        rnd = player.finish(r.json())
        lost += 40 - rnd["paid"]
    assert refused is not None  # seed 32: the limit is reached within the rounds played
    assert (refused.status_code, refused.json()["error"]) == (409, "loss_limit_reached"), refused.text
    assert settings(player)["loss_limit"] == 100


# -- finding 2: the clocks and the end of play are the player's -------------------------------------------------
def test_the_reality_check_and_session_limit_survive_a_new_launch(make_server):
    server = make_server(uk_config(min_round_seconds=0))
    first = launched(server, "uk-reloader")
    first.finish(first.start(GEMS, 20))
    age_play(server, 31)
    reload = launched(server, "uk-reloader", deposit=0)  # a reload: a new launch, a new session token
    r = reload.api.start_round(GEMS, 20)
    assert (r.status_code, r.json()["error"]) == (409, "reality_check_due"), r.text
    assert server.client.post("/api/v1/reality-check", headers=reload.headers).status_code == 200
    reload.finish(reload.start(GEMS, 20))
    age_play(server, 30)  # 61 minutes into the play session
    again = launched(server, "uk-reloader", deposit=0)
    r = again.api.start_round(GEMS, 20)
    assert (r.status_code, r.json()["error"]) == (409, "session_limit_reached"), r.text
    assert settings(again)["play_session"]["ends_at"] is not None
    age_play(server, 30)  # the break after the limit has passed: a new play session
    fresh = launched(server, "uk-reloader", deposit=0)
    fresh.finish(fresh.start(GEMS, 20))


def test_a_play_session_the_operator_ended_stays_ended_until_the_break(make_server):
    server = make_server(uk_config(min_round_seconds=0))
    player = launched(server, "uk-ended")
    player.finish(player.start(GEMS, 20))
    r = signed_call(server.client, "POST", "/api/v1/operator/players/uk-ended/end-session")
    assert r.status_code == 200 and r.json()["ended"] == 1
    reload = launched(server, "uk-ended", deposit=0)
    r = reload.api.start_round(GEMS, 20)
    assert (r.status_code, r.json()["error"]) == (409, "play_session_ended"), r.text
    assert settings(reload)["play_session"]["ended_at"] is not None
    age_play(server, 30)
    fresh = launched(server, "uk-ended", deposit=0)
    fresh.finish(fresh.start(GEMS, 20))


# -- issue 38 item 7: the profile's rules, overrides named; no [games] serves every game ---------------------------
def test_the_profile_rules_apply_and_overrides_are_named_at_startup(make_server, caplog):
    base = {"server": {"mode": "demo", "expiry_check_seconds": 0}, "games": {GEMS: {"bet_ladder": [20]}}}
    plain = parse_config({**base, "responsible_play": {"profile": "uk", "max_bet": 10000}})
    assert (plain.play.turbo, plain.play.min_round_seconds, plain.play.overrides) == (False, 2.5, ("max_bet",))
    same = parse_config({**base, "responsible_play": {"profile": "uk", "turbo": False}})
    assert same.play.overrides == ()  # the profile's own value set again overrides nothing
    loose = parse_config({**base, "responsible_play": {"profile": "uk", "turbo": True, "min_round_seconds": 0}})
    with caplog.at_level(logging.WARNING, logger="reelforge.server"):
        server = make_server(loose)
    said = [rec.getMessage() for rec in caplog.records if "override" in rec.getMessage()]
    assert said and "min_round_seconds, turbo" in said[0] and "'uk'" in said[0]
    shown = server.client.get("/api/v1/settings").json()
    assert shown["profile"] == "uk" and shown["turbo"] is True
    assert shown["profile_overrides"] == ["min_round_seconds", "turbo"]


def test_the_shipped_demo_configuration_switched_to_uk_plays_by_the_uk_rules(tmp_path):
    from reelforge.server.config import DEMO_CONFIG, load_config

    text = DEMO_CONFIG.read_text()
    assert 'profile = "default"' in text
    switched = tmp_path / "uk.toml"
    switched.write_text(text.replace('profile = "default"', 'profile = "uk"', 1))  # as its comment invites
    uk = load_config(switched).play
    assert (uk.turbo, uk.autoplay, uk.min_round_seconds) == (False, False, 2.5)


@pytest.mark.parametrize("mode", ["demo", "operator"])
def test_a_configuration_without_games_serves_every_registered_game(mode):
    server = {"mode": mode, "api_key_sha256": hashlib.sha256(API_KEY.encode()).hexdigest()}
    loaded = parse_config({"server": server, "responsible_play": {"profile": "uk"}})
    assert set(loaded.games) == set(GAME_CLASSES)
    with pytest.raises(ConfigError, match=r"\[games\] must hold"):
        parse_config({"server": server, "games": [1]})
