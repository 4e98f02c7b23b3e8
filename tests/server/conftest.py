"""Fixtures for the game-server tests: a server per test on SQLite and, when
REELFORGE_TEST_PG_URL is set (.ci/run always sets it), on PostgreSQL.

After every test the wallet invariants are checked for every player and
every stored round must pass the audit replay.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url

from reelforge.core.draws import DrawSource, SecureDraws
from reelforge.games.registry import get_game
from reelforge.ops.client import ApiClient
from reelforge.server.app import create_app
from reelforge.server.config import ServerConfig, load_config
from reelforge.server.db import open_database
from reelforge.server.schema import LEDGER_KINDS, ledger, players
from reelforge.server.verify import campaign_differences, verify_all

PG_ENV = "REELFORGE_TEST_PG_URL"


class SwitchableDraws:
    """The test-only draw source handed to ``create_app(draw_source_factory=...)``.

    Tests point it at a seeded stream (to reach a feature deterministically)
    or at a failing source (to provoke a malfunction); by default it draws
    from the OS CSPRNG like production.
    """

    def __init__(self) -> None:
        self.source: DrawSource = SecureDraws()

    def draw(self, n: int) -> int:
        return self.source.draw(n)


class BrokenDraws:
    """A draw source that fails, as a broken entropy device would."""

    def draw(self, n: int) -> int:
        raise OSError("entropy source unavailable")


def _pg_admin_url() -> str | None:
    return os.environ.get(PG_ENV) or None


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str | None]:
    """One migrated PostgreSQL database per test process (tests empty it before use)."""
    admin = _pg_admin_url()
    if admin is None:
        yield None
        return
    name = f"rf_test_{uuid.uuid4().hex[:12]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    open_database(url).dispose()
    yield url
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One SQLite database migrated to the newest schema per test process, which :func:`db_url` copies: migrating
    a new file costs about 75 ms of CPU, hundreds of times a run (PostgreSQL's database is migrated once per process
    too, :func:`pg_database`). A test of what the migrations create starts from a new file of its own."""
    path = tmp_path_factory.mktemp("sqlite-template") / "server.db"
    open_database(f"sqlite:///{path}").dispose()  # its last connection closed: the WAL is written back and removed
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path, pg_database) -> Iterator[str]:
    """An empty database of each back end at the newest schema: a new SQLite file (a copy of
    :func:`sqlite_template`), or the process's PostgreSQL database emptied."""
    if request.param == "sqlite":
        path = tmp_path / "server.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    if pg_database is None:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    engine = create_engine(pg_database)
    with engine.begin() as conn:
        conn.execute(text("TRUNCATE players, sessions, rounds, steps, ledger, idempotency, launch_tokens, operator_nonces, "
                           "campaigns, campaign_players RESTART IDENTITY CASCADE"))
        conn.execute(text("DELETE FROM server_keys WHERE name LIKE 'wallet:%'"))  # each test's brands their own wallets
    engine.dispose()
    yield pg_database


def demo_config(**overrides: Any) -> ServerConfig:
    from dataclasses import replace

    return replace(load_config(None), **{"expiry_check_seconds": 0, **overrides})


@dataclass
class Server:
    """One server under test: its HTTP client, database and draw source."""

    client: TestClient
    app: Any
    draws: SwitchableDraws
    config: ServerConfig
    url: str
    tampered: set[int] = field(default_factory=set)
    """Public ids of rounds a test changed in the database (they are not expected to verify)."""

    @property
    def engine(self):
        return self.app.state.engine

    @property
    def service(self):
        return self.app.state.service

    def internal(self, public_id: int) -> int:
        """The database id of a round the API showed as ``public_id``."""
        return self.service.ids.internal(public_id)

    def session(self, player: str = "alice") -> Player:
        r = ApiClient(self.client).open_session(player)
        assert r.status_code == 201, r.text
        return Player(self, r.json()["token"], player)


