"""SQLite's group commit (issue 33): the money requests the event loop runs in one turn share one
transaction and one COMMIT, each in a savepoint of its own; a request answers only once that COMMIT is
done, a failed request undoes only its own work, and a failed COMMIT fails every request of the group."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import timedelta

import pytest
from sqlalchemy import text

from reelforge.server.app import create_app
from reelforge.server.clock import utcnow
from reelforge.server.db import open_database, write_transaction
from reelforge.server.sqlite_writers import sqlite_writer
from reelforge.server.store import transaction

from .conftest import demo_config


@pytest.fixture
def served(tmp_path):
    """A SQLite database with the schema, the server's request context on it, and every statement its
    writer connection runs."""
    engine = open_database(f"sqlite:///{tmp_path / 'group.db'}")
    ctx = create_app(demo_config(db_pool_timeout_seconds=30), engine=engine).state.context
    log: list[str] = []
    sqlite_writer(engine).set_trace_callback(log.append)
    yield engine, ctx, log
    ctx.threads.shutdown(wait=True)
    engine.dispose()


def add_player(engine, name: str) -> str:
    """A money request's transaction: one new player row."""
    with transaction(engine) as tx:
        tx.insert_player(name, "EUR", True, utcnow())
    return name


def players(engine) -> list[str]:
    """The players committed, read on a connection of its own."""
    conn = sqlite3.connect(engine.url.database)
    try:
        return sorted(row[0] for row in conn.execute("SELECT name FROM players"))
    finally:
        conn.close()


def kinds(log: list[str]) -> list[str]:
    return [sql.split()[0] if not sql.startswith("BEGIN") else sql for sql in log]


async def outcomes(ctx, *calls) -> list[object]:
    """The requests, run together (one turn of the event loop takes them all): each one's answer or error."""
    return await asyncio.gather(*(ctx.call(*call) for call in calls), return_exceptions=True)


def test_the_requests_of_one_turn_share_one_transaction_and_commit(served):
    engine, ctx, log = served
    assert asyncio.run(outcomes(ctx, *((add_player, engine, f"p{i}") for i in range(5)))) == [
        f"p{i}" for i in range(5)]
    assert players(engine) == [f"p{i}" for i in range(5)]
    statements = kinds(log)
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert statements.count("BEGIN IMMEDIATE") == statements.count("COMMIT") == 1
    assert statements.count("SAVEPOINT") == statements.count("RELEASE") == 4  # the first is the transaction
    assert not sqlite_writer(engine).in_transaction
    exposed = ctx.metrics.exposition().decode()  # what /metrics shows an operator: five requests, one COMMIT
    assert "reelforge_sqlite_commits_total 1.0" in exposed
    assert "reelforge_sqlite_committed_transactions_total 5.0" in exposed


def test_a_failed_request_undoes_only_its_own_work(served):
    engine, ctx, log = served

    def refused(name: str) -> None:
        with transaction(engine) as tx:
            tx.insert_player(name, "EUR", True, utcnow())
            raise ValueError("refused after its write")

    results = asyncio.run(outcomes(ctx, (add_player, engine, "a"), (refused, "b"), (add_player, engine, "c")))
    assert results[0] == "a" and results[2] == "c"
    assert isinstance(results[1], ValueError)
    assert players(engine) == ["a", "c"]
    assert kinds(log).count("COMMIT") == 1 and "ROLLBACK" in kinds(log)  # ROLLBACK TO its savepoint


def test_a_failed_first_request_closes_its_group_and_the_next_opens_one(served):
    """The group's first transaction is the group's own (no savepoint): when it fails, the group is rolled
    back and closed with nothing else in it, and the requests after it open a new one."""
    engine, ctx, log = served

    def refused(name: str) -> None:
        with transaction(engine) as tx:
            tx.insert_player(name, "EUR", True, utcnow())
            raise ValueError("refused after its write")

    results = asyncio.run(outcomes(ctx, (refused, "x"), (add_player, engine, "b"), (add_player, engine, "c")))
    assert isinstance(results[0], ValueError) and results[1:] == ["b", "c"]
    assert players(engine) == ["b", "c"]
    statements = kinds(log)
    assert statements.count("BEGIN IMMEDIATE") == 2 and statements.count("COMMIT") == 1
    assert statements.count("ROLLBACK") == 1 and statements.count("SAVEPOINT") == 1  # c's, in b's group


def test_a_request_answers_with_the_failure_of_an_earlier_group_it_wrote_in(served):
    """A request whose group was committed early (its own Core write took the lock) and that then wrote in a
    new group answers only when both committed; the first COMMIT failed here (a deferred foreign key), so the
    request fails although its function returned, and its rows of the first group are gone."""
    engine, ctx, _log = served

    def two_groups() -> str:
        now = utcnow()
        with transaction(engine) as tx:
            tx.insert_player("a", "EUR", True, now)
            tx.cursor.execute("PRAGMA defer_foreign_keys=ON")
            tx.insert_session("f" * 64, 987654, now, now + timedelta(hours=1))
        with write_transaction(engine) as conn:  # commits the open group first: that COMMIT fails
            conn.execute(text("SELECT 1"))
        return add_player(engine, "b")

    results = asyncio.run(outcomes(ctx, (two_groups,)))
    assert isinstance(results[0], sqlite3.IntegrityError), results
    assert players(engine) == ["b"]


