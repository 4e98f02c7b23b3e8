"""PostgreSQL's transactions on the event loop (issue 33): synchronous code run in a greenlet whose waits give
the loop back (``run_on_loop``), psycopg connections that wait that way there and block anywhere else, and the
server's PostgreSQL requests run so, with no database thread."""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
import time

import pytest

from reelforge.server.loop_greenlets import on_loop, pause, run_on_loop, suspend

PG_ENV = "REELFORGE_TEST_PG_URL"
WHO = contextvars.ContextVar("who", default="nobody")


def test_the_result_and_the_error_of_the_function_come_back():
    def fails() -> None:
        suspend(asyncio.sleep(0))
        raise LookupError("from the greenlet")

    async def run() -> int:
        with pytest.raises(LookupError, match="from the greenlet"):
            await run_on_loop(fails)
        return await run_on_loop(lambda a, b: a + b, 2, 3)

    assert asyncio.run(run()) == 5


def test_a_suspended_function_lets_the_loop_run_other_work_then_resumes_with_the_outcome():
    """The first call waits for a future that only the second call settles: with a blocking wait the loop would
    never reach the second, and the run would end by the timeout instead."""
    order: list[str] = []

    async def run() -> list[str]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()

        def waits() -> str:
            order.append("first waits")
            value = suspend(future)
            order.append("first resumed")
            return value

        def settles() -> None:
            order.append("second runs")
            future.set_result("settled")

        first = asyncio.ensure_future(run_on_loop(waits))
        await asyncio.sleep(0)
        await run_on_loop(settles)
        return [await asyncio.wait_for(first, 5)]

    assert asyncio.run(run()) == ["settled"]
    assert order == ["first waits", "second runs", "first resumed"]


def test_an_awaitable_that_fails_raises_where_the_function_waited():
    async def fails() -> None:
        raise KeyError("awaited")

    def waits() -> str:
        try:
            suspend(fails())
        except KeyError:
            return "caught where it waited"
        return "not raised"

    assert asyncio.run(run_on_loop(waits)) == "caught where it waited"


def test_the_function_sees_the_callers_context_and_its_own_changes_stay_its_own():
    def changes() -> str:
        seen = WHO.get()
        WHO.set("the greenlet")
        suspend(asyncio.sleep(0))
        return f"{seen} -> {WHO.get()}"

    async def run() -> tuple[str, str]:
        WHO.set("the request")
        inside = await run_on_loop(changes)
        return inside, WHO.get()

    assert asyncio.run(run()) == ("the request -> the greenlet", "the request")


def test_a_cancelled_caller_stops_the_function_where_it_waits():
    """Cancelling the request (the server shutting down) raises in the function at its wait, so its transaction
    is rolled back by its own error handling, not left half done."""
    cleaned: list[str] = []

    def waits_long() -> None:
        try:
            suspend(asyncio.sleep(30))
        finally:
            cleaned.append("finally ran")

    async def run() -> None:
        task = asyncio.ensure_future(run_on_loop(waits_long))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert cleaned == ["finally ran"]


def test_each_greenlets_request_deadline_is_its_own_on_the_shared_thread():
    """Requests' greenlets share the loop's thread: one that ends its deadline block (here the later, shorter one)
    must leave the other's deadline in place. With the deadline kept per thread, the first request's waits lost
    their bound once the second's ended (a burst of requests to a silent database then waited twice the
    timeout: bench/outage.py)."""
    from reelforge.server.deadlines import request_deadline, wait_bound

    async def run() -> tuple[float, float]:
        second_done = asyncio.Event()

        def first() -> float:
            with request_deadline(time.monotonic() + 5):
                suspend(second_done.wait())
                return wait_bound(100)

        def second() -> float:
            with request_deadline(time.monotonic() + 1):
                bound = wait_bound(100)
            second_done.set()
            return bound

        one = asyncio.ensure_future(run_on_loop(first))
        await asyncio.sleep(0)
        two = await run_on_loop(second)
        return await one, two

    first_bound, second_bound = asyncio.run(run())
    assert 4 < first_bound <= 5 and 0 < second_bound <= 1
    assert wait_bound(100) == 100  # outside any request


def test_outside_a_greenlet_nothing_is_on_the_loop_and_pause_sleeps():
    assert not on_loop()
    assert asyncio.run(run_on_loop(on_loop)) is True
    began = time.monotonic()
    pause(0.02)
    assert time.monotonic() - began >= 0.02
    with pytest.raises(RuntimeError, match="outside run_on_loop"):
        suspend(None)


def test_pause_on_the_loop_lets_other_work_run():
    order: list[str] = []

    async def run() -> None:
        def pauses() -> None:
            order.append("pauses")
            pause(0.05)
            order.append("resumed")

        first = asyncio.ensure_future(run_on_loop(pauses))
        await asyncio.sleep(0.01)
        order.append("loop ran meanwhile")
        await first

    asyncio.run(run())
    assert order == ["pauses", "loop ran meanwhile", "resumed"]