@dataclass
class Player:
    server: Server
    token: str
    name: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def api(self) -> ApiClient:
        """The project's API client on this server's test client, with this player's session."""
        return ApiClient(self.server.client, self.token)

    def key(self) -> dict[str, str]:
        return {**self.headers, "Idempotency-Key": uuid.uuid4().hex}

    def get(self, path: str, **kw: Any):
        return self.server.client.get(path, headers=self.headers, **kw)

    def start(self, game: str, bet: int, key: str | None = None, expect: int = 201, **body: Any) -> dict[str, Any]:
        r = self.api.start_round(game, bet, key, **body)
        assert r.status_code == expect, r.text
        return r.json()

    def step(self, round_id: int, action: str | None = None, key: str | None = None,
             expect: int = 200) -> dict[str, Any]:
        r = self.api.step(round_id, action, key)
        assert r.status_code == expect, r.text
        return r.json()

    def finish(self, rnd: dict[str, Any]) -> dict[str, Any]:
        """Play a round's remaining steps. A game with step actions (e.g. ``open`` for a GEMBOX) gets its
        first action on every step; a step that refuses it (409, nothing changed) is played without."""
        actions = get_game(rnd["game"]).step_actions
        while rnd["status"] == "open":
            if actions:
                r = self.api.step(rnd["id"], actions[0])
                if r.status_code == 409 and r.json()["error"] == "rules_refused":
                    rnd = self.step(rnd["id"])
                    continue
                assert r.status_code == 200, r.text
                rnd = r.json()
            else:
                rnd = self.step(rnd["id"])
        return rnd

    def balance(self) -> int:
        r = self.api.wallet()
        assert r.status_code == 200, r.text
        return r.json()["balance"]


def check_wallets(engine) -> None:
    """Ledger invariants for every player: balance = deposits - withdrawals - stakes - buys + wins + refunds,
    each entry's balance_after is the running sum, and no balance is ever negative."""
    with engine.connect() as conn:
        for player in conn.execute(select(players)).all():
            entries = conn.execute(select(ledger).where(ledger.c.player_id == player.id)
                                   .order_by(ledger.c.id)).all()
            running = 0
            totals = dict.fromkeys(LEDGER_KINDS, 0)
            for e in entries:
                running += e.amount
                totals[e.kind] += e.amount
                assert e.balance_after == running >= 0, (player.name, e)
                if e.kind in ("deposit", "win", "refund"):
                    assert e.amount > 0, e
                else:
                    assert e.amount < 0, e
            assert player.balance == running == (
                totals["deposit"] + totals["withdrawal"] + totals["stake"] + totals["feature_buy"]
                + totals["win"] + totals["refund"]), (player.name, totals)


def check_all_rounds_verify(engine, skip: set[int]) -> None:
    bad = [r for r in verify_all(engine) if not r["ok"] and r["round"] not in skip]
    assert not bad, bad
    assert not campaign_differences(engine)


@pytest.fixture
def make_server(db_url: str) -> Iterator[Any]:
    """Factory: ``make_server(config=None)`` -> a running :class:`Server` on the test database."""
    made: list[Server] = []
    engine_holder: dict[str, Any] = {}
    extra_engines: list[Any] = []

    def make(config: ServerConfig | None = None, own_engine: bool = False, **app_options: Any) -> Server:
        """A server on the test database; ``own_engine``: its own connection pool, like another process;
        ``app_options``: more arguments of ``create_app``."""
        config = config or demo_config()
        if "engine" not in engine_holder:
            engine_holder["engine"] = open_database(db_url)
        engine = engine_holder["engine"]
        if own_engine:
            engine = open_database(db_url)
            extra_engines.append(engine)
        draws = SwitchableDraws()
        app = create_app(config, engine=engine, draw_source_factory=lambda: draws, **app_options)
        client = TestClient(app)
        client.__enter__()
        server = Server(client, app, draws, config, db_url)
        made.append(server)
        return server

    yield make
    for server in made:
        server.client.__exit__(None, None, None)
    for engine in extra_engines:
        engine.dispose()
    if "engine" in engine_holder:
        engine = engine_holder["engine"]
        check_wallets(engine)
        check_all_rounds_verify(engine, {s.internal(public) for s in made for public in s.tampered})
        engine.dispose()


@pytest.fixture
def server(make_server) -> Server:
    return make_server()
