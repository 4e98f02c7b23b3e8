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
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from reelforge.server.clock import iso, utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.errors import ApiError
from reelforge.server.ledger import post_entry
from reelforge.server.store import Tx, transaction

PLAYER_NAME_PATTERN = r"^[A-Za-z0-9_.@-]{1,64}$"
"""What a player name is (also stated in the OpenAPI description); matched against the whole string."""
PLAYER_NAME = re.compile(PLAYER_NAME_PATTERN)


@dataclass(frozen=True)
class Principal:
    """Who a request acts for."""

    player_id: int
    player: str
    balance: int | None = None
    """Only when looked up with the row lock (the balance is then current)."""
    session_started_at: datetime | None = None
    """When the request's session opened (None for the operator's requests)."""
    reality_checked_at: datetime | None = None
    """The session's last acknowledged reality check (None: none yet)."""
    currency: str | None = None
    """The player's currency (None: the server's)."""
    profile: str | None = None
    """The session's jurisdiction profile (None: the server's ``[responsible_play]``)."""
    min_bet: int | None = None
    max_bet: int | None = None
    """The session's bet limits, as the operator launched it (None: none beyond the configuration's)."""
    wallet_balance: int | None = None
    """Seamless wallet: the balance the operator's wallet last reported."""
    language: str | None = None
    """A launched session's language (BCP 47)."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invalid_player() -> ApiError:
    """The refusal of a name that is not a player name."""
    return ApiError(422, "invalid_player", "player must be 1-64 characters of letters, digits and _ . @ -")


def check_player_name(name: str) -> str:
    if not PLAYER_NAME.fullmatch(name):  # not .match: "$" also matches before a final newline
        raise invalid_player()
    return name


def _get_or_create_player(tx: Tx, name: str, config: ServerConfig,
                          currency: str | None = None) -> tuple[int, str, int, str]:
    row = tx.player_by_name(name)
    if row is not None:
        if config.demo and not row.demo:
            raise ApiError(403, "not_a_demo_player", f"player {name!r} is not a demo player")
        if not config.demo and row.demo:
            raise DEMO_REFUSED
        return row.id, row.name, row.balance, row.currency
    now = utcnow()
    currency = currency or config.currency
    player_id = tx.insert_player(name, currency, config.demo, now)
    balance = 0
    if config.demo and config.demo_balance:
        balance = post_entry(tx, player_id, 0, "deposit", config.demo_balance, None, now)
    return player_id, name, balance, currency


def ensure_demo_player(engine: Engine, config: ServerConfig, name: str = "demo") -> int:
    """Create the demo player (with the demo balance) unless it exists; return its balance."""
    check_player_name(name)
    with transaction(engine) as tx:
        return _get_or_create_player(tx, name, config)[2]


def open_session(engine: Engine, config: ServerConfig, name: str, operator_key: str | None) -> dict[str, Any]:
    """Open a session for ``name``; return the token (shown once), player, balance and currency."""
    check_player_name(name)
    if not config.demo and operator_key is None:
        raise ApiError(401, "operator_key_required",
                       "this server runs in operator mode: sessions are opened by the operator's platform "
                       "with its X-Operator-Key header; demo sessions are refused")
    if operator_key is not None and not config.check_api_key(operator_key):
        raise ApiError(403, "bad_operator_key", "the X-Operator-Key header is not the operator's API key")
    token = secrets.token_urlsafe(32)
    now = utcnow()
    expires = now + timedelta(minutes=config.session_ttl_minutes)
    # The driver's own IntegrityError (the hot path runs on driver connections, unwrapped).
    integrity_errors = (IntegrityError, engine.dialect.loaded_dbapi.IntegrityError)
    for attempt in range(2):
        try:
            with transaction(engine) as tx:
                player_id, player, balance, currency = _get_or_create_player(tx, name, config)
                tx.insert_session(token_hash(token), player_id, now, expires)
            return {"token": token, "player": player, "balance": balance, "currency": currency,
                    "expires_at": iso(expires)}
        except integrity_errors:
            # Another process created the same player between our read and insert; read it now.
            if attempt:
                raise
    raise AssertionError("unreachable")


class DemoPlayerRefused(ApiError):
    """A demo player (play money) reached an operator-mode server."""

    def __init__(self) -> None:
        super().__init__(403, "demo_player_refused",
                         "this is a demo player with play money; a server in operator mode refuses demo "
                         "players and their sessions")


DEMO_REFUSED = DemoPlayerRefused()


@dataclass(frozen=True)
class SessionToken:
    """A bearer token, hashed, not yet checked (checked inside the request's own transaction)."""

    sha256: str


def bearer(authorization: str | None) -> SessionToken:
    """The session token of an ``Authorization: Bearer <token>`` header (401 when missing or malformed)."""
    if not authorization:
        raise ApiError(401, "missing_token", "missing Authorization: Bearer <token> header (open a session first)")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "bad_token", "the Authorization header must be 'Bearer <token>'")
    return SessionToken(token_hash(token.strip()))


def session_principal(tx: Tx, token: SessionToken, lock: bool = False, operator: bool = False) -> Principal:
    """The player a session token belongs to, looked up in ``tx`` (401 when unknown or expired);
    ``lock``: also lock the player's row and read the balance, in the same statement;
    ``operator``: the server runs in operator mode, where a demo player's session is refused (403)."""
    row = tx.session(token.sha256, lock=lock)
    if row is None:
        raise ApiError(401, "unknown_token", "unknown session token")
    if row.expires_at <= utcnow():
        raise ApiError(401, "session_expired", "the session has expired; open a new one")
    if operator and row.demo:
        raise DEMO_REFUSED
    return Principal(player_id=row.player_id, player=row.name, balance=row.balance if lock else None,
                     session_started_at=row.started_at, reality_checked_at=row.reality_checked_at,
                     currency=row.currency, profile=row.profile, min_bet=row.min_bet, max_bet=row.max_bet,
                     wallet_balance=row.wallet_balance, language=row.language)


def authenticate(engine: Engine, authorization: str | None, operator: bool = False) -> Principal:
    """The player a ``Authorization: Bearer <token>`` header belongs to (401 when missing, unknown or
    expired; 403 for a demo player's session when ``operator``)."""
    token = bearer(authorization)
    with transaction(engine, write=False) as tx:
        return session_principal(tx, token, operator=operator)


def demo_players(engine: Engine) -> int:
    """How many demo players (play money) the database holds."""
    with transaction(engine, write=False) as tx:
        return tx.demo_players()
