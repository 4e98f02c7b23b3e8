"""The seamless wallet against the reference operator wallet (a real HTTP server process with its own
database): debits, credits through the outbox, rollbacks of lost debits, faults, and the signed calls."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest

from reelforge.core.draws import SeededDraws
from reelforge.ops.client import ApiClient
from reelforge.ops.refwallet_process import WalletProcess
from reelforge.server.clock import utcnow
from tests.server.seamless_support import (
    API_KEY,
    FAULT_LIMITS,
    GAME,
    SECRET,
    drain_outbox,
    launch,
    outbox_due_now,
    reference_wallet,
    seamless_config,
    signed_call,
)


@pytest.fixture(scope="module")
def wallet(tmp_path_factory) -> Iterator[WalletProcess]:
    yield from reference_wallet(tmp_path_factory, seed=7)


@pytest.fixture
def seamless(make_server, wallet):
    """A seamless server on the reference wallet (faults off) and a new funded player's API client."""
    return seamless_server(make_server, wallet)


def seamless_server(make_server, wallet, **limits) -> tuple:
    """The server, wallet, player and API client of :func:`seamless`; ``limits``: the wallet's time limits."""
    wallet.set_faults()
    server = make_server(seamless_config(wallet.url, **limits))
    server.draws.source = SeededDraws(2026)  # the same rounds every run
    name = f"p{uuid.uuid4().hex[:10]}"
    wallet.open_account(name, "EUR", 10_000)
    api = ApiClient(server.client, launch(server.client, name))
    return server, wallet, name, api


def history(api: ApiClient) -> list[dict]:
    r = api.http.get("/api/v1/rounds", headers={"Authorization": f"Bearer {api.token}"})
    assert r.status_code == 200, r.text
    return r.json()["rounds"]


def get_round(api: ApiClient, public_id: int) -> dict:
    r = api.http.get(f"/api/v1/rounds/{public_id}", headers={"Authorization": f"Bearer {api.token}"})
    assert r.status_code == 200, r.text
    return r.json()


def finish(api: ApiClient, rnd: dict) -> dict:
    while rnd["status"] == "open":
        r = api.step(rnd["id"])
        assert r.status_code == 200, r.text
        rnd = r.json()
    return rnd


def transactions(server, public_id: int) -> list[dict]:
    r = signed_call(server.client, "GET", f"/api/v1/operator/rounds/{public_id}/transactions")
    assert r.status_code == 200, r.text
    return r.json()["transactions"]


def test_a_round_debits_the_stake_before_it_is_decided_and_credits_the_win_once(seamless):
    server, wallet, name, api = seamless
    played = 0
    paid = 0
    for _ in range(8):
        r = api.start_round(GAME, 20)
        assert r.status_code == 201, r.text
        rnd = finish(api, r.json())
        assert rnd["status"] == "finished"
        played += 20
        paid += rnd["paid"]
        assert wallet.balance(name) == 10_000 - played + paid  # every credit delivered at the reveal
        calls = transactions(server, rnd["id"])
        assert [c["kind"] for c in calls] == ["debit"] + (["credit"] if rnd["paid"] else [])
        assert all(c["status"] == "done" and c["currency"] == "EUR" for c in calls)
        assert calls[0]["amount"] == 20 and (not rnd["paid"] or calls[1]["amount"] == rnd["paid"])
        on_their_side = [t for t in wallet.ledger(rnd["id"]) if t["player"] == name]
        assert sorted((t["transaction_id"], t["amount"]) for t in on_their_side) == \
            sorted((c["transaction_id"], c["amount"]) for c in calls)
        assert rnd["wallet_settlement"] in (None, {"kind": "credit", "status": "done"})
    assert api.wallet().json()["balance"] == 10_000 - played + paid


