"""What a money request costs the database: on PostgreSQL a start or a step is three statements (the
player's row lock, one read of everything it decides on, one write of everything it stores) and one
COMMIT, whatever the round's shape; a retry is answered from its stored answer, writing nothing. On SQLite
a request runs one statement per table it writes, pinned statement by statement."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from reelforge.core.draws import SeededDraws

from .scenarios import feature_scenario


@pytest.fixture
def statements(monkeypatch):
    """Every statement and COMMIT the driver runs (psycopg's own methods, wrapped and then restored)."""
    psycopg = pytest.importorskip("psycopg")
    log: list[str] = []
    execute, executemany, commit = psycopg.Cursor.execute, psycopg.Cursor.executemany, psycopg.Connection.commit

    def counted_execute(self, query, params=None, **kwargs):
        log.append(str(query).split(None, 1)[0].upper())
        return execute(self, query, params, **kwargs)

    def counted_executemany(self, query, params_seq, **kwargs):
        log.append("MANY " + str(query).split(None, 1)[0].upper())
        return executemany(self, query, params_seq, **kwargs)

    def counted_commit(self):
        log.append("COMMIT")
        return commit(self)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted_execute)
    monkeypatch.setattr(psycopg.Cursor, "executemany", counted_executemany)
    monkeypatch.setattr(psycopg.Connection, "commit", counted_commit)
    return log


def test_a_money_request_is_lock_read_write_commit_on_postgresql(server, statements):
    if not server.url.startswith("postgresql"):
        pytest.skip("counts PostgreSQL's round trips (SQLite runs in process)")
    game_id = "forge-of-fortunes"
    scenario = feature_scenario(game_id)  # a round with re-spins and a win
    player = server.session()
    server.draws.source = SeededDraws(scenario.seed)
    bet = server.config.games[game_id].bet_ladder[0]
    answers = []
    statements.clear()
    rnd = player.start(game_id, bet, key="start")
    requests = [list(statements)]
    while rnd["status"] == "open":
        statements.clear()
        rnd = player.step(rnd["id"], key=f"step-{len(requests)}")
        requests.append(list(statements))
        answers.append(rnd)
    assert len(requests) == len(scenario.kinds) > 2 and rnd["paid"] > 0
    # lock (SELECT ... FOR UPDATE), read (SELECT / WITH ... SELECT), write (WITH ... INSERT), COMMIT
    assert requests[0] == ["SELECT", "SELECT", "WITH", "COMMIT"]
    assert all(r == ["SELECT", "WITH", "WITH", "COMMIT"] for r in requests[1:]), requests
    # A retry: the lock and the read find the stored answer, whose steps are read back in; nothing written.
    statements.clear()
    assert player.step(rnd["id"], key=f"step-{len(requests) - 1}") == answers[-1]
    assert statements == ["SELECT", "WITH", "SELECT", "SELECT", "COMMIT"]


@contextmanager
def sqlite_statements(server) -> Iterator[list[str]]:
    """Every statement SQLite's writer connection runs in the block (its trace callback, removed after)."""
    from reelforge.server.sqlite_writers import sqlite_writer

    if not server.url.startswith("sqlite"):
        pytest.skip("SQLite's statements (PostgreSQL's: above)")
    log: list[str] = []
    writer = sqlite_writer(server.engine)
    writer.set_trace_callback(log.append)
    try:
        yield log
    finally:
        writer.set_trace_callback(None)


def _feature_start(server, log: list[str]) -> tuple[Any, Any, dict[str, Any]]:
    """A new player's start of a Forge of Fortunes round with re-spins and a win (its scenario, the player,
    the answer), ``log`` holding the start's statements only."""
    game_id = "forge-of-fortunes"
    scenario = feature_scenario(game_id)
    player = server.session()
    server.draws.source = SeededDraws(scenario.seed)
    log.clear()
    return scenario, player, player.start(game_id, server.config.games[game_id].bet_ladder[0], key="start")


