"""Launch by URL and the operator's signed calls (docs/OPERATORS.md, "Launch by URL").

The operator's backend asks for a launch (player, currency, language,
jurisdiction profile, bet limits) with a signed call; it gets a launch URL
holding a one-time token that lives ``launch_token_seconds``. The player's
browser opens that URL and exchanges the token for a session
(``POST /api/v1/launch``): the token is spent by the exchange, and the
operator's secret never leaves the operator's backend. The operator can end
a player's sessions at any time.

A signed operator call (:mod:`reelforge.server.signing`) whose signature (or
``X-Nonce``, when it has one) was seen before is a replay: refused (401
``replayed``), whatever it asks. Reads (``GET``) change nothing and are not
refused when repeated.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from reelforge.server.auth import _get_or_create_player, check_player_name, token_hash
from reelforge.server.clock import iso, utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.db import write_transaction
from reelforge.server.errors import ApiError
from reelforge.server.schema import launch_tokens, operator_nonces, players, sessions
from reelforge.server.signing import check_signature, unauthorized
from reelforge.server.store import parse_ts, transaction

LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$")
"""A BCP 47 language tag as the client's Intl.NumberFormat takes it (e.g. ``en-GB``, ``ja``)."""


def verify_operator_call(engine: Engine, config: ServerConfig, headers: Any, method: str, path: str,
                         body: bytes) -> None:
    """Refuse (401, nothing changed) a call that is not signed by the operator, expired or replayed;
    remember its signature (or nonce) so the same call is refused the second time. A read (GET) is
    checked but not remembered: repeating it changes nothing."""
    op = config.operator
    sig = check_signature(op.secret, headers.get("x-timestamp"), headers.get("x-signature"), method, path, body,
                          op.signature_window_seconds, nonce=headers.get("x-nonce"))
    if method.upper() == "GET":
        return
    try:
        with write_transaction(engine) as conn:
            conn.execute(insert(operator_nonces).values(signature=sig, created_at=utcnow()))
    except IntegrityError as exc:
        raise unauthorized("replayed", "this exact signed call was already received; sign each call anew") from exc


def purge_nonces(engine: Engine, config: ServerConfig, now: datetime | None = None) -> int:
    """Forget signatures older than twice the window (their timestamps are refused as expired anyway)."""
    cutoff = (now or utcnow()) - timedelta(seconds=2 * config.operator.signature_window_seconds)
    with write_transaction(engine) as conn:
        return conn.execute(delete(operator_nonces).where(operator_nonces.c.created_at < cutoff)).rowcount


def create_launch(engine: Engine, config: ServerConfig, request: dict[str, Any], base_url: str) -> dict[str, Any]:
    """A launch URL with a one-time token for ``request`` (player, currency, language, profile, min_bet,
    max_bet, game)."""
    player = check_player_name(request["player"])
    currency = request["currency"]
    if currency not in config.session_currencies():
        raise ApiError(422, "currency_not_offered",
                       f"no game is offered in {currency}; currencies: {', '.join(config.session_currencies())}")
    language = request.get("language") or "en"
    if not LANGUAGE.fullmatch(language):
        raise ApiError(422, "invalid_language", f"language must be a BCP 47 tag such as en-GB, got {language!r}")
    profile = request.get("profile") or config.play.profile
    if profile not in config.profiles:
        raise ApiError(422, "unknown_profile", f"unknown jurisdiction profile {profile!r}; profiles: "
                                               f"{', '.join(config.profiles)}")
    min_bet, max_bet = request.get("min_bet"), request.get("max_bet")
    if min_bet is not None and max_bet is not None and min_bet > max_bet:
        raise ApiError(422, "invalid_bet_limits", f"min_bet {min_bet} is above max_bet {max_bet}")
    game = request.get("game")
    if game is not None and game not in config.games:
        raise ApiError(404, "unknown_game", f"unknown game {game!r}; games offered: {', '.join(config.games)}")
    now = utcnow()
    with transaction(engine, write=False) as tx:
        existing = tx.player_by_name(player)
    if existing is not None and existing.currency != currency:
        raise ApiError(409, "currency_mismatch", f"player {player!r} plays in {existing.currency}, not {currency}")
    token = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=config.operator.launch_token_seconds)
    with write_transaction(engine) as conn:
        conn.execute(insert(launch_tokens).values(
            token_sha256=token_hash(token), player=player, currency=currency, language=language, profile=profile,
            min_bet=min_bet, max_bet=max_bet, game=game, created_at=now, expires_at=expires,
            operator_session=request.get("operator_session")))
    base = (config.operator.launch_url or base_url).rstrip("/")
    query = f"launch={token}" + (f"&game={game}" if game else "")
    return {"launch_url": f"{base}/?{query}", "expires_at": iso(expires)}


def exchange_launch(engine: Engine, config: ServerConfig, token: str) -> dict[str, Any]:
    """Spend a launch token for a session: its token (shown once), player, balance, currency, language,
    profile and bet limits. 401 when the token is unknown, used or expired."""
    now = utcnow()
    with write_transaction(engine) as conn:
        row = conn.execute(select(launch_tokens).where(launch_tokens.c.token_sha256 == token_hash(token))).first()
        if row is None or row.used_at is not None or parse_ts(row.expires_at) <= now:
            raise ApiError(401, "launch_token_invalid", "this launch token is unknown, already used or expired; "
                                                        "ask the operator's site for a new launch")
        spent = conn.execute(update(launch_tokens).where(launch_tokens.c.token_sha256 == row.token_sha256,
                                                         launch_tokens.c.used_at.is_(None)).values(used_at=now))
        if spent.rowcount != 1:
            raise ApiError(401, "launch_token_invalid", "this launch token was just used")
    session = secrets.token_urlsafe(32)
    expires = now + timedelta(minutes=config.session_ttl_minutes)
    with transaction(engine) as tx:
        player_id, name, balance, currency = _get_or_create_player(tx, row.player, config, row.currency)
        if currency != row.currency:
            raise ApiError(409, "currency_mismatch", f"player {name!r} plays in {currency}, not {row.currency}")
        tx.insert_session(token_hash(session), player_id, now, expires)
    with write_transaction(engine) as conn:
        conn.execute(update(sessions).where(sessions.c.token_sha256 == token_hash(session)).values(
            profile=row.profile, language=row.language, min_bet=row.min_bet, max_bet=row.max_bet,
            operator_session=row.operator_session))
        wallet_balance = conn.execute(select(players.c.wallet_balance).where(players.c.id == player_id)).scalar()
    return {"token": session, "player": name, "balance": wallet_balance if config.seamless else balance,
            "currency": currency, "language": row.language, "profile": row.profile, "min_bet": row.min_bet,
            "max_bet": row.max_bet, "game": row.game, "expires_at": iso(expires)}


def end_sessions(engine: Engine, player: str) -> int:
    """End every open session of ``player`` now (the operator's "end session"); how many."""
    now = utcnow()
    with write_transaction(engine) as conn:
        player_id = conn.execute(select(players.c.id).where(players.c.name == player)).scalar()
        if player_id is None:
            raise ApiError(404, "player_not_found", f"no player {player!r}")
        return conn.execute(update(sessions).where(sessions.c.player_id == player_id, sessions.c.expires_at > now)
                            .values(expires_at=now)).rowcount
