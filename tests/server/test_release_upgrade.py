"""A database of the previous release upgrades and plays on, on SQLite and PostgreSQL.

``fixtures/release_b87cf75.json.gz`` holds every row of a database the previous release (commit
b87cf75, schema 0001) made through its own API (``fixtures/make_release_fixture.py``): 792
rounds of its three games with the builds' version 1.0 (Forge of Gems before its retune, fresh
cells landing split; Forge of Fortunes before its feature strips were regenerated), five rounds
still open part way. The tests load the rows into a database made by migration 0001 and start
the server on it, which upgrades it (0002 rebuilds tables on SQLite: it used to fail with
``FOREIGN KEY constraint failed``).
"""

from __future__ import annotations

import gzip
import json
import os
import tomllib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import MetaData, create_engine, func, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.types import DateTime
from typer.testing import CliRunner

from reelforge.core.draws import SeededDraws
from reelforge.games.published import read_lock
from reelforge.games.registry import get_game
from reelforge.ops.client import ApiClient
from reelforge.server.app import create_app
from reelforge.server.config import parse_config
from reelforge.server.db import alembic_config, is_sqlite, make_engine, open_database, sqlite_foreign_keys_off
from reelforge.server.round_json import dumps, money
from reelforge.server.schema import ledger, players, rounds, steps
from reelforge.server.verify import verify_all, verify_round

from .conftest import PG_ENV, check_wallets
from .fixtures.make_release_fixture import CONFIG, KEY, OUT, TABLES
from .test_config_and_commands import _cli

RELEASE = json.loads(gzip.decompress(OUT.read_bytes()))
OPEN = [r for r in RELEASE["rounds"] if r["status"] == "open"]


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database of each back end (PostgreSQL: its own database, dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'release.db'}"
        return
    admin = os.environ.get(PG_ENV)
    if not admin:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    name = f"rf_release_{uuid.uuid4().hex[:12]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(admin).set(database=name).render_as_string(hide_password=False)
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


def migrate_to(url: str, revision: str) -> None:
    engine = make_engine(url)
    with engine.connect() as conn, sqlite_foreign_keys_off(conn) if is_sqlite(engine) else _nothing():
        with conn.begin():
            command.upgrade(alembic_config(conn), revision)
    engine.dispose()


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def load_release(url: str) -> None:
    """The previous release's database: schema 0001 (its only migration) and the fixture's rows, their
    times moved (all by the same amount) to end an hour ago: the rounds are as old as when it was made."""
    migrate_to(url, "0001_initial")
    engine = make_engine(url)
    meta = MetaData()
    meta.reflect(engine)
    pg = not is_sqlite(engine)
    shift = datetime.now(UTC).replace(tzinfo=None) - timedelta(hours=1) - max(
        datetime.fromisoformat(r[k]) for r in RELEASE["rounds"] for k in ("created_at", "updated_at"))
    with engine.begin() as conn:
        for name in TABLES:
            table = meta.tables[name]
            times = {c.name for c in table.columns if isinstance(c.type, DateTime)}
            rows = [{k: _time(v, shift, pg) if k in times and v is not None else v for k, v in row.items()}
                    for row in RELEASE[name]]
            conn.execute(table.insert(), rows)
        if pg:  # rows were inserted with their ids: the sequences go on after them
            for name in ("players", "rounds", "ledger"):
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), (SELECT max(id) FROM {name}))"))
    engine.dispose()


def _time(value: str, shift: timedelta, aware: bool) -> datetime:
    parsed = datetime.fromisoformat(value) + shift  # the release stored UTC without a zone (SQLite)
    return parsed.replace(tzinfo=UTC) if aware else parsed


def test_the_fixture_is_a_database_of_the_previous_release():
    assert RELEASE["alembic_version"] == [{"version_num": "0001_initial"}]
    assert {r["game"] for r in OPEN} == {"forge-of-gems", "forge-of-fortunes", "gemstones-gold"}
    assert len(RELEASE["rounds"]) == 792 and len(OPEN) == 5


