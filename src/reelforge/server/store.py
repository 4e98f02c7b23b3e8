"""The hot path's SQL: plain statements on the driver connection.

Building SQLAlchemy statement objects costs far more than running them on
SQLite (about 0.2-0.8 ms against 10 us per statement here), and a round
request runs a dozen. So starting rounds, playing steps and session look-ups
run fixed SQL strings through the pooled DBAPI connection; everything else
(history, expiry scans, verify, migrations) uses SQLAlchemy Core on the same
tables (:mod:`reelforge.server.schema`). The SQL is portable between SQLite
and PostgreSQL except for the row lock (``FOR UPDATE``, PostgreSQL only:
SQLite's ``BEGIN IMMEDIATE`` already holds the database's write lock) and
the parameter style, which is translated once when this module loads.

Timestamps are written as SQLAlchemy writes them: ISO text without offset on
SQLite (always UTC), ``timestamptz`` on PostgreSQL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine

from reelforge.server.db import is_sqlite, sqlite_writer

ROUND_COLUMNS = ("id", "player_id", "game", "build", "mode", "bet", "requested_bet", "cost", "status", "state",
                 "next_step", "step_count", "total_win_x", "win", "void_reason", "created_at", "updated_at",
                 "finished_at", "completed_on_expiry")
STEP_COLUMNS = ("idx", "kind", "action", "draws", "events", "win_x", "total_win_x", "finished", "next_step", "state",
                "created_at", "revealed_at")

_SQL: dict[str, str] = {
    "session": "SELECT s.expires_at, p.id, p.name, p.demo FROM sessions s JOIN players p ON p.id = s.player_id "
               "WHERE s.token_sha256 = :token",
    "session_lock": "SELECT s.expires_at, p.id, p.name, p.demo, p.balance FROM sessions s JOIN players p "
                    "ON p.id = s.player_id WHERE s.token_sha256 = :token{lock_p}",
    "lock_player": "SELECT id, balance, currency FROM players WHERE id = :id{lock}",
    "set_balance": "UPDATE players SET balance = :balance WHERE id = :id",
    "ledger": "INSERT INTO ledger (player_id, kind, amount, balance_after, round_id, created_at) "
              "VALUES (:player_id, :kind, :amount, :balance_after, :round_id, :created_at)",
    "idem_get": "SELECT request_sha256, status_code, response, round_id, steps_at, steps_shown FROM idempotency "
                "WHERE scope = :scope AND key = :key",
    "idem_put": "INSERT INTO idempotency (scope, key, request_sha256, status_code, response, created_at, round_id, "
                "steps_at, steps_shown) VALUES (:scope, :key, :request_sha256, :status_code, :response, :created_at, "
                ":round_id, :steps_at, :steps_shown)",
    "open_round": "SELECT id FROM rounds WHERE player_id = :player_id AND game = :game AND status = 'open'",
    "last_round_start": "SELECT MAX(created_at) FROM rounds WHERE player_id = :player_id",
    "insert_round": "INSERT INTO rounds (player_id, game, build, mode, bet, requested_bet, cost, status, state, "
                    "next_step, step_count, total_win_x, win, void_reason, created_at, updated_at, finished_at, "
                    "completed_on_expiry) VALUES (:player_id, :game, :build, :mode, :bet, :requested_bet, :cost, "
                    ":status, :state, :next_step, :step_count, :total_win_x, :win, :void_reason, :created_at, "
                    ":updated_at, :finished_at, :completed_on_expiry) RETURNING id",
    "round": f"SELECT {', '.join(ROUND_COLUMNS)} FROM rounds WHERE id = :id{{lock}}",
    "update_round": "UPDATE rounds SET status = :status, state = :state, next_step = :next_step, "
                    "step_count = :step_count, total_win_x = :total_win_x, win = :win, void_reason = :void_reason, "
                    "updated_at = :updated_at, finished_at = :finished_at, "
                    "completed_on_expiry = :completed_on_expiry WHERE id = :id",
    "steps": f"SELECT {', '.join(STEP_COLUMNS)} FROM steps WHERE round_id = :round_id ORDER BY idx",
    "steps_before": f"SELECT {', '.join(STEP_COLUMNS)} FROM steps WHERE round_id = :round_id AND idx < :n "
                    "ORDER BY idx",
    "insert_step": "INSERT INTO steps (round_id, idx, kind, action, draws, events, win_x, total_win_x, finished, "
                   "next_step, state, created_at, revealed_at) VALUES (:round_id, :idx, :kind, :action, :draws, "
                   ":events, :win_x, :total_win_x, :finished, :next_step, :state, :created_at, :revealed_at)",
    "reveal_step": "UPDATE steps SET revealed_at = :revealed_at, action = :action WHERE round_id = :round_id "
                   "AND idx = :idx AND revealed_at IS NULL",
    "reveal_rest": "UPDATE steps SET revealed_at = :revealed_at WHERE round_id = :round_id AND revealed_at IS NULL",
    "idem_purge": "UPDATE idempotency SET response = '', round_id = NULL, steps_at = NULL, steps_shown = NULL "
                  "WHERE created_at < :cutoff AND response <> ''",
    "balance": "SELECT balance FROM players WHERE id = :id",
    "round_bet": "SELECT bet FROM rounds WHERE id = :id",
    "demo_players": "SELECT count(*) FROM players WHERE demo",
    "player_by_name": "SELECT id, name, balance, currency, demo FROM players WHERE name = :name{lock}",
    "insert_player": "INSERT INTO players (name, balance, currency, demo, created_at) "
                     "VALUES (:name, :balance, :currency, :demo, :created_at) RETURNING id",
    "insert_session": "INSERT INTO sessions (token_sha256, player_id, created_at, expires_at) "
                      "VALUES (:token_sha256, :player_id, :created_at, :expires_at)",
}


def _dialect_sql(pg: bool) -> dict[str, str]:
    out = {}
    for name, sql in _SQL.items():
        sql = sql.replace("{lock}", " FOR UPDATE" if pg else "").replace("{lock_p}", " FOR UPDATE OF p" if pg else "")
        if pg:
            sql = re.sub(r":(\w+)", r"%(\1)s", sql)
        out[name] = sql
    return out


SQLITE_SQL = _dialect_sql(pg=False)
PG_SQL = _dialect_sql(pg=True)


def parse_ts(value: Any) -> datetime | None:
    """A stored timestamp as an aware UTC datetime (SQLite hands back text)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class Tx:
    """One transaction on a driver connection, running the named statements."""

    def __init__(self, cursor: Any, sqlite: bool) -> None:
        self.cursor = cursor
        self.sqlite = sqlite
        self.sql = SQLITE_SQL if sqlite else PG_SQL
        self._ts: tuple[datetime | None, Any] = (None, None)  # a request stamps several rows with one time

    def ts(self, value: datetime | None) -> Any:
        """A timestamp parameter, stored the way SQLAlchemy stores it."""
        if value is None or not self.sqlite:
            return value
        if self._ts[0] is value:
            return self._ts[1]
        text = (value.astimezone(UTC) if value.utcoffset() else value).replace(tzinfo=None).isoformat(
            " ", "microseconds")
        self._ts = (value, text)
        return text

    def run(self, name: str, params: dict[str, Any]) -> None:
        self.cursor.execute(self.sql[name], params)

    def one(self, name: str, params: dict[str, Any]) -> tuple | None:
        self.cursor.execute(self.sql[name], params)
        return self.cursor.fetchone()

    def many(self, name: str, params: list[dict[str, Any]]) -> None:
        self.cursor.executemany(self.sql[name], params)

    def all(self, name: str, params: dict[str, Any]) -> list[tuple]:
        self.cursor.execute(self.sql[name], params)
        return self.cursor.fetchall()

    def round(self, round_id: int, lock: bool = False) -> dict[str, Any] | None:
        self.cursor.execute(self.sql["round"].replace(" FOR UPDATE", "") if not lock else self.sql["round"],
                            {"id": round_id})
        row = self.cursor.fetchone()
        return None if row is None else dict(zip(ROUND_COLUMNS, row, strict=True))

    def steps(self, round_id: int, before: int | None = None) -> list[dict[str, Any]]:
        """The round's stored steps in order: all of them, or those with an index below ``before``."""
        rows = self.all("steps", {"round_id": round_id}) if before is None else \
            self.all("steps_before", {"round_id": round_id, "n": before})
        return [dict(zip(STEP_COLUMNS, row, strict=True)) for row in rows]


