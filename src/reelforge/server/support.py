"""Support reads (docs/OPERATORS.md, "Support and reporting"): who may read, the operator's round queries,
one round's details for the support page, and signed replay links for a player's dispute.

Two roles read: the operator (its ``X-Operator-Key``) and **support** (the brand's ``support_key_sha256``,
sent as ``X-Support-Key``), which may query and view but never move money or change settings: it opens
no session and makes no transfer (those routes take only the operator key) and signs no operator call
(it holds no secret). Either key also works as the password of HTTP Basic authentication, so a support
agent's browser opens the round page after its own prompt. A reader sees only its own brand's rounds;
another brand's round is reported exactly like a missing one.

A replay link names a round and an expiry time, signed (HMAC-SHA256) with a key derived from the server's
secret of public round ids: it opens a read-only replay of that round, without a session, until it expires.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from reelforge.server.clock import iso, parse_ts
from reelforge.server.config import ServerConfig
from reelforge.server.db import read_transaction
from reelforge.server.errors import ApiError
from reelforge.server.schema import ledger, players, rounds
from reelforge.server.seamless_reads import round_transactions
from reelforge.server.store.reads import revealed_server_seeds, round_by_id, round_steps
from reelforge.server.store.rows import ROUND_COLUMNS, RoundRow, _round

OPERATOR, SUPPORT = "operator", "support"
STATUSES = ("open", "finished", "void")
MAX_PAGE = 200
"""The most rounds one page of a round query holds."""
REPLAY_LINK_DEFAULT_SECONDS = 7 * 24 * 3600
REPLAY_LINK_MAX_SECONDS = 90 * 24 * 3600


@dataclass(frozen=True)
class Reader:
    """Who reads: a brand's operator or its read-only support role."""

    brand: str
    role: str


def _basic_password(authorization: str | None) -> str | None:
    """The password of an ``Authorization: Basic`` header (None: none, or not Basic)."""
    if not authorization or authorization[:6].lower() != "basic ":
        return None
    try:
        return base64.b64decode(authorization[6:].strip(), validate=True).decode().partition(":")[2] or None
    except (ValueError, UnicodeDecodeError):
        return None


def reader(config: ServerConfig, operator_key: str | None, support_key: str | None,
           authorization: str | None = None) -> Reader:
    """The reader a request's credentials name: ``X-Operator-Key``, ``X-Support-Key`` or HTTP Basic with either
    key as its password (401 ``credentials_required`` when none is given, 403 ``bad_credentials`` when it is no
    brand's key). A demo server with no key configured is read openly, as its operator page is."""
    password = _basic_password(authorization)
    for key, roles in ((operator_key, (OPERATOR,)), (support_key, (SUPPORT,)), (password, (OPERATOR, SUPPORT))):
        if key is None:
            continue
        for brand in config.all_brands():
            if OPERATOR in roles and brand.check_api_key(key):
                return Reader(brand.id, OPERATOR)
            if SUPPORT in roles and brand.check_support_key(key):
                return Reader(brand.id, SUPPORT)
        raise ApiError(403, "bad_credentials", "the key given is neither an operator key nor a support key of a "
                                               "brand of this server")
    if config.monitoring_open:
        return Reader(config.operator.brand, OPERATOR)
    raise ApiError(401, "credentials_required", "support and reporting calls need the operator's X-Operator-Key or "
                                                "the support role's X-Support-Key header")


