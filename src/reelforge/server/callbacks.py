"""The operator's session-ended callbacks (docs/OPERATORS.md, "Session-ended callback").

When a launched session ends (the operator ended it, it expired, or it hit
the play session's time limit or loss limit) and its brand has a
``callback_url``, a signed ``POST`` tells the operator's backend, with the
reason. The callback is written to ``operator_callbacks`` in the same
transaction that ends the session (its ``sessions.ended_reason`` set once,
so a session is reported once), then delivered by the outbox thread of every
server process until the operator answers 2xx, with backoff: a process
killed before delivering it leaves it to the next one. A callback may arrive
more than once (a process killed after the operator's answer, before it was
recorded): its ``callback_id`` is the operator's idempotency key.
"""

from __future__ import annotations

import json
import logging
import random
import uuid
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy import Connection, Engine, insert, select, update

from reelforge.server.clock import iso, utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.db import read_transaction, write_transaction
from reelforge.server.schema import operator_callbacks, players, sessions
from reelforge.server.seamless import MAX_BACKOFF_SECONDS, PROTOCOL_VERSION
from reelforge.server.signing import signed_headers
from reelforge.server.store import parse_ts

log = logging.getLogger("reelforge.callbacks")

REASONS = ("ended_by_operator", "expired", "session_limit", "loss_limit")
"""Why a session ended, as the callback's ``reason`` says."""
LIMIT_REASONS = {"session_limit_reached": "session_limit", "loss_limit_reached": "loss_limit"}
"""The refusals of a round start that end a session by a limit, and the reason each reports."""
SWEEP_SECONDS = 10.0
"""How often each server process looks for launched sessions that expired unreported."""


def record_session_end(conn: Connection, config: ServerConfig, token_sha256: str, reason: str,
                       now: datetime) -> bool:
    """In ``conn``'s transaction: mark the launched session ended for ``reason`` and write its callback, when
    its brand has a callback URL and it was not reported yet; whether it was written."""
    row = conn.execute(select(sessions.c.created_at, sessions.c.operator_session, sessions.c.game,
                              sessions.c.launch_options, sessions.c.ended_reason, players.c.name, players.c.brand)
                       .join(players, players.c.id == sessions.c.player_id)
                       .where(sessions.c.token_sha256 == token_sha256)).first()
    if row is None or row.launch_options is None or row.ended_reason is not None or not _callback_url(config,
                                                                                                      row.brand):
        return False
    marked = conn.execute(update(sessions).where(sessions.c.token_sha256 == token_sha256,
                                                 sessions.c.ended_reason.is_(None)).values(ended_reason=reason))
    if marked.rowcount != 1:  # reported meanwhile by another process
        return False
    callback_id = uuid.uuid4().hex
    body = {"protocol_version": PROTOCOL_VERSION, "callback_id": callback_id, "event": "session_ended",
            "reason": reason, "player": row.name, "brand": row.brand, "session": row.operator_session,
            "game": row.game, "game_session_id": token_sha256[:32],
            "started_at": iso(parse_ts(row.created_at)), "ended_at": iso(now)}
    conn.execute(insert(operator_callbacks).values(
        id=callback_id, brand=row.brand, kind="session_ended", body=json.dumps(body), status="pending", attempts=0,
        next_attempt_at=now, last_error=None, created_at=now, updated_at=now))
    return True


def _callback_url(config: ServerConfig, brand: str) -> str | None:
    try:
        return config.brand(brand).operator.callback_url
    except KeyError:  # a brand not served here: a server serving it reports its sessions
        return None


