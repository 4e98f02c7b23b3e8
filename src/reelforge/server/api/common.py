"""What the API's resource modules share: parameter types, request models, the server's :class:`Context`."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Header, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr
from sqlalchemy import Engine
from sqlalchemy.exc import TimeoutError as DatabaseTimeout

from reelforge.server.auth import PLAYER_NAME_PATTERN, Principal, authenticate
from reelforge.server.config import ServerConfig
from reelforge.server.config_values import MAX_BET
from reelforge.server.db import is_sqlite
from reelforge.server.dbthreads import DatabaseThreads
from reelforge.server.deadlines import request_deadline
from reelforge.server.errors import ApiError, database_errors
from reelforge.server.fairshare import StartPacer
from reelforge.server.logs import CURRENT, note_player
from reelforge.server.loop_greenlets import pause, run_on_loop
from reelforge.server.metrics import Metrics
from reelforge.server.monitor import RtpMonitor
from reelforge.server.rounds import RoundService
from reelforge.server.sqlite_writers import CommitGroup, WriterBusy, joined_groups, run_inline

MAX_BODY = 16 * 1024
"""The one limit on a request body (bytes), for every route (see :class:`reelforge.server.hardening.Hardening`)."""
MAX_ID = 2**62
GAME_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
"""What a game id is (lower-case letters, digits and hyphens); anything else is no game."""
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]([\x20-\x7e]{0,198}[\x21-\x7e])?$"
"""An Idempotency-Key: 1-200 printable ASCII characters, not starting or ending with a space (HTTP strips
those), as the OpenAPI description states."""
_IDEM_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)

GameId = Annotated[str, Path(min_length=1, max_length=64, pattern=GAME_ID_PATTERN,
                             description="game id (GET /api/v1/games lists them)")]
GameFilter = Annotated[str | None, Query(min_length=1, max_length=64, pattern=GAME_ID_PATTERN,
                                         description="only rounds of this game (a game id)")]
PlayerName = Annotated[str, Path(min_length=1, max_length=64, pattern=PLAYER_NAME_PATTERN,
                                 description="player name: letters, digits and _ . @ -")]
RoundId = Annotated[int, Path(ge=1, le=MAX_ID, description="round id")]
Limit = Annotated[int, Query(ge=1, le=100, description="page size (1-100)")]
Before = Annotated[int | None, Query(ge=1, le=MAX_ID, description="paging: the previous page's next_before")]
IdemKey = Annotated[str | None, Header(alias="Idempotency-Key",
                                       json_schema_extra={"pattern": IDEMPOTENCY_KEY_PATTERN, "maxLength": 200},
                                       description="unique per money-changing request (1-200 printable ASCII "
                                                   "characters, no space at either end)")]
Auth = Annotated[str | None, Header(alias="Authorization", description="Bearer <session token>")]
OperatorKey = Annotated[str | None, Header(alias="X-Operator-Key", description="the operator's API key")]


def _whole(value: Any) -> Any:
    """A JSON number that is an integer written with a fraction or an exponent (``10.0``, ``1e1``) as
    that integer: the OpenAPI description (JSON Schema 2020-12) counts it as one. Every other value is
    left to the strict integer check, which refuses it (``10.5``, ``1e400``, ``"10"``, ``true``)."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SessionRequest(_Strict):
    player: StrictStr = Field(min_length=1, max_length=64, pattern=PLAYER_NAME_PATTERN,
                              description="player name: letters, digits and _ . @ -")


class StartRoundRequest(_Strict):
    bet: WholeNumber = Field(ge=1, le=MAX_BET, description="total bet in minor units, a value of the game's bet ladder")
    auto_adjust_bet: StrictBool = Field(False, description="lower the bet to the highest the balance covers")
    buy_feature: StrictBool | Annotated[str, Field(max_length=32)] | None = Field(
        None, description="true (or the mode name) to buy the game's feature")


class StepRequest(_Strict):
    action: Annotated[str, Field(min_length=1, max_length=32)] | None = Field(
        None, description="optional step action (the game's step_actions)")


class AmountRequest(_Strict):
    amount: WholeNumber = Field(ge=1, le=MAX_BET, description="minor units")