def test_a_refused_debit_is_a_402_and_stores_no_round(seamless):
    server, wallet, name, api = seamless
    r = api.start_round(GAME, 50)
    assert r.status_code == 201
    finish(api, r.json())
    before = wallet.balance(name)
    wallet.call("POST", "/admin/accounts", {"player": "unused", "currency": "EUR", "balance": 0})
    poor = f"q{uuid.uuid4().hex[:10]}"
    wallet.open_account(poor, "EUR", 5)
    broke = ApiClient(server.client, launch(server.client, poor))
    r = broke.start_round(GAME, 10)
    assert r.status_code == 402 and r.json()["error"] == "insufficient_balance", r.text
    assert history(broke) == []
    assert wallet.balance(poor) == 5 and wallet.balance(name) == before


@pytest.mark.parametrize("fault", ["timeout_before", "timeout_after", "error_after", "nonsense"])
def test_a_debit_without_a_usable_answer_is_rolled_back_and_the_round_never_shown(make_server, wallet, fault, caplog):
    server, wallet, name, api = seamless_server(make_server, wallet, **FAULT_LIMITS)  # it waits a hang out
    wallet.set_faults(hang_seconds=5.0, kinds=("debit",), **{fault: 1.0})
    with caplog.at_level(logging.WARNING, logger="reelforge.server"):
        r = api.start_round(GAME, 20)
    assert r.status_code == 503 and r.json()["error"] == "wallet_unavailable", r.text
    assert "nothing is charged" in r.json()["detail"]
    assert wallet.balance(name) == 10_000  # applied or not, the rollback leaves the balance as it was
    assert history(api) == []
    debit_logged = [rec.getMessage() for rec in caplog.records if "wallet debit" in rec.getMessage()]
    assert debit_logged and "rolling it back" in debit_logged[0]
    tx_id = debit_logged[0].split()[2]
    kinds = {t["transaction_id"]: t for t in wallet.ledger()}
    rollbacks = [t for t in kinds.values() if t["kind"] == "rollback" and t["reference"] == tx_id]
    assert len(rollbacks) == 1
    wallet.set_faults()
    r = api.start_round(GAME, 20)  # the player plays on
    assert r.status_code == 201, r.text
    finish(api, r.json())


def test_credits_go_through_the_outbox_until_acknowledged_even_across_a_restart(seamless, make_server):
    server, wallet, name, api = seamless
    wallet.set_faults(kinds=("credit",), error_before=1.0)
    winning = None
    for _ in range(40):
        r = api.start_round(GAME, 20)
        assert r.status_code == 201, r.text
        rnd = finish(api, r.json())
        if rnd["paid"]:
            winning = rnd
            break
    assert winning is not None, "no win in 40 rounds"
    assert winning["wallet_settlement"] == {"kind": "credit", "status": "pending"}  # "win being credited"
    assert get_round(api, winning["id"])["wallet_settlement"] == {"kind": "credit", "status": "pending"}
    owed = wallet.balance(name)
    assert api.wallet().json()["credits_pending"] == 1
    assert server.service.wallet.outbox_depth() >= 1
    # another server process (a restart) finds the credit in the database and delivers it once the wallet answers
    other = make_server(seamless_config(wallet.url), own_engine=True)
    outbox_due_now(other)  # due again (not waiting out its backoff)
    other.service.wallet.deliver_due()  # the wallet still fails: it stays pending, with a longer backoff
    assert wallet.balance(name) == owed
    wallet.set_faults()
    drain_outbox(other)
    assert get_round(api, winning["id"])["wallet_settlement"]["status"] == "done"
    assert wallet.balance(name) == owed + winning["paid"]
    credits = [c for c in transactions(server, winning["id"]) if c["kind"] == "credit"]
    assert len(credits) == 1 and credits[0]["attempts"] >= 2
    # (the module's wallet serves every test's server, whose public round ids may repeat: this player's calls)
    assert [t["kind"] for t in wallet.ledger(winning["id"]) if t["player"] == name].count("credit") == 1


