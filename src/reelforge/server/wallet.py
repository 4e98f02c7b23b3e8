"""The wallet: a balance per player and a ledger entry for every change.

Every function here runs inside the caller's transaction, so a balance change
and the round change that caused it commit together or not at all. Callers
lock the player's row first (:func:`lock_player`); with the row locked the
new balance is computed here and a change that would make it negative is
refused (the database's CHECK constraint is the backstop).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, func, select

from reelforge.server.db import read_transaction
from reelforge.server.errors import ApiError
from reelforge.server.schema import LEDGER_KINDS, ledger, players, sessions
from reelforge.server.store import Tx, parse_ts

if TYPE_CHECKING:
    from reelforge.server.auth import Principal, SessionToken


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; they were stored as UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def iso(value: datetime | None) -> str | None:
    value = as_utc(value)
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def lock_player(tx: Tx, player_id: int) -> tuple[int, int, str]:
    """``(id, balance, currency)`` of the player, row locked for the rest of the transaction
    (``FOR UPDATE`` on PostgreSQL; on SQLite the transaction already holds the write lock)."""
    row = tx.one("lock_player", {"id": player_id})
    if row is None:
        raise ApiError(404, "player_not_found", "no such player")
    return row


def post_entry(tx: Tx, player_id: int, balance: int, kind: str, amount: int,
               round_id: int | None, now: datetime) -> int:
    """Apply ``amount`` (signed minor units) to a locked player's ``balance``; return the new balance."""
    assert kind in LEDGER_KINDS, kind
    new_balance = balance + amount
    if new_balance < 0:
        raise ApiError(402, "insufficient_balance",
                       f"balance {balance} does not cover {-amount} ({kind})")
    tx.run("set_balance", {"balance": new_balance, "id": player_id})
    tx.run("ledger", {"player_id": player_id, "kind": kind, "amount": amount, "balance_after": new_balance,
                      "round_id": round_id, "created_at": tx.ts(now)})
    return new_balance


def entry_json(row: Any) -> dict[str, Any]:
    return {"id": row.id, "kind": row.kind, "amount": row.amount, "balance_after": row.balance_after,
            "round_id": row.round_id, "created_at": iso(row.created_at)}


def ledger_page(engine: Engine, player_id: int, limit: int, before: int | None) -> dict[str, Any]:
    """A page of the player's ledger, newest first."""
    query = select(ledger).where(ledger.c.player_id == player_id)
    if before is not None:
        query = query.where(ledger.c.id < before)
    with read_transaction(engine) as conn:
        rows = conn.execute(query.order_by(ledger.c.id.desc()).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    return {"entries": [entry_json(r) for r in rows], "next_before": rows[-1].id if more else None}


def ledger_totals(conn: Connection, player_id: int) -> dict[str, int]:
    """Sum of ledger amounts per kind for a player (every kind present, zero when none)."""
    totals = dict.fromkeys(LEDGER_KINDS, 0)
    for kind, total in conn.execute(select(ledger.c.kind, func.sum(ledger.c.amount))
                                    .where(ledger.c.player_id == player_id).group_by(ledger.c.kind)):
        totals[kind] = int(total)
    return totals


def session_position(engine: Engine, who: Principal, token: SessionToken) -> dict[str, Any]:
    """The player's balance, and the session's start and net position (won minus staked) since then."""
    with read_transaction(engine) as conn:
        row = conn.execute(select(players.c.balance, players.c.currency).where(players.c.id == who.player_id)).one()
        started = parse_ts(conn.execute(select(sessions.c.created_at).where(
            sessions.c.token_sha256 == token.sha256)).scalar_one())
        moves = dict(conn.execute(
            select(ledger.c.kind, func.coalesce(func.sum(ledger.c.amount), 0))
            .where(ledger.c.player_id == who.player_id, ledger.c.created_at >= started,
                   ledger.c.kind.in_(("stake", "feature_buy", "refund", "win")))
            .group_by(ledger.c.kind)).all())
    staked = -int(moves.get("stake", 0)) - int(moves.get("feature_buy", 0)) - int(moves.get("refund", 0))
    won = int(moves.get("win", 0))
    return {"player": who.player, "balance": row.balance, "currency": row.currency,
            "session": {"started_at": iso(started), "elapsed_seconds": max(0.0, (utcnow() - started).total_seconds()),
                        "staked": staked, "won": won, "net": won - staked}}
