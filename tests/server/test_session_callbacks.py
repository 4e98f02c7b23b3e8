"""The operator's session-ended callback (issue 40): a signed call to the operator's callback URL when a launched
session is ended by the operator, expires, or hits the play session's time limit, retried from the outbox until
the operator acknowledges it; received by a fake operator backend that is a real HTTP server."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from reelforge.ops.client import ApiClient
from reelforge.server.auth import token_hash
from reelforge.server.callbacks import OperatorCallbacks
from reelforge.server.clock import utcnow
from reelforge.server.config import parse_config
from reelforge.server.schema import operator_callbacks, players, sessions
from tests.server.fake_operator import FakeOperator
from tests.server.seamless_support import API_KEY, SECRET, fresh_second, signed_call

GAME = "forge-of-fortunes"


@pytest.fixture
def operator() -> Iterator[FakeOperator]:
    fake = FakeOperator()
    yield fake
    fake.stop()


def _config(callback_url: str):
    return parse_config({
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(API_KEY.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0, "provably_fair": False},
        "games": {GAME: {"bet_ladder": [10, 20]}},
        "responsible_play": {"session_limit_minutes": 60},
        "operator": {"secret": SECRET, "callback_url": callback_url},
    }, "test")


def _session(server, player: str, **options) -> tuple[str, ApiClient]:
    r = signed_call(server.client, "POST", "/api/v1/operator/launches",
                    {"player": player, "currency": "EUR", **options}, now=fresh_second())
    assert r.status_code == 201, r.text
    r = server.client.post("/api/v1/launch", json={"token": r.json()["launch_url"].split("launch=")[1]
                                                   .split("&")[0]})
    assert r.status_code == 201, r.text
    return r.json()["token"], ApiClient(server.client, r.json()["token"], operator_key=API_KEY)


def _until(done, seconds: float = 15.0) -> bool:
    """Whether ``done()`` came true within ``seconds`` (the server's outbox thread works beside the test)."""
    import time

    end, tick = time.monotonic() + seconds, threading.Event()
    while not done():
        if time.monotonic() > end:
            return False
        tick.wait(0.02)
    return True


def _callbacks(server, *names: str) -> list:
    """The callbacks about ``names``' sessions (the PostgreSQL test database keeps other tests' rows)."""
    with server.engine.connect() as conn:
        rows = conn.execute(select(operator_callbacks).order_by(operator_callbacks.c.created_at)).all()
    return [row for row in rows if json.loads(row.body)["player"] in names]


def test_an_ended_session_is_reported_signed_and_retried_until_acknowledged(make_server, operator):
    operator.failures = 2  # the operator's backend fails twice: the outbox tries again
    server = make_server(_config(operator.url))
    token, _api = _session(server, "cb-end", operator_session="op-77", game=GAME)
    r = signed_call(server.client, "POST", "/api/v1/operator/players/cb-end/end-session", {}, now=fresh_second())
    assert r.status_code == 200, r.text
    # the server's outbox thread delivers it: twice refused, then acknowledged and recorded as done
    assert _until(lambda: [r.status for r in _callbacks(server, "cb-end")] == ["done"]), (operator.received, _callbacks(server, "cb-end"))
    received = [call for call in operator.received if call["body"]["player"] == "cb-end"]  # PostgreSQL: others'
    assert len(received) == 3
    bodies = [call["body"] for call in received]
    assert all(call["signed"] and call["path"] == "/reelforge/callbacks?v=2" for call in received)
    assert len({call["nonce"] for call in received}) == 3  # each attempt signed anew
    assert len({b["callback_id"] for b in bodies}) == 1  # one callback: the operator's idempotency key
    body = bodies[-1]
    assert {k: body[k] for k in ("event", "reason", "player", "brand", "session", "game", "protocol_version")} == {
        "event": "session_ended", "reason": "ended_by_operator", "player": "cb-end", "brand": "default",
        "session": "op-77", "game": GAME, "protocol_version": 2}
    assert body["game_session_id"] == token_hash(token)[:32]
    [row] = _callbacks(server, "cb-end")
    assert (row.status, row.attempts, row.last_error) == ("done", 3, "HTTP 500")
    # ending it again reports nothing more: a session ends once
    r = signed_call(server.client, "POST", "/api/v1/operator/players/cb-end/end-session", {}, now=fresh_second())
    assert r.status_code == 200 and len(_callbacks(server, "cb-end")) == 1


def test_sessions_that_expired_or_hit_a_limit_are_reported(make_server, operator):
    server = make_server(_config(operator.url))
    expired, _api = _session(server, "cb-expired")
    limited, api = _session(server, "cb-limit")
    assert api.deposit("cb-limit", 1_000).status_code in (200, 201)
    with server.engine.begin() as conn:  # the clocks moved on: one session's life, the other's play session
        conn.execute(update(sessions).where(sessions.c.token_sha256 == token_hash(expired))
                     .values(expires_at=utcnow() - timedelta(seconds=1)))
        conn.execute(update(players).where(players.c.name == "cb-limit")
                     .values(play_started_at=utcnow() - timedelta(minutes=61)))
    # a fresh process's callbacks (as after a restart) find the expired session; the limit is hit by a start
    OperatorCallbacks(server.engine, server.config).sweep_expired()
    r = api.start_round(GAME, 10)
    assert r.status_code == 409 and r.json()["error"] == "session_limit_reached", r.text
    assert api.start_round(GAME, 10).status_code == 409  # refused again: reported once
    _token, lossy = _session(server, "cb-loss", loss_limit=5)  # a bet of 10 would take the loss above 5
    assert lossy.deposit("cb-loss", 1_000).status_code in (200, 201)
    r = lossy.start_round(GAME, 10)
    assert r.status_code == 409 and r.json()["error"] == "loss_limit_reached", r.text
    reported = ("cb-expired", "cb-limit", "cb-loss")
    assert {(json.loads(row.body)["player"], json.loads(row.body)["reason"]) for row in _callbacks(server, *reported)} == {
        ("cb-expired", "expired"), ("cb-limit", "session_limit"), ("cb-loss", "loss_limit")}
    assert _until(lambda: {r.status for r in _callbacks(server, *reported)} == {"done"}), _callbacks(server, *reported)
    assert sorted(c["body"]["player"] for c in operator.received if c["body"]["player"] in reported) == list(reported)
    assert all(call["signed"] for call in operator.received)


def test_no_callback_url_no_callback(make_server):
    config = _config("https://backend.example/cb")
    from dataclasses import replace

    server = make_server(replace(config, operator=replace(config.operator, callback_url=None)))
    _session(server, "cb-none")
    r = signed_call(server.client, "POST", "/api/v1/operator/players/cb-none/end-session", {}, now=fresh_second())
    assert r.status_code == 200 and _callbacks(server, "cb-none") == []
