"""Database engine and migrations.

SQLite (the embedded default) runs in WAL mode; every write transaction
starts with ``BEGIN IMMEDIATE`` so writers queue for the database lock at the
start instead of failing half way. PostgreSQL (``postgresql+psycopg://...``)
relies on row locks: every money-changing transaction first locks the
player's row (``SELECT ... FOR UPDATE``), so one player's requests are
serialised while different players proceed in parallel, across any number of
server processes.

The schema is created or upgraded on start by Alembic (``migrations/``). How one
process's SQLite writers take turns (the kept writer connection, the write lock,
the event loop's commit groups) is :mod:`reelforge.server.sqlite_writers`; the
bound on a request's database waits, :mod:`reelforge.server.deadlines`.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import QueuePool

from reelforge.server.deadlines import wait_bound
from reelforge.server.loop_greenlets import on_loop, pause
from reelforge.server.sqlite_writers import CommitCounts, commit_group_now, release_writer

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_PG_MIGRATION_LOCK = 0x72656C66  # advisory lock id: several processes may start at once
_PG_LEAST_CONNECT_TIMEOUT = 2  # seconds: psycopg takes any shorter connect_timeout as 2
_LOOP_CHECKOUT_PAUSE = 0.002  # seconds between a greenlet's tries for a pooled connection when none is free


class DatabaseError(ValueError):
    """The database URL is unusable."""


WAL_LIMIT = 64 * 1024 * 1024
"""SQLite: the WAL is reset (and truncated to this size, ``journal_size_limit``) once it grows past it."""
START_WAIT = 30.0
"""Seconds a starting server waits for a PostgreSQL that refuses connections or restarts."""
_PG_BUSY = ("too many clients", "remaining connection slots", "too many connections", "connection refused",
            "the database system is starting up", "the database system is shutting down",
            "the database system is in recovery mode", "server closed the connection",
            "terminating connection due to administrator command", "the database system is not yet accepting")


class DeadlinePool(QueuePool):
    """SQLAlchemy's queue pool whose check-out wait ends at the request's deadline (:func:`request_deadline`),
    not ``timeout`` seconds after the check-out began: time a request already spent (queued for a thread,
    retrying a failed attempt) counts."""

    @property
    def _timeout(self) -> float:  # read by QueuePool at every check-out
        return 0.0 if on_loop() else wait_bound(self._own_timeout)

    @_timeout.setter
    def _timeout(self, value: float) -> None:
        self._own_timeout = value

    def _do_get(self) -> Any:
        if not on_loop():
            return super()._do_get()
        # A request's greenlet on the event loop must not block the loop's thread, which runs the greenlets that
        # would give connections back: it takes a free connection or none (timeout 0 above), and pauses between
        # tries, until the same bound.
        bound = wait_bound(self._own_timeout)
        deadline = time.monotonic() + bound
        while True:
            try:
                return super()._do_get()
            except PoolTimeout:
                if time.monotonic() + _LOOP_CHECKOUT_PAUSE > deadline:
                    raise PoolTimeout(f"QueuePool limit of size {self.size()} overflow {self._max_overflow} reached, "
                                      f"connection timed out, timeout {bound:0.2f}") from None
            pause(_LOOP_CHECKOUT_PAUSE)

    def recreate(self) -> QueuePool:
        pool = super().recreate()
        # QueuePool passes on _timeout, cut to the current request's deadline (0 in a request's greenlet): the
        # new pool keeps the configured one.
        pool._own_timeout = self._own_timeout
        return pool


@dataclass(frozen=True)
class PoolSettings:
    """Database connections per server process: kept (``size``), extra under bursts (``overflow``),
    and how long a request waits for one (``timeout`` seconds) before it is answered 503."""

    size: int = 20
    overflow: int = 10
    timeout: float = 10.0


_URL_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")
_QUERY_SECRET = re.compile(r"((?:password|passwd|secret)=)[^&\s]*", re.IGNORECASE)


def masked_url(url: str) -> str:
    """``url`` fit to print or log: its password (and any ``password=`` query parameter) as ``***``."""
    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparsable URL is masked by pattern
        shown = _URL_PASSWORD.sub(r"\1***@", url)
    return _QUERY_SECRET.sub(r"\1***", shown)


def make_engine(url: str, pool: PoolSettings | None = None) -> Engine:
    """An engine for ``url`` with the transaction behaviour described above."""
    pool = pool or PoolSettings()
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise DatabaseError(f"not a database URL: {masked_url(url)!r}") from exc
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:"):
            # A memory database would vanish between connections; the server needs a file.
            raise DatabaseError("SQLite needs a file path, e.g. sqlite:///reelforge.db")
        Path(database).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               pool_size=pool.size, max_overflow=pool.overflow, pool_timeout=pool.timeout)

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_connection, _record) -> None:  # pragma: no cover - driver hook
            # Let SQLAlchemy's BEGIN (below) control transactions, not the driver.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            # Small pages for a new database file (no effect on an existing one): a round request
            # changes about ten rows in ten different B-trees and the WAL stores every changed page
            # whole, so 1 KiB pages write about a third of the WAL bytes that 4 KiB pages do, and
            # checkpoints and WAL resets (see Checkpointer) shrink alike.
            cursor.execute("PRAGMA page_size=1024")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            # No checkpoint (and its fsync) inside a request's COMMIT: the server's
            # checkpointer thread does it (see Checkpointer); a closing last connection
            # checkpoints too, so command-line tools leave no WAL behind.
            cursor.execute("PRAGMA wal_autocheckpoint=0")
            # A reset WAL is truncated back to this size (else it keeps its peak size on disk).
            cursor.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Connection) -> None:  # pragma: no cover - driver hook
            conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get("readonly") else "BEGIN IMMEDIATE")

        @event.listens_for(engine, "engine_disposed")
        def _sqlite_disposed(engine_: Engine) -> None:  # pragma: no cover - engine hook
            release_writer(engine_)

        engine.info = {"sqlite_write_lock": threading.Lock(),  # type: ignore[attr-defined]
                       "sqlite_busy_wait": pool.timeout, "sqlite_commits": CommitCounts()}
        return engine
    if backend == "postgresql":
        from reelforge.server import pg_loop  # psycopg: only where PostgreSQL is used

        if parsed.get_driver_name() not in ("psycopg", "psycopg2"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        # No pool_pre_ping: its round trip on every check-out cost about a tenth of a round request's CPU.
        # A connection PostgreSQL dropped (a restart) fails its first statement instead; that replaces
        # every connection of the pool (SQLAlchemy does so for its own statements, store.transaction
        # for the money requests, which are then run again: see Context.retry_transient).
        engine = create_engine(parsed, pool_size=pool.size, max_overflow=pool.overflow, pool_timeout=pool.timeout,
                               poolclass=DeadlinePool)
        event.listen(engine, "checkout", pg_loop.mark_set_up)

        @event.listens_for(engine, "do_connect")
        def _pg_connect(dialect, _record, cargs, cparams):  # pragma: no cover - driver hook
            # Out of connections (max_connections reached) or restarting: wait for a slot, bounded by
            # the pool timeout (and the request's deadline), instead of failing the request at once.
            deadline = time.monotonic() + wait_bound(pool.timeout)
            delay = 0.02
            first = True
            while True:
                # A host that does not answer at all: each attempt ends by the deadline too. psycopg counts
                # whole seconds, at least 2, so a request that comes here with less than half that left
                # (half the whole timeout, when it is shorter: its time went queueing, or on an attempt
                # that hung) starts none. Attempts after one refused at once (busy, restarting) go on
                # to the deadline: they are refused at once too, or connect.
                left = deadline - time.monotonic()
                if first and left < min(_PG_LEAST_CONNECT_TIMEOUT, pool.timeout) / 2:
                    raise dialect.loaded_dbapi.OperationalError(
                        f"connection timeout: {max(left, 0):.1f} s left of the request's database wait, too "
                        "little for a new connection")
                first = False
                cparams["connect_timeout"] = max(_PG_LEAST_CONNECT_TIMEOUT, math.floor(left))
                try:
                    return pg_loop.connect(*cargs, **cparams)
                except dialect.loaded_dbapi.OperationalError as exc:
                    if time.monotonic() + delay > deadline or not any(m in str(exc).lower() for m in _PG_BUSY):
                        raise
                pause(delay)  # on the event loop (a request's greenlet): the loop runs meanwhile
                delay = min(delay * 2, 0.1)

        return engine
    raise DatabaseError(f"unsupported database {backend!r}: use sqlite:///path.db or postgresql+psycopg://...")


class Checkpointer:
    """Moves a SQLite database's WAL into the database file in the background.

    Automatic checkpoints would run inside some request's COMMIT and fsync
    the database file there (doubling that request's cost). Instead, every
    ``interval`` seconds a PASSIVE checkpoint copies the WAL into the database
    and fsyncs it beside the writers and readers, without blocking them.

    Under a steady stream of writes a passive checkpoint never catches up
    completely (writers append while it copies), so the WAL would never
    restart from its beginning and would grow without end: it has to be
    reset now and then (RESTART), which blocks writers while it copies the
    last frames and fsyncs; the next writer then starts the WAL over from
    its beginning. Its cost grows with the WAL, so resetting often costs
    about as much time in all as resetting rarely; rarely, the stalls are
    rare enough to stay out of the 99th percentile of request latency. (On
    this project's 2-core test machine under load, a TRUNCATE reset every
    0.5 s cost 50-90 ms each time and cut the benchmark's rate by a quarter;
    every ``reset_interval`` = 10 s, the WAL peaks at about 100-130 MB at
    600 rounds/s and a reset stalls the requests in flight for up to about
    0.2 s; TRUNCATE instead of RESTART, which also shrinks the file, made
    that about 0.35 s.) The WAL file keeps its size between resets; the last
    connection to close removes it. The reset runs under this process's
    write lock so its writers wait on the lock and start the moment the
    reset ends, instead of polling SQLite's busy handler, whose sleeps (up
    to 100 ms each) would outlast the reset itself.

    The WAL is also reset as soon as it passes :data:`WAL_LIMIT` (checked at
    every tick), and ``journal_size_limit`` makes the first write after a
    reset truncate the file back to that size: on a nearly full disk the WAL
    once peaked at 138 MB and, keeping its size, refilled freed space at once.
    """

    RESET_WAIT_MS = 250

    def __init__(self, engine: Engine, interval: float = 0.5, reset_interval: float = 10.0) -> None:
        self.engine = engine
        self.interval = interval
        self.reset_interval = reset_interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="reelforge-checkpoint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.checkpoint(reset=True)

    def checkpoint(self, reset: bool = False) -> bool:
        """A passive checkpoint; then, with ``reset``, a RESTART one (with little left to copy, it
        copies the rest while writers wait, and the next writer starts the WAL over). Returns
        False when the reset gave up: it waits at most ``RESET_WAIT_MS`` for older readers (a long
        ``verify --all``, say) to finish, because writers wait as long as it does."""
        conn = self.engine.raw_connection()
        try:
            cursor = conn.cursor()
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            if not reset:
                return True
            with self.engine.info["sqlite_write_lock"]:  # see the class docstring
                cursor.execute(f"PRAGMA busy_timeout={self.RESET_WAIT_MS}")
                try:
                    busy = cursor.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()[0]
                finally:
                    cursor.execute("PRAGMA busy_timeout=30000")  # the pool's connections' setting
            return not busy
        finally:
            conn.close()

    def wal_bytes(self) -> int:
        """The WAL file's size (0 when there is none)."""
        try:
            return os.path.getsize(f"{self.engine.url.database}-wal")
        except OSError:
            return 0

    def _run(self) -> None:
        last_reset = time.monotonic()
        while not self._stop.wait(self.interval):
            # Reset every reset_interval, and early once the WAL passes WAL_LIMIT (a fast writer, or a
            # nearly full disk: the WAL must not take the last free space).
            reset = time.monotonic() - last_reset >= self.reset_interval or self.wal_bytes() > WAL_LIMIT
            try:
                done = self.checkpoint(reset)
            except Exception:  # noqa: BLE001 - a busy database is retried next time
                continue
            if reset and done:  # a reset that gave up is tried again at the next tick
                last_reset = time.monotonic()


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A read-write transaction (commits on success, rolls back on error).

    On SQLite a process-local lock queues this process's writers before they
    reach the database's own lock (which is still what guarantees
    consistency, also across processes): waiting on a Python lock is much
    cheaper than SQLite's sleep-and-retry busy handler.
    """
    lock = getattr(engine, "info", {}).get("sqlite_write_lock") if is_sqlite(engine) else None
    if lock is None:
        with engine.begin() as conn:
            yield conn
        return
    commit_group_now(engine)
    with lock, engine.begin() as conn:
        yield conn


@contextmanager
def read_transaction(engine: Engine) -> Iterator[Connection]:
    """A read-only transaction (a consistent snapshot on both back ends)."""
    with engine.connect() as conn:
        conn = conn.execution_options(readonly=True)
        with conn.begin():
            yield conn


def alembic_config(connection: Connection | None = None):  # -> alembic.config.Config
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@contextmanager
def sqlite_foreign_keys_off(conn: Connection) -> Iterator[None]:
    """SQLite foreign keys off on ``conn`` for the block (a migration). Alembic's batch mode rebuilds a
    table (copy, DROP, RENAME), and with foreign keys on, dropping a table other rows refer to fails
    (``FOREIGN KEY constraint failed [SQL: DROP TABLE rounds]``); the rebuilt table keeps every row
    and key, which :func:`check_foreign_keys` confirms before the commit. SQLite ignores the pragma
    inside a transaction, so it is set on the driver's connection before the block's BEGIN (Alembic's
    "batch migrations" documentation: foreign keys off around the rebuild)."""
    raw = conn.connection.dbapi_connection
    raw.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        raw.execute("PRAGMA foreign_keys=ON")


def check_foreign_keys(conn: Connection) -> None:
    """Refuse (raise, so the migration rolls back) a SQLite database with a broken foreign key."""
    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        raise RuntimeError(f"the migration would leave {len(broken)} broken foreign key(s), e.g. {tuple(broken[0])}; "
                           "nothing was changed")


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration (safe to run from several processes)."""
    from alembic import command

    if is_sqlite(engine):
        with engine.info["sqlite_write_lock"], engine.connect() as conn:
            with sqlite_foreign_keys_off(conn):
                with conn.begin():
                    command.upgrade(alembic_config(conn), "head")
                    check_foreign_keys(conn)
        return
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
        command.upgrade(alembic_config(conn), "head")


def open_database(url: str, config: Any = None) -> Engine:
    """Engine for ``url`` with the schema migrated to the newest version (``config``: a
    :class:`~reelforge.server.config.ServerConfig` whose pool settings to use)."""
    pool = None if config is None else PoolSettings(config.db_pool_size, config.db_max_overflow,
                                                    config.db_pool_timeout_seconds)
    engine = make_engine(url, pool)
    # A server (re)started while PostgreSQL restarts waits for it rather than exiting.
    deadline = time.monotonic() + START_WAIT
    while True:
        try:
            migrate(engine)
            return engine
        except OperationalError as exc:
            if is_sqlite(engine) or time.monotonic() > deadline or \
                    not any(m in str(exc).lower() for m in _PG_BUSY):
                engine.dispose()
                raise
            time.sleep(0.2)

