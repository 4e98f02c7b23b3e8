"""Idempotency storage is bounded (issue 32, finding 17): the housekeeping schedule deletes every stored
answer after the retention, starts' and transfers' included (rows counted), and a retry after it is
refused by the round's or the transfer's own key: never charged twice, on either wallet."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import timedelta

from sqlalchemy import func, select, update

from reelforge.core.draws import SeededDraws
from reelforge.server.schema import idempotency, ledger, rounds

from .test_sessions_and_games import OPERATOR_KEY, operator_config

GAME = "forge-of-fortunes"


def _count(engine, table) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_the_housekeeping_deletes_every_answer_and_a_late_retry_charges_nothing(make_server):
    server = make_server(replace(operator_config(idempotency_retention_days=1), housekeeping_seconds=0.2,
                                 expiry_check_seconds=0))
    server.draws.source = SeededDraws(4)
    op = {"X-Operator-Key": OPERATOR_KEY}
    token = server.client.post("/api/v1/sessions", json={"player": "kept"}, headers=op).json()["token"]
    player = {"Authorization": f"Bearer {token}"}
    deposit = server.client.post("/api/v1/operator/players/kept/deposits", json={"amount": 5_000},
                                 headers={**op, "Idempotency-Key": "dep-kept"})
    assert deposit.status_code == 200, deposit.text
    rnd = server.client.post(f"/api/v1/games/{GAME}/rounds", json={"bet": 10},
                             headers={**player, "Idempotency-Key": "start-kept"}).json()
    n = 0
    while rnd["status"] == "open":
        rnd = server.client.post(f"/api/v1/rounds/{rnd['id']}/steps",
                                 headers={**player, "Idempotency-Key": f"step-kept-{n}"}).json()
        n += 1
    assert _count(server.engine, idempotency) == 2 + n
    with server.engine.begin() as conn:  # past the retention
        conn.execute(update(idempotency).values(created_at=idempotency.c.created_at - timedelta(days=2)))
    deadline = time.monotonic() + 10
    while _count(server.engine, idempotency):
        assert time.monotonic() < deadline, "the housekeeping did not delete the stored answers within 10 s"
        time.sleep(0.1)
    balance = server.client.get("/api/v1/wallet", headers=player).json()["balance"]
    entries, played = _count(server.engine, ledger), _count(server.engine, rounds)
    for path, key, body, headers in ((f"/api/v1/games/{GAME}/rounds", "start-kept", {"bet": 10}, player),
                                     ("/api/v1/operator/players/kept/deposits", "dep-kept", {"amount": 5_000}, op)):
        r = server.client.post(path, json=body, headers={**headers, "Idempotency-Key": key})
        assert (r.status_code, r.json()["error"]) == (409, "idempotency_key_expired"), r.text
    assert server.client.get("/api/v1/wallet", headers=player).json()["balance"] == balance
    assert (_count(server.engine, ledger), _count(server.engine, rounds)) == (entries, played)
    assert _count(server.engine, idempotency) == 0  # the refusals stored nothing


def test_a_seamless_retry_after_the_retention_sends_no_second_debit(make_server, tmp_path):
    from reelforge.ops.client import ApiClient
    from reelforge.ops.refwallet_process import WalletProcess

    from .seamless_support import SECRET, launch, seamless_config

    wallet = WalletProcess(f"sqlite:///{tmp_path / 'w.db'}", SECRET, seed=1)
    wallet.start()
    try:
        server = make_server(seamless_config(wallet.url))
        wallet.open_account("late-seamless", "EUR", 1_000)
        api = ApiClient(server.client, launch(server.client, "late-seamless"))
        headers = {"Authorization": f"Bearer {api.token}", "Idempotency-Key": "s-1"}
        first = server.client.post(f"/api/v1/games/{GAME}/rounds", json={"bet": 10}, headers=headers)
        assert first.status_code == 201, first.text
        assert server.service.purge_idempotency() == 0  # within the retention: kept
        with server.engine.begin() as conn:
            conn.execute(update(idempotency).values(created_at=idempotency.c.created_at - timedelta(days=30)))
        assert server.service.purge_idempotency() >= 1 and _count(server.engine, idempotency) == 0
        debits = [t for t in wallet.ledger() if t["kind"] == "debit"]
        r = server.client.post(f"/api/v1/games/{GAME}/rounds", json={"bet": 10}, headers=headers)
        assert (r.status_code, r.json()["error"]) == (409, "idempotency_key_expired"), r.text
        assert [t for t in wallet.ledger() if t["kind"] == "debit"] == debits
    finally:
        wallet.stop()
