"""Hostile input against real server processes: every request below gets a clear 4xx answer,
the servers keep running, and nothing changes (the player's wallet and ledger are untouched)."""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid

import httpx
import pytest
from sqlalchemy import func, select, update

from reelforge.server.db import make_engine
from reelforge.server.schema import ledger, players, rounds, sessions

from .conftest import GAME, LiveServers

ROUNDS = f"/api/v1/games/{GAME}/rounds"

# (name, method, path, raw body or None) -> every answer must be a 4xx JSON error.
HOSTILE_BODIES = [
    ("deep JSON array", "POST", ROUNDS, "[" * 8000 + "]" * 8000),
    ("deep JSON in a field", "POST", ROUNDS, '{"bet": ' + "[" * 5000 + "]" * 5000 + "}"),
    ("deep JSON object", "POST", "/api/v1/sessions", '{"a":' * 2000 + "1" + "}" * 2000),
    ("integer of 5000 digits", "POST", ROUNDS, '{"bet": 1' + "0" * 5000 + "}"),
    ("2**64", "POST", ROUNDS, json.dumps({"bet": 2**64})),
    ("-2**63 - 1", "POST", ROUNDS, json.dumps({"bet": -(2**63) - 1})),
    ("2**63 as amount", "POST", ROUNDS, json.dumps({"bet": 2**63})),
    ("NaN", "POST", ROUNDS, '{"bet": NaN}'),
    ("Infinity", "POST", ROUNDS, '{"bet": Infinity}'),
    ("-Infinity", "POST", ROUNDS, '{"bet": -Infinity}'),
    ("1e400", "POST", ROUNDS, '{"bet": 1e400}'),
    ("fractional bet", "POST", ROUNDS, '{"bet": 10.5}'),
    ("fractional bet beyond 2**53", "POST", ROUNDS, '{"bet": 1.5e16}'),
    ("string bet", "POST", ROUNDS, '{"bet": "10"}'),
    ("bool bet", "POST", ROUNDS, '{"bet": true}'),
    ("zero bet", "POST", ROUNDS, '{"bet": 0}'),
    ("negative bet", "POST", ROUNDS, '{"bet": -10}'),
    ("duplicate keys", "POST", ROUNDS, '{"bet": 10, "bet": -10, "x": 1}'),
    ("unknown field", "POST", ROUNDS, '{"bet": 10, "win": 1000000}'),
    ("invalid UTF-8", "POST", ROUNDS, b'{"bet": "\xff\xfe"}'),
    ("lone surrogate", "POST", "/api/v1/sessions", '{"player": "\\ud800"}'),
    ("NUL in a name", "POST", "/api/v1/sessions", '{"player": "a\\u0000b"}'),
    ("unicode name", "POST", "/api/v1/sessions", '{"player": "\u00e5lice\U0001F600\u202e"}'),
    ("SQL in a name", "POST", "/api/v1/sessions", json.dumps({"player": "x' OR '1'='1"})),
    ("SQL in a name 2", "POST", "/api/v1/sessions", json.dumps({"player": "a; DROP TABLE players; --"})),
    ("not JSON", "POST", ROUNDS, "bet=10"),
    ("JSON null", "POST", ROUNDS, "null"),
    ("JSON list", "POST", ROUNDS, "[10]"),
    ("empty body", "POST", ROUNDS, ""),
    ("amount too large", "POST", "/api/v1/operator/players/x/deposits", '{"amount": 99999999999999999999}'),
    ("SQL game id", "POST", "/api/v1/games/x'%20OR%20'1'='1/rounds", '{"bet": 10}'),
    ("unicode game id", "POST", "/api/v1/games/%F0%9F%98%80/rounds", '{"bet": 10}'),
    ("round id beyond 64 bits", "POST", f"/api/v1/rounds/{2**70}/steps", "{}"),
    ("negative round id", "POST", "/api/v1/rounds/-1/steps", "{}"),
    ("SQL round id", "POST", "/api/v1/rounds/1%20OR%201=1/steps", "{}"),
    ("unknown step action", "POST", "/api/v1/rounds/1/steps", '{"action": "\'; DELETE FROM ledger; --"}'),
    ("round id beyond 64 bits (GET)", "GET", f"/api/v1/rounds/{2**64}", None),
    ("history before beyond 64 bits", "GET", f"/api/v1/rounds?before={2**70}", None),
    ("history limit NaN", "GET", "/api/v1/rounds?limit=NaN", None),
    ("history limit huge", "GET", "/api/v1/rounds?limit=100000000000000000000", None),
]