def test_a_failed_commit_fails_every_request_of_the_group_and_keeps_nothing(served):
    """A deferred foreign key is checked at COMMIT: one request's session of a player that does not exist
    makes the group's COMMIT fail, so the other requests, whose own work was sound, fail too: none of them
    answered, and none of their rows was kept."""
    engine, ctx, _log = served

    def orphan_session() -> None:
        now = utcnow()
        with transaction(engine) as tx:
            tx.cursor.execute("PRAGMA defer_foreign_keys=ON")  # this transaction only
            tx.insert_session("f" * 64, 987654, now, now + timedelta(hours=1))

    results = asyncio.run(outcomes(ctx, (add_player, engine, "a"), (orphan_session,), (add_player, engine, "c")))
    assert all(isinstance(r, sqlite3.IntegrityError) for r in results), results
    assert players(engine) == []
    assert engine.info["sqlite_commits"].commits == 0  # a failed COMMIT is not counted
    assert not sqlite_writer(engine).in_transaction
    assert asyncio.run(outcomes(ctx, (add_player, engine, "d"))) == ["d"]  # the next group commits
    assert players(engine) == ["d"]


def test_a_statement_that_ends_the_transaction_fails_the_group_at_once(served):
    """SQLite rolls a whole transaction back on some errors (here a trigger's ``RAISE(ROLLBACK)``; I/O and
    memory errors alike): the members before it lose their work, so they fail; the requests after it open
    a new group."""
    engine, ctx, log = served
    with write_transaction(engine) as conn:
        conn.execute(text("CREATE TRIGGER refuse BEFORE INSERT ON players WHEN NEW.name = 'refused' "
                          "BEGIN SELECT RAISE(ROLLBACK, 'refused by the test'); END"))
    log.clear()
    results = asyncio.run(outcomes(ctx, (add_player, engine, "a"), (add_player, engine, "refused"),
                                   (add_player, engine, "c")))
    assert isinstance(results[0], sqlite3.IntegrityError) and isinstance(results[1], sqlite3.IntegrityError)
    assert results[2] == "c"
    assert players(engine) == ["c"]
    assert kinds(log).count("BEGIN IMMEDIATE") == 2 and kinds(log).count("COMMIT") == 1


def test_a_writer_that_takes_the_lock_itself_commits_the_open_group_first(served):
    """A request's Core write (``write_transaction``, e.g. an operator callback's record) takes the write
    lock, which the event loop's open group holds: the group commits first instead of the loop waiting for
    itself."""
    engine, ctx, _log = served

    def core_write(name: str) -> str:
        with write_transaction(engine) as conn:
            conn.execute(text("INSERT INTO players (name, balance, currency, demo, created_at, brand) "
                              "VALUES (:n, 0, 'EUR', 1, '2026-12-06 00:00:00.000000', 'default')"), {"n": name})
        return name

    done: list[object] = []
    runner = threading.Thread(target=lambda: done.append(asyncio.run(outcomes(
        ctx, (add_player, engine, "a"), (core_write, "b"), (add_player, engine, "c")))), daemon=True)
    runner.start()
    runner.join(timeout=30)
    assert not runner.is_alive(), "the event loop waited for the write lock its own group holds"
    assert done == [["a", "b", "c"]]
    assert players(engine) == ["a", "b", "c"]


def test_a_write_transaction_inside_another_is_refused_and_undoes_the_outer_one(served):
    """A Core write opened inside a money transaction would commit the group with the outer transaction half
    done: it is refused, and the outer transaction's rows are rolled back with it."""
    engine, ctx, _log = served

    def nested() -> None:
        with transaction(engine) as tx:
            tx.insert_player("outer", "EUR", True, utcnow())
            with write_transaction(engine):
                pass

    results = asyncio.run(outcomes(ctx, (nested,), (add_player, engine, "b")))
    assert isinstance(results[0], RuntimeError) and "inside another" in str(results[0])
    assert results[1] == "b" and players(engine) == ["b"]


def test_a_writer_on_another_thread_waits_for_the_group_and_then_writes(served):
    """The SQLite thread (and any other thread) takes the write lock as before: after the group's COMMIT."""
    engine, ctx, _log = served

    async def together() -> list[object]:
        loop = asyncio.get_running_loop()
        inline = [ctx.call(add_player, engine, f"p{i}") for i in range(3)]
        on_thread = loop.run_in_executor(None, add_player, engine, "t")
        return await asyncio.gather(*inline, on_thread)

    assert asyncio.run(together()) == ["p0", "p1", "p2", "t"]
    assert players(engine) == ["p0", "p1", "p2", "t"]
