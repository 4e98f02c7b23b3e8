"""Brands (issue 32, findings 4, 8 and 9): one server serves several operators' brands, each with its own
wallet, secret, ladders and limits; two servers of different brands share one database and each brand's
money reaches only its own wallet; seamless mode closes the transfer routes and sessions without a launch;
the launch exchange shows the wallet's balance now."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from reelforge.core.draws import SeededDraws
from reelforge.ops.client import ApiClient
from reelforge.ops.refwallet_process import WalletProcess
from reelforge.server.config import parse_config
from reelforge.server.config_values import ConfigError
from reelforge.server.reconcile import reconcile
from reelforge.server.signing import signed_headers

from .seamless_support import API_KEY, GAME, SECRET, drain_outbox, fresh_second, seamless_config, signed_call

SECRET_B = "brand-b-operator-secret-0123456789"
KEY_B = "brand-b-operator-key"


@pytest.fixture(scope="module")
def wallets(tmp_path_factory) -> Iterator[tuple[WalletProcess, WalletProcess]]:
    """Two operators' wallets (their own processes, databases and secrets)."""
    made = []
    for name, secret in (("a", SECRET), ("b", SECRET_B)):
        process = WalletProcess(f"sqlite:///{tmp_path_factory.mktemp('wallet') / f'{name}.db'}", secret, seed=7)
        process.start()
        made.append(process)
    yield made[0], made[1]
    for process in made:
        process.stop()


def two_brand_config(url_a: str | None, url_b: str | None, default_brand: str = "default") -> Any:
    """A seamless server whose default brand is on ``url_a`` and whose ``[brands.b]`` is on ``url_b`` (None:
    that brand is not configured here): brand b has its own secret, key, ladder and a stricter stake limit. The
    wallet time limits are generous: no test here waits on one, and a loaded machine must not trip them."""
    data: dict[str, Any] = {
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(API_KEY.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0, "provably_fair": False},
        "games": {GAME: {"bet_ladder": [10, 20, 50]}, "gemstones-gold": {"bet_ladder": [20]}},
        "operator": {"wallet": "seamless", "secret": SECRET, "wallet_url": url_a or "http://127.0.0.1:9/unused",
                     "wallet_timeout_seconds": 5, "start_limit_seconds": 10, "brand": default_brand},
    }
    if url_b is not None:
        data["brands"] = {"b": {
            "api_key_sha256": hashlib.sha256(KEY_B.encode()).hexdigest(),
            "operator": {"wallet": "seamless", "secret": SECRET_B, "wallet_url": url_b,
                         "wallet_timeout_seconds": 5, "start_limit_seconds": 10},
            "responsible_play": {"max_bet": 20},
            "games": {GAME: {"bet_ladder": [20, 40]}},
        }}
    return parse_config(data, "test")


def launch_as(client: Any, player: str, brand: str | None, secret: str, expect: int = 201) -> Any:
    """A signed launch of ``brand``'s player (X-Brand names the brand; its own secret signs it), then the
    token's exchange; the exchange's answer."""
    body = json.dumps({"player": player, "currency": "EUR"}).encode()
    headers = {"content-type": "application/json", **({"X-Brand": brand} if brand else {}),
               **signed_headers(secret, "POST", "/api/v1/operator/launches", body, fresh_second())}
    r = client.post("/api/v1/operator/launches", content=body, headers=headers)
    assert r.status_code == expect, r.text
    if expect != 201:
        return r
    token = r.json()["launch_url"].split("launch=")[1]
    r = client.post("/api/v1/launch", json={"token": token})
    assert r.status_code == 201, r.text
    return r.json()


def play_until_a_win(api: ApiClient, bet: int) -> dict[str, Any]:
    """Play complete rounds until one pays (the seeded draws make it the same round every run)."""
    for _ in range(200):
        r = api.start_round(GAME, bet)
        assert r.status_code == 201, r.text
        rnd = r.json()
        while rnd["status"] == "open":
            rnd = api.step(rnd["id"]).json()
        if rnd["paid"]:
            return rnd
    raise AssertionError("no round paid in 200")