@pytest.fixture
def pg_url(pg_database) -> str:
    if pg_database is None:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    return pg_database.replace("postgresql+psycopg://", "postgresql://")


def test_a_postgresql_wait_on_the_loop_lets_another_transaction_release_the_lock_it_waits_for(pg_database):
    """Two transactions on the loop, on the server's kind of engine: the second waits for a lock the first holds,
    and the first can finish (and release it) only if the second's wait gave the loop back. With a blocking wait
    the first never commits: the second's lock wait times out (``lock_timeout``) and the test fails."""
    from sqlalchemy import text

    from reelforge.server.db import make_engine

    if pg_database is None:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    engine = make_engine(pg_database)
    order: list[str] = []

    async def run() -> None:
        locked = asyncio.Event()

        def holder() -> None:
            with engine.connect() as conn:
                conn.execute(text("SELECT pg_advisory_xact_lock(7331)"))
                order.append("first holds the lock")
                suspend(locked.wait())
                pause(0.05)  # the second is waiting on its socket by now
                order.append("first commits")
                conn.commit()

        def waiter() -> None:
            with engine.connect() as conn:
                conn.execute(text("SET lock_timeout = '5s'"))  # a wait that blocks the loop fails here, not hangs
                locked.set()
                conn.execute(text("SELECT pg_advisory_xact_lock(7331)"))
                order.append("second got the lock")
                conn.commit()

        first = asyncio.ensure_future(run_on_loop(holder))
        while not order:
            await asyncio.sleep(0.005)
        await asyncio.wait_for(asyncio.gather(first, run_on_loop(waiter)), 10)

    try:
        asyncio.run(run())
    finally:
        engine.dispose()
    assert order == ["first holds the lock", "first commits", "second got the lock"]


def test_a_postgresql_connection_off_the_loop_waits_as_psycopg_does(pg_url):
    from reelforge.server import pg_loop

    conn = pg_loop.connect(pg_url)
    try:
        assert isinstance(conn, pg_loop.LoopConnection)
        assert conn.execute("SELECT 41 + 1").fetchone() == (42,)
    finally:
        conn.close()


def test_the_servers_postgresql_requests_run_on_the_event_loop_without_a_database_thread(server):
    """Rounds played on PostgreSQL (no seamless wallet) start no database thread: each request's transaction ran
    in a greenlet on the loop. (On SQLite the requests run inline on the loop, as before.)"""
    player = server.session()
    game_id = "forge-of-fortunes"
    rnd = player.start(game_id, server.config.games[game_id].bet_ladder[0], key="start")
    steps = 0
    while rnd["status"] == "open":
        steps += 1
        rnd = player.step(rnd["id"], key=f"step-{steps}")
    context = server.app.state.context
    assert context.in_greenlets is server.url.startswith("postgresql")
    assert context.inline is server.url.startswith("sqlite")
    if context.in_greenlets:
        assert not context.threads._threads


_FRESH_POOL_SCRIPT = """
import asyncio, sys
from sqlalchemy import text
from reelforge.server.db import make_engine
from reelforge.server.loop_greenlets import run_on_loop

engine = make_engine(sys.argv[1])

def transaction(n):
    with engine.begin() as conn:
        return conn.execute(text("SELECT :n FROM pg_sleep(0.02)"), {"n": n}).scalar()

async def main():
    for _ in range(2):  # a new engine's pool, then the pool that replaces it (PostgreSQL restarted)
        got = await asyncio.gather(*(run_on_loop(transaction, n) for n in range(8)))
        assert got == list(range(8)), got
        engine.dispose(close=False)
    print("all transactions done")

asyncio.run(main())
"""


