"""Database faults on a durable PostgreSQL cluster of the test's own (fsync and synchronous_commit on,
never the shared fast one): an abrupt restart under load loses no answered round and no money, and the
server serves again at once; out of connections, requests wait for a slot (bounded), then get a 503."""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import replace

import psycopg
import pytest
from fastapi.testclient import TestClient

from reelforge.ops.pgcluster import PostgresCluster, available, new_database, restart_fault
from reelforge.ops.soak import run_soak
from reelforge.server.app import create_app
from reelforge.server.config import load_config

pytestmark = pytest.mark.skipif(not available(), reason="no PostgreSQL server binaries here")


@pytest.fixture(scope="module")
def durable():
    cluster = PostgresCluster(max_connections=40)
    cluster.start()
    yield cluster
    cluster.close()


def test_an_abrupt_postgresql_restart_under_load_loses_no_answered_round(durable):
    url = new_database(durable, f"soak_{uuid.uuid4().hex[:8]}")
    result = run_soak(db=url, clients=8, seconds=6, fault=restart_fault(durable, after=2.0), hard_timeout=90)
    assert result["problems"] == [] and result["reconciled"], result
    assert result["lost_or_duplicated_money"] == 0 and result["errors_5xx"] == 0
    assert result["rounds_stored"] == result["rounds"] > 0  # every round answered is stored, and no other
    # Within 1 s of PostgreSQL accepting connections on a quiet machine; on a loaded one every answer takes longer
    # (CI saw 1.057 s with PostgreSQL's restart taking 7 s): the same request's time just before the restart
    # measures that load: the bound grows with it (five answers' time), not with a wait of the server's own.
    (restart,) = result["fault"]
    assert restart["serving_again_s"] < 1.0 + 5 * restart["answer_before_s"], restart


def _hog(cluster: PostgresCluster) -> list:
    """Every free connection slot of the cluster, held."""
    held = []
    while True:
        try:
            held.append(psycopg.connect(host="127.0.0.1", port=cluster.port, user="reelforge", dbname="postgres"))
        except psycopg.OperationalError:
            return held


def test_out_of_connections_a_request_waits_for_a_slot_then_gets_503(durable):
    url = new_database(durable, f"conn_{uuid.uuid4().hex[:8]}")
    config = replace(load_config(None), expiry_check_seconds=0, db_pool_timeout_seconds=3)
    app = create_app(config, url)
    with TestClient(app) as client:
        token = client.post("/api/v1/sessions", json={"player": "waiter"}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        app.state.engine.dispose()  # the next request must open a connection
        held = _hog(durable)
        try:
            threading.Timer(1.0, lambda: [c.close() for c in held]).start()
            t0 = time.monotonic()
            r = client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10},
                            headers={**headers, "Idempotency-Key": "wait-1"})
            waited = time.monotonic() - t0
        finally:
            time.sleep(1.1)
        assert r.status_code == 201 and 0.9 <= waited < 3, (r.status_code, waited)
        app.state.engine.dispose()
        held = _hog(durable)
        try:
            t0 = time.monotonic()
            r = client.get("/api/v1/wallet", headers=headers)
            waited = time.monotonic() - t0
        finally:
            for c in held:
                c.close()
        assert r.status_code == 503 and r.json()["error"] == "storage_unavailable" and "retry-after" in r.headers
        assert 2.5 <= waited < 10, waited
        assert client.get("/api/v1/wallet", headers=headers).status_code == 200  # recovered by itself
