"""Launch options (issue 40): the operator's lobby, return, deposit and history URLs (validated), ``lang``,
``device``, ``jurisdiction``, the feature buy switched off per jurisdiction, and ``game`` restricting the
session to that game."""

from __future__ import annotations

import hashlib

import pytest

from reelforge.ops.client import ApiClient
from reelforge.server.config import parse_config
from tests.server.seamless_support import API_KEY, SECRET, fresh_second, signed_call

GAME = "forge-of-fortunes"
OTHER = "gemstones-gold"
URLS = {"lobby_url": "https://casino.example/lobby", "return_url": "http://m.casino.example/",
        "deposit_url": "https://casino.example/cashier?from=game", "history_url": "https://casino.example/history"}


def _config(hosts: list[str] | None = None):
    operator = {"secret": SECRET, **({"allowed_url_hosts": hosts} if hosts is not None else {})}
    return parse_config({
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(API_KEY.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0, "provably_fair": False},
        "games": {GAME: {"bet_ladder": [10, 20]}, OTHER: {"bet_ladder": [20]}},
        "profiles": {"no-buy": {"feature_buy": False}},
        "operator": operator,
    }, "test")


def _launch(server, player: str, **options) -> tuple[int, dict]:
    r = signed_call(server.client, "POST", "/api/v1/operator/launches",
                    {"player": player, "currency": "EUR", **options}, now=fresh_second())
    return r.status_code, r.json()


def _session(server, player: str, **options) -> tuple[dict, ApiClient]:
    status, body = _launch(server, player, **options)
    assert status == 201, body
    token = body["launch_url"].split("launch=")[1].split("&")[0]
    r = server.client.post("/api/v1/launch", json={"token": token})
    assert r.status_code == 201, r.text
    api = ApiClient(server.client, r.json()["token"], operator_key=API_KEY)
    assert api.deposit(player, 10_000).status_code in (200, 201)
    return r.json(), api


def test_the_operators_pages_device_and_language_reach_the_session(make_server):
    server = make_server(_config(["casino.example"]))
    answer, api = _session(server, "opts-1", lang="de-AT", device="mobile", jurisdiction="no-buy", **URLS)
    expected = {"lobby": URLS["lobby_url"], "return": URLS["return_url"], "deposit": URLS["deposit_url"],
                "history": URLS["history_url"]}
    assert (answer["urls"], answer["device"], answer["lang"], answer["language"], answer["jurisdiction"]) == (
        expected, "mobile", "de-AT", "de-AT", "no-buy")
    settings = server.client.get("/api/v1/settings", headers={"Authorization": f"Bearer {api.token}"}).json()
    assert (settings["urls"], settings["device"], settings["lang"], settings["game"]) == (
        expected, "mobile", "de-AT", None)
    plain, api = _session(server, "opts-2")
    assert plain["urls"] == dict.fromkeys(expected) and plain["device"] is None and plain["lang"] == "en"


@pytest.mark.parametrize("hosts, field, url", [
    (None, "lobby_url", "http://casino.example/lobby"),  # http only to an allowed host
    (None, "deposit_url", "javascript:alert(1)"),
    (None, "history_url", "https://user:pw@casino.example/"),
    (["casino.example"], "return_url", "https://evil.example/"),
    (["casino.example"], "lobby_url", "https://casino.example.evil.example/"),
    (["casino.example"], "lobby_url", "https://casino.example/\"><script>"),
    (None, "lobby_url", "https://[casino.example/"),  # not a URL at all
])
def test_an_operator_page_outside_the_rules_is_refused(make_server, hosts, field, url):
    server = make_server(_config(hosts))
    status, body = _launch(server, "opts-bad", **{field: url})
    assert (status, body["error"]) == (422, "invalid_launch_url") and field in body["detail"], body


def test_bad_device_language_alias_and_unknown_jurisdiction_are_refused(make_server):
    server = make_server(_config())
    for options, error in (({"device": "fridge"}, "invalid_device"),
                           ({"lang": "de", "language": "fr"}, "conflicting_fields"),
                           ({"jurisdiction": "mars"}, "unknown_profile")):
        status, body = _launch(server, "opts-bad", **options)
        assert (status, body["error"]) == (422, error), body


def test_a_jurisdiction_without_the_feature_buy_refuses_it_and_says_so(make_server):
    server = make_server(_config())
    _answer, api = _session(server, "buy-no", jurisdiction="no-buy")
    r = api.start_round(OTHER, 20, buy_feature=True)  # gemstones-gold has a feature buy
    assert r.status_code == 403, r.text
    assert r.json()["error"] == "feature_buy_not_allowed" and "no-buy" in r.json()["detail"]
    settings = server.client.get("/api/v1/settings", headers={"Authorization": f"Bearer {api.token}"}).json()
    assert settings["feature_buy"] is False
    assert api.wallet().json()["balance"] == 10_000  # nothing taken
    _answer, api = _session(server, "buy-yes")
    assert api.start_round(OTHER, 20, buy_feature=True).status_code == 201


def test_a_session_launched_for_one_game_plays_only_that_game(make_server):
    server = make_server(_config())
    _answer, before = _session(server, "one-game")
    started = before.start_round(OTHER, 20)
    assert started.status_code == 201, started.text
    answer, api = _session(server, "one-game", game=GAME)
    assert answer["game"] == GAME
    r = api.start_round(OTHER, 20)
    assert r.status_code == 403 and r.json()["error"] == "game_not_in_session", r.text
    assert GAME in r.json()["detail"] and OTHER in r.json()["detail"]
    # its round of the other game (open or not) is not this session's to play either
    r = api.step(started.json()["id"])
    assert r.status_code == 403 and r.json()["error"] == "game_not_in_session", r.text
    assert api.start_round(GAME, 20).status_code == 201
