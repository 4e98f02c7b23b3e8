"""Responsible-play and jurisdiction rules ([responsible_play]) through HTTP: the settings the client
reads, the pace between round starts, the bet cap, the session's net position, and the unfinished-round
listing that answers 200 with an empty list."""

from __future__ import annotations

from datetime import timedelta

import pytest

from reelforge.core.draws import SeededDraws
from reelforge.games.registry import get_game
from reelforge.server import round_checks
from reelforge.server.config import load_config, parse_config
from reelforge.server.config_play import PlayRules
from reelforge.server.config_values import ConfigError

from .conftest import demo_config

GAME = "forge-of-fortunes"


def rules_config(**play) -> object:
    return demo_config(play=PlayRules(**play))


def test_settings_tell_the_client_the_operator_rules(make_server):
    server = make_server(rules_config(reality_check_minutes=30, turbo=False, min_round_seconds=2.5, max_bet=5000))
    r = server.client.get("/api/v1/settings")
    assert r.status_code == 200
    assert r.json() == {"currency": "EUR", "currency_decimals": 2, "wallet": "transfer", "lang": "en", "profile": "default",
                        "reality_check_minutes": 30.0,
                        "session_limit_minutes": 0.0, "turbo": False, "min_round_seconds": 2.5, "autoplay": False,
                        "autoplay_max_rounds": 100, "max_bet": 5000, "max_stake": 5000, "feature_buy": True}


def test_a_new_round_sooner_than_min_round_seconds_is_refused_and_changes_nothing(make_server, monkeypatch):
    # A pace far longer than any request takes under load; the clock is moved past it at the end, not waited for.
    server = make_server(rules_config(min_round_seconds=30))
    player = server.session("pacer")
    bet = server.config.games[GAME].bet_ladder[0]
    first = player.finish(player.start(GAME, bet))
    balance = player.balance()
    rounds_before = len(player.get("/api/v1/rounds").json()["rounds"])
    r = server.client.post(f"/api/v1/games/{GAME}/rounds", json={"bet": bet}, headers=player.key())
    assert r.status_code == 429 and r.json()["error"] == "too_soon"
    assert "30 seconds" in r.json()["detail"] and "wait" in r.json()["detail"]
    assert player.balance() == balance
    assert len(player.get("/api/v1/rounds").json()["rounds"]) == rounds_before
    # Another game counts too: the pace is per player.
    other = next(g for g in server.config.games if g != GAME)
    r = server.client.post(f"/api/v1/games/{other}/rounds", json={"bet": server.config.games[other].bet_ladder[0]},
                           headers=player.key())
    assert r.status_code == 429
    later = round_checks.utcnow() + timedelta(seconds=31)
    monkeypatch.setattr(round_checks, "utcnow", lambda: later)
    second = player.start(GAME, bet)
    assert server.internal(second["id"]) > server.internal(first["id"])


def test_max_bet_caps_every_ladder_and_a_bet_above_it_is_refused(make_server):
    server = make_server(load_config_with_cap(2000))
    for gid, gconf in server.config.games.items():
        assert max(gconf.bet_ladder) <= 2000, gid
    listing = {g["id"]: g for g in server.client.get("/api/v1/games").json()}
    assert max(listing[GAME]["bet_ladder"]) <= 2000
    player = server.session("capped")
    r = server.client.post(f"/api/v1/games/{GAME}/rounds", json={"bet": 5000}, headers=player.key())
    assert r.status_code == 422 and r.json()["error"] == "bet_above_maximum"
    assert "2000" in r.json()["detail"]
    assert player.balance() == server.config.demo_balance


def load_config_with_cap(max_bet: int):
    text = load_config(None)
    data = {"server": {"mode": "demo", "currency": text.currency, "demo_balance": text.demo_balance,
                       "expiry_check_seconds": 0},
            "responsible_play": {"max_bet": max_bet},
            "games": {gid: {"build": g.build, "bet_ladder": list(g.bet_ladder)} for gid, g in text.games.items()}}
    return parse_config(data)


@pytest.mark.parametrize("section, message", [
    ({"turbo": "no"}, "turbo must be true or false"),
    ({"reality_check_minutes": -1}, "'reality_check_minutes' must be non-negative"),
    ({"min_round_seconds": float("inf")}, "'min_round_seconds' must be at most"),
    ({"max_bet": 0}, "max_bet must be an integer"),
    ({"max_stake": 2.5}, "max_stake must be an integer"),
    ({"max_stake": 5}, "every paid round of the ladder costs more than"),
    ({"profile": "mars"}, "unknown profile 'mars'"),
    ({"autoplay": 1}, "autoplay must be true or false"),
    ({"autoplay_max_rounds": -1}, "'autoplay_max_rounds' must be an integer"),
    ({"session_limit_minutes": 1e9}, "'session_limit_minutes' must be at most"),
    ({"max_bet": 1}, "every bet of the ladder is above"),
    ({"speed": 2}, "unknown key(s) ['speed']"),
])
def test_bad_responsible_play_settings_are_refused_by_name(section, message):
    data = {"server": {"mode": "demo"}, "responsible_play": section,
            "games": {GAME: {"bet_ladder": [10, 20]}}}
    with pytest.raises(ConfigError) as exc:
        parse_config(data)
    assert message in str(exc.value) and "[responsible_play]" in str(exc.value)


def test_the_demo_configuration_turns_the_player_controls_on():
    play = load_config(None).play
    assert play.reality_check_minutes > 0 and play.turbo and play.max_bet


def test_the_wallet_reports_the_session_net_position(make_server):
    server = make_server()
    player = server.session("netpos")
    bet = server.config.games[GAME].bet_ladder[0]
    w = player.get("/api/v1/wallet").json()["session"]
    assert (w["staked"], w["won"], w["net"]) == (0, 0, 0) and w["elapsed_seconds"] >= 0
    paid = 0
    for _ in range(3):
        paid += player.finish(player.start(GAME, bet))["paid"]
    w = player.get("/api/v1/wallet").json()["session"]
    assert (w["staked"], w["won"], w["net"]) == (3 * bet, paid, paid - 3 * bet)
    # A new session starts from zero.
    again = server.session("netpos")
    assert again.get("/api/v1/wallet").json()["session"]["staked"] == 0


def test_unfinished_rounds_are_listed_with_200_even_when_there_are_none(make_server):
    server = make_server()
    player = server.session("lister")
    r = player.get("/api/v1/rounds/unfinished")
    assert r.status_code == 200 and r.json() == {"rounds": []}
    r = player.get(f"/api/v1/rounds/unfinished?game={GAME}")
    assert r.status_code == 200 and r.json() == {"rounds": []}
    assert player.get("/api/v1/rounds/unfinished?game=no-such-game").status_code == 404
    assert server.client.get("/api/v1/rounds/unfinished").status_code == 401
    game = get_game(GAME)
    build = game.load_build(server.config.games[GAME].build)
    seed = next(s for s in range(5000) if len(game.play_round(build, SeededDraws(s)).steps) > 1)
    server.draws.source = SeededDraws(seed)
    rnd = player.start(GAME, server.config.games[GAME].bet_ladder[0])
    assert rnd["status"] == "open"
    listed = player.get("/api/v1/rounds/unfinished").json()["rounds"]
    assert [(r["id"], r["game"], len(r["steps"])) for r in listed] == [(rnd["id"], GAME, 1)]
    assert player.get(f"/api/v1/rounds/unfinished?game={GAME}").json()["rounds"][0]["id"] == rnd["id"]
