"""Regression tests of the outside attack's findings and of database faults, through HTTP on both back ends."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from reelforge.server.clock import utcnow
from reelforge.server.config_values import ConfigError
from reelforge.server.schema import idempotency, ledger, players

from .conftest import demo_config
from .test_sessions_and_games import OPERATOR_KEY, operator_config

OP = {"X-Operator-Key": OPERATOR_KEY}


def _player(server, name: str) -> str:
    r = server.client.post("/api/v1/sessions", json={"player": name}, headers=OP)
    assert r.status_code == 201, r.text
    return r.json()["token"]


def _deposit(server, name: str, amount: int, key: str):
    return server.client.post(f"/api/v1/operator/players/{name}/deposits", json={"amount": amount},
                              headers={**OP, "Idempotency-Key": key})


def _ledger_rows(server) -> int:
    with server.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(ledger)).scalar_one()


def test_one_operator_key_sent_for_several_players_at_once_is_one_transfer_and_409s(make_server):
    server = make_server(operator_config())
    names = [f"racer{i}" for i in range(8)]
    for name in names:
        _player(server, name)
    gate = threading.Barrier(len(names))

    def send(name: str) -> int:
        gate.wait()
        return _deposit(server, name, 100, "shared-key").status_code

    with ThreadPoolExecutor(len(names)) as pool:
        codes = sorted(pool.map(send, names))
    assert codes == [200] + [409] * (len(names) - 1), codes
    with server.engine.connect() as conn:
        assert conn.execute(select(func.sum(players.c.balance))).scalar_one() == 100


def test_the_round_filter_and_other_sql_parameters_refuse_nul_and_control_characters(server):
    player = server.session()
    for bad in ("a\x00b", "forge\x01", "x\n", "Forge-Of-Fortunes"):
        r = player.get("/api/v1/rounds", params={"game": bad})
        assert r.status_code == 422 and r.json()["error"] == "invalid_request", (bad, r.text)
    r = player.get("/api/v1/rounds", params={"game": "no-such-game"})
    assert r.status_code == 404 and r.json()["error"] == "unknown_game"
    assert player.get("/api/v1/rounds", params={"game": "forge-of-fortunes"}).status_code == 200
    for path in ("/api/v1/games/a%00b/help", "/api/v1/games/a%00b/rounds/unfinished"):
        assert player.get(path).status_code == 422, path
    r = server.client.post("/api/v1/operator/players/a%00b/deposits", json={"amount": 1},
                           headers={"Idempotency-Key": "k"})
    assert r.status_code == 422
    r = server.client.post("/api/v1/sessions", json={"player": "a\x00b"})
    assert r.status_code == 422 and r.json()["error"] == "invalid_player"
    r = server.client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10},
                           headers={**player.headers, "Idempotency-Key": "a\x01b"})
    assert r.status_code == 400 and r.json()["error"] == "bad_idempotency_key"


def test_a_name_with_a_trailing_newline_is_no_player_name(server):
    server.session("demo")
    for name in ("demo\n", "demo\r\n", "\ndemo", "demo\x00"):
        r = server.client.post("/api/v1/sessions", json={"player": name})
        assert r.status_code == 422 and r.json()["error"] == "invalid_player", (name, r.text)
    with server.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(players)).scalar_one() == 1


def test_operator_mode_refuses_the_play_money_of_a_former_demo_database(make_server):
    demo = make_server()
    token = demo.session("demo").token
    with pytest.raises(ConfigError, match="demo player"):
        make_server(operator_config())
    server = make_server(operator_config(), allow_demo_players=True)  # started anyway: still refused
    r = server.client.get("/api/v1/wallet", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 403 and r.json()["error"] == "demo_player_refused"
    r = server.client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10},
                           headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"})
    assert r.status_code == 403 and r.json()["error"] == "demo_player_refused"
    r = server.client.post("/api/v1/sessions", json={"player": "demo"}, headers=OP)
    assert r.status_code == 403 and r.json()["error"] == "demo_player_refused"
    before = _ledger_rows(server)
    r = server.client.post("/api/v1/operator/players/demo/withdrawals", json={"amount": 1},
                           headers={**OP, "Idempotency-Key": "w1"})
    assert r.status_code == 403 and r.json()["error"] == "demo_player_refused"
    assert _ledger_rows(server) == before


def test_the_demo_database_is_not_the_operators_default():
    from reelforge.server.config import DEFAULT_DATABASE, DEMO_DATABASE

    assert DEMO_DATABASE != DEFAULT_DATABASE


def test_a_405_names_the_allowed_methods_and_answers_carry_a_content_security_policy(server):
    r = server.client.delete("/api/v1/games")
    assert r.status_code == 405 and r.json()["error"] == "method_not_allowed" and r.headers["allow"] == "GET"
    r2 = server.client.options("/api/v1/games/forge-of-fortunes/rounds")
    assert r2.status_code == 405 and r2.headers["allow"] == "POST"
    assert server.client.get("/api/v1/no-such-thing").json()["error"] == "not_found"
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert "unsafe-inline" not in r.headers["content-security-policy"].split("script-src")[1].split(";")[0]


def test_operator_mode_serves_no_cdn_docs_but_its_openapi(make_server):
    server = make_server(operator_config())
    assert server.client.get("/docs").status_code == 404
    assert server.client.get("/redoc").status_code == 404
    assert server.client.get("/openapi.json").status_code == 200


def test_deposits_beyond_the_balance_cap_are_refused_and_change_nothing(make_server):
    server = make_server(operator_config(max_balance=10_000))
    _player(server, "rich")
    assert _deposit(server, "rich", 9_000, "d1").status_code == 200
    before = _ledger_rows(server)
    r = _deposit(server, "rich", 1_001, "d2")
    assert r.status_code == 409 and r.json()["error"] == "balance_cap_exceeded"
    assert _ledger_rows(server) == before
    assert _deposit(server, "rich", 1_000, "d3").json()["balance"] == 10_000


def test_idempotency_answers_are_purged_after_the_retention_and_a_late_retry_never_charges_twice(make_server):
    server = make_server(operator_config(idempotency_retention_days=7))
    _player(server, "late")
    assert _deposit(server, "late", 500, "old").status_code == 200
    assert server.service.purge_idempotency(utcnow() + timedelta(days=6)) == 0
    assert server.service.purge_idempotency(utcnow() + timedelta(days=7, seconds=1)) == 1
    with server.engine.connect() as conn:
        assert conn.execute(select(idempotency.c.response)).all() == []  # deleted: the ledger entry keeps the key
    before = _ledger_rows(server)
    r = _deposit(server, "late", 500, "old")
    assert r.status_code == 409 and r.json()["error"] == "idempotency_key_expired"
    assert _ledger_rows(server) == before
    r = _deposit(server, "late", 7, "old")  # a different request with the old key: still refused
    assert r.status_code == 409 and r.json()["error"] == "idempotency_key_expired"
    assert _ledger_rows(server) == before


@pytest.mark.parametrize("body", [
    b'{"bet": 1' + b"0" * 5000 + b"}",
    b'{"bet": ' + b"[" * 1200 + b"]" * 1200 + b"}",
    b'{"bet": "\xff\xfe"}',
])
def test_bodies_the_json_parser_cannot_read_are_malformed_json(server, body):
    player = server.session()
    for path in ("/api/v1/games/forge-of-fortunes/rounds", "/api/v1/rounds/1/steps"):
        r = server.client.post(path, content=body, headers={**player.key(), "content-type": "application/json"})
        assert r.status_code == 422 and r.json()["error"] == "malformed_json", (path, r.text)
    r = server.client.post("/api/v1/sessions", content=body.replace(b'"bet"', b'"player"'),
                           headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"] == "malformed_json", r.text


def test_a_failing_database_is_answered_503_with_retry_after_and_one_log_line(make_server, caplog):
    server = make_server(demo_config(db_pool_timeout_seconds=0.3))  # PostgreSQL retries transient failures
    player = server.session()
    engine = server.engine
    original = engine.raw_connection
    if engine.dialect.name == "sqlite":
        import sqlite3

        def broken():
            raise sqlite3.OperationalError("database or disk is full")
        expected = "storage_full"
    else:
        import psycopg

        def broken():
            raise psycopg.OperationalError("connection refused: the database system is shutting down")
        expected = "storage_unavailable"
    engine.raw_connection = broken
    writer = engine.info.pop("sqlite_writer", None) if engine.dialect.name == "sqlite" else None
    try:
        with caplog.at_level("ERROR", logger="reelforge.server"):
            caplog.clear()
            r = server.client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10}, headers=player.key())
            w = server.client.get("/api/v1/wallet", headers=player.headers)
    finally:
        engine.raw_connection = original
        if writer is not None:
            engine.info["sqlite_writer"] = writer
    for answer in (r, w):
        assert answer.status_code == 503 and answer.json()["error"] == expected, answer.text
        assert int(answer.headers["retry-after"]) >= 1
    lines = [rec for rec in caplog.records if rec.levelname == "ERROR"]
    assert len(lines) == 2 and all(rec.exc_info is None for rec in lines)
    assert player.balance() == server.config.demo_balance  # nothing changed; the server serves again


def test_the_sqlite_wal_is_reset_and_truncated_once_it_passes_its_limit(tmp_path, monkeypatch):
    import os
    import time

    from reelforge.server import db

    monkeypatch.setattr(db, "WAL_LIMIT", 256 * 1024)
    engine = db.open_database(f"sqlite:///{tmp_path / 'wal.db'}")
    checkpointer = db.Checkpointer(engine, interval=0.05, reset_interval=3600)  # only the size resets it
    checkpointer.start()
    try:
        with db.write_transaction(engine) as conn:
            conn.exec_driver_sql("CREATE TABLE filler (x TEXT)")
        for _ in range(40):
            with db.write_transaction(engine) as conn:
                conn.exec_driver_sql("INSERT INTO filler VALUES (?)", ("x" * 100_000,))
        peak = os.path.getsize(tmp_path / "wal.db-wal")
        deadline = time.monotonic() + 10
        while os.path.getsize(tmp_path / "wal.db-wal") > db.WAL_LIMIT and time.monotonic() < deadline:
            time.sleep(0.05)  # the first write after a reset starts the WAL over, truncated to the limit
            with db.write_transaction(engine) as conn:
                conn.exec_driver_sql("INSERT INTO filler VALUES ('y')")
        assert peak > db.WAL_LIMIT >= os.path.getsize(tmp_path / "wal.db-wal"), peak
    finally:
        checkpointer.stop()
        engine.dispose()


def test_integers_written_as_whole_json_numbers_are_those_integers(make_server):
    """The OpenAPI description says "integer" (JSON Schema 2020-12), which 10.0 and 1e1 are: accepted as
    10, on the hot path and on the routes alike; a fraction is still refused."""
    server = make_server(operator_config())
    token = _player(server, "whole")
    assert server.client.post("/api/v1/operator/players/whole/deposits", content=b'{"amount": 1e3}',
                              headers={**OP, "Idempotency-Key": "w1", "content-type": "application/json"}
                              ).json()["balance"] == 1000
    auth = {"Authorization": f"Bearer {token}", "content-type": "application/json"}
    for i, body in enumerate((b'{"bet": 10.0}', b'{"bet": 1e1}')):
        r = server.client.post("/api/v1/games/forge-of-fortunes/rounds", content=body,
                               headers={**auth, "Idempotency-Key": f"r{i}"})
        assert r.status_code == 201 and r.json()["bet"] == 10, r.text
        while r.json()["status"] == "open":
            r = server.client.post(f"/api/v1/rounds/{r.json()['id']}/steps", json={},
                                   headers={**auth, "Idempotency-Key": uuid.uuid4().hex})
    for body in (b'{"bet": 10.5}', b'{"bet": 10.000001}'):
        r = server.client.post("/api/v1/games/forge-of-fortunes/rounds", content=body,
                               headers={**auth, "Idempotency-Key": "frac"})
        assert r.status_code == 422 and r.json()["error"] == "invalid_request", r.text
