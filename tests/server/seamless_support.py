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


def seamless_config(wallet_url: str, **operator: Any) -> ServerConfig:
    """An operator-mode server on the reference wallet at ``wallet_url``: EUR, JPY and BHD ladders, short
    wallet time limits (the fault tests wait for them)."""
    return parse_config({
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(API_KEY.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0, "provably_fair": False},
        "games": {GAME: {"bet_ladder": [10, 20, 50], "bet_ladders": {"JPY": [10, 100], "BHD": [100, 500]}},
                  "gemstones-gold": {"bet_ladder": [20]}},
        "operator": {"wallet": "seamless", "secret": SECRET, "wallet_url": wallet_url,
                     "wallet_timeout_seconds": 0.5, "start_limit_seconds": 2, **operator},
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