@pytest.mark.slow  # 10-17 s under this machine's load: 792 rounds replayed twice
def test_a_database_of_the_previous_release_upgrades_verifies_and_plays_on(empty_url):
    load_release(empty_url)
    engine = open_database(empty_url)  # what serve, verify and expire do first
    try:
        if is_sqlite(engine):  # the migration turned foreign keys off for itself only
            with engine.connect() as conn:
                assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        lock = read_lock()
        with engine.connect() as conn:
            stored = conn.execute(select(rounds.c.game, rounds.c.build, rounds.c.build_version,
                                         rounds.c.build_hash)).all()
        assert len(stored) == 792
        assert all(r.build_version == "1.0" and r.build_hash == lock[(r.game, r.build, "1.0")] for r in stored)

        runner = CliRunner()
        result = runner.invoke(_cli(), ["verify", "--db", empty_url, "--all"])
        assert result.exit_code == 0 and "792 round(s) verified: 792 ok, 0 mismatched" in result.output, result.output
        result = runner.invoke(_cli(), ["expire", "--db", empty_url])
        assert result.exit_code == 0 and json.loads(result.output.splitlines()[-1])["completed"] == 0, result.output

        config = parse_config(tomllib.loads(CONFIG))
        app = create_app(config, engine=engine)
        with TestClient(app) as client:
            apis = {}
            for name in ("alice", "bob"):
                token = ApiClient(client, operator_key=KEY).open_session(name, as_operator=True).json()["token"]
                apis[name] = ApiClient(client, token)
            names = {p["id"]: p["name"] for p in RELEASE["players"]}
            left_to_expiry = OPEN[-1]
            for old in OPEN[:-1]:  # played to the end by the player, with the maths they were decided with
                api = apis[names[old["player_id"]]]
                before = api.wallet().json()["balance"]
                rnd = api.unfinished(old["game"]).json()
                assert app.state.service.ids.internal(rnd["id"]) == old["id"] and rnd["build_version"] == "1.0"
                while rnd["status"] == "open":
                    r = api.step(rnd["id"])
                    assert r.status_code == 200, r.text
                    rnd = r.json()
                assert rnd["paid"] == money(old["bet"], Fraction(rnd["total_win_x"]))
                assert api.wallet().json()["balance"] == before + rnd["paid"]
                assert client.get(f"/api/v1/rounds/{rnd['id']}/verify", headers={"Authorization": f"Bearer {api.token}"}).json()["ok"]
            # A new round is played with the current version.
            new = apis["alice"].start_round("forge-of-gems", 20).json()
            assert new["build_version"] == "3.1"
            lobby = {g["id"]: g for g in client.get("/api/v1/games").json()}
            assert lobby["forge-of-gems"]["build_version"] == "3.1"
            assert client.get("/api/v1/games/forge-of-gems/help").json()["build_version"] == "3.1"
        completed = app.state.service.expire(now=datetime.now(UTC) + timedelta(days=91))
        assert completed == 1 + (new["status"] == "open")
        with engine.connect() as conn:
            last = conn.execute(select(rounds).where(rounds.c.id == left_to_expiry["id"])).one()
        assert last.status == "finished" and last.completed_on_expiry and last.build_version == "1.0"
        assert [r for r in verify_all(engine) if not r["ok"]] == []
        check_wallets(engine)
    finally:
        engine.dispose()


