"""How a server process's SQLite writers take turns: one kept writer connection behind a process-local write
lock (:func:`acquire_writer_lock`, :func:`begin_writer`), the money requests the event loop runs inline
(:func:`run_inline`, :class:`WriterBusy` where they would wait), and the commit groups that let the requests of
one turn of the loop share one transaction and one COMMIT (:class:`CommitGroup`)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from typing import Any

from sqlalchemy import Engine

from reelforge.server.deadlines import wait_bound


def sqlite_writer(engine: Engine) -> Any:
    """This process's SQLite writer connection (the driver's), to use only while holding the
    engine's write lock: taken from the pool once and kept, so one connection serves every
    writer in turn and no request pays a pool check-out and check-in. ``engine.dispose()``
    closes it with the pool's connections (see :func:`release_writer`)."""
    writer = engine.info.get("sqlite_writer")
    if writer is None:
        writer = engine.info["sqlite_writer"] = engine.raw_connection()
        # Busy at once, never SQLite's sleeping busy handler: begin_immediate waits, or hands back.
        writer.dbapi_connection.execute("PRAGMA busy_timeout=0")
    return writer.dbapi_connection


class WriterBusy(Exception):
    """SQLite's write lock is held (by another process, or this process's checkpoint or a waiting writer):
    a request on the event loop, which must not wait, is run on a thread instead (nothing was done yet)."""


_inline = threading.local()


