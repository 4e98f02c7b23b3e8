"""The seamless wallet protocol's guarantees (issue 32): a refusal that may come after the wallet applied
the debit is rolled back, debits carry their context, answers can be signed, honest operator calls are
never taken for replays, and a player's wait on a failing wallet is bounded."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from reelforge.core.draws import SeededDraws
from reelforge.ops.client import ApiClient
from reelforge.ops.refwallet_process import WalletProcess
from reelforge.server.clock import utcnow
from reelforge.server.signing import signed_headers
from reelforge.server.store import transaction
from tests.server.seamless_support import (
    API_KEY,
    GAME,
    SECRET,
    drain_outbox,
    launch,
    reference_wallet,
    seamless_config,
    signed_call,
)


@pytest.fixture(scope="module")
def wallet(tmp_path_factory) -> Iterator[WalletProcess]:
    yield from reference_wallet(tmp_path_factory, seed=5)


def _player(server, wallet, balance: int = 10_000, **launch_options) -> tuple[str, ApiClient]:
    name = f"w{uuid.uuid4().hex[:10]}"
    wallet.open_account(name, "EUR", balance)
    return name, ApiClient(server.client, launch(server.client, name, **launch_options))


def _debit_rows(server, name: str) -> list[tuple[str, str]]:
    from sqlalchemy import select

    from reelforge.server.schema import players, wallet_transactions

    with server.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(
            select(wallet_transactions.c.kind, wallet_transactions.c.status)
            .join(players, players.c.id == wallet_transactions.c.player_id).where(players.c.name == name)
            .order_by(wallet_transactions.c.created_at)).all()]


def test_a_refusal_after_the_wallet_applied_the_debit_is_rolled_back(make_server, wallet):
    # finding 3: the wallet applied the debit, then a 409 came back (a gateway, a wallet failing after its commit)
    server = make_server(seamless_config(wallet.url))
    name, api = _player(server, wallet)
    wallet.set_faults(kinds=("debit",), refuse_after=1.0)
    try:
        r = api.start_round(GAME, 20)
    finally:
        wallet.set_faults()
    assert (r.status_code, r.json()["error"]) == (409, "wallet_refused"), r.text
    assert wallet.balance(name) == 10_000  # rolled back: the player's money is the player's again
    assert _debit_rows(server, name) == [("debit", "rolled_back"), ("rollback", "done")]
    mine = [t for t in wallet.ledger() if t["player"] == name]
    assert [(t["kind"], t["status"]) for t in mine] == [("debit", "rolled_back"), ("rollback", "applied")]


def test_a_signed_refusal_of_this_very_debit_is_trusted_and_needs_no_rollback(make_server, wallet):
    server = make_server(seamless_config(wallet.url, signed_answers=True))
    name, api = _player(server, wallet, balance=5)
    r = api.start_round(GAME, 10)
    assert (r.status_code, r.json()["error"]) == (402, "insufficient_balance"), r.text
    assert _debit_rows(server, name) == [("debit", "refused")]
    assert wallet.balance(name) == 5


def test_debits_carry_the_game_and_the_operators_session_and_signed_answers_are_checked(make_server, wallet):
    server = make_server(seamless_config(wallet.url, signed_answers=True))
    server.draws.source = SeededDraws(2026)
    name, api = _player(server, wallet, operator_session="op-session-42")
    r = api.start_round(GAME, 20)
    assert r.status_code == 201, r.text
    debit = [t for t in wallet.ledger() if t["player"] == name and t["kind"] == "debit"]
    assert [(t["game"], t["brand"], t["session"]) for t in debit] == [(GAME, "default", "op-session-42")]


class _UnsignedWallet(BaseHTTPRequestHandler):
    """A wallet (or a proxy in front of one) whose answers are well formed but not signed."""

    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        data = json.dumps({"transaction_id": body.get("transaction_id"), "amount": body.get("amount"),
                           "currency": body.get("currency"), "balance": 10_000}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args) -> None:
        pass


def test_an_unsigned_answer_is_not_taken_when_answers_must_be_signed(make_server):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _UnsignedWallet)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        server = make_server(seamless_config(f"http://127.0.0.1:{httpd.server_port}", signed_answers=True,
                                             wallet_timeout_seconds=0.5, start_limit_seconds=1))
        r = ApiClient(server.client, launch(server.client, "unsigned")).start_round(GAME, 20)
        assert (r.status_code, r.json()["error"]) == (503, "wallet_unavailable"), r.text
        assert _debit_rows(server, "unsigned")[0] == ("debit", "rolled_back")
        assert server.service.wallet.stats.snapshot()["calls"]["debit"] == {"nonsense": 1}
    finally:
        httpd.shutdown()


@pytest.mark.parametrize("fault", ["timeout_before", "dribble"])
def test_a_player_gets_the_503_within_the_start_limit(make_server, wallet, fault):
    # finding 18: a hanging wallet (debit and rollback) or one that dribbles its answer held a start 13-19.6 s.
    # A start that waits out the 30 s hang, or one wallet call after another, takes far longer than the limit
    # and the 3.5 s a loaded machine's writes around it are given (2.2 s seen on load 17 against 0.5 before).
    server = make_server(seamless_config(wallet.url, wallet_timeout_seconds=0.5, start_limit_seconds=1.5))
    name, api = _player(server, wallet)
    wallet.set_faults(hang_seconds=30.0, slow_seconds=0.1, kinds=("debit", "rollback"), **{fault: 1.0})
    try:
        started = time.monotonic()
        r = api.start_round(GAME, 20)
        took = time.monotonic() - started
    finally:
        wallet.set_faults()
    assert (r.status_code, r.json()["error"]) == (503, "wallet_unavailable"), r.text
    assert took < 1.5 + 3.5, f"the start took {took:.2f} s against a limit of 1.5 s"
    drain_outbox(server)  # the rollback is the outbox's now, delivered once the wallet answers
    assert wallet.balance(name) == 10_000


def test_a_debit_left_by_a_killed_process_blocks_the_player_no_longer_than_the_start_limit(make_server, wallet):
    server = make_server(seamless_config(wallet.url))
    name, api = _player(server, wallet)
    service = server.service
    with transaction(server.engine) as tx:
        player_id = tx.player_by_name(name).id
        planted = utcnow() - timedelta(seconds=11.2)  # older than the start limit (10 s) and its 1 s margin
        service.wallet.new_tx(tx, "debit", player_id, 10**6, 30, "EUR", planted, due=planted)
    r = api.start_round(GAME, 20)
    assert r.status_code == 201, r.text
    rnd = r.json()
    while rnd["status"] == "open":
        rnd = api.step(rnd["id"]).json()
    with transaction(server.engine) as tx:  # in flight, so due when stale (as the server writes one), on a round
        # no other uses: due at once, the outbox could roll it back before the start below, onto a played round
        service.wallet.new_tx(tx, "debit", player_id, 2 * 10**6, 30, "EUR", utcnow(),
                              due=utcnow() + timedelta(seconds=service.wallet.stale_after))
    r = api.start_round(GAME, 20)
    assert (r.status_code, r.json()["error"]) == (409, "round_starting")
    assert "try again in 11 s" in r.json()["detail"]


def test_an_older_configuration_still_loads_with_its_bound() -> None:
    from reelforge.server.config import parse_config
    from reelforge.server.config_values import ConfigError

    def operator(**keys):
        return parse_config({"server": {"mode": "demo"}, "games": {GAME: {"bet_ladder": [10]}},
                             "operator": {"wallet": "seamless", "secret": SECRET, "wallet_url": "http://w.example",
                                          **keys}}, "test").operator

    assert operator().start_limit_seconds == 5.0
    assert operator(wallet_timeout_seconds=3, debit_resolve_seconds=10).start_limit_seconds == 13.0  # as before
    assert operator(wallet_timeout_seconds=3, debit_resolve_seconds=10, start_limit_seconds=4).start_limit_seconds == 4
    with pytest.raises(ConfigError, match="start_limit_seconds"):
        operator(wallet_timeout_seconds=3, start_limit_seconds=2)


def test_two_honest_calls_alike_in_the_same_second_are_both_accepted(make_server, wallet):
    # finding 11: the same launch twice within one second (two tabs), each with its own nonce
    server = make_server(seamless_config(wallet.url))
    body = json.dumps({"player": "twotabs", "currency": "EUR"}).encode()
    now = time.time()
    answers = []
    for nonce in ("tab-1", "tab-2", "tab-2"):
        headers = {"content-type": "application/json",
                   **signed_headers(SECRET, "POST", "/api/v1/operator/launches", body, now=now, nonce=nonce)}
        answers.append(server.client.post("/api/v1/operator/launches", content=body, headers=headers))
    assert [a.status_code for a in answers] == [201, 201, 401]
    assert answers[2].json()["error"] == "replayed"  # the same nonce again is a replay
    # a read repeated in the same second changes nothing: both answered
    reads = [signed_call(server.client, "GET", "/api/v1/operator/rounds/1/transactions", now=now) for _ in range(2)]
    assert [a.status_code for a in reads] == [200, 200]
    # a nonce is signed: changing it breaks the signature
    headers = {"content-type": "application/json",
               **signed_headers(SECRET, "POST", "/api/v1/operator/launches", body, now=now, nonce="tab-3")}
    headers["X-Nonce"] = "tab-4"
    r = server.client.post("/api/v1/operator/launches", content=body, headers=headers)
    assert (r.status_code, r.json()["error"]) == (401, "bad_signature")


def test_the_reference_wallet_refuses_a_rollback_naming_another_player(wallet):
    # finding 14: a signed rollback of A's debit naming B refunded B
    import httpx

    for player in ("ref-a", "ref-b"):
        wallet.open_account(player, "EUR", 1000)
    debit_id = uuid.uuid4().hex

    def call(kind: str, body: dict) -> httpx.Response:
        data = json.dumps(body).encode()
        return httpx.post(f"{wallet.url}/{kind}", content=data, timeout=10,
                          headers={"content-type": "application/json", **signed_headers(SECRET, "POST", f"/{kind}",
                                                                                        data)})

    assert call("debit", {"transaction_id": debit_id, "player": "ref-a", "amount": 100,
                          "currency": "EUR"}).status_code == 200
    r = call("rollback", {"transaction_id": uuid.uuid4().hex, "player": "ref-b", "amount": 100, "currency": "EUR",
                          "reference_transaction_id": debit_id})
    assert (r.status_code, r.json()["error"]) == (409, "transaction_mismatch")
    assert (wallet.balance("ref-a"), wallet.balance("ref-b")) == (900, 1000)
    from reelforge.server.signing import check_answer

    assert check_answer(SECRET, r.headers, r.status_code, r.request.headers["x-signature"], r.content, 300) is None
    r = call("rollback", {"transaction_id": uuid.uuid4().hex, "player": "ref-a", "amount": 100, "currency": "EUR",
                          "reference_transaction_id": debit_id})
    assert r.status_code == 200 and wallet.balance("ref-a") == 1000


def test_reconcile_reads_a_small_paged_ledger_to_the_end_and_fails_on_an_overdue_credit(make_server, tmp_path):
    # finding 5: a wallet paging by 40 gave 111 false differences; a credit failing for long exited 0
    from typer.testing import CliRunner

    from reelforge.cli import app
    from reelforge.server.reconcile import operator_ledger, reconcile

    own = WalletProcess(f"sqlite:///{tmp_path / 'paged.db'}", SECRET, seed=3, page_size=3)
    own.start()
    try:
        server = make_server(seamless_config(own.url))
        server.draws.source = SeededDraws(2027)
        name, api = _player(server, own)
        for _ in range(4):  # at least 4 transactions (a debit each): more than one page of 3
            rnd = api.start_round(GAME, 10).json()
            while rnd["status"] == "open":
                rnd = api.step(rnd["id"]).json()
        own.set_faults(kinds=("credit",), error_before=1.0)  # a credit that keeps failing from now on
        with transaction(server.engine) as tx:
            player_id = tx.player_by_name(name).id
            server.service.wallet.new_tx(tx, "credit", player_id, 10**6, 7, "EUR", utcnow() - timedelta(seconds=120),
                                         due=utcnow())  # owed for two minutes already
        server.service.wallet.deliver_due()
        metrics = server.client.get("/metrics", headers={"X-Operator-Key": API_KEY}).text
        ages = [line for line in metrics.splitlines()
                if line.startswith('reelforge_wallet_outbox_oldest_age_seconds{brand="default"}')]
        assert len(ages) == 1 and 120 <= float(ages[0].split()[-1]) < 300  # the failing credit's age
        assert 'reelforge_wallet_outbox_depth{brand="default"} 1.0' in metrics
        theirs = operator_ledger(server.config)
        assert len(theirs) > 3 and [t["seq"] for t in theirs] == sorted({t["seq"] for t in theirs})
        report = reconcile(server.engine, theirs)
        assert report["differences"] == [] and report["pending"], report
        assert report["clean"]  # pending for less than 300 s: owed, not overdue
        late = reconcile(server.engine, theirs, max_pending_seconds=60, now=utcnow() + timedelta(seconds=61))
        assert not late["clean"] and len(late["overdue"]) == 1 and "credit" in late["overdue"][0]
        if server.url.startswith("sqlite"):
            config = tmp_path / "server.toml"
            config.write_text(f'[server]\nmode = "operator"\napi_key_sha256 = "{"0" * 64}"\n'
                              f'database = "{server.url}"\n[games.{GAME}]\nbet_ladder = [10]\n[operator]\n'
                              f'wallet = "seamless"\nsecret = "{SECRET}"\nwallet_url = "{own.url}"\n')
            result = CliRunner().invoke(app, ["reconcile", "--config", str(config)])
            assert result.exit_code == 0, result.output
            time.sleep(1.1)
            result = CliRunner().invoke(app, ["reconcile", "--config", str(config), "--max-pending-seconds", "1"])
            assert result.exit_code == 1 and "OVERDUE" in result.output, result.output
    finally:
        own.stop()