def player_state(live: LiveServers, player: str) -> tuple[int, int, int]:
    engine = make_engine(live.url)
    with engine.connect() as conn:
        pid, balance = conn.execute(select(players.c.id, players.c.balance).where(players.c.name == player)).one()
        n_ledger = conn.execute(select(func.count()).select_from(ledger).where(ledger.c.player_id == pid)).scalar()
        n_rounds = conn.execute(select(func.count()).select_from(rounds).where(rounds.c.player_id == pid)).scalar()
    engine.dispose()
    return balance, n_ledger, n_rounds


def test_hostile_bodies_get_4xx_and_change_nothing(live: LiveServers):
    player, token = live.session(deposit=1000)
    before = player_state(live, player)
    with live.client() as c:
        for name, method, path, body in HOSTILE_BODIES:
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                       "Idempotency-Key": uuid.uuid4().hex}
            r = c.request(method, path, content=body, headers=headers)
            assert 400 <= r.status_code < 500, (name, r.status_code, r.text[:200])
            assert "error" in r.json() and r.json()["detail"], (name, r.text[:200])
        assert c.get("/api/v1/games").status_code == 200
    assert player_state(live, player) == before


def test_oversized_bodies_are_refused_before_they_are_read(live: LiveServers):
    player, token = live.session(deposit=1000)
    before = player_state(live, player)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Idempotency-Key": uuid.uuid4().hex}
    with live.client() as c:
        big = '{"bet": 10, "pad": "' + "x" * (1 << 20) + '"}'
        r = c.post(ROUNDS, content=big, headers=headers)
        assert r.status_code == 413 and r.json()["error"] == "body_too_large"

        def chunks():  # no Content-Length: chunked transfer encoding, 8 MiB in all
            for _ in range(512):
                yield b" " * 16384

        r = c.post(ROUNDS, content=chunks(), headers=headers)
        assert r.status_code == 413 and r.json()["error"] == "body_too_large"

        def small():  # a chunked body under the limit is still served
            yield b'{"bet": '
            yield b"10}"

        r = c.post(ROUNDS, content=small(), headers=headers)
        assert r.status_code == 201, r.text
        assert c.get("/api/v1/games").status_code == 200
    assert player_state(live, player)[2] == before[2] + 1  # only the small chunked request started a round


def test_hostile_headers_get_4xx(live: LiveServers):
    _, token = live.session(deposit=1000)
    with live.client() as c:
        cases = [
            {"Authorization": "Bearer " + "a" * 60000},
            {"Authorization": "Bearer \u043a\u043b\u044e\u0447".encode()},
            {"Authorization": f"Basic {token}"},
            {"Authorization": "Bearer"},
            {"Authorization": f"Bearer {token}", "Idempotency-Key": "\u043a\u043b\u044e\u0447".encode()},
            {"Authorization": f"Bearer {token}", "Idempotency-Key": "k" * 201},
            {"Authorization": f"Bearer {token}", "Idempotency-Key": "tab\there"},
            {"Authorization": f"Bearer {token}"},  # no idempotency key on a money-changing request
            {"Authorization": f"Bearer {token}", "Idempotency-Key": "x", "Content-Length": "-1"},
        ]
        for headers in cases:
            try:
                r = c.post(ROUNDS, json={"bet": 10}, headers=headers)
            except httpx.LocalProtocolError:
                continue  # the client itself refuses to send it; nothing reached the server
            assert 400 <= r.status_code < 500, (headers.keys(), r.status_code, r.text[:200])
        assert c.get("/api/v1/games").status_code == 200


