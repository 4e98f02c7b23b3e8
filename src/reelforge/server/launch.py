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

import json
import re
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from reelforge.core.i18n import negotiate
from reelforge.server.auth import (
    _get_or_create_player,
    brand_not_served,
    check_player_name,
    launch_limits,
    player_of_another_brand,
    token_hash,
)
from reelforge.server.clock import iso, utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.config_play import LAUNCH_LIMITS
from reelforge.server.db import read_transaction, write_transaction
from reelforge.server.errors import ApiError
from reelforge.server.play_session import begin_play
from reelforge.server.schema import launch_tokens, operator_nonces, players, sessions
from reelforge.server.signing import check_signature, unauthorized
from reelforge.server.store import parse_ts, transaction

LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$")
"""A BCP 47 language tag as the client's Intl.NumberFormat takes it (e.g. ``en-GB``, ``ja``)."""
LAUNCH_URLS = ("lobby_url", "return_url", "deposit_url", "history_url")
"""The operator's pages a launch may name; the client shows each as a button."""
DEVICES = ("desktop", "mobile", "tablet")
"""The devices a launch may name."""


def _one_of(request: dict[str, Any], name: str, alias: str) -> Any:
    """A launch field given under its name or its alias (422 when both are given and differ)."""
    value, other = request.get(name), request.get(alias)
    if value is not None and other is not None and value != other:
        raise ApiError(422, "conflicting_fields", f"{name} {value!r} and {alias} {other!r} differ; give one")
    return value if value is not None else other


def check_page_url(key: str, url: str, hosts: tuple[str, ...]) -> str:
    """An operator page's URL for the client's buttons: https, or http to one of the brand's
    ``allowed_url_hosts`` (or a subdomain); with such hosts configured, only to them (422 otherwise)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:  # e.g. an unclosed IPv6 bracket
        parts, host = None, ""
    allowed = not hosts or any(host == h or host.endswith("." + h) for h in hosts)
    if parts is None or parts.scheme not in ("https", "http") or not host or parts.username or parts.password \
            or not allowed or (parts.scheme == "http" and not hosts) or any(c in url for c in " \"'<>\\"):
        where = f"one of {', '.join(hosts)} (or a subdomain)" if hosts else "any host by https"
        raise ApiError(422, "invalid_launch_url", f"{key} must be an https URL (or http to an allowed host) "
                                                  f"without credentials, to {where}; got {url!r}")
    return url


def verify_operator_call(engine: Engine, config: ServerConfig, headers: Any, method: str, path: str,
                         body: bytes) -> str:
    """Refuse (401, nothing changed) a call that is not signed by the operator, expired or replayed;
    remember its signature (or nonce) so the same call is refused the second time; a read (GET) is
    checked but not remembered: repeating it changes nothing. The brand that signed it: the ``X-Brand``
    header names it (absent: the default brand), and the call must carry that brand's signature."""
    brand_id = headers.get("x-brand")
    try:
        op = config.brand(brand_id).operator
    except KeyError:
        raise ApiError(401, "unknown_brand", f"this server does not serve the brand {brand_id!r} (X-Brand); "
                                             f"brands: {', '.join(b.id for b in config.all_brands())}") from None
    sig = check_signature(op.secret, headers.get("x-timestamp"), headers.get("x-signature"), method, path, body,
                          op.signature_window_seconds, nonce=headers.get("x-nonce"))
    if method.upper() == "GET":
        return op.brand
    try:
        with write_transaction(engine) as conn:
            conn.execute(insert(operator_nonces).values(signature=sig, created_at=utcnow()))
    except IntegrityError as exc:
        raise unauthorized("replayed", "this exact signed call was already received; sign each call anew") from exc
    return op.brand


def purge_nonces(engine: Engine, config: ServerConfig, now: datetime | None = None) -> int:
    """Forget signatures older than twice the window (their timestamps are refused as expired anyway)."""
    window = max(b.operator.signature_window_seconds for b in config.all_brands())
    cutoff = (now or utcnow()) - timedelta(seconds=2 * window)
    with write_transaction(engine) as conn:
        return conn.execute(delete(operator_nonces).where(operator_nonces.c.created_at < cutoff)).rowcount


