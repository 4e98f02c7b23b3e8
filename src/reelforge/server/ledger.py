"""The ledger: a balance per player and a ledger entry for every change.

Every change runs inside the caller's transaction, so a balance change and
the round change that caused it commit together or not at all. Callers lock
the player's row first; with the row locked the new balance is computed here
and a change that would make it negative is refused (the database's CHECK
constraint is the backstop).
"""

from __future__ import annotations

from datetime import datetime

from reelforge.server.errors import ApiError
from reelforge.server.schema import LEDGER_KINDS
from reelforge.server.store import LedgerEntry, Tx


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
