"""The reads off the money path, in SQLAlchemy Core on the same tables: history and ledger pages, the
session's position, expiry scans, the audit replay's reads, seed pairs, and the few small writes
outside a money request (purging sessions, a reality check acknowledged)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, select, update

from reelforge.server.db import read_transaction, write_transaction
from reelforge.server.schema import fair_seeds, ledger, players, rounds, server_keys, sessions, steps
from reelforge.server.store.rows import (
    ROUND_COLUMNS,
    STEP_COLUMNS,
    LedgerEntry,
    RoundRow,
    StepRow,
    _round,
    _step,
    parse_ts,
)


def history_page(engine: Engine, player_id: int, limit: int, before: int | None,
                 game: str | None) -> tuple[list[RoundRow], int | None]:
    """A page of the player's rounds, newest first, and the ``before`` of the next page (None: last)."""
    query = select(*(rounds.c[n] for n in ROUND_COLUMNS)).where(rounds.c.player_id == player_id)
    if before is not None:
        query = query.where(rounds.c.id < before)
    if game is not None:
        query = query.where(rounds.c.game == game)
    with read_transaction(engine) as conn:
        rows = conn.execute(query.order_by(rounds.c.id.desc()).limit(limit + 1)).all()
    page = [_round(r) for r in rows[:limit]]
    return page, page[-1].id if len(rows) > limit else None


def ledger_page(engine: Engine, player_id: int, limit: int,
                before: int | None) -> tuple[list[tuple[int, LedgerEntry]], int | None]:
    """A page of the player's ledger entries (with their ids), newest first, and the next page's ``before``."""
    query = select(ledger.c.id, ledger.c.kind, ledger.c.amount, ledger.c.balance_after, ledger.c.round_id,
                   ledger.c.created_at).where(ledger.c.player_id == player_id)
    if before is not None:
        query = query.where(ledger.c.id < before)
    with read_transaction(engine) as conn:
        rows = conn.execute(query.order_by(ledger.c.id.desc()).limit(limit + 1)).all()
    page = [(r[0], LedgerEntry(r[1], r[2], r[3], r[4], parse_ts(r[5]))) for r in rows[:limit]]
    return page, page[-1][0] if len(rows) > limit else None


def session_totals(engine: Engine, player_id: int, token_sha256: str) -> tuple[int, str, datetime, dict[str, int]]:
    """The player's balance and currency, the session's start, and the ledger's sums per kind since then."""
    with read_transaction(engine) as conn:
        balance, currency = conn.execute(select(players.c.balance, players.c.currency)
                                         .where(players.c.id == player_id)).one()
        started = parse_ts(conn.execute(select(sessions.c.created_at).where(
            sessions.c.token_sha256 == token_sha256)).scalar_one())
        sums = conn.execute(select(ledger.c.kind, func.coalesce(func.sum(ledger.c.amount), 0))
                            .where(ledger.c.player_id == player_id, ledger.c.created_at >= started)
                            .group_by(ledger.c.kind)).all()
    return balance, currency, started, {kind: int(total) for kind, total in sums}


def player_currency(engine: Engine, player_id: int) -> str:
    """A player's currency."""
    with read_transaction(engine) as conn:
        return conn.execute(select(players.c.currency).where(players.c.id == player_id)).scalar_one()


def open_rounds_before(engine: Engine, cutoff: datetime, batch: int) -> list[tuple[int, int]]:
    """``(round id, player id)`` of up to ``batch`` rounds open since before ``cutoff``, oldest id first."""
    with read_transaction(engine) as conn:
        return [tuple(r) for r in conn.execute(select(rounds.c.id, rounds.c.player_id).where(
            rounds.c.status == "open", rounds.c.created_at <= cutoff).order_by(rounds.c.id).limit(batch))]


def purge_sessions(engine: Engine, cutoff: datetime) -> int:
    """Delete the sessions that expired before ``cutoff``; how many."""
    with write_transaction(engine) as conn:
        return conn.execute(delete(sessions).where(sessions.c.expires_at < cutoff)).rowcount


def round_by_id(conn: Connection, round_id: int) -> RoundRow | None:
    """One round, read in the caller's (read) transaction."""
    row = conn.execute(select(*(rounds.c[n] for n in ROUND_COLUMNS)).where(rounds.c.id == round_id)).first()
    return None if row is None else _round(row)


def rounds_after(conn: Connection, last_id: int, batch: int) -> list[RoundRow]:
    """Up to ``batch`` rounds with ids above ``last_id``, oldest first."""
    return [_round(r) for r in conn.execute(select(*(rounds.c[n] for n in ROUND_COLUMNS))
                                            .where(rounds.c.id > last_id).order_by(rounds.c.id).limit(batch))]