class OperatorCallbacks:
    """The callbacks of one server process: written when its sessions end, delivered from the outbox."""

    def __init__(self, engine: Engine, config: ServerConfig, timeout: float | None = None) -> None:
        self.engine = engine
        self.config = config
        self.brands = [b.id for b in config.all_brands() if b.operator.callback_url]
        # only a server with callback brands sends any: a client costs about 20 ms of CPU (its TLS context)
        self.http = httpx.Client(timeout=timeout or max(b.operator.wallet_timeout_seconds
                                                        for b in config.all_brands())) if self.brands else None

    @property
    def enabled(self) -> bool:
        """Whether any brand of this server takes callbacks."""
        return bool(self.brands)

    def close(self) -> None:
        if self.http is not None:
            self.http.close()

    def session_ended(self, token_sha256: str, reason: str) -> bool:
        """Record that a session ended for ``reason`` (its callback written once; see
        :func:`record_session_end`)."""
        if not self.enabled:
            return False
        with write_transaction(self.engine) as conn:
            return record_session_end(conn, self.config, token_sha256, reason, utcnow())

    def sweep_expired(self, batch: int = 500) -> int:
        """Record the launched sessions of this server's callback brands that expired unreported; how many."""
        if not self.enabled:
            return 0
        now = utcnow()
        with read_transaction(self.engine) as conn:
            tokens = conn.execute(select(sessions.c.token_sha256).join(players, players.c.id == sessions.c.player_id)
                                  .where(sessions.c.expires_at <= now, sessions.c.ended_reason.is_(None),
                                         sessions.c.launch_options.is_not(None), players.c.brand.in_(self.brands))
                                  .limit(batch)).scalars().all()
        done = 0
        for token in tokens:
            with write_transaction(self.engine) as conn:
                expires = conn.execute(select(sessions.c.expires_at)
                                       .where(sessions.c.token_sha256 == token)).scalar()
                # ended by the operator meanwhile: that end is recorded with its own reason
                if expires is not None and parse_ts(expires) <= now:
                    done += record_session_end(conn, self.config, token, "expired", parse_ts(expires))
        return done

    def deliver_due(self, batch: int = 100) -> int:
        """Deliver the callbacks that are due; how many the operator acknowledged."""
        if not self.enabled:
            return 0
        with read_transaction(self.engine) as conn:
            rows = conn.execute(select(operator_callbacks).where(
                operator_callbacks.c.status == "pending", operator_callbacks.c.next_attempt_at <= utcnow(),
                operator_callbacks.c.brand.in_(self.brands))
                .order_by(operator_callbacks.c.next_attempt_at).limit(batch)).all()
        return sum(self.deliver(row) for row in rows)

    def deliver(self, row: Any) -> bool:
        """Send one callback (a row of ``operator_callbacks``); whether the operator acknowledged it (2xx)."""
        operator = self.config.brand(row.brand).operator
        assert operator.callback_url and operator.secret
        body = {**json.loads(row.body), "timestamp": int(utcnow().timestamp())}
        data = json.dumps(body, separators=(",", ":")).encode()
        parts = urlsplit(operator.callback_url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"content-type": "application/json",
                   **signed_headers(operator.secret, "POST", path, data, nonce=uuid.uuid4().hex)}
        try:
            answer = self.http.post(operator.callback_url, content=data, headers=headers)
            error = None if 200 <= answer.status_code < 300 else f"HTTP {answer.status_code}"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
        now = utcnow()
        with write_transaction(self.engine) as conn:
            if error is None:
                conn.execute(update(operator_callbacks).where(operator_callbacks.c.id == row.id)
                             .values(status="done", attempts=row.attempts + 1, updated_at=now))
                return True
            delay = min(MAX_BACKOFF_SECONDS, 0.25 * 2 ** min(row.attempts, 10)) * random.uniform(0.75, 1.25)
            conn.execute(update(operator_callbacks).where(operator_callbacks.c.id == row.id,
                                                          operator_callbacks.c.status == "pending")
                         .values(attempts=row.attempts + 1, next_attempt_at=now + timedelta(seconds=delay),
                                 last_error=error[:500], updated_at=now))
        log.warning("session-ended callback %s not acknowledged (attempt %d): %s; again in %.1f s", row.id,
                    row.attempts + 1, error, delay)
        return False