def test_sqlite_writes_each_tables_rows_of_a_request_in_one_statement(server):
    """On SQLite a round start stores its steps with one INSERT, and a request's ledger entries (a stake and
    the win of a round decided by its paid spin) with one INSERT: the rows executemany stored, one by one."""
    from sqlalchemy import select

    from reelforge.server.clock import utcnow
    from reelforge.server.schema import ledger
    from reelforge.server.store import LedgerEntry, transaction

    with sqlite_statements(server) as log:
        scenario, player, rnd = _feature_start(server, log)
        inserts = [sql.split(" (")[0] for sql in log if sql.startswith("INSERT")]
        assert rnd["status"] == "open" and len(scenario.kinds) > 2
        assert inserts == ["INSERT INTO rounds", "INSERT INTO ledger", "INSERT INTO steps", "INSERT INTO idempotency"]
        now = utcnow()
        log.clear()
        with transaction(server.engine) as tx:
            player_id = tx.player_by_name(player.name).id
            balance = tx.lock_player(player_id).balance
            tx.post(player_id, balance + 5, [LedgerEntry("deposit", 2, balance + 2, None, now),
                                              LedgerEntry("deposit", 3, balance + 5, None, now)])
        assert [sql.split(" (")[0] for sql in log if sql.startswith("INSERT")] == ["INSERT INTO ledger"]
    with server.engine.connect() as conn:
        rows = conn.execute(select(ledger.c.kind, ledger.c.amount, ledger.c.balance_after).where(
            ledger.c.player_id == player_id).order_by(ledger.c.id)).all()
    assert [tuple(r) for r in rows[-2:]] == [("deposit", 2, balance + 2), ("deposit", 3, balance + 5)]


def _kind(sql: str) -> str:
    """A statement's kind and the table it writes (``INSERT ledger``, ``UPDATE steps``, ``SELECT``)."""
    words = sql.split()
    if words[0] in ("INSERT", "UPDATE"):
        return f"{words[0]} {words[2] if words[0] == 'INSERT' else words[1]}"
    return "BEGIN IMMEDIATE" if words[:2] == ["BEGIN", "IMMEDIATE"] else words[0]


def test_a_money_request_on_sqlite_is_one_statement_per_table_it_writes(server):
    """SQLite's statements of a round with re-spins and a win, pinned (issue 33: so they cannot creep back
    up): a start is BEGIN IMMEDIATE, the session's read, the round's reads, one write per table (the round,
    the balance, the stake's entry, every step, the stored answer) and COMMIT, whatever its steps; a step is
    7, 9 when it pays (the balance and the win's entry). A request alone in its commit group runs these; one
    that joins a group runs its own statements between SAVEPOINT and RELEASE instead. (The test server draws from a seeded source, so
    there is no seed pair's nonce: a provably fair start adds ``UPDATE fair_seeds``, see
    ``bench/server_statements.py``.)"""
    with sqlite_statements(server) as log:
        scenario, player, rnd = _feature_start(server, log)
        requests = [[_kind(sql) for sql in log]]
        while rnd["status"] == "open":
            log.clear()
            rnd = player.step(rnd["id"], key=f"step-{len(requests)}")
            requests.append([_kind(sql) for sql in log])
    assert len(requests) == len(scenario.kinds) > 2 and rnd["paid"] > 0
    # Each request alone in its commit group, so its transaction is the group's (test_group_commit.py: the
    # requests of one turn of the event loop share one, the later ones in savepoints).
    assert requests[0] == ["BEGIN IMMEDIATE", "SELECT", "SELECT", "INSERT rounds", "UPDATE players", "INSERT ledger",
                           "INSERT steps", "INSERT idempotency", "COMMIT"]
    step = ["BEGIN IMMEDIATE", "SELECT", "WITH", "UPDATE steps", "UPDATE rounds", "INSERT idempotency", "COMMIT"]
    assert requests[1:-1] == [step] * (len(requests) - 2)
    assert requests[-1] == step[:5] + ["UPDATE players", "INSERT ledger"] + step[5:]  # the last step pays
