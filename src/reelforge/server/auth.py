"""Player sessions: a random bearer token, stored only as its SHA-256, that expires.

Demo mode: anyone opens a session for a demo player by name (created with the
demo balance on first use). Operator mode: only a request carrying the
operator's API key (``X-Operator-Key``) opens a session, for the operator's
logged-in player.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from reelforge.server.clock import iso, utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.config_play import PlayRules
from reelforge.server.errors import ApiError
from reelforge.server.ledger import post_entry
from reelforge.server.logs import note_language
from reelforge.server.play_session import begin_play
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
    brand: str = "default"
    """The player's operator brand."""
    play_started_at: datetime | None = None
    """When the player's play session started (kept across sessions; None: not recorded)."""
    play_ended_at: datetime | None = None
    """When the operator or the session time limit ended the play session (None: not ended)."""
    limits: dict[str, Any] | None = None
    """The stricter limits the operator passed at launch (:data:`~reelforge.server.config_play.LAUNCH_LIMITS`)."""
    game: str | None = None
    """The one game the session was launched for (None: any game offered)."""

    def rules(self, config: ServerConfig) -> PlayRules:
        """The responsible-play rules of this session: its brand's, its launch profile and limits over them
        (403 when this server does not serve the player's brand)."""
        try:
            return config.rules(self.profile, self.brand, self.limits)
        except KeyError:
            raise brand_not_served(self.brand) from None


def brand_not_served(brand: str) -> ApiError:
    """The refusal of a player of a brand this server is not configured for."""
    return ApiError(403, "brand_not_served", f"this server does not serve the brand {brand!r} of this player; "
                                             "use a server configured for it")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invalid_player() -> ApiError:
    """The refusal of a name that is not a player name."""
    return ApiError(422, "invalid_player", "player must be 1-64 characters of letters, digits and _ . @ -")


def check_player_name(name: str) -> str:
    if not PLAYER_NAME.fullmatch(name):  # not .match: "$" also matches before a final newline
        raise invalid_player()
    return name


def _get_or_create_player(tx: Tx, name: str, config: ServerConfig, currency: str | None = None,
                          brand: str | None = None) -> tuple[int, str, int, str]:
    brand_config = config.brand(brand)
    row = tx.player_by_name(name)
    if row is not None:
        if config.demo and not row.demo:
            raise ApiError(403, "not_a_demo_player", f"player {name!r} is not a demo player")
        if not config.demo and row.demo:
            raise DEMO_REFUSED
        if row.brand != brand_config.id:
            raise player_of_another_brand(name)
        return row.id, row.name, row.balance, row.currency
    now = utcnow()
    currency = currency or brand_config.currency
    player_id = tx.insert_player(name, currency, config.demo, now, brand_config.id)
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
    brand = key_brand(config, operator_key) if operator_key is not None else None
    if config.seamless:
        raise ApiError(403, "launch_required",
                       "this server plays on the operator's seamless wallet: sessions open only by launch "
                       "(POST /api/v1/operator/launches, then POST /api/v1/launch)")
    token = secrets.token_urlsafe(32)
    now = utcnow()
    expires = now + timedelta(minutes=config.session_ttl_minutes)
    # The driver's own IntegrityError (the hot path runs on driver connections, unwrapped).
    integrity_errors = (IntegrityError, engine.dialect.loaded_dbapi.IntegrityError)
    for attempt in range(2):
        try:
            with transaction(engine) as tx:
                player_id, player, balance, currency = _get_or_create_player(tx, name, config, brand=brand)
                tx.insert_session(token_hash(token), player_id, now, expires)
                begin_play(tx, player_id, config.rules(None, brand), now)
            return {"token": token, "player": player, "balance": balance, "currency": currency,
                    "expires_at": iso(expires)}
        except integrity_errors:
            # Another process created the same player between our read and insert; read it now.
            if attempt:
                raise
    raise AssertionError("unreachable")


def player_of_another_brand(name: str) -> ApiError:
    """The refusal of a player name another brand's player holds (names are unique across the database)."""
    return ApiError(409, "player_of_another_brand", f"player {name!r} belongs to another brand on this database; "
                                                    "give each brand's players names of their own (e.g. a prefix)")


def key_brand(config: ServerConfig, operator_key: str) -> str:
    """The brand whose operator API key ``operator_key`` is (403 when none)."""
    for brand in config.all_brands():
        if brand.check_api_key(operator_key):
            return brand.id
    raise ApiError(403, "bad_operator_key", "the X-Operator-Key header is not the operator's API key")


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
    note_language(row.language)
    if row.expires_at <= utcnow():
        raise ApiError(401, "session_expired", "the session has expired; open a new one")
    if operator and row.demo:
        raise DEMO_REFUSED
    # the player's play session (kept across sessions) where recorded; a session older than it, its own clocks
    checked = row.play_checked_at if row.play_started_at is not None else row.reality_checked_at
    return Principal(player_id=row.player_id, player=row.name, balance=row.balance if lock else None,
                     session_started_at=row.started_at, reality_checked_at=checked,
                     currency=row.currency, profile=row.profile, min_bet=row.min_bet, max_bet=row.max_bet,
                     wallet_balance=row.wallet_balance, language=row.language, brand=row.brand,
                     play_started_at=row.play_started_at, play_ended_at=row.play_ended_at,
                     limits=launch_limits(row.limits, row.max_bet), game=row.game)


def launch_limits(stored: str | None, max_bet: int | None) -> dict[str, Any] | None:
    """A launched session's limits: the stored JSON (max_stake, clocks, loss limit) and its ``max_bet`` column."""
    limits = {**(json.loads(stored) if stored else {}), **({"max_bet": max_bet} if max_bet is not None else {})}
    return limits or None


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
