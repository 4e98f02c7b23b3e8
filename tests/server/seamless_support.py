"""Shared by the seamless wallet tests: a reference wallet process and a seamless server configuration."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from typing import Any

from reelforge.server.config import ServerConfig, parse_config
from reelforge.server.signing import signed_headers

SECRET = "test-operator-secret-0123456789"
API_KEY = "test-operator-key"
GAME = "forge-of-fortunes"


GENEROUS_LIMITS = {"wallet_timeout_seconds": 5, "start_limit_seconds": 10}
"""The wallet's time limits where a test does not wait on them: a loaded machine's slow answer is never taken
for a fault."""
FAULT_LIMITS = {"wallet_timeout_seconds": 2, "start_limit_seconds": 6}
"""For a test that waits a hanging wallet out (its ``hang_seconds`` well above ``wallet_timeout_seconds``): short
enough to wait, long enough that a healthy answer (the rollback, the next round) comes in time under load."""


def seamless_config(wallet_url: str, **operator: Any) -> ServerConfig:
    """An operator-mode server on the reference wallet at ``wallet_url``: EUR, JPY and BHD ladders, the wallet's
    time limits :data:`GENEROUS_LIMITS` unless ``operator`` sets them."""
    return parse_config({
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(API_KEY.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0, "provably_fair": False},
        "games": {GAME: {"bet_ladder": [10, 20, 50], "bet_ladders": {"JPY": [10, 100], "BHD": [100, 500]}},
                  "gemstones-gold": {"bet_ladder": [20]}},
        "operator": {"wallet": "seamless", "secret": SECRET, "wallet_url": wallet_url,
                     **GENEROUS_LIMITS, **operator},
    }, "test")


def reference_wallet(tmp_path_factory: Any, seed: int) -> Iterator[Any]:
    """A module's reference wallet process on its own SQLite database (a fixture's body): started, then
    stopped."""
    from reelforge.ops.refwallet_process import WalletProcess

    process = WalletProcess(f"sqlite:///{tmp_path_factory.mktemp('wallet') / 'wallet.db'}", SECRET, seed=seed)
    process.start()
    yield process
    process.stop()


def signed_call(client: Any, method: str, path: str, body: dict[str, Any] | None = None,
                secret: str = SECRET, now: float | None = None) -> Any:
    """A call of the operator's backend, signed with ``secret``."""
    data = b"" if body is None else json.dumps(body).encode()
    headers = {"content-type": "application/json", **signed_headers(secret, method, path, data, now)}
    return client.request(method, path, content=data, headers=headers)


def launch(client: Any, player: str, currency: str = "EUR", **options: Any) -> str:
    """Launch a session the way an operator's site does; the player's session token."""
    r = signed_call(client, "POST", "/api/v1/operator/launches", {"player": player, "currency": currency, **options})
    assert r.status_code == 201, r.text
    token = r.json()["launch_url"].split("launch=")[1].split("&")[0]
    r = client.post("/api/v1/launch", json={"token": token})
    assert r.status_code == 201, r.text
    return r.json()["token"]


_SIGNED = [0]


def fresh_second() -> float:
    """A signing time no earlier call of this process used (now, or a second after the last one, within the
    signature window): the same call signed twice in one second is a replay (refused), and a test may launch
    one player twice in a second."""
    _SIGNED[0] = max(int(time.time()), _SIGNED[0] + 1)
    return float(_SIGNED[0])


def outbox_due_now(server: Any) -> None:
    """Make the undelivered credits and rollbacks due now: each failed delivery doubles a call's wait (up to
    30 s), which a test that has stopped the failures need not sit out (debits in flight are left alone)."""
    from sqlalchemy import text

    with server.engine.begin() as conn:
        conn.execute(text("UPDATE wallet_transactions SET next_attempt_at = created_at "
                          "WHERE status = 'pending' AND kind <> 'debit'"))


def drain_outbox(server: Any, seconds: float = 60) -> None:
    """Deliver ``server``'s outbox until it is empty, every call due at once (:func:`outbox_due_now`); fails
    after ``seconds``."""
    deadline = time.monotonic() + seconds
    while server.service.wallet.outbox_depth():
        assert time.monotonic() < deadline, "the outbox did not drain"
        outbox_due_now(server)
        server.service.wallet.deliver_due()
        time.sleep(0.05)
