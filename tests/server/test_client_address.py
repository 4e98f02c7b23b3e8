"""Who the client is, for the per-address rate limit (issue 32, finding 10): the peer's own address, unless
the peer is one of the operator's listed proxies; X-Forwarded-For from anyone else (loopback included)
changes nothing. Served by uvicorn with the server's own settings, as in production."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import replace

import httpx
import pytest
import uvicorn

from reelforge.server import http
from reelforge.server.app import create_app
from reelforge.server.config import parse_config
from reelforge.server.config_values import ConfigError
from reelforge.server.fairshare import ClientAddress

from .conftest import demo_config


def _answered(config, db_url: str, forwarded: list[str | None]) -> list[int]:
    """The status of ``GET /api/v1/games`` sent from 127.0.0.1 with each X-Forwarded-For (None: none)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(config, db_url), host="127.0.0.1", port=port,
                                           lifespan="off", **http.uvicorn_settings()))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.02)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            return [client.get("/api/v1/games", headers={} if f is None else {"X-Forwarded-For": f}).status_code
                    for f in forwarded]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_a_rotating_forwarded_header_from_an_unlisted_peer_does_not_evade_the_limit(tmp_path):
    # 5 a second, bursts of 10: 30 requests at once get about 10 answers, whatever they claim to come from
    config = replace(demo_config(), ip_requests_per_second=5)
    statuses = _answered(config, f"sqlite:///{tmp_path / 'a.db'}", [f"203.0.113.{i}" for i in range(30)])
    assert statuses.count(429) >= 15, statuses


def test_a_listed_proxy_names_the_client_and_each_client_has_its_own_bucket(tmp_path):
    config = replace(demo_config(), ip_requests_per_second=5, trusted_proxies=("127.0.0.1",))
    rotating = _answered(config, f"sqlite:///{tmp_path / 'b.db'}", [f"203.0.113.{i}" for i in range(30)])
    assert rotating.count(200) == 30, rotating  # 30 clients behind the proxy: one request each
    # the client can write entries left of the proxy's own: only the last untrusted one counts
    spoofed = _answered(config, f"sqlite:///{tmp_path / 'c.db'}", [f"198.51.100.{i}, 203.0.113.7" for i in range(30)])
    assert spoofed.count(429) >= 15, spoofed


def test_the_client_address_rules() -> None:
    scope = {"client": ("10.0.0.5", 1234), "headers": [(b"x-forwarded-for", b"1.2.3.4, 10.1.2.3")]}
    assert ClientAddress()(scope) == "10.0.0.5"  # nothing listed: the peer
    assert ClientAddress(("10.0.0.5",))(scope) == "10.1.2.3"
    assert ClientAddress(("10.0.0.5", "10.1.0.0/16"))(scope) == "1.2.3.4"
    assert ClientAddress(("10.0.0.5",))({"client": ("10.0.0.5", 1), "headers": []}) == "10.0.0.5"
    assert ClientAddress(("10.0.0.5",))({"client": ("192.0.2.1", 1), "headers": scope["headers"]}) == "192.0.2.1"
    with pytest.raises(ConfigError, match="not an IP address or network"):
        parse_config({"server": {"mode": "demo", "trusted_proxies": ["proxy.example"]},
                      "games": {"forge-of-fortunes": {"bet_ladder": [10]}}}, "test")
