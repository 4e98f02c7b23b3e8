"""Short CI versions of the soak (the full one is ``reelforge soak``): concurrent players play
full rounds against real server processes over loopback; afterwards the ledger reconciles
exactly and every round verifies by replay. The crash tests SIGKILL the server at random
moments (20 times on SQLite) while players resume with the same idempotency keys."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select, update

from reelforge.games.registry import game_ids
from reelforge.ops.soak import PlayerRecord, SoakError, reconcile, run_soak
from reelforge.server.app import create_app
from reelforge.server.config import load_config
from reelforge.server.db import make_engine
from reelforge.server.schema import ledger, players, rounds

from .conftest import GAME

REQUIRED = ["rounds", "rounds_per_second", "p50_ms", "p99_ms", "errors_5xx", "kills", "lost_or_duplicated_money",
            "unfinishable_rounds", "verify_failures", "reconciled"]


def assert_clean(result: dict) -> None:
    assert result["problems"] == []
    assert result["errors_5xx"] == 0 and result["unexpected_answers"] == 0
    assert result["lost_or_duplicated_money"] == 0
    assert result["unfinishable_rounds"] == 0
    assert result["verify_failures"] == 0
    assert result["rounds_verified"] == result["rounds_stored"] == result["rounds"] > 0
    assert result["reconciled"] is True


@pytest.mark.slow
def test_soak_command_under_load_reconciles_exactly(db_url):
    out = subprocess.run([sys.executable, "-m", "reelforge", "soak", "--db", db_url, "--clients", "16",
                          "--seconds", "3", "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout[-2000:]
    result = json.loads(out.stdout)
    assert all(k in result for k in REQUIRED)
    assert result["clients"] == 16 and result["kills"] == 0
    assert result["game"] == game_ids()[0]  # the registry's first game, the lowest bet of the server's ladder
    assert result["backend"] == db_url.split(":")[0].split("+")[0]
    assert_clean(result)
    assert result["rounds_per_second"] > 0 and 0 < result["p50_ms"] <= result["p99_ms"]


@pytest.mark.slow
@pytest.mark.parametrize("backend_kills", [("sqlite", 20), ("postgresql", 6)], ids=["sqlite", "postgresql"])
def test_sigkill_during_load_loses_and_duplicates_nothing(backend_kills, tmp_path, request):
    from .conftest import fresh_database

    backend, kills = backend_kills
    url, drop = fresh_database(backend, tmp_path)
    try:
        # The run ends after its kills; ``seconds`` only bounds it, generously: each kill waits for a restarted
        # server, which on a loaded machine takes seconds (16 of 20 kills fitted in 120 s there).
        result = run_soak(db=url, clients=8, seconds=900, kill_every=0.4, max_kills=kills, seed=None,
                          workdir=tmp_path)
    finally:
        drop()
    assert result["kills"] == kills
    assert result["transport_errors_retried"] > 0  # kills did cut requests in flight
    assert_clean(result)


def test_soak_refuses_unbounded_runs():
    with pytest.raises(SoakError):
        run_soak(clients=0)
    with pytest.raises(SoakError):
        run_soak(clients=10_000)
    with pytest.raises(SoakError):
        run_soak(seconds=0)


def test_reconciliation_finds_duplicated_and_lost_money(tmp_path):
    """The checks can fail: tamper with a reconciled database and they count the difference."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    app = create_app(load_config(None), url)
    records = []
    with TestClient(app) as client:
        for name in ("ann", "ben"):
            body = client.post("/api/v1/sessions", json={"player": name}).json()
            rec = PlayerRecord(name, start_balance=body["balance"])
            auth = {"Authorization": f"Bearer {body['token']}"}
            for _ in range(5):
                rnd = client.post(f"/api/v1/games/{GAME}/rounds", json={"bet": 100},
                                  headers={**auth, "Idempotency-Key": uuid.uuid4().hex}).json()
                while rnd["status"] == "open":
                    rnd = client.post(f"/api/v1/rounds/{rnd['id']}/steps", json={},
                                      headers={**auth, "Idempotency-Key": uuid.uuid4().hex}).json()
                rec.round_ids.add(rnd["id"])
                rec.costs += rnd["cost"]
                rec.wins += rnd["paid"]
            records.append(rec)
    app.state.engine.dispose()
    clean = reconcile(url, records)
    assert clean["problems"] == [] and clean["lost_or_duplicated_money"] == 0

    engine = make_engine(url)
    with engine.begin() as conn:
        ann = conn.execute(select(players).where(players.c.name == "ann")).one()
        first = conn.execute(select(rounds).where(rounds.c.player_id == ann.id).order_by(rounds.c.id)).first()
        # A duplicated debit, booked consistently (the wallet still equals its ledger).
        conn.execute(insert(ledger).values(player_id=ann.id, kind="stake", amount=-first.cost,
                                           balance_after=ann.balance - first.cost, round_id=first.id,
                                           created_at=first.created_at))
        conn.execute(update(players).where(players.c.id == ann.id).values(balance=ann.balance - first.cost))
    engine.dispose()
    tampered = reconcile(url, records)
    # Found twice: against the round's cost and against the player's own account.
    assert tampered["lost_or_duplicated_money"] == 2 * first.cost
    assert any("debited" in p for p in tampered["problems"])
