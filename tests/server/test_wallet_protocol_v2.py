"""The wallet protocol, version 2 (issue 40): every call carries the protocol version, game, round, brand and
the operator's session token; the last call of a round says ``round_closed``; a losing round is closed with a
zero-amount credit where the brand turns it on; a campaign id travels from the debit to its round's last call."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest

from reelforge.core.draws import SeededDraws
from reelforge.ops.client import ApiClient
from reelforge.ops.refwallet_process import WalletProcess
from reelforge.server.clock import utcnow
from reelforge.server.seamless import PROTOCOL_VERSION, WalletTx
from reelforge.server.store import transaction
from tests.server.seamless_support import GAME, launch, reference_wallet, seamless_config


@pytest.fixture(scope="module")
def wallet(tmp_path_factory) -> Iterator[WalletProcess]:
    yield from reference_wallet(tmp_path_factory, seed=11)


def _play(server, wallet, rounds: int) -> tuple[str, list[dict]]:
    """A new player launched with an operator session token plays ``rounds`` rounds to the end; its rounds."""
    server.draws.source = SeededDraws(4040)
    name = f"v{uuid.uuid4().hex[:10]}"
    wallet.open_account(name, "EUR", 10_000)
    api = ApiClient(server.client, launch(server.client, name, operator_session=f"op-{name}"))
    played = []
    for _ in range(rounds):
        r = api.start_round(GAME, 20)
        assert r.status_code == 201, r.text
        rnd = r.json()
        while rnd["status"] == "open":
            rnd = api.step(rnd["id"]).json()
        played.append(rnd)
    return name, played


@pytest.mark.parametrize("close_losing_rounds", [True, False])
def test_every_call_carries_its_context_and_the_last_call_of_a_round_closes_it(make_server, wallet,
                                                                                close_losing_rounds):
    server = make_server(seamless_config(wallet.url, close_losing_rounds=close_losing_rounds))
    name, played = _play(server, wallet, 12)
    assert any(r["paid"] for r in played) and any(not r["paid"] for r in played)  # seed 4040: both kinds
    ledger = [t for t in wallet.ledger() if t["player"] == name]
    for rnd in played:
        calls = [t for t in ledger if t["round_id"] == rnd["id"]]
        kinds = [(t["kind"], t["amount"], t["round_closed"]) for t in calls]
        if rnd["paid"]:
            assert kinds == [("debit", 20, False), ("credit", rnd["paid"], True)], kinds
        elif close_losing_rounds:
            assert kinds == [("debit", 20, False), ("credit", 0, True)], kinds
        else:
            assert kinds == [("debit", 20, False)], kinds
        for call in calls:
            assert (call["protocol_version"], call["game"], call["brand"], call["session"], call["campaign_id"]) \
                == (PROTOCOL_VERSION, GAME, "default", f"op-{name}", None), call
    assert wallet.balance(name) == 10_000 - 20 * len(played) + sum(r["paid"] for r in played)


def test_a_rollback_closes_its_round_and_a_campaign_id_reaches_the_wallet(make_server, wallet):
    # the outbox rows of a campaign's round (h40a's campaigns write campaign_id on them) and a debit's rollback
    server = make_server(seamless_config(wallet.url))
    name = f"c{uuid.uuid4().hex[:10]}"
    wallet.open_account(name, "EUR", 1_000)
    launch(server.client, name, operator_session="op-campaign")
    seamless = server.service.wallet
    now = utcnow()
    with transaction(server.engine) as tx:
        player_id = tx.player_by_name(name).id
        # due an hour on: the test's own to roll back. A round start writes its debit due when it goes stale
        # (stale_after); one due now is a stopped process's to the server's outbox worker, which rolled it back
        # first whenever its poll came before rollback_of below (then None: seen under load)
        debit = seamless.new_tx(tx, "debit", player_id, 10**9 + 7, 50, "EUR", now, due=now + timedelta(hours=1),
                                game=GAME, operator_session="op-campaign", campaign_id="spring-10")
    assert seamless.send(debit, name)["balance"] == 950
    with transaction(server.engine) as tx:
        tx.lock_player(player_id)
        rollback = seamless.rollback_of(tx, debit, now, "test: the round was voided")
    assert isinstance(rollback, WalletTx)
    assert seamless.deliver(rollback, name) == 1_000
    calls = [t for t in wallet.ledger() if t["player"] == name]
    assert [(t["kind"], t["round_closed"], t["campaign_id"], t["game"], t["session"]) for t in calls] == [
        ("debit", False, "spring-10", GAME, "op-campaign"), ("rollback", True, "spring-10", GAME, "op-campaign")]