def test_greenlets_opening_a_pools_first_connections_at_once_do_not_deadlock(pg_database):
    """A new pool (at start, or after PostgreSQL restarted) runs its first connection's set-up queries under a
    thread lock; a greenlet that gave the loop back there would leave the next one blocking the loop on that
    lock for good. Eight transactions opening a fresh pool's connections at once, twice, must all finish (in a
    process of their own, so a deadlock fails the test by its timeout instead of hanging the suite)."""
    import subprocess
    import sys

    if pg_database is None:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    try:
        done = subprocess.run([sys.executable, "-c", _FRESH_POOL_SCRIPT, pg_database], capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the transactions did not finish in 60 s: the event loop was blocked")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "all transactions done"


def test_a_greenlets_checkout_waits_for_a_busy_pool_without_blocking_the_loop(pg_database):
    """A pool of one connection, held by a thread: a greenlet's check-out waits for it while the loop goes on
    (a ticker coroutine runs meanwhile), gets it once the thread gives it back, and a check-out that cannot get
    one by the pool's timeout fails with the pool's timeout error, the loop free all along."""
    from sqlalchemy import text
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    from reelforge.server.db import PoolSettings, make_engine

    if pg_database is None:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    engine = make_engine(pg_database, PoolSettings(size=1, overflow=0, timeout=0.5))
    ticks: list[float] = []

    def query() -> int:
        with engine.connect() as conn:
            return conn.execute(text("SELECT 7")).scalar()

    async def ticker(until: asyncio.Event) -> None:
        while not until.is_set():
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    async def run(hold: float) -> tuple[object, int]:
        taken, done = threading.Event(), asyncio.Event()

        def hold_it() -> None:
            with engine.connect():
                taken.set()
                time.sleep(hold)

        holder = asyncio.ensure_future(asyncio.to_thread(hold_it))
        await asyncio.to_thread(taken.wait, 5)
        ticking = asyncio.ensure_future(ticker(done))
        began = len(ticks)
        try:
            outcome: object = await run_on_loop(query)
        except PoolTimeout as exc:
            outcome = exc
        done.set()
        await ticking
        await holder
        return outcome, len(ticks) - began

    try:
        assert query() == 7  # the pool's set-up done, off the loop
        got, ticked = asyncio.run(run(hold=0.2))
        assert got == 7 and ticked >= 5  # the loop ticked while the check-out waited 0.2 s
        failed, ticked = asyncio.run(run(hold=1.0))
        assert isinstance(failed, PoolTimeout) and "timeout 0.50" in str(failed) and ticked >= 10
    finally:
        engine.dispose()


def test_a_large_statement_on_a_socket_numbered_past_1024_is_sent_on_the_loop(pg_database):
    """A statement larger than the socket's buffer makes psycopg wait for the socket to take more bytes. The
    server's descriptors pass 1024 under load (its limit is raised to thousands of connections), where
    ``select`` cannot look at them: the wait asks ``poll``. A 16 MiB parameter, sent with the connection's
    socket numbered past 1024."""
    import resource

    from sqlalchemy import text

    from reelforge.server.db import PoolSettings, make_engine

    if pg_database is None:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200 and (hard == resource.RLIM_INFINITY or hard >= 1200):
        resource.setrlimit(resource.RLIMIT_NOFILE, (1200, hard))
    elif soft < 1200:
        pytest.skip("this process may not open 1,200 descriptors")
    fillers = []
    engine = make_engine(pg_database, PoolSettings(size=1, overflow=0, timeout=10))
    try:
        with engine.connect() as conn:  # the pool's set-up, off the loop
            conn.execute(text("SELECT 1"))
        engine.dispose()  # its next connection opens once the descriptors below are taken
        while not fillers or fillers[-1] < 1030:  # the lowest free descriptor each: all below it are taken
            fillers.append(os.open(os.devnull, os.O_RDONLY))
        value = "x" * (16 * 1024 * 1024)

        def big() -> int:
            with engine.connect() as conn:
                assert conn.connection.dbapi_connection.pgconn.socket > 1024
                return conn.execute(text("SELECT length(:v)"), {"v": value}).scalar()

        assert asyncio.run(run_on_loop(big)) == len(value)
    finally:
        engine.dispose()
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_pool_replaced_from_a_greenlet_keeps_its_timeout():
    """A request's greenlet replaces the pool when PostgreSQL dropped its connection; the new pool must keep the
    configured check-out timeout (SQLAlchemy passes on the pool's ``_timeout``, which reads 0 in a greenlet, where
    a check-out never blocks): with 0, every thread's check-out from a busy pool failed at once from then on."""
    from reelforge.server.db import DeadlinePool

    pool = DeadlinePool(lambda: None, pool_size=1, max_overflow=0, timeout=7.0)
    replaced = asyncio.run(run_on_loop(pool.recreate))
    assert replaced._own_timeout == 7.0 and replaced._timeout == 7.0
    assert asyncio.run(run_on_loop(lambda: replaced._timeout)) == 0.0  # in a greenlet: take one or none


def test_public_round_ids_are_read_without_a_lock_that_every_service_shares(monkeypatch):
    """On Python 3.11 ``functools.cached_property`` computes under one lock for every instance. The public ids'
    key is a database read: a greenlet (on the event loop's thread) reading it while a thread's read waits would
    stop the loop until that read ended. One service's read must not wait for another's."""
    from reelforge.server import rounds as rounds_module
    from reelforge.server.rounds import RoundService

    started, release = threading.Event(), threading.Event()

    def key(engine: str) -> bytes:
        if engine == "slow":
            started.set()
            release.wait(5)
        return b"k" * 32

    monkeypatch.setattr(rounds_module.store, "round_ids_key", key)
    monkeypatch.setattr(rounds_module.store, "legacy_round_ids_max", lambda engine: 0)
    slow, fast = RoundService.__new__(RoundService), RoundService.__new__(RoundService)
    slow._ids = fast._ids = None
    slow.engine, fast.engine = "slow", "fast"
    reader = threading.Thread(target=lambda: slow.ids)
    reader.start()
    try:
        assert started.wait(5)
        began = time.monotonic()
        assert 1 <= fast.ids.public(1)
        assert time.monotonic() - began < 1  # not after the slow read
    finally:
        release.set()
        reader.join(5)
    assert slow.ids is slow.ids  # read once, kept