def create_launch(engine: Engine, config: ServerConfig, request: dict[str, Any], base_url: str,
                  brand_id: str | None = None) -> dict[str, Any]:
    """A launch URL with a one-time token for ``request`` (player, currency, language, profile, min_bet,
    max_bet and the other launch limits, game) of ``brand_id``'s player. A limit looser than the brand's is
    refused (422 ``limit_looser_than_configured``): a launch only tightens them."""
    brand = config.brand(brand_id)
    player = check_player_name(request["player"])
    currency = request["currency"]
    if currency not in brand.session_currencies():
        raise ApiError(422, "currency_not_offered",
                       f"no game is offered in {currency}; currencies: {', '.join(brand.session_currencies())}")
    language = request.get("language") or "en"
    if not LANGUAGE.fullmatch(language):
        raise ApiError(422, "invalid_language", f"language must be a BCP 47 tag such as en-GB, got {language!r}")
    if request.get("lang") is not None:  # the game's language (ISO 639-1, Stake Engine's lang): unknown is English
        lang = negotiate(request["lang"])
        if request.get("language") is not None and negotiate(request["language"]) != lang:
            raise ApiError(422, "conflicting_fields", f"language {request['language']!r} and lang "
                                                      f"{request['lang']!r} differ; give one")
        if negotiate(language) != lang:  # lang alone: its regional tag (de-AT) is kept when it is one
            known = LANGUAGE.fullmatch(request["lang"]) and request["lang"].split("-")[0].lower() == lang
            language = request["lang"] if known else lang
    profile = _one_of(request, "profile", "jurisdiction") or brand.play.profile
    if profile not in config.profiles:
        raise ApiError(422, "unknown_profile", f"unknown jurisdiction profile {profile!r}; profiles: "
                                               f"{', '.join(config.profiles)}")
    min_bet, max_bet = request.get("min_bet"), request.get("max_bet")
    if min_bet is not None and max_bet is not None and min_bet > max_bet:
        raise ApiError(422, "invalid_bet_limits", f"min_bet {min_bet} is above max_bet {max_bet}")
    limits = {key: request[key] for key in LAUNCH_LIMITS if request.get(key) is not None}
    try:
        config.rules(profile, brand.id).tightened(limits)
    except ValueError as exc:
        raise ApiError(422, "limit_looser_than_configured", str(exc)) from exc
    game = request.get("game")
    if game is not None and game not in brand.games:
        raise ApiError(404, "unknown_game", f"unknown game {game!r}; games offered: {', '.join(brand.games)}")
    options = {key: check_page_url(key, request[key], brand.operator.allowed_url_hosts)
               for key in LAUNCH_URLS if request.get(key) is not None}
    device = request.get("device")
    if device is not None and device not in DEVICES:
        raise ApiError(422, "invalid_device", f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device is not None:
        options["device"] = device
    now = utcnow()
    with transaction(engine, write=False) as tx:
        existing = tx.player_by_name(player)
    if existing is not None and existing.brand != brand.id:
        raise player_of_another_brand(player)
    if existing is not None and existing.currency != currency:
        raise ApiError(409, "currency_mismatch", f"player {player!r} plays in {existing.currency}, not {currency}")
    token = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=brand.operator.launch_token_seconds)
    stored = {k: v for k, v in limits.items() if k != "max_bet"}  # max_bet has its own column
    with write_transaction(engine) as conn:
        conn.execute(insert(launch_tokens).values(
            token_sha256=token_hash(token), player=player, currency=currency, language=language, profile=profile,
            min_bet=min_bet, max_bet=max_bet, game=game, created_at=now, expires_at=expires, brand=brand.id,
            limits=json.dumps(stored) if stored else None, operator_session=request.get("operator_session"),
            launch_options=json.dumps(options)))  # "{}" too: the session is a launched one (its end is reported)
    base = (brand.operator.launch_url or base_url).rstrip("/")
    # lang first: the token stays the rest of the address up to game (as readers of older URLs take it)
    query = f"lang={negotiate(language)}&launch={token}" + (f"&game={game}" if game else "")
    return {"launch_url": f"{base}/?{query}", "expires_at": iso(expires)}