def test_brands_are_configured_with_their_own_wallet_secret_ladders_and_limits():
    config = two_brand_config("http://wallet-a.example/", "http://wallet-b.example/")
    b = config.brand("b")
    assert (b.operator.wallet_url, b.operator.secret, b.play.max_bet) == ("http://wallet-b.example/", SECRET_B, 20)
    assert b.ladder(GAME, "EUR") == (20,)  # its own ladder within its own max_bet
    assert config.brand(None).ladder(GAME, "EUR") == (10, 20, 50)
    with pytest.raises(KeyError):
        config.brand("nowhere")
    with pytest.raises(ConfigError, match="same wallet mode"):
        parse_config({"server": {"mode": "demo"}, "brands": {"x": {"operator": {"wallet": "seamless",
                      "secret": SECRET_B, "wallet_url": "http://x.example/"}}}}, "test")
    with pytest.raises(ConfigError, match="brand id"):
        parse_config({"server": {"mode": "demo"}, "brands": {"Bad Brand": {}}}, "test")
    with pytest.raises(ConfigError, match="the server's build"):
        parse_config({"server": {"mode": "demo"}, "games": {GAME: {"bet_ladder": [10]}},
                      "brands": {"x": {"games": {GAME: {"build": "no-such", "bet_ladder": [10]}}}}}, "test")


def test_one_server_serves_two_brands_each_on_its_own_wallet(make_server, wallets):
    wallet_a, wallet_b = wallets
    wallet_a.set_faults()
    wallet_b.set_faults()
    server = make_server(two_brand_config(wallet_a.url, wallet_b.url))
    server.draws.source = SeededDraws(2026)
    alice, bob = f"a{uuid.uuid4().hex[:8]}", f"b{uuid.uuid4().hex[:8]}"
    wallet_a.open_account(alice, "EUR", 10_000)
    wallet_b.open_account(bob, "EUR", 10_000)
    for_a = launch_as(server.client, alice, None, SECRET)
    for_b = launch_as(server.client, bob, "b", SECRET_B)
    assert for_b["limits"]["max_bet"] == 20 and for_b["balance"] == 10_000
    # a call signed with brand a's secret cannot act for brand b, nor name a brand not served here
    launch_as(server.client, "mallory", "b", SECRET, expect=401)
    assert launch_as(server.client, "mallory", "c", SECRET, expect=401).json()["error"] == "unknown_brand"
    # a player name is one brand's: the other brand cannot launch it
    assert launch_as(server.client, alice, "b", SECRET_B, expect=409).json()["error"] == "player_of_another_brand"
    api_b = ApiClient(server.client, for_b["token"])
    assert api_b.start_round(GAME, 10).json()["error"] == "bet_not_on_ladder"  # brand b's own ladder
    assert api_b.start_round("gemstones-gold", 20).json()["error"] == "unknown_game"  # not one of brand b's games
    won = play_until_a_win(api_b, 20)
    settings = server.client.get("/api/v1/settings", headers={"Authorization": f"Bearer {for_b['token']}"}).json()
    assert settings["brand"] == "b" and settings["bet_ladders"][GAME] == [20]
    api_a = ApiClient(server.client, for_a["token"])
    play_until_a_win(api_a, 50)
    assert all(t["player"] == bob for t in wallet_b.ledger() if t["round_id"] == won["id"])
    assert {t["player"] for t in wallet_a.ledger()} >= {alice} and bob not in {t["player"] for t in wallet_a.ledger()}
    # each brand's signed query sees only its own rounds' calls
    r = signed_call(server.client, "GET", f"/api/v1/operator/rounds/{won['id']}/transactions")
    assert r.json()["transactions"] == []
    assert reconcile(server.engine, [t for t in wallet_b.ledger() if t["player"] == bob], "b")["clean"]