def test_an_expired_round_is_completed_and_its_decided_win_credited_through_the_outbox(seamless):
    server, wallet, name, api = seamless
    r = api.start_round("gemstones-gold", 20, buy_feature=True)  # a bought feature: several steps
    assert r.status_code == 201, r.text
    rnd = r.json()
    assert rnd["status"] == "open" and rnd["cost"] == 1122
    assert server.service.expire(now=utcnow() + timedelta(days=91)) == 1
    server.service.wallet.deliver_due()
    done = get_round(api, rnd["id"])
    assert done["status"] == "finished" and done["completed_on_expiry"]
    assert wallet.balance(name) == 10_000 - 1122 + done["paid"]
    calls = transactions(server, rnd["id"])
    assert [(c["kind"], c["status"]) for c in calls] == [("debit", "done")] + ([("credit", "done")] if done["paid"] else [])


def test_a_malfunction_voids_the_round_and_rolls_its_debit_back(seamless):
    from tests.server.conftest import BrokenDraws

    server, wallet, name, api = seamless
    server.draws.source = BrokenDraws()
    r = api.start_round(GAME, 20)
    assert r.status_code == 201 and r.json()["status"] == "void", r.text
    assert r.json()["wallet_settlement"] == {"kind": "rollback", "status": "done"}
    assert wallet.balance(name) == 10_000
    calls = transactions(server, r.json()["id"])
    assert [(c["kind"], c["status"]) for c in calls] == [("debit", "done"), ("rollback", "done")]
    assert calls[1]["reference_transaction_id"] == calls[0]["transaction_id"]


def test_a_debit_left_pending_by_a_dead_process_is_rolled_back(seamless):
    server, wallet, name, api = seamless
    service = server.service
    from reelforge.server.store import transaction

    # a debit that reached the wallet, whose process died before settling it
    long_ago = utcnow() - timedelta(minutes=5)
    with transaction(server.engine) as tx:
        player_id = tx.player_by_name(name).id
        debit = service.wallet.new_tx(tx, "debit", player_id, 10**6, 30, "EUR", long_ago, due=long_ago)
    assert service.wallet.send(debit, name)["balance"] == 10_000 - 30
    service.wallet.deliver_due()
    assert wallet.balance(name) == 10_000
    r = api.start_round(GAME, 20)
    assert r.status_code == 201, r.text
    finish(api, r.json())


def test_operator_calls_must_be_signed_fresh_and_new(seamless):
    server, _wallet, name, _api = seamless
    client = server.client
    body = {"player": "mallory", "currency": "EUR"}
    r = client.post("/api/v1/operator/launches", json=body)
    assert (r.status_code, r.json()["error"]) == (401, "unsigned")
    r = signed_call(client, "POST", "/api/v1/operator/launches", body, secret="not-the-operators-secret!")
    assert (r.status_code, r.json()["error"]) == (401, "bad_signature")
    r = signed_call(client, "POST", "/api/v1/operator/launches", body, now=time.time() - 3600)
    assert (r.status_code, r.json()["error"]) == (401, "expired")
    import json

    from reelforge.server.signing import signed_headers

    data = json.dumps(body).encode()
    headers = {"content-type": "application/json",
               **signed_headers(SECRET, "POST", "/api/v1/operator/launches", data)}
    assert client.post("/api/v1/operator/launches", content=data, headers=headers).status_code == 201
    r = client.post("/api/v1/operator/launches", content=data, headers=headers)
    assert (r.status_code, r.json()["error"]) == (401, "replayed")
    from sqlalchemy import func, select

    from reelforge.server.schema import launch_tokens

    with server.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(launch_tokens)
                            .where(launch_tokens.c.player == "mallory")).scalar_one() == 1


