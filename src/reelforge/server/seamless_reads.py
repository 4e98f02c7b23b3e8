"""What the server reads of the seamless wallet's calls (:mod:`reelforge.server.seamless`): a round's calls as
the operator's query shows them, the credits' states, and a seamless player's ``GET /wallet``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, func, select

from reelforge.server.clock import utcnow
from reelforge.server.db import read_transaction
from reelforge.server.schema import players, wallet_transactions
from reelforge.server.seamless import TX_COLUMNS, SeamlessWallet, WalletTx, tx_row
from reelforge.server.store import parse_ts


def round_transactions(engine: Engine, round_id: int, brand: str | None = None) -> list[dict[str, Any]]:
    """Every wallet call of a round (internal id) of ``brand`` (None: any), oldest first, as the operator's
    query shows them (a brand sees only its own rounds' calls)."""
    where = [wallet_transactions.c.round_id == round_id]
    if brand is not None:
        where.append(wallet_transactions.c.brand == brand)
    with read_transaction(engine) as conn:
        rows = conn.execute(select(*(wallet_transactions.c[n] for n in TX_COLUMNS))
                            .where(*where)
                            .order_by(wallet_transactions.c.created_at)).all()
    return [tx_json(tx_row(r)) for r in rows]


def tx_json(row: WalletTx) -> dict[str, Any]:
    from reelforge.server.clock import iso

    return {"transaction_id": row.id, "kind": row.kind, "round_id": row.public_round_id, "amount": row.amount,
            "currency": row.currency, "reference_transaction_id": row.reference, "status": row.status,
            "game": row.game, "round_closed": row.round_closed, "campaign_id": row.campaign_id,
            "attempts": row.attempts, "last_error": row.last_error, "created_at": iso(row.created_at),
            "updated_at": iso(row.updated_at)}


def credit_states(engine: Engine, round_ids: list[int]) -> dict[int, str]:
    """``pending`` or ``done`` of the credit of each of ``round_ids`` that has one."""
    if not round_ids:
        return {}
    with read_transaction(engine) as conn:
        rows = conn.execute(select(wallet_transactions.c.round_id, wallet_transactions.c.status)
                            .where(wallet_transactions.c.round_id.in_(round_ids),
                                   wallet_transactions.c.kind == "credit")).all()
    return {r[0]: r[1] for r in rows}


def seamless_position(engine: Engine, wallet: SeamlessWallet, who: Any, token: Any) -> dict[str, Any]:
    """``GET /wallet`` of a seamless player: the operator's wallet's balance (``balance_stale``: it did not
    answer, the last balance it reported instead), and the session's position from its rounds."""
    from reelforge.server.clock import iso
    from reelforge.server.schema import rounds, sessions

    with read_transaction(engine) as conn:
        currency, cached = conn.execute(select(players.c.currency, players.c.wallet_balance)
                                        .where(players.c.id == who.player_id)).one()
        started, operator_session = conn.execute(select(sessions.c.created_at, sessions.c.operator_session)
                                                 .where(sessions.c.token_sha256 == token.sha256)).one()
        started = parse_ts(started)
        staked, won = conn.execute(select(
            func.coalesce(func.sum(rounds.c.cost), 0),
            func.coalesce(func.sum(rounds.c.win), 0)).where(
            rounds.c.player_id == who.player_id, rounds.c.created_at >= started, rounds.c.status != "void")).one()
        pending = conn.execute(select(func.count()).select_from(wallet_transactions).where(
            wallet_transactions.c.player_id == who.player_id, wallet_transactions.c.status == "pending",
            wallet_transactions.c.kind != "debit")).scalar_one()
    balance = wallet.balance_or_none(who.player, currency, who.brand, who.game, operator_session)
    stale = balance is None
    if stale:
        balance = cached
    return {"player": who.player, "balance": balance, "currency": currency, "balance_stale": stale,
            "credits_pending": pending,
            "session": {"started_at": iso(started), "elapsed_seconds": max(0.0, (utcnow() - started).total_seconds()),
                        "staked": int(staked), "won": int(won), "net": int(won) - int(staked)}}