def test_sql_like_strings_are_data_not_code(live: LiveServers):
    player, token = live.session(deposit=1000)
    key = "'; DROP TABLE rounds; --"
    with live.client() as c:
        auth = {"Authorization": f"Bearer {token}"}
        r = c.post(ROUNDS, json={"bet": 10}, headers={**auth, "Idempotency-Key": key})
        assert r.status_code == 201, r.text
        again = c.post(ROUNDS, json={"bet": 10}, headers={**auth, "Idempotency-Key": key})
        assert again.json() == r.json()
        r = c.get("/api/v1/rounds", params={"game": "' OR 1=1 --"}, headers=auth)
        assert r.status_code == 422 and r.json()["error"] == "invalid_request"  # not a game id: refused
        r = c.post("/api/v1/operator/players/x' OR '1'='1/deposits", json={"amount": 10},
                   headers={"X-Operator-Key": live.operator_key, "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code in (404, 422)
    engine = make_engine(live.url)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(rounds)).scalar() >= 1
    engine.dispose()


def test_other_players_rounds_and_wallets_are_out_of_reach(live: LiveServers):
    alice, alice_token = live.session(deposit=1000)
    bob, bob_token = live.session(deposit=1000)
    with live.client() as c:
        bob_round = c.post(ROUNDS, json={"bet": 10},
                           headers={"Authorization": f"Bearer {bob_token}", "Idempotency-Key": uuid.uuid4().hex}).json()
        bob_before = player_state(live, bob)
        a = {"Authorization": f"Bearer {alice_token}"}
        rid = bob_round["id"]
        for method, path in [("GET", f"/api/v1/rounds/{rid}"), ("GET", f"/api/v1/rounds/{rid}/verify"),
                             ("POST", f"/api/v1/rounds/{rid}/steps")]:
            r = c.request(method, path, json={} if method == "POST" else None,
                          headers={**a, "Idempotency-Key": uuid.uuid4().hex})
            assert r.status_code == 404 and r.json()["error"] == "round_not_found", (path, r.text)
        assert all(x["id"] != rid for x in c.get("/api/v1/rounds", headers=a).json()["rounds"])
        assert all(e["round_id"] != rid for e in c.get("/api/v1/wallet/ledger", headers=a).json()["entries"])
        assert c.get("/api/v1/wallet", headers=a).json()["player"] == alice
        # A player's token is not the operator's key.
        r = c.post(f"/api/v1/operator/players/{bob}/withdrawals", json={"amount": 10},
                   headers={"X-Operator-Key": alice_token, "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code == 403
        # The same idempotency key in another player's scope is another request.
        key = uuid.uuid4().hex
        r1 = c.post(ROUNDS, json={"bet": 10}, headers={**a, "Idempotency-Key": key})
        r2 = c.post(ROUNDS, json={"bet": 10}, headers={"Authorization": f"Bearer {bob_token}",
                                                       "Idempotency-Key": key})
        assert r1.status_code == 201 and r2.status_code in (201, 409) and r2.json().get("id") != r1.json()["id"]
    assert player_state(live, bob)[0] <= bob_before[0]  # only Bob's own request touched Bob's wallet


@pytest.mark.parametrize("forge", ["random", "hash", "truncated", "extended", "case"])
def test_forged_tokens_are_refused(live: LiveServers, forge):
    _, token = live.session()
    fake = {"random": secrets.token_urlsafe(32), "hash": hashlib.sha256(token.encode()).hexdigest(),
            "truncated": token[:-1], "extended": token + "A", "case": token.swapcase()}[forge]
    with live.client() as c:
        r = c.get("/api/v1/wallet", headers={"Authorization": f"Bearer {fake}"})
        assert r.status_code == 401 and r.json()["error"] == "unknown_token"
        assert c.get("/api/v1/wallet", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_expired_tokens_are_refused(live: LiveServers):
    player, token = live.session(deposit=100)
    engine = make_engine(live.url)
    with engine.begin() as conn:
        conn.execute(update(sessions).where(sessions.c.token_sha256 == hashlib.sha256(token.encode()).hexdigest())
                     .values(expires_at=sessions.c.created_at))
    engine.dispose()
    with live.client() as c:
        auth = {"Authorization": f"Bearer {token}"}
        assert c.get("/api/v1/wallet", headers=auth).json()["error"] == "session_expired"
        r = c.post(ROUNDS, json={"bet": 10}, headers={**auth, "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code == 401
    assert player_state(live, player)[1:] == (1, 0)
