"""The player's view of the wallet: the ledger, page by page, and the session's position.

The balance changes themselves are posted by :mod:`reelforge.server.ledger`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from reelforge.server import store
from reelforge.server.clock import iso, utcnow

if TYPE_CHECKING:
    from reelforge.server.auth import Principal, SessionToken


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