def test_round_ids_shown_before_the_keyed_ids_keep_answering(empty_url):
    """Finding 13: the release showed rounds under their internal ids; after the upgrade to keyed public ids
    every such link, dispute or reference answered 404. Each player's old ids answer again, under the
    rounds' public ids; another player's old id stays 404."""
    load_release(empty_url)
    engine = open_database(empty_url)
    try:
        config = parse_config(tomllib.loads(CONFIG))
        app = create_app(config, engine=engine)
        names = {p["id"]: p["name"] for p in RELEASE["players"]}
        with TestClient(app) as client:
            auth = {}
            for name in ("alice", "bob"):
                token = ApiClient(client, operator_key=KEY).open_session(name, as_operator=True).json()["token"]
                auth[name] = {"Authorization": f"Bearer {token}"}
            ids = app.state.service.ids
            for old in RELEASE["rounds"][::40]:
                mine, other = names[old["player_id"]], "bob" if names[old["player_id"]] == "alice" else "alice"
                r = client.get(f"/api/v1/rounds/{old['id']}", headers=auth[mine])
                assert r.status_code == 200, r.text
                assert r.json()["id"] == ids.public(old["id"]) and r.json()["bet"] == old["bet"]
                assert client.get(f"/api/v1/rounds/{old['id']}/verify", headers=auth[mine]).json()["ok"]
                assert client.get(f"/api/v1/rounds/{old['id']}", headers=auth[other]).status_code == 404
            assert ids.legacy_max == max(r["id"] for r in RELEASE["rounds"])
            assert ids.candidates(ids.legacy_max + 1) == [ids.internal(ids.legacy_max + 1)]  # later: keyed only
    finally:
        engine.dispose()


def test_migration_0003_tells_rounds_of_the_first_release_from_rounds_decided_at_the_stake(empty_url):
    """A database that ran the release of 0002 holds rounds of both: those decided at the stake store
    their steps with the round's own created_at, and get the build's current version."""
    load_release(empty_url)
    migrate_to(empty_url, "0002_decided_rounds")
    game = get_game("forge-of-gems")
    build = game.load_build("96.2", "2.0")  # the version that release played (0003 gives its rounds 2.0)
    played = game.play_round(build, SeededDraws(20261202))
    bet = 20
    win = money(bet, played.total_win)
    engine = make_engine(empty_url)
    now = datetime.now(UTC)
    with engine.begin() as conn:
        player = conn.execute(select(players.c.id, players.c.balance).where(players.c.name == "alice")).one()
        round_id = conn.execute(select(func.max(rounds.c.id))).scalar() + 1
        last = played.steps[-1]
        conn.execute(rounds.insert().values(
            id=round_id, player_id=player.id, game=game.id, build="96.2", mode="paid", bet=bet, requested_bet=bet,
            cost=bet, status="finished", state=dumps(last.state), next_step=None, step_count=len(played.steps),
            total_win_x=str(Fraction(last.total_win)), win=win, void_reason=None, created_at=now,
            updated_at=now, finished_at=now))
        for i, (step, draws) in enumerate(zip(played.steps, played.draws, strict=True)):
            conn.execute(steps.insert().values(
                round_id=round_id, idx=i, kind=step.kind, action=None, draws=dumps(draws), events=dumps(step.events),
                win_x=str(Fraction(step.win)), total_win_x=str(Fraction(step.total_win)), finished=step.finished,
                next_step=step.next_step, state=dumps(step.state), created_at=now, revealed_at=now))
        balance = player.balance
        for kind, amount in (("stake", -bet), ("win", win)):
            if amount:
                balance += amount
                conn.execute(ledger.insert().values(player_id=player.id, kind=kind, amount=amount,
                                                    balance_after=balance, round_id=round_id, created_at=now))
        conn.execute(update(players).where(players.c.id == player.id).values(balance=balance))
    engine.dispose()

    engine = open_database(empty_url)
    try:
        with engine.connect() as conn:
            versions = dict(conn.execute(select(rounds.c.id, rounds.c.build_version)).all())
        assert versions.pop(round_id) == "2.0"
        assert set(versions.values()) == {"1.0"}
        assert [r for r in verify_all(engine) if not r["ok"]] == []
        check_wallets(engine)
        # A build that changed under the version a round was played with is a finding of verify.
        with engine.begin() as conn:
            conn.execute(update(rounds).where(rounds.c.id == round_id).values(build_hash="0" * 64))
        assert verify_round(engine, round_id)["differences"] == [
            f"forge-of-gems build 96.2 v2.0 has content hash {build.identity.content_hash[:12]}, the round was "
            "played with 000000000000: the build changed under its version"]
    finally:
        engine.dispose()