def run_inline(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` where SQLite writers do not wait for the write lock: they raise :class:`WriterBusy`
    (the server's event loop runs SQLite requests inline; a wait there would stall every request), and
    their transactions join the event loop's commit group (:class:`CommitGroup`; :func:`joined_groups`
    says which, to wait for its COMMIT before answering). A function, not a context manager: every
    SQLite money request passes here, and a generator-based context manager costs four more Python calls."""
    _inline.active, _inline.joined = True, []
    try:
        return fn(*args)
    finally:
        _inline.active = False


def inline_writer() -> bool:
    """Whether this thread is inside :func:`run_inline` (its SQLite writers join the commit group)."""
    return getattr(_inline, "active", False)


def joined_groups() -> list[CommitGroup]:
    """The commit groups the last :func:`run_inline` call on this thread took part in (usually none or one; a
    request whose group was committed early, see :func:`commit_group_now`, and that wrote again, two)."""
    return getattr(_inline, "joined", None) or []


class CommitCounts:
    """The money requests' SQLite COMMITs this process made, and the transactions they held (a commit
    group's savepoints, or one transaction run on a thread): their ratio is how many requests a COMMIT
    served (``reelforge_sqlite_commits_total``, ``reelforge_sqlite_committed_transactions_total``).
    Counted under the write lock."""

    __slots__ = ("commits", "transactions")

    def __init__(self) -> None:
        self.commits = 0
        self.transactions = 0

    def add(self, transactions: int) -> None:
        self.commits += 1
        self.transactions += transactions


class CommitGroup:
    """One SQLite transaction for the money requests the event loop runs inline in one turn (group commit).

    A COMMIT writes every page the transaction changed, twice (WAL, then checkpoint), and a round request
    changes about twenty; requests served in the same turn of the event loop change many of the same
    pages (the tables' and indexes' last pages, page 1). So the first inline writer opens the group
    (``BEGIN IMMEDIATE`` under the process's write lock) and schedules its COMMIT for the end of the
    loop's current turn. Its own transaction is the group's (alone, a request runs the statements it ran
    before groups; when it fails, the group is rolled back and closed); each later writer's transaction is
    a savepoint in it (released on success, rolled back to on error, so a failed request undoes only its
    own work), and each request answers only once the group's COMMIT is done: whatever it read or wrote is
    then durable as a whole. A failed COMMIT fails every request of the group, none of which had answered,
    so no answer ever depends on writes that were lost. Writers on other threads (and other processes) wait
    for the write lock as before, a turn at most.
    """

    __slots__ = ("engine", "lock", "writer", "cursor", "thread", "done", "members", "closed", "busy")

    def __init__(self, engine: Engine, lock: Any, writer: Any, cursor: Any, done: Any) -> None:
        self.engine, self.lock, self.writer, self.cursor = engine, lock, writer, cursor
        self.thread = threading.get_ident()
        self.done = done  # an asyncio future: its result once committed, the error otherwise
        self.members = 0
        self.closed = False
        self.busy = False  # a member's transaction is open (see commit_group_now)

    def abandon(self) -> None:
        """The group's first transaction, its only one so far, failed: roll it back and close the group without
        failing anyone (that transaction's request raises its own error; the next writer opens a new group)."""
        self._close(None, commit=False)

    def finish(self, error: BaseException | None = None) -> None:
        """COMMIT (or, with ``error``, roll back) and release the write lock; the future tells the members."""
        self._close(error, commit=error is None)

    def _close(self, error: BaseException | None, commit: bool) -> None:
        if self.closed:
            return
        self.closed = True
        if self.engine.info.get("sqlite_group") is self:
            del self.engine.info["sqlite_group"]
        try:
            if commit:
                try:
                    self.cursor.execute("COMMIT")
                    self.engine.info["sqlite_commits"].add(self.members)
                except BaseException as exc:  # noqa: BLE001 - every member gets it
                    error = exc
            if self.writer.in_transaction:  # whatever failed, the kept connection must not stay inside one
                self.cursor.execute("ROLLBACK")
        finally:
            self.cursor.close()
            self.lock.release()
            if not self.done.done():
                if error is None:
                    self.done.set_result(self.members)
                else:
                    self.done.set_exception(error)


def begin_writer(engine: Engine) -> tuple[Any, Any, Any]:
    """This process's write lock taken (:func:`acquire_writer_lock`) and ``BEGIN IMMEDIATE`` on its writer
    connection: ``(lock, connection, cursor)``, to be committed or rolled back, the cursor closed and the lock
    released by the caller (on failure here nothing is left held)."""
    lock = acquire_writer_lock(engine)
    try:
        writer = sqlite_writer(engine)
        cursor = writer.cursor()
        try:
            begin_immediate(engine, cursor)
        except BaseException:
            cursor.close()
            raise
    except BaseException:
        lock.release()
        raise
    return lock, writer, cursor


def open_group(engine: Engine) -> CommitGroup:
    """The event loop's open commit group, opened if there is none (the write lock taken: :class:`WriterBusy`
    when held elsewhere); its ``members`` counts the caller. Called on the event loop's thread, inside
    :func:`run_inline`."""
    group = engine.info.get("sqlite_group")
    if group is None:
        loop = asyncio.get_running_loop()
        lock, writer, cursor = begin_writer(engine)
        group = engine.info["sqlite_group"] = CommitGroup(engine, lock, writer, cursor, loop.create_future())
        loop.call_soon(group.finish)
    group.members += 1
    joined = _inline.joined
    if not joined or joined[-1] is not group:
        joined.append(group)
    return group


def commit_group_now(engine: Engine) -> None:
    """Commit the open commit group now if this thread holds it (it holds the write lock, which this thread
    is about to take: waiting for it would never end). Its members learn the outcome from its future."""
    group = getattr(engine, "info", {}).get("sqlite_group")
    if group is not None and group.thread == threading.get_ident():
        if group.busy:  # a write transaction inside another would commit the outer one half done
            raise RuntimeError("a SQLite write transaction was opened inside another on the event loop")
        group.finish()


def acquire_writer_lock(engine: Engine) -> Any:
    """Take this process's SQLite writer lock (see :func:`reelforge.server.db.write_transaction`); returns it. Inside
    :func:`run_inline` a held lock raises :class:`WriterBusy`; elsewhere the wait is bounded by the pool
    timeout (and the request's deadline), then ``database is locked``. A commit group this thread holds
    open (:class:`CommitGroup`) commits first: the lock is its."""
    commit_group_now(engine)
    lock = engine.info["sqlite_write_lock"]
    if getattr(_inline, "active", False):
        if not lock.acquire(blocking=False):
            raise WriterBusy
    elif not lock.acquire(timeout=wait_bound(engine.info["sqlite_busy_wait"])):
        raise sqlite3.OperationalError("database is locked (this process's writers are queued)")
    return lock


def begin_immediate(engine: Engine, cursor: Any) -> None:
    """``BEGIN IMMEDIATE`` on the kept writer connection (busy at once: see :func:`sqlite_writer`): retried
    for up to the pool timeout (and the request's deadline), or :class:`WriterBusy` inside :func:`run_inline`."""
    deadline, delay = None, 0.001
    while True:
        try:
            cursor.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if getattr(_inline, "active", False):
                raise WriterBusy from exc
            now = time.monotonic()
            deadline = deadline or now + wait_bound(engine.info["sqlite_busy_wait"])
            if now + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def release_writer(engine: Engine) -> None:
    """Close the kept SQLite writer connection (on ``engine.dispose()``, so that with the pool's
    connections closed too SQLite folds its WAL into the database file on the last close)."""
    commit_group_now(engine)
    with engine.info["sqlite_write_lock"]:
        writer = engine.info.pop("sqlite_writer", None)
        if writer is not None:
            connection = writer.dbapi_connection
            writer.detach()
            connection.close()