def test_two_servers_of_two_brands_on_one_database_deliver_each_credit_to_its_own_wallet(make_server, wallets):
    wallet_a, wallet_b = wallets
    wallet_a.set_faults()
    wallet_b.set_faults()
    server_a = make_server(two_brand_config(wallet_a.url, None, default_brand="a"))
    server_b = make_server(two_brand_config(None, wallet_b.url, default_brand="other"), own_engine=True)
    server_a.draws.source = SeededDraws(2027)
    alice = f"a{uuid.uuid4().hex[:8]}"
    wallet_a.open_account(alice, "EUR", 10_000)
    wallet_b.open_account(alice, "EUR", 10_000)  # the same name at the other operator: a wrong delivery would land
    api = ApiClient(server_a.client, launch_as(server_a.client, alice, None, SECRET)["token"])
    wallet_a.set_faults(kinds=("credit",), error_before=1.0)  # brand a's wallet fails every credit: they wait
    won = play_until_a_win(api, 50)
    assert won["wallet_settlement"] == {"kind": "credit", "status": "pending"}
    for _ in range(3):  # brand b's server, on the same database, never sends brand a's credit anywhere
        assert server_b.service.wallet.deliver_due() == 0
    assert [t for t in wallet_b.ledger() if t["player"] == alice] == []
    wallet_a.set_faults()
    drain_outbox(server_a)
    credits = [t for t in wallet_a.ledger() if t["player"] == alice and t["kind"] == "credit"]
    assert sum(t["amount"] for t in credits if t["round_id"] == won["id"]) == won["paid"]
    assert reconcile(server_a.engine, [t for t in wallet_a.ledger() if t["player"] == alice], "a")["clean"]


def test_a_second_server_of_one_brand_with_another_wallet_refuses_to_start(make_server, wallets):
    wallet_a, wallet_b = wallets
    make_server(seamless_config(wallet_a.url))
    with pytest.raises(ConfigError, match="registered on this database with another wallet_url"):
        make_server(seamless_config(wallet_b.url), own_engine=True)


# -- finding 8: seamless mode closes the transfer routes and sessions without a launch --------------------------
def test_seamless_mode_refuses_transfers_and_sessions_without_a_launch(make_server, wallets):
    wallet_a, _ = wallets
    wallet_a.set_faults()
    server = make_server(seamless_config(wallet_a.url))
    name = f"t{uuid.uuid4().hex[:8]}"
    wallet_a.open_account(name, "EUR", 1_000)
    launch_as(server.client, name, None, SECRET)
    operator = ApiClient(server.client, operator_key=API_KEY)
    for r in (operator.deposit(name, 500), operator.withdraw(name, 500)):
        assert (r.status_code, r.json()["error"]) == (403, "transfers_closed"), r.text
    r = operator.open_session(name, as_operator=True)
    assert (r.status_code, r.json()["error"]) == (403, "launch_required"), r.text
    assert "launch" in r.json()["detail"]
    assert wallet_a.balance(name) == 1_000


# -- finding 9: the exchange shows the wallet's balance now --------------------------------------------------------
def test_the_launch_exchange_shows_the_wallets_balance_now(make_server, wallets):
    wallet_a, _ = wallets
    wallet_a.set_faults()
    server = make_server(seamless_config(wallet_a.url))
    server.draws.source = SeededDraws(11)
    name = f"n{uuid.uuid4().hex[:8]}"
    wallet_a.open_account(name, "EUR", 7_777)
    first = launch_as(server.client, name, None, SECRET)
    assert first["balance"] == 7_777 and first["balance_stale"] is False  # a new player: never null
    api = ApiClient(server.client, first["token"])
    rnd = api.start_round(GAME, 20).json()
    while rnd["status"] == "open":
        rnd = api.step(rnd["id"]).json()
    # the player plays elsewhere at the operator: its wallet moves without this server
    wallet_a.call("POST", "/credit", {"transaction_id": uuid.uuid4().hex, "player": name, "amount": 123,
                                      "currency": "EUR", "round_id": None})
    again = launch_as(server.client, name, None, SECRET)
    assert again["balance"] == wallet_a.balance(name) == 7_777 - 20 + rnd["paid"] + 123