def test_a_launch_token_is_spent_once_and_the_operator_ends_sessions(seamless):
    server, wallet, name, api = seamless
    client = server.client
    r = signed_call(client, "POST", "/api/v1/operator/launches",
                    {"player": name, "currency": "EUR", "language": "de-DE", "profile": "uk", "max_bet": 20})
    url = r.json()["launch_url"]
    assert SECRET not in url
    token = url.split("launch=")[1]
    session = client.post("/api/v1/launch", json={"token": token})
    assert session.status_code == 201 and session.json()["profile"] == "uk"
    again = client.post("/api/v1/launch", json={"token": token})
    assert (again.status_code, again.json()["error"]) == (401, "launch_token_invalid")
    player = ApiClient(client, session.json()["token"])
    settings = client.get("/api/v1/settings", headers={"Authorization": f"Bearer {session.json()['token']}"}).json()
    assert settings["language"] == "de-DE" and settings["autoplay"] is False and settings["turbo"] is False
    assert settings["min_round_seconds"] == 2.5 and settings["bet_ladders"][GAME] == [10, 20]
    assert player.start_round(GAME, 50).json()["error"] == "bet_above_maximum"
    first = player.start_round(GAME, 10)  # the UK profile's 2.5 s between round starts, enforced by the server
    assert first.status_code == 201, first.text
    finish(player, first.json())
    again = player.start_round(GAME, 10)
    assert (again.status_code, again.json()["error"]) == (429, "too_soon")
    r = signed_call(client, "POST", f"/api/v1/operator/players/{name}/end-session")
    assert r.status_code == 200 and r.json()["ended"] >= 1
    assert player.wallet().json()["error"] == "session_expired"
    assert api.wallet().status_code == 401


def test_an_expired_launch_token_is_refused(make_server, wallet):
    server = make_server(seamless_config(wallet.url, launch_token_seconds=0.05))
    r = signed_call(server.client, "POST", "/api/v1/operator/launches", {"player": "late", "currency": "EUR"})
    time.sleep(0.1)
    token = r.json()["launch_url"].split("launch=")[1]
    r = server.client.post("/api/v1/launch", json={"token": token})
    assert (r.status_code, r.json()["error"]) == (401, "launch_token_invalid")


def test_sessions_play_in_their_currency_on_its_ladder(seamless):
    server, wallet, _name, _api = seamless
    yen = f"y{uuid.uuid4().hex[:10]}"
    wallet.open_account(yen, "JPY", 1000)
    api = ApiClient(server.client, launch(server.client, yen, "JPY"))
    assert api.start_round(GAME, 20).json()["error"] == "bet_not_on_ladder"
    r = api.start_round(GAME, 100)
    assert r.status_code == 201 and r.json()["currency"] == "JPY", r.text
    rnd = finish(api, r.json())
    assert all(c["currency"] == "JPY" for c in transactions(server, rnd["id"]))
    assert wallet.balance(yen) == 1000 - 100 + rnd["paid"]
    r = signed_call(server.client, "POST", "/api/v1/operator/launches", {"player": yen, "currency": "EUR"})
    assert (r.status_code, r.json()["error"]) == (409, "currency_mismatch")
    r = signed_call(server.client, "POST", "/api/v1/operator/launches", {"player": "x1", "currency": "USD"})
    assert (r.status_code, r.json()["error"]) == (422, "currency_not_offered")


def test_reconciliation_is_clean_after_faults_and_names_every_difference(make_server, tmp_path):
    from sqlalchemy import update
    from typer.testing import CliRunner

    from reelforge.cli import app
    from reelforge.server.schema import wallet_transactions

    # a wallet of its own: its whole ledger is this server's
    wallet = WalletProcess(f"sqlite:///{tmp_path / 'own-wallet.db'}", SECRET, seed=11)
    wallet.start()
    try:
        # short limits, waited on by the hanging answers; a healthy answer slower than them is one more fault
        server = make_server(seamless_config(wallet.url, wallet_timeout_seconds=0.5, start_limit_seconds=2))
        server.draws.source = SeededDraws(2027)
        name = "reconciled"
        wallet.open_account(name, "EUR", 10_000)
        api = ApiClient(server.client, launch(server.client, name))
        _reconcile(server, wallet, name, api, tmp_path, CliRunner, app, update, wallet_transactions)
    finally:
        wallet.stop()