def check_idempotency_key(key: str | None) -> str:
    """The request's Idempotency-Key, checked (400 when missing or malformed)."""
    if key is None:
        raise ApiError(400, "missing_idempotency_key",
                       "money-changing requests need an Idempotency-Key header (a unique string per request)")
    if not _IDEM_KEY.fullmatch(key):
        raise ApiError(400, "bad_idempotency_key",
                       "Idempotency-Key must be 1-200 printable ASCII characters, without a space at either end")
    return key


def json_text(answer: tuple[int, str]) -> Response:
    """The response of a ``(status, JSON text)`` answer (encoded once, by the service)."""
    status, text = answer
    return Response(text, status_code=status, media_type="application/json")


@dataclass
class Context:
    """One server's parts, as the routes use them."""

    engine: Engine
    config: ServerConfig
    service: RoundService
    metrics: Metrics
    monitor: RtpMonitor
    wallet_health: Callable[[], dict[str, Any]] | None = None
    """The seamless wallet's health for the operator page (call latency and failures by kind, outbox depth):
    set by the seamless wallet (issue "Operators plug in"); None in transfer mode."""

    def __post_init__(self) -> None:
        self.pacer = StartPacer(self.config.round_start_quantum_ms / 1000)
        # A seamless wallet's calls are HTTP round trips: never on the event loop.
        self.inline = is_sqlite(self.engine) and not self.config.seamless
        # PostgreSQL without a seamless wallet: each request's transaction in a greenlet on the event loop,
        # which waits on its sockets meanwhile (see run_on_loop, pg_loop), at most db_pool_size at once.
        # With a seamless wallet (blocking HTTP calls) on threads of their own, one per pooled connection,
        # handed their work without an executor's concurrent futures (see DatabaseThreads; Starlette's
        # run_in_threadpool cost 0.1-0.2 ms more per request still). SQLite: one thread, for the requests
        # that would wait for the write lock (see call).
        # (On Windows the event loop cannot watch a socket for reading, add_reader: threads there too.)
        self.in_greenlets = not is_sqlite(self.engine) and not self.config.seamless and sys.platform != "win32"
        self.loop_slots = asyncio.Semaphore(self.config.db_pool_size)
        self.threads = DatabaseThreads(1 if self.inline else self.config.db_pool_size + self.config.db_max_overflow,
                                       "reelforge-db")
        self.sqlite_thread_work: asyncio.Future | None = None
        """SQLite: the last request handed to the SQLite thread (see :meth:`call`)."""

    def close(self) -> None:
        """Stop the database threads (the app is shutting down)."""
        self.threads.shutdown(wait=True)
        self.service.callbacks.close()
        if self.service.wallet is not None:
            self.service.wallet.close()

    def position(self, who: Principal, token: Any) -> dict[str, Any]:
        """The player's balance and session position (seamless: the operator's wallet's balance)."""
        from reelforge.server.wallet import session_position

        if self.service.wallet is None:
            return session_position(self.engine, who, token)
        from reelforge.server.seamless_reads import seamless_position

        return seamless_position(self.engine, self.service.wallet, who, token)

    def principal(self, authorization: str | None) -> Principal:
        """Who a request's ``Authorization`` header is (401/403 otherwise)."""
        who = authenticate(self.engine, authorization, operator=not self.config.demo)
        note_player(who.player)
        return who

    async def call(self, fn: Any, *args: Any) -> Any:
        """Run a database call: inline on SQLite unless it would wait; on PostgreSQL in a greenlet on the event
        loop, or with a seamless wallet on a database thread.

        SQLite serialises writers anyway and a request's transaction takes
        about a millisecond, so running it on the event loop saves the thread
        hand-off (and the GIL ping-pong between loop and worker threads);
        but a request that finds the write lock held (by another process, a
        checkpoint, or a writer already waiting) must not wait on the event
        loop, where it would stall every other request: it is run on the
        SQLite thread instead (nothing was done before the lock). On
        PostgreSQL requests of different players proceed in parallel: each
        runs in a greenlet on the event loop, which serves the others while it
        waits for the database (:func:`run_on_loop`; a seamless wallet's calls
        are blocking HTTP, so there they go to threads), and every wait of the
        request (for a slot or a thread, a pooled connection, a new connection,
        a retry) ends ``db_pool_timeout_seconds`` after it got here. Either way
        more processes (``--workers``) add capacity.
        """
        now = time.monotonic()
        deadline = now + self.config.db_pool_timeout_seconds
        if self.inline:
            try:
                return await self.inline_call(fn, *args)
            except WriterBusy:
                pass
            # Held by a request already on the SQLite thread: wait for the thread's work, then run inline.
            # Handing this one to the thread too would keep the lock busy with the thread's queue, so every
            # later request would find it held as well and the whole load would stay on the thread, paying
            # a hand-off and the GIL's ping-pong each (1.2 ms of server CPU per round instead of 0.6 ms).
            work = self.sqlite_thread_work
            if work is not None and not work.done():
                await asyncio.wait((work,), timeout=max(0.0, deadline - time.monotonic()))
                try:
                    return await self.inline_call(fn, *args)
                except WriterBusy:
                    pass
            work = self.sqlite_thread_work = self.threads.submit(self.bounded, now, CURRENT.get(), deadline, fn, *args)
            return await work
        if self.in_greenlets:
            await self._slot(deadline)
            try:
                return await run_on_loop(self.retry_transient, now, CURRENT.get(), deadline, fn, *args)
            finally:
                self.loop_slots.release()
        return await self.threads.submit(self.retry_transient, now, CURRENT.get(), deadline, fn, *args)

    async def _slot(self, deadline: float) -> None:
        """A slot for a request on the event loop (PostgreSQL): at most the pool's kept size of them run at
        once, the others waiting here in turn, not polling the pool for a connection (a greenlet's check-out
        never blocks: see DeadlinePool); 503 when none frees up by the request's deadline."""
        if not self.loop_slots.locked():
            await self.loop_slots.acquire()  # free: taken at once
            return
        try:
            await asyncio.wait_for(self.loop_slots.acquire(), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise DatabaseTimeout(f"no database connection within {self.config.db_pool_timeout_seconds:g} s") \
                from None

    async def inline_call(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` on the event loop (:func:`run_inline`: :class:`WriterBusy` when SQLite's write lock is
        held elsewhere, before anything was done), its outcome given once the commit groups its transactions
        joined have committed: what it read or wrote is durable by then. A failed COMMIT is the request's
        error, whatever its own outcome was."""
        try:
            result = run_inline(fn, *args)
        except WriterBusy:
            if not joined_groups():
                raise
            # Only a group's first writer can find the lock held; one that already wrote in a group must
            # not be run again on the thread (its writes would be made twice).
            await self._committed(joined_groups())
            raise RuntimeError("the SQLite write lock was taken between two transactions of one request") from None
        except BaseException:
            await self._committed(joined_groups())
            raise
        await self._committed(joined_groups())
        return result

    async def _committed(self, groups: list[CommitGroup]) -> None:
        """Wait for the COMMIT of each commit group a request took part in; the error of one that failed."""
        for group in groups:
            try:
                await group.done
            except Exception:
                # The process's cache of open rounds' shown steps may hold steps of rounds that were not committed.
                self.service.shown.clear()
                raise

    def _on_thread(self, queued: float, request: Any) -> None:
        """A database thread took the request: the wait in the metrics, the request's log details along."""
        self.metrics.db_wait.observe(time.monotonic() - queued)
        CURRENT.set(request)  # the thread's own context: the round events name the request

    def bounded(self, queued: float, request: Any, deadline: float, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` with every database wait inside it ending by ``deadline`` (SQLite: after the write
        lock was found held)."""
        self._on_thread(queued, request)
        with request_deadline(deadline):
            return fn(*args)

    def retry_transient(self, queued: float, request: Any, deadline: float, fn: Any, *args: Any) -> Any:
        """``fn(*args)``, run again while the database fails it transiently (PostgreSQL restarting, a
        connection cut, out of connections), until ``deadline``; every wait inside ends by it too. Safe for
        money: the idempotency record commits with the money, so a request whose COMMIT did reach the
        database finds its stored answer when run again."""
        self._on_thread(queued, request)
        delay = 0.05
        with request_deadline(deadline):
            while True:
                if time.monotonic() >= deadline:
                    raise DatabaseTimeout(f"no database connection within {self.config.db_pool_timeout_seconds:g} s")
                try:
                    return fn(*args)
                except database_errors():
                    self.metrics.db_errors.labels("transient_retried").inc()
                    if time.monotonic() + delay > deadline:
                        raise
                pause(delay)  # on the event loop (PostgreSQL's greenlets) the loop runs meanwhile
                delay = min(delay * 2, 0.1)
