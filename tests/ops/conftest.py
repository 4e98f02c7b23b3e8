"""Fixtures for the reliability tests: real server processes on loopback (SQLite and, when
REELFORGE_TEST_PG_URL is set, PostgreSQL), an operator-mode configuration, and the
database checks every test ends with (every wallet equals its ledger, every round verifies)."""

from __future__ import annotations

import hashlib
import os
import secrets
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url

from reelforge.ops.client import ApiClient
from reelforge.ops.soak import PlayerRecord, reconcile
from reelforge.ops.supervisor import ServerSupervisor
from reelforge.server.config import DEMO_CONFIG
from reelforge.server.db import make_engine
from reelforge.server.roundids import RoundIds
from reelforge.server.schema import players, rounds
from reelforge.server.store import round_ids_key

PG_ENV = "REELFORGE_TEST_PG_URL"
GAME = "forge-of-fortunes"
LIVE_REQUEST_TIMEOUT = 2
"""The live servers' request timeout (seconds): short, so the timeout tests wait little."""


def fresh_database(backend: str, folder: Path) -> tuple[str, object]:
    """A new empty database of ``backend``; returns its URL and a function that drops it."""
    if backend == "sqlite":
        return f"sqlite:///{folder / 'rel.db'}", lambda: None
    admin = os.environ.get(PG_ENV)
    if not admin:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    name = f"rel_{uuid.uuid4().hex[:16]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()

    return make_url(admin).set(database=name).render_as_string(hide_password=False), drop


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    url, drop = fresh_database(request.param, tmp_path)
    try:
        yield url
    finally:
        drop()


def round_ids(url: str) -> RoundIds:
    """The database's public round ids (the API shows rounds by them; the tables hold internal ids)."""
    engine = make_engine(url)
    try:
        return RoundIds(round_ids_key(engine))
    finally:
        engine.dispose()


def check_database(url: str) -> None:
    """Every wallet equals the sum of its ledger, every round's money matches it, every round verifies."""
    engine = make_engine(url)
    with engine.connect() as conn:
        names = [r.name for r in conn.execute(select(players.c.name))]
        round_rows = conn.execute(select(rounds.c.id, rounds.c.player_id, players.c.name)
                                  .join(players, players.c.id == rounds.c.player_id)).all()
    engine.dispose()
    records = {n: PlayerRecord(n) for n in names}
    public = round_ids(url).public
    for round_id, _, name in round_rows:
        records[name].round_ids.add(public(round_id))
    result = reconcile(url, list(records.values()))
    assert result["problems"] == [] and result["lost_or_duplicated_money"] == 0, result["problems"][:10]
    assert result["verify_failures"] == 0


@dataclass
class LiveServers:
    """Server processes of one database, in operator mode, as an operator's platform sees them."""

    supervisor: ServerSupervisor
    url: str
    operator_key: str
    log_path: Path
    secrets_seen: list[str]

    @property
    def base_url(self) -> str:
        return self.supervisor.base_url

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=60)

    def api(self, token: str | None = None) -> ApiClient:
        """The project's API client on a connection of its own, with the operator's key (and ``token``)."""
        return ApiClient(self.client(), token, self.operator_key)

    def session(self, player: str | None = None, deposit: int = 0) -> tuple[str, str]:
        """Open a session (operator key) for a new player, deposit ``deposit``; return (player, token)."""
        player = player or f"p{uuid.uuid4().hex[:12]}"
        with self.api() as api:
            r = api.open_session(player, as_operator=True)
            assert r.status_code == 201, r.text
            token = r.json()["token"]
            self.secrets_seen.append(token)
            if deposit:
                self.deposit(player, deposit, api)
        return player, token

    def deposit(self, player: str, amount: int, api: ApiClient | None = None) -> int:
        if api is None:
            with self.api() as own:
                return self.deposit(player, amount, own)
        r = api.deposit(player, amount)
        assert r.status_code == 200, r.text
        return r.json()["balance"]


def operator_config(folder: Path) -> tuple[Path, str]:
    """An operator-mode configuration (the demo games and ladders) and its operator key."""
    key = secrets.token_urlsafe(32)
    demo = DEMO_CONFIG.read_text()
    body = demo.replace('mode = "demo"', f'mode = "operator"\napi_key_sha256 = "{hashlib.sha256(key.encode()).hexdigest()}"')
    body = body.replace("expiry_check_seconds = 3600", f"expiry_check_seconds = 0\nrequest_timeout_seconds = "
                                                       f"{LIVE_REQUEST_TIMEOUT}")
    assert 'mode = "operator"' in body
    path = folder / "operator.toml"
    path.write_text(body)
    return path, key


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServers]:
    """Two server processes sharing one database and one loopback socket (operator mode)."""
    folder = tmp_path_factory.mktemp(f"live-{request.param}")
    url, drop = fresh_database(request.param, folder)
    config, key = operator_config(folder)
    log_path = folder / "server.log"
    supervisor = ServerSupervisor(url, log_path, config)
    servers = LiveServers(supervisor, url, key, log_path, [key])
    try:
        supervisor.start(processes=2)
        yield servers
        supervisor.close()
        check_database(url)
        log = log_path.read_text(errors="replace")
        leaked = [s for s in servers.secrets_seen if s in log]
        assert not leaked, "a session token or the operator key appears in the server log"
    finally:
        supervisor.close()
        drop()