def round_steps(conn: Connection, round_id: int, before: int | None = None) -> list[StepRow]:
    """A round's stored steps in order (those with an index below ``before``, when given)."""
    query = select(*(steps.c[n] for n in STEP_COLUMNS)).where(steps.c.round_id == round_id)
    if before is not None:
        query = query.where(steps.c.idx < before)
    return [_step(r) for r in conn.execute(query.order_by(steps.c.idx))]


def round_entries(conn: Connection, round_id: int) -> list[tuple[str, int]]:
    """``(kind, amount)`` of the ledger entries of a round, in the order they were made."""
    return [tuple(r) for r in conn.execute(select(ledger.c.kind, ledger.c.amount)
                                           .where(ledger.c.round_id == round_id).order_by(ledger.c.id))]


def round_wallet_calls(conn: Connection, round_id: int, mode: str) -> list[tuple[str, int]]:
    """A seamless wallet's round's calls as ledger entries ``(kind, amount)``: its debit (settled), its credit
    (a win) and its rollback (a refund), each whether delivered yet or still in the outbox."""
    from reelforge.server.schema import wallet_transactions as wt

    rows = conn.execute(select(wt.c.kind, wt.c.amount, wt.c.status).where(wt.c.round_id == round_id)
                        .order_by(wt.c.created_at)).all()
    names = {"debit": "stake" if mode == "paid" else "feature_buy", "credit": "win", "rollback": "refund"}
    return [(names[kind], -amount if kind == "debit" else amount) for kind, amount, status in rows
            if not (kind == "debit" and status != "done")]


def revealed_server_seeds(engine: Engine, seed_ids: Sequence[int]) -> dict[int, str]:
    """The server seeds of those of ``seed_ids`` that were revealed (rotated); the active one is never read here."""
    if not seed_ids:
        return {}
    query = select(fair_seeds.c.id, fair_seeds.c.server_seed).where(
        fair_seeds.c.id.in_(sorted(set(seed_ids))), fair_seeds.c.revealed_at.is_not(None))
    with read_transaction(engine) as conn:
        return {r[0]: r[1] for r in conn.execute(query)}


def seed_pairs_page(engine: Engine, player_id: int, limit: int, before: int | None) -> tuple[list[Any], int | None]:
    """A page of the player's seed pairs, newest first (rows of ``fair_seeds``), and the next page's ``before``."""
    query = select(fair_seeds).where(fair_seeds.c.player_id == player_id)
    if before is not None:
        query = query.where(fair_seeds.c.id < before)
    with read_transaction(engine) as conn:
        rows = conn.execute(query.order_by(fair_seeds.c.id.desc()).limit(limit + 1)).all()
    page = rows[:limit]
    return page, page[-1].id if len(rows) > limit else None


def fair_seed_of(conn: Connection, seed_id: int) -> tuple[str, str, str] | None:
    """``(server_seed, server_seed_sha256, client_seed)`` of a seed pair, revealed or not (the audit's read)."""
    row = conn.execute(select(fair_seeds.c.server_seed, fair_seeds.c.server_seed_sha256, fair_seeds.c.client_seed)
                       .where(fair_seeds.c.id == seed_id)).first()
    return None if row is None else (row[0], row[1], row[2])


def acknowledge_reality_check(engine: Engine, token_sha256: str, at: datetime) -> None:
    """Record that the session's player acknowledged a reality check at ``at`` (the player's: the clock goes on
    across reloads and launches)."""
    with write_transaction(engine) as conn:
        conn.execute(update(sessions).where(sessions.c.token_sha256 == token_sha256)
                     .values(reality_checked_at=at))
        player_id = select(sessions.c.player_id).where(sessions.c.token_sha256 == token_sha256).scalar_subquery()
        conn.execute(update(players).where(players.c.id == player_id).values(play_checked_at=at))


def set_session_language(engine: Engine, token_sha256: str, language: str) -> None:
    """Keep the player's choice of language with the session."""
    with write_transaction(engine) as conn:
        conn.execute(update(sessions).where(sessions.c.token_sha256 == token_sha256).values(language=language))


def round_ids_key(engine: Engine) -> bytes:
    """The server's secret key of public round ids (made by the migration ``0004_fair_share``)."""
    with read_transaction(engine) as conn:
        return bytes.fromhex(conn.execute(select(server_keys.c.value)
                                          .where(server_keys.c.name == "round_ids")).scalar_one())


def legacy_round_ids_max(engine: Engine) -> int:
    """The highest round id shown as itself before the keyed public ids (0: none; ``0008_wallet_protocol``)."""
    with read_transaction(engine) as conn:
        value = conn.execute(select(server_keys.c.value)
                             .where(server_keys.c.name == "legacy_round_ids_max")).scalar()
    return int(value or 0)
