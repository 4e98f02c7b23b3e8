"""Player sessions: a random bearer token, stored only as its SHA-256, that expires.

Demo mode: anyone opens a session for a demo player by name (created with the
demo balance on first use). Operator mode: only a request carrying the
operator's API key (``X-Operator-Key``) opens a session, for the operator's
logged-in player.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, Engine, insert, select
from sqlalchemy.exc import IntegrityError

from reelforge.server.config import ServerConfig
from reelforge.server.db import read_transaction, write_transaction
from reelforge.server.errors import ApiError
from reelforge.server.schema import players, sessions
from reelforge.server.wallet import as_utc, post_entry, utcnow

PLAYER_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")


@dataclass(frozen=True)
class Principal:
    """Who a request acts for."""

    player_id: int
    player: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_player_name(name: str) -> str:
    if not PLAYER_NAME.match(name):
        raise ApiError(422, "invalid_player",
                       "player must be 1-64 characters of letters, digits and _ . @ -")
    return name


def _get_or_create_player(conn: Connection, name: str, config: ServerConfig) -> Any:
    row = conn.execute(select(players).where(players.c.name == name).with_for_update()).first()
    if row is not None:
        if config.demo and not row.demo:
            raise ApiError(403, "not_a_demo_player", f"player {name!r} is not a demo player")
        return row
    now = utcnow()
    player_id = conn.execute(insert(players).values(
        name=name, balance=0, currency=config.currency, demo=config.demo, created_at=now,
    )).inserted_primary_key[0]
    if config.demo and config.demo_balance:
        post_entry(conn, player_id, 0, "deposit", config.demo_balance, None, now)
    return conn.execute(select(players).where(players.c.id == player_id)).one()


def open_session(engine: Engine, config: ServerConfig, name: str, operator_key: str | None) -> dict[str, Any]:
    """Open a session for ``name``; return the token (shown once), player, balance and currency."""
    check_player_name(name)
    if config.demo:
        pass
    elif operator_key is None:
        raise ApiError(401, "operator_key_required",
                       "this server runs in operator mode: sessions are opened by the operator's platform "
                       "with its X-Operator-Key header; demo sessions are refused")
    if operator_key is not None and not config.check_api_key(operator_key):
        raise ApiError(403, "bad_operator_key", "the X-Operator-Key header is not the operator's API key")
    token = secrets.token_urlsafe(32)
    now = utcnow()
    for attempt in range(2):
        try:
            with write_transaction(engine) as conn:
                player = _get_or_create_player(conn, name, config)
                conn.execute(insert(sessions).values(
                    token_sha256=token_hash(token), player_id=player.id, created_at=now,
                    expires_at=now + timedelta(minutes=config.session_ttl_minutes)))
                return {"token": token, "player": player.name, "balance": player.balance,
                        "currency": player.currency,
                        "expires_at": (now + timedelta(minutes=config.session_ttl_minutes)).isoformat()}
        except IntegrityError:
            # Another process created the same player between our read and insert; read it now.
            if attempt:
                raise
    raise AssertionError("unreachable")


def authenticate(engine: Engine, authorization: str | None) -> Principal:
    """The player a ``Authorization: Bearer <token>`` header belongs to (401 when missing, unknown or expired)."""
    if not authorization:
        raise ApiError(401, "missing_token", "missing Authorization: Bearer <token> header (open a session first)")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "bad_token", "the Authorization header must be 'Bearer <token>'")
    with read_transaction(engine) as conn:
        row = conn.execute(
            select(sessions.c.expires_at, players.c.id, players.c.name)
            .join(players, players.c.id == sessions.c.player_id)
            .where(sessions.c.token_sha256 == token_hash(token.strip()))
        ).first()
    if row is None:
        raise ApiError(401, "unknown_token", "unknown session token")
    if as_utc(row.expires_at) <= utcnow():
        raise ApiError(401, "session_expired", "the session has expired; open a new one")
    return Principal(player_id=row.id, player=row.name)