# -- round queries -------------------------------------------------------------------------------------------------------
def as_utc(value: datetime | None, earliest: bool) -> datetime | None:
    """A query's time in UTC (one without a zone is UTC); a time at the calendar's edge that UTC cannot
    hold is its edge (``earliest``: the lower one)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        return (datetime.min if earliest else datetime.max).replace(tzinfo=UTC)


@dataclass(frozen=True)
class RoundQuery:
    """A round query's filters (every one optional): the player's name, the game, the start time in
    ``[since, until)`` (aware, UTC; a range that holds no time holds no round) and the status (one of
    :data:`STATUSES`)."""

    player: str | None = None
    game: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    status: str | None = None


def query_rounds(service: Any, brand: str, query: RoundQuery, limit: int,
                 cursor: int | None) -> dict[str, Any]:
    """A page of ``brand``'s rounds matching ``query``, newest first, with ``next_cursor`` (the public id to
    pass as ``cursor`` for the next page with the same filters; None on the last). The order is the rounds'
    database order, so a page never shifts as new rounds are played."""
    if not 1 <= limit <= MAX_PAGE:
        raise ApiError(422, "invalid_request", f"limit: a page holds 1-{MAX_PAGE} rounds")
    if query.status is not None and query.status not in STATUSES:
        raise ApiError(422, "invalid_request", f"status: {query.status!r} is not one of {', '.join(STATUSES)}")
    stmt = (select(*(rounds.c[n] for n in ROUND_COLUMNS), players.c.name, players.c.currency)
            .join(players, players.c.id == rounds.c.player_id).where(rounds.c.brand == brand))
    if cursor is not None:
        internal = service.ids.internal(cursor)
        if internal is None:
            raise ApiError(422, "bad_cursor", "cursor: not a cursor of this server (pass next_cursor as it came)")
        stmt = stmt.where(rounds.c.id < internal)
    if query.player is not None:
        stmt = stmt.where(players.c.name == query.player)
    if query.game is not None:
        stmt = stmt.where(rounds.c.game == query.game)
    if query.status is not None:
        stmt = stmt.where(rounds.c.status == query.status)
    if query.since is not None:
        stmt = stmt.where(rounds.c.created_at >= query.since)
    if query.until is not None:
        stmt = stmt.where(rounds.c.created_at < query.until)
    with read_transaction(service.engine) as conn:
        rows = conn.execute(stmt.order_by(rounds.c.id.desc()).limit(limit + 1)).all()
    page = [(_round(r[:-2]), r[-2], r[-1]) for r in rows[:limit]]
    seeds = revealed_server_seeds(service.engine, [r.fair_seed_id for r, _, _ in page if r.fair_seed_id is not None])
    settled = service._settlements([r.id for r, _, _ in page])
    out = []
    for rnd, player, currency in page:
        body = service.summary_json(rnd, seeds.get(rnd.fair_seed_id), currency, settled.get(rnd.id))
        out.append({**body, "player": player, "brand": rnd.brand,
                    "decimals": service.config.currencies.get(currency, 2)})
    return {"rounds": out, "next_cursor": service.ids.public(page[-1][0].id) if len(rows) > limit else None}


# -- one round -----------------------------------------------------------------------------------------------------------
def find_round(service: Any, brand: str | None, public_id: int) -> RoundRow:
    """The round a shown id names (its public id, or its id from before the keyed ids), of ``brand`` (None:
    any brand: a signed replay link); 404 ``round_not_found`` otherwise."""
    with read_transaction(service.engine) as conn:
        for internal in service.ids.candidates(public_id):
            rnd = round_by_id(conn, internal)
            if rnd is not None and (brand is None or rnd.brand == brand):
                return rnd
    raise ApiError(404, "round_not_found", f"no round {public_id} of this brand")


def round_details(service: Any, rnd: RoundRow, support: bool = True) -> dict[str, Any]:
    """A round in full as support sees it: its revealed steps, fair data (the server seed once revealed), the
    player, brand, currency and its decimals, and the round's money: the seamless wallet's calls
    (``wallet_calls``: amounts, transaction ids, status, attempts, times) or, with the transfer wallet, its
    ledger entries (``ledger``). ``support`` False: what the player's replay link shows (the round, its steps
    and fair data; no player name, brand or money calls)."""
    with read_transaction(service.engine) as conn:
        steps = round_steps(conn, rnd.id)
        name, currency = conn.execute(select(players.c.name, players.c.currency)
                                      .where(players.c.id == rnd.player_id)).one()
        entries = conn.execute(select(ledger.c.id, ledger.c.kind, ledger.c.amount, ledger.c.balance_after,
                                      ledger.c.created_at).where(ledger.c.round_id == rnd.id)
                               .order_by(ledger.c.id)).all()
    seed = revealed_server_seeds(service.engine, [rnd.fair_seed_id]).get(rnd.fair_seed_id) \
        if rnd.fair_seed_id is not None else None
    body = service.round_json(rnd, steps, None, seed, currency, service._settlements([rnd.id]).get(rnd.id))
    del body["balance"]
    body["decimals"] = service.config.currencies.get(currency, 2)
    if support:
        body.update(player=name, brand=rnd.brand)
        body["wallet_calls"] = round_transactions(service.engine, rnd.id) if service.wallet is not None else None
        body["ledger"] = [{"entry": e[0], "kind": e[1], "amount": e[2], "balance_after": e[3],
                           "created_at": iso(parse_ts(e[4]))} for e in entries]
    return body


# -- replay links --------------------------------------------------------------------------------------------------------
def replay_key(round_ids_key: bytes) -> bytes:
    """The replay links' signing key: derived from the server's secret key of public round ids (kept in the
    database), so every server process of one database signs and checks alike and nothing new is stored."""
    return hmac.new(round_ids_key, b"reelforge replay links v1", hashlib.sha256).digest()


def replay_signature(key: bytes, public_id: int, expires: int) -> str:
    """The hex HMAC-SHA256 of ``"<round id>.<expires>"``."""
    return hmac.new(key, f"{public_id}.{expires}".encode(), hashlib.sha256).hexdigest()


def issue_replay_link(key: bytes, base_url: str, public_id: int, seconds: int,
                      now: datetime | None = None) -> dict[str, Any]:
    """A replay link of round ``public_id`` that works for ``seconds`` (1 s to 90 days)."""
    if not 1 <= seconds <= REPLAY_LINK_MAX_SECONDS:
        raise ApiError(422, "invalid_request", f"expires_in_seconds: 1 to {REPLAY_LINK_MAX_SECONDS} (90 days)")
    expires = int((now or datetime.now(UTC)).timestamp()) + seconds
    signature = replay_signature(key, public_id, expires)
    return {"round_id": public_id, "expires_at": iso(datetime.fromtimestamp(expires, UTC)),
            "url": f"{base_url.rstrip('/')}/replay/{public_id}?expires={expires}&signature={signature}"}


class ReplayLinkRefused(Exception):
    """A replay link that opens nothing: its HTTP status and the message shown."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def check_replay_link(key: bytes, public_id: int, expires: str | None, signature: str | None,
                      now: datetime | None = None) -> None:
    """Refuse (:class:`ReplayLinkRefused`) a link whose signature does not match its round and expiry (altered,
    cut short) with 403, and an expired one with 410."""
    valid = (expires is not None and expires.isdigit() and len(expires) <= 12 and signature is not None
             and hmac.compare_digest(replay_signature(key, public_id, int(expires)), signature.lower()))
    if not valid:
        raise ReplayLinkRefused(403, "This replay link is not valid: it was altered or is incomplete. Ask the "
                                     "operator's support for a new link.")
    ends = datetime.fromtimestamp(int(expires), UTC)
    if (now or datetime.now(UTC)) >= ends:
        raise ReplayLinkRefused(410, f"This replay link expired on {ends:%Y-%m-%d at %H:%M} UTC. Ask the "
                                     "operator's support for a new link.")