@contextmanager
def transaction(engine: Engine, write: bool = True) -> Iterator[Tx]:
    """A transaction on a driver connection: commit on success, roll back on any error.

    SQLite writers start with ``BEGIN IMMEDIATE`` behind the process-local
    writer lock (see :func:`reelforge.server.db.write_transaction`), on the
    process's one writer connection; readers and PostgreSQL use the pool.
    """
    sqlite = is_sqlite(engine)
    lock = getattr(engine, "info", {}).get("sqlite_write_lock") if (sqlite and write) else None
    if lock is not None:
        lock.acquire()
        try:
            writer = sqlite_writer(engine)
            cursor = writer.cursor()
            try:
                cursor.execute("BEGIN IMMEDIATE")
                yield Tx(cursor, True)
                cursor.execute("COMMIT")
            finally:
                # Whatever failed (the request, or even the COMMIT), the kept connection must not
                # stay inside a transaction.
                if writer.in_transaction:
                    cursor.execute("ROLLBACK")
                cursor.close()
        finally:
            lock.release()
        return
    conn = engine.raw_connection()
    try:
        cursor = conn.cursor()
        if sqlite:
            cursor.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield Tx(cursor, sqlite)
        except BaseException:
            if sqlite:
                cursor.execute("ROLLBACK")
            else:
                _rollback(conn)
            raise
        if sqlite:
            cursor.execute("COMMIT")
        else:
            try:
                conn.commit()
            except BaseException:
                _rollback(conn)
                raise
        cursor.close()
    finally:
        conn.close()  # back to the pool


def _rollback(conn: Any) -> None:
    """Roll back a pooled PostgreSQL connection, or, when it is gone (PostgreSQL restarted, the connection
    cut), invalidate it so the pool neither resets nor reuses it (a reset would fail and log a traceback)."""
    raw = conn.dbapi_connection
    if raw is None or getattr(raw, "broken", False) or getattr(raw, "closed", False):
        conn.invalidate()
        return
    try:
        raw.rollback()
    except Exception:  # noqa: BLE001 - it died now: the same as above
        conn.invalidate()