def exchange_launch(engine: Engine, config: ServerConfig, token: str,
                    wallet_balance: Callable[[str, str, str], int | None] | None = None,
                    lang: str | None = None) -> dict[str, Any]:
    """Spend a launch token for a session: its token (shown once), player, balance, currency, language,
    profile and limits. 401 when the token is unknown, used or expired. The play session goes on if the
    player's current one is not over (:func:`~reelforge.server.limits.begin_play`). ``wallet_balance``
    (seamless): asks the operator's wallet for the player's balance now (None: it did not answer).
    ``lang``: the launch URL's language, when the operator's site set one there (unknown: English)."""
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
    try:
        config.brand(row.brand)
    except KeyError:
        raise brand_not_served(row.brand) from None
    language = row.language
    if lang is not None and negotiate(lang) != negotiate(language):
        language = negotiate(lang)
    rules = config.rules(row.profile, row.brand, launch_limits(row.limits, row.max_bet))
    session = secrets.token_urlsafe(32)
    expires = now + timedelta(minutes=config.session_ttl_minutes)
    with transaction(engine) as tx:
        player_id, name, balance, currency = _get_or_create_player(tx, row.player, config, row.currency, row.brand)
        if currency != row.currency:
            raise ApiError(409, "currency_mismatch", f"player {name!r} plays in {currency}, not {row.currency}")
        tx.insert_session(token_hash(session), player_id, now, expires)
        begin_play(tx, player_id, rules, now)
    with write_transaction(engine) as conn:
        conn.execute(update(sessions).where(sessions.c.token_sha256 == token_hash(session)).values(
            profile=row.profile, language=language, min_bet=row.min_bet, max_bet=row.max_bet, limits=row.limits,
            operator_session=row.operator_session, game=row.game, launch_options=row.launch_options))
        cached = conn.execute(select(players.c.wallet_balance).where(players.c.id == player_id)).scalar()
    stale = False
    if config.seamless and wallet_balance is not None:
        current = wallet_balance(name, currency, row.brand, row.game, row.operator_session)
        balance, stale = (cached, True) if current is None else (current, False)
    answer = {"token": session, "player": name, "balance": balance, "currency": currency, "language": language,
              "lang": negotiate(language), "profile": row.profile, "jurisdiction": row.profile, "min_bet": row.min_bet,
              "max_bet": row.max_bet, "game": row.game, "expires_at": iso(expires), "limits": rules.public(),
              **session_options(row.launch_options)}
    if config.seamless:
        answer["balance_stale"] = stale
    return answer


def launched_options(engine: Engine, token_sha256: str) -> dict[str, Any]:
    """:func:`session_options` of the session whose token hashes to ``token_sha256``."""
    with read_transaction(engine) as conn:
        stored = conn.execute(select(sessions.c.launch_options)
                              .where(sessions.c.token_sha256 == token_sha256)).scalar()
    return session_options(stored)


def session_options(stored: str | None) -> dict[str, Any]:
    """A launched session's options as the client takes them: ``urls`` (the operator's lobby, return, deposit
    and history pages; each null when not given) and ``device`` (null: not given)."""
    options = json.loads(stored) if stored else {}
    return {"urls": {key.removesuffix("_url"): options.get(key) for key in LAUNCH_URLS},
            "device": options.get("device")}


def end_sessions(engine: Engine, player: str, brand: str = "default", config: ServerConfig | None = None) -> int:
    """End every open session of ``brand``'s ``player`` now, and the player's play session: no round starts
    until its break has passed, whatever new launch comes meanwhile (the operator's "end session"); how many
    sessions were open. With ``config``, each launched session's end is reported to the operator's callback
    URL (reason ``ended_by_operator``)."""
    from reelforge.server.callbacks import record_session_end

    now = utcnow()
    with write_transaction(engine) as conn:
        found = conn.execute(select(players.c.id, players.c.brand).where(players.c.name == player)).first()
        if found is None or found.brand != brand:
            raise ApiError(404, "player_not_found", f"no player {player!r}")
        conn.execute(update(players).where(players.c.id == found.id).values(play_ended_at=now))
        open_now = conn.execute(select(sessions.c.token_sha256).where(sessions.c.player_id == found.id,
                                                                      sessions.c.expires_at > now)).scalars().all()
        ended = conn.execute(update(sessions).where(sessions.c.player_id == found.id, sessions.c.expires_at > now)
                             .values(expires_at=now)).rowcount
        for token in open_now if config is not None else ():
            record_session_end(conn, config, token, "ended_by_operator", now)
        return ended
