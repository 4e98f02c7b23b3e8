"""Bad input gets a 4xx JSON error naming the problem, never a 500, and changes nothing."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from sqlalchemy import func, select

from reelforge.server.schema import ledger, rounds


def _count(server, table) -> int:
    with server.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_bad_requests_get_named_4xx_errors_and_change_nothing(server):
    player = server.session()
    game_id = next(iter(server.config.games))
    bet = server.config.games[game_id].bet_ladder[0]
    rounds_path = f"/api/v1/games/{game_id}/rounds"
    ledger_before, balance_before = _count(server, ledger), player.balance()
    k = player.key

    cases = [
        # (method, path, kwargs, status, error code, words the detail must contain)
        ("post", "/api/v1/games/no-such-game/rounds", dict(json={"bet": bet}, headers=k()), 404, "unknown_game",
         "no-such-game"),
        ("get", "/api/v1/games/no-such-game/help", {}, 404, "unknown_game", "no-such-game"),
        ("post", rounds_path, dict(json={"bet": bet + 1}, headers=k()), 422, "bet_not_on_ladder", "ladder"),
        ("post", rounds_path, dict(content=b'{"bet": 10', headers={**k(), "content-type": "application/json"}),
         422, "malformed_json", "JSON"),
        ("post", rounds_path, dict(json={}, headers=k()), 422, "invalid_request", "bet"),
        ("post", rounds_path, dict(json={"bet": bet, "coins": 5}, headers=k()), 422, "invalid_request", "coins"),
        ("post", rounds_path, dict(json={"bet": str(bet)}, headers=k()), 422, "invalid_request", "bet"),
        ("post", rounds_path, dict(json={"bet": bet + 0.5}, headers=k()), 422, "invalid_request", "bet"),
        ("post", rounds_path, dict(json={"bet": True}, headers=k()), 422, "invalid_request", "bet"),
        ("post", rounds_path, dict(json={"bet": -bet}, headers=k()), 422, "invalid_request", "bet"),
        ("post", rounds_path, dict(json={"bet": 0}, headers=k()), 422, "invalid_request", "bet"),
        ("post", rounds_path, dict(json={"bet": 10**40}, headers=k()), 422, "invalid_request", "bet"),
        ("post", rounds_path, dict(content=b'{"bet": 1e400}', headers={**k(), "content-type": "application/json"}),
         422, "invalid_request", "bet"),
        ("post", rounds_path, dict(json={"bet": None}, headers=k()), 422, "invalid_request", "bet"),
        ("post", rounds_path, dict(json=[bet], headers=k()), 422, "invalid_request", ""),
        ("post", rounds_path, dict(json={"bet": bet, "auto_adjust_bet": "yes"}, headers=k()), 422,
         "invalid_request", "auto_adjust_bet"),
        ("post", rounds_path, dict(json={"bet": bet}, headers=player.headers), 400, "missing_idempotency_key",
         "Idempotency-Key"),
        ("post", rounds_path, dict(json={"bet": bet}, headers={**player.headers, "Idempotency-Key": "x" * 201}),
         400, "bad_idempotency_key", "Idempotency-Key"),
        ("post", rounds_path, dict(json={"bet": bet}, headers={"Idempotency-Key": "a"}), 401, "missing_token",
         "Authorization"),
        ("post", rounds_path, dict(json={"bet": bet}, headers={"Idempotency-Key": "a", "Authorization": "Bearer x"}),
         401, "unknown_token", "token"),
        ("get", "/api/v1/wallet", dict(headers={"Authorization": "Basic abc"}), 401, "bad_token", "Bearer"),
        ("get", "/api/v1/wallet", {}, 401, "missing_token", "Authorization"),
        ("get", "/api/v1/rounds/0", dict(headers=player.headers), 422, "invalid_request", "round_id"),
        ("get", "/api/v1/rounds/-5", dict(headers=player.headers), 422, "invalid_request", "round_id"),
        ("get", "/api/v1/rounds/abc", dict(headers=player.headers), 422, "invalid_request", "round_id"),
        ("get", f"/api/v1/rounds/{10**30}", dict(headers=player.headers), 422, "invalid_request", "round_id"),
        ("get", "/api/v1/rounds/123456", dict(headers=player.headers), 404, "round_not_found", "123456"),
        ("post", "/api/v1/rounds/123456/steps", dict(json={}, headers=k()), 404, "round_not_found", "123456"),
        ("post", "/api/v1/rounds/1/steps", dict(json={"action": 7}, headers=k()), 422, "invalid_request", "action"),
        ("post", "/api/v1/rounds/1/steps", dict(json={"bet": bet}, headers=k()), 422, "invalid_request", "bet"),
        ("get", "/api/v1/rounds", dict(params={"limit": 0}, headers=player.headers), 422, "invalid_request", "limit"),
        ("get", "/api/v1/rounds", dict(params={"limit": 10**6}, headers=player.headers), 422, "invalid_request",
         "limit"),
        ("get", "/api/v1/rounds", dict(params={"before": -1}, headers=player.headers), 422, "invalid_request",
         "before"),
        ("get", "/api/v1/wallet/ledger", dict(params={"limit": "many"}, headers=player.headers), 422,
         "invalid_request", "limit"),
        ("get", f"/api/v1/games/{game_id}/rounds/unfinished", dict(headers=player.headers), 404,
         "no_unfinished_round", game_id),
        ("get", "/api/v1/no/such/path", {}, 404, "not_found", ""),
        ("delete", "/api/v1/wallet", {}, 405, "method_not_allowed", ""),
        ("post", rounds_path, dict(content=b"{" + b" " * 20000 + b"}", headers={**k(), "content-type":
                                                                                  "application/json"}),
         413, "body_too_large", "bytes"),
        ("post", "/api/v1/sessions", dict(json={"player": "bad name!"}), 422, "invalid_player", "player"),
        ("post", "/api/v1/sessions", dict(json={"player": "x" * 65}), 422, "invalid_request", "player"),
        ("post", "/api/v1/sessions", dict(json={"name": "alice"}), 422, "invalid_request", "name"),
        ("post", "/api/v1/operator/players/alice/deposits", dict(json={"amount": 5}, headers=k()), 401,
         "operator_key_required", "X-Operator-Key"),
    ]
    for method, path, kwargs, status, code, words in cases:
        r = getattr(server.client, method)(path, **kwargs)
        assert r.status_code == status, (method, path, kwargs.get("json"), r.status_code, r.text)
        body = r.json()
        assert body["error"] == code, (path, body)
        assert words in body["detail"], (path, body)
    assert player.balance() == balance_before
    assert _count(server, ledger) == ledger_before
    assert _count(server, rounds) == 0


def test_a_step_with_an_action_the_game_does_not_take_is_refused(server):
    from reelforge.core.draws import SeededDraws
    from reelforge.games.registry import get_game

    from .scenarios import feature_scenario

    game_id = next(iter(server.config.games))
    player = server.session()
    server.draws.source = SeededDraws(feature_scenario(game_id).seed)
    rnd = player.start(game_id, server.config.games[game_id].bet_ladder[0])
    action = "dance"
    assert action not in get_game(game_id).step_actions
    r = server.client.post(f"/api/v1/rounds/{rnd['id']}/steps", json={"action": action}, headers=player.key())
    assert r.status_code == 409 and r.json()["error"] == "unknown_action"
    assert len(player.get(f"/api/v1/rounds/{rnd['id']}").json()["steps"]) == 1
    player.finish(rnd)


@pytest.mark.parametrize("path", ["/openapi.json"])
def test_openapi_is_served(server, path):
    r = server.client.get(path)
    assert r.status_code == 200
    if path == "/openapi.json":
        spec = r.json()
        paths = spec["paths"]
        for p in ("/api/v1/sessions", "/api/v1/games", "/api/v1/wallet", "/api/v1/wallet/ledger",
                  "/api/v1/rounds/{round_id}/steps", "/api/v1/rounds", "/api/v1/rounds/{round_id}",
                  "/api/v1/rounds/{round_id}/verify"):
            assert p in paths, p
        # Per offered game, spelled out: the round request states the game's own bet ladder.
        for game_id, gconf in server.config.games.items():
            for p in ("help", "rounds", "rounds/unfinished"):
                assert f"/api/v1/games/{game_id}/{p}" in paths, (game_id, p)
            body = paths[f"/api/v1/games/{game_id}/rounds"]["post"]["requestBody"]["content"]["application/json"]
            assert body["schema"]["properties"]["bet"]["enum"] == list(gconf.bet_ladder)
        session = spec["components"]["schemas"]["SessionRequest"]["properties"]["player"]
        assert session["pattern"] == "^[A-Za-z0-9_.@-]{1,64}$"
        key = next(q for q in paths["/api/v1/rounds/{round_id}/steps"]["post"]["parameters"]
                   if q["name"] == "Idempotency-Key")
        assert key["schema"]["maxLength"] == 200 and key["schema"]["pattern"].startswith("^")


def test_the_round_routes_answer_well_formed_and_malformed_requests_alike(server):
    """The two money routes read and check their own requests (see api.rounds.PlainRoute): well formed
    or not, they answer with the usual answers, refusals and security headers."""
    game_id = next(iter(server.config.games))
    bet = server.config.games[game_id].bet_ladder[0]
    player = server.session()
    path = f"/api/v1/games/{game_id}/rounds"
    def post(url, content: bytes, content_type: str | None = "application/json", **headers):
        all_headers = {**player.key(), **headers}
        if content_type is not None:
            all_headers["content-type"] = content_type
        return server.client.post(url, content=content, headers=all_headers)

    # Well formed (a charset parameter too); with security headers like every API answer.
    r = post(path, b'{"bet": %d}' % bet, "application/json; charset=utf-8")
    assert r.status_code == 201
    assert r.headers["content-type"] == "application/json" and r.headers["cache-control"] == "no-store"
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
    rnd = player.finish(r.json())
    # A refusal (no such game): the same error body, headers included.
    r = post("/api/v1/games/no-such-game/rounds", b'{"bet": %d}' % bet)
    assert (r.status_code, r.json()["error"]) == (404, "unknown_game")
    assert r.headers["cache-control"] == "no-store"
    r = post(f"/api/v1/rounds/{rnd['id']}/steps", b"{}")
    assert (r.status_code, r.json()["error"]) == (409, "round_not_open")
    # Not well formed: refused as FastAPI's validation refuses it.
    for content, content_type, code in ((b'{"bet": %d}' % bet, "text/plain", "invalid_request"),
                                        (b'{"bet": %d}' % bet, None, "invalid_request"),
                                        (b'{"bet": "%d"}' % bet, "application/json", "invalid_request"),
                                        (b'{"bet": %d' % bet, "application/json", "malformed_json"),
                                        (b"\xff\xfe", "application/json", "malformed_json")):
        r = post(path, content, content_type)
        assert (r.status_code, r.json()["error"]) == (422, code), (content, content_type, r.text)
        assert r.headers["cache-control"] == "no-store"
    # Steps: an empty body is "no action"; odd round ids are refused.
    rnd = player.start(game_id, bet)
    player.finish(rnd)
    for round_path in ("/api/v1/rounds/0/steps", "/api/v1/rounds/007/steps", f"/api/v1/rounds/{2**62 + 1}/steps"):
        r = post(round_path, b"{}")
        assert r.status_code in (404, 422), (round_path, r.text)
    r = post(f"/api/v1/rounds/{rnd['id']}/steps", b"")
    assert (r.status_code, r.json()["error"]) == (409, "round_not_open")
    # A repeated header counts by its first value, as in the routes (Starlette's headers.get).
    twice = [("Authorization", f"Bearer {player.token}"), ("Idempotency-Key", "first"),
             ("Idempotency-Key", "second"), ("content-type", "application/json")]
    first = server.client.post(path, content=b'{"bet": %d}' % bet, headers=twice)
    assert first.status_code == 201
    again = server.client.post(path, content=b'{"bet": %d}' % bet, headers={**player.headers, "Idempotency-Key": "first",
                                                                           "content-type": "application/json"})
    assert again.status_code == 201 and again.json() == first.json()
    player.finish(first.json())


def test_money_paths_are_read_as_their_validators_read_them() -> None:
    """The money routes' quick reads of a round id and a game id (a plain decimal id; a game id taken before)
    take and refuse exactly what the path validators do, with the same errors."""
    from reelforge.server.api.rounds import _GAME, _ROUND, _path

    for adapter, name, values in (
            (_ROUND, "round_id", ["12", "0012", " 12", "+12", "1_2", "12.0", "0", "-3", "١٢", "",
                                  str(2**62), str(2**62 + 1), "9" * 40]),
            (_GAME, "game", ["forge-of-gems", "forge-of-gems", "Forge", "-x", "x" * 64, "x" * 65, ""])):
        for value in values:
            got: list = []
            read = _path(adapter, name, value, got)
            try:
                expected, errors = adapter.validate_python(value), []
            except ValidationError as exc:
                expected, errors = None, [{**e, "loc": ("path", name, *e["loc"])} for e in exc.errors()]
            assert (read, got) == (expected, errors), value
