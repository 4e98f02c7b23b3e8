"""The wallet: a balance per player and a ledger entry for every change.

Every change runs inside the caller's transaction, so a balance change and
the round change that caused it commit together or not at all. Callers lock
the player's row first; with the row locked the new balance is computed here
and a change that would make it negative is refused (the database's CHECK
constraint is the backstop).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from reelforge.server import store
from reelforge.server.errors import ApiError
from reelforge.server.schema import LEDGER_KINDS
from reelforge.server.store import LedgerEntry, Tx

if TYPE_CHECKING:
    from reelforge.server.auth import Principal, SessionToken


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(value: datetime | None) -> str | None:
    """A timestamp as the API writes it (UTC, ``Z``)."""
    if value is None:
        return None
    if value.tzinfo is None:  # stored as UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat().replace("+00:00", "Z")


def entries(balance: int, changes: list[tuple[str, int]], round_id: int | None,
            now: datetime) -> tuple[list[LedgerEntry], int]:
    """The ledger entries of ``changes`` (kind, signed minor units) applied in order to a locked
    player's ``balance``, and the balance after them (402 if one would take it below zero)."""
    out = []
    for kind, amount in changes:
        assert kind in LEDGER_KINDS, kind
        if balance + amount < 0:
            raise ApiError(402, "insufficient_balance", f"balance {balance} does not cover {-amount} ({kind})")
        balance += amount
        out.append(LedgerEntry(kind, amount, balance, round_id, now))
    return out, balance


def post_entry(tx: Tx, player_id: int, balance: int, kind: str, amount: int,
               round_id: int | None, now: datetime) -> int:
    """Apply ``amount`` (signed minor units) to a locked player's ``balance`` now; return the new balance."""
    posted, new_balance = entries(balance, [(kind, amount)], round_id, now)
    tx.post(player_id, new_balance, posted)
    return new_balance


def ledger_page(engine: Engine, player_id: int, limit: int, before: int | None,
                public_round: Callable[[int], int]) -> dict[str, Any]:
    """A page of the player's ledger, newest first (rounds by their public ids, ``public_round``)."""
    page, next_before = store.ledger_page(engine, player_id, limit, before)
    return {"entries": [{"id": entry_id, "kind": e.kind, "amount": e.amount, "balance_after": e.balance_after,
                         "round_id": None if e.round_id is None else public_round(e.round_id),
                         "created_at": iso(e.created_at)} for entry_id, e in page],
            "next_before": next_before}


def session_position(engine: Engine, who: Principal, token: SessionToken) -> dict[str, Any]:
    """The player's balance, and the session's start and net position (won minus staked) since then."""
    balance, currency, started, sums = store.session_totals(engine, who.player_id, token.sha256)
    staked = -sums.get("stake", 0) - sums.get("feature_buy", 0) - sums.get("refund", 0)
    won = sums.get("win", 0)
    return {"player": who.player, "balance": balance, "currency": currency,
            "session": {"started_at": iso(started), "elapsed_seconds": max(0.0, (utcnow() - started).total_seconds()),
                        "staked": staked, "won": won, "net": won - staked}}
