"""PostgreSQL connections whose waits give the event loop back when their code runs in
:func:`~reelforge.server.loop_greenlets.run_on_loop`, and block as usual anywhere else.

The money requests' transactions are synchronous code (:mod:`reelforge.server.store`). On database threads
each round trip to PostgreSQL parked the thread, woke it, and made it wait for the interpreter's lock
behind the event loop and fifteen other threads: about 30 context switches a request
(docs/performance.md, "Seventh pass"). Run in a greenlet on the loop's own thread, the same code hands each
wait for the socket to the loop (:meth:`LoopConnection.wait`), which serves other requests meanwhile.
A new connection is still opened on a thread (:func:`connect`): a host that does not answer would otherwise
hold the loop for the whole connect timeout.
"""

from __future__ import annotations

import asyncio
import select
import threading
from collections.abc import Generator
from typing import Any

import psycopg
from psycopg.waiting import READY_R, READY_W, WAIT_R, WAIT_W

from reelforge.server.dbthreads import settle
from reelforge.server.loop_greenlets import on_loop, suspend


class LoopConnection(psycopg.Connection):
    """A psycopg connection that, inside :func:`~reelforge.server.loop_greenlets.run_on_loop`, waits for its
    socket on the event loop once it is :attr:`set_up`."""

    set_up = False
    """Whether the pool handed the connection out (:func:`mark_set_up`). Before that its waits block: a new
    pool runs its first connection's set-up queries (SQLAlchemy's dialect initialisation) under a thread lock,
    and a greenlet that gave the loop back there would leave the next greenlet blocking the loop's thread on
    that lock for good."""

    def wait(self, gen: Generator[Any, Any, Any], interval: float = 0.1, timeout: float | None = None) -> Any:
        if self.set_up and timeout is None and on_loop():
            return wait_on_loop(gen, self.pgconn.socket)
        return super().wait(gen, interval, timeout)


def mark_set_up(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """The pool's ``checkout`` event: the connection's set-up is done, its waits may go to the loop."""
    dbapi_connection.set_up = True


class _Wakeup:
    """The socket's readiness for one wait: what the loop's reader and writer callbacks saw, and the future
    they settle."""

    __slots__ = ("future", "ready")

    def __init__(self, future: asyncio.Future) -> None:
        self.future = future
        self.ready = 0

    def __call__(self, flag: int) -> None:
        self.ready |= flag
        if not self.future.done():
            self.future.set_result(None)


def wait_on_loop(gen: Generator[Any, Any, Any], fileno: int) -> Any:
    """Run psycopg's generator ``gen`` to its end, each wait for the socket ``fileno`` a future of the running
    loop that the greenlet suspends on (what ``psycopg.waiting.wait_async`` does, without a coroutine, a
    timer and a task-switch check per wait)."""
    try:
        state = next(gen)
        loop = asyncio.get_running_loop()
        while True:
            if state & WAIT_W and _writable(fileno):  # a socket asked for writing nearly always is
                state = gen.send(READY_W)
                continue
            reading, writing = state & WAIT_R, state & WAIT_W
            if not (reading or writing):
                raise psycopg.InternalError(f"bad poll status: {state}")
            wakeup = _Wakeup(loop.create_future())
            try:
                if reading:
                    loop.add_reader(fileno, wakeup, READY_R)
                if writing:
                    loop.add_writer(fileno, wakeup, READY_W)
                suspend(wakeup.future)
            finally:
                if reading:
                    loop.remove_reader(fileno)
                if writing:
                    loop.remove_writer(fileno)
            state = gen.send(wakeup.ready)
    except StopIteration as done:
        return done.value
    except OSError as exc:  # as psycopg's own waits: the connection was closed under it
        raise psycopg.OperationalError("connection socket closed") from exc


def _writable(fileno: int) -> bool:
    """Whether the socket takes more bytes now (``poll``, not ``select``: a busy server's descriptors pass
    ``select``'s limit of 1024)."""
    poller = select.poll()
    poller.register(fileno, select.POLLOUT)
    return bool(poller.poll(0))


def connect(*args: Any, **kwargs: Any) -> LoopConnection:
    """A new :class:`LoopConnection` (``psycopg.connect``'s arguments); inside ``run_on_loop`` opened on a
    thread of its own, the loop serving other requests meanwhile. A thread each, not a pool's: a pool of a few
    threads would queue the connects of a burst behind ones to a host that does not answer, each of them past
    the deadline its ``connect_timeout`` was cut to."""
    if not on_loop():
        return LoopConnection.connect(*args, **kwargs)
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def opens() -> None:
        try:
            outcome: tuple[Any, BaseException | None] = (LoopConnection.connect(*args, **kwargs), None)
        except BaseException as exc:  # noqa: BLE001 - raised in the waiting greenlet
            outcome = (None, exc)
        try:
            loop.call_soon_threadsafe(settle, future, *outcome, _close)
        except RuntimeError:  # the loop closed meanwhile: nobody will use the connection
            if outcome[0] is not None:
                outcome[0].close()

    threading.Thread(target=opens, name="reelforge-pg-connect", daemon=True).start()
    return suspend(future)


def _close(connection: LoopConnection) -> None:
    """A connection opened for a request that went away: it would never reach the pool."""
    connection.close()