def _reconcile(server, wallet, name, api, tmp_path, CliRunner, app, update, wallet_transactions):  # noqa: N803
    wallet.set_faults(hang_seconds=0.7, timeout_after=0.15, error_before=0.15, nonsense=0.1)
    for _ in range(12):
        r = api.start_round(GAME, 10)
        if r.status_code == 201:
            finish(api, r.json())
        else:
            assert r.status_code == 503, r.text
    wallet.set_faults()
    drain_outbox(server)
    if server.url.startswith("sqlite"):  # the command on the same database, through the configuration file
        config = tmp_path / "server.toml"
        config.write_text(f'[server]\nmode = "operator"\napi_key_sha256 = "{"0" * 64}"\ndatabase = "{server.url}"\n'
                          f'[games.{GAME}]\nbet_ladder = [10]\n[operator]\nwallet = "seamless"\n'
                          f'secret = "{SECRET}"\nwallet_url = "{wallet.url}"\n')
        result = CliRunner().invoke(app, ["reconcile", "--config", str(config), "--json"])
        assert result.exit_code == 0, result.output
        assert '"clean": true' in result.output
    from reelforge.server.reconcile import reconcile

    report = reconcile(server.engine, wallet.ledger())
    assert report["clean"], report["differences"]
    # a credit we changed, and a transaction only the operator has: both named
    with server.engine.begin() as conn:
        changed = conn.execute(update(wallet_transactions).where(wallet_transactions.c.kind == "debit",
                                                                 wallet_transactions.c.status == "done")
                               .values(amount=wallet_transactions.c.amount + 1)).rowcount
    wallet.call("POST", "/admin/accounts", {"player": name, "currency": "EUR", "balance": 0})
    import json

    import httpx

    from reelforge.server.signing import signed_headers

    body = json.dumps({"transaction_id": "stray-1", "round_id": 1, "player": name, "amount": 5,
                       "currency": "EUR"}).encode()
    httpx.post(wallet.url + "/credit", content=body, headers=signed_headers(SECRET, "POST", "/credit", body))
    report = reconcile(server.engine, wallet.ledger())
    assert not report["clean"]
    assert any("stray-1" in d and "not ours" in d for d in report["differences"])
    assert sum("the operator has" in d and "debit" in d for d in report["differences"]) == changed
    with server.engine.begin() as conn:  # put it back: the round verifies again
        conn.execute(update(wallet_transactions).where(wallet_transactions.c.kind == "debit",
                                                       wallet_transactions.c.status == "done")
                     .values(amount=wallet_transactions.c.amount - 1))


def test_the_wallet_calls_and_the_outbox_show_in_metrics_and_on_the_operator_overview(seamless):
    server, wallet, name, api = seamless
    rnd = finish(api, api.start_round(GAME, 20).json())
    key = {"X-Operator-Key": API_KEY}
    text = server.client.get("/metrics", headers=key).text
    debits = [line for line in text.splitlines()
              if line.startswith('reelforge_wallet_calls_total{kind="debit",outcome="ok"}')]
    assert debits and float(debits[0].split()[-1]) >= 1
    assert 'reelforge_wallet_call_duration_seconds_count{kind="debit"}' in text
    assert 'reelforge_wallet_outbox_depth{brand="default"} 0.0' in text  # the credit (if any) delivered at once
    assert 'reelforge_wallet_outbox_oldest_age_seconds{brand="default"} 0.0' in text
    health = server.client.get("/api/v1/operator/overview", headers=key).json()["wallet"]
    assert health["outbox_depth"] == 0 and health["calls"]["debit"]["ok"] >= 1
    assert ("credit" in health["calls"]) == bool(rnd["paid"])
