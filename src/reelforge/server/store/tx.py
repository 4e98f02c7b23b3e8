"""One transaction of a money request on a driver connection (:class:`Tx`: its typed reads and writes
with the fixed SQL of :mod:`~reelforge.server.store.statements`) and how it is opened, committed and
rolled back (:func:`transaction`)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache
from operator import attrgetter
from typing import Any

from sqlalchemy import Engine

from reelforge.server.db import is_sqlite
from reelforge.server.jsontext import encoder
from reelforge.server.sqlite_writers import CommitGroup, begin_writer, inline_writer, open_group
from reelforge.server.store.rows import (
    ANSWER_COLUMNS,
    ROUND_COLUMNS,
    ROUND_TIMES,
    STEP_COLUMNS,
    STEP_TIMES,
    AnswerRecord,
    FairSeed,
    LedgerEntry,
    PlayerRow,
    RoundRow,
    SessionPlayer,
    StartReads,
    StepReads,
    StepRow,
    StoredAnswer,
    _answer,
    _round,
    _seed,
    _step,
    key_digest,
    parse_ts,
)
from reelforge.server.store.statements import POSTGRESQL, SQLITE

_round_values = attrgetter(*ROUND_COLUMNS)  # a row's column values in one call (the parameters of every write)
_step_values = attrgetter(*STEP_COLUMNS)
_STEP_CREATED, _STEP_REVEALED = STEP_TIMES
_ROUND_INSERT = SQLITE.insert_round.partition(" VALUES ")[0]  # INSERT INTO rounds (id, ...)
_ANSWER_INSERT = SQLITE.put_answer.partition(" VALUES ")[0]
_STEP_INSERT = SQLITE.insert_step.partition(" VALUES ")[0]  # INSERT INTO steps (round_id, idx, ...)
_LEDGER_INSERT = SQLITE.insert_entry.partition(" VALUES ")[0]
_json_ascii = encoder(separators=(", ", ": "), ensure_ascii=True)  # json.dumps, built once (PostgreSQL's rows)
_json_text = encoder(separators=(", ", ": "))  # json.dumps(..., ensure_ascii=False)
_MAX_PARAMETERS = 999
"""The fewest parameters one SQLite statement may have (SQLITE_MAX_VARIABLE_NUMBER before SQLite 3.32)."""


@lru_cache(maxsize=256)
def _values_sql(head: str, width: int, rows: int) -> str:
    """``head VALUES (?, ...), (?, ...)``: ``rows`` rows of ``width`` positional parameters."""
    row = "(" + ", ".join("?" * width) + ")"
    return f"{head} VALUES {', '.join([row] * rows)}"


# -- one transaction ----------------------------------------------------------------------------------
class Tx:
    """One transaction on a driver connection: the typed reads and writes of the money requests."""

    def __init__(self, cursor: Any, sqlite: bool) -> None:
        self.cursor = cursor
        self.sqlite = sqlite
        self.sql = SQLITE if sqlite else POSTGRESQL
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

    def _one(self, sql: str, params: dict[str, Any]) -> Any:
        self.cursor.execute(sql, params)
        return self.cursor.fetchone()

    def _all(self, sql: str, params: dict[str, Any]) -> list[Any]:
        self.cursor.execute(sql, params)
        return self.cursor.fetchall()

    # players and sessions
    def session(self, token_sha256: str, lock: bool = False) -> SessionPlayer | None:
        """The session's player; with ``lock`` its row locked and its balance current."""
        row = self._one(self.sql.lock_session if lock else self.sql.session, {"token": token_sha256})
        if row is None:
            return None
        return SessionPlayer(parse_ts(row[0]), row[1], row[2], bool(row[3]), row[4], parse_ts(row[5]),
                             parse_ts(row[6]), *row[7:14], *(parse_ts(v) for v in row[14:17]), row[17], row[18])

    def lock_player(self, player_id: int) -> PlayerRow | None:
        """The player, row locked for the rest of the transaction."""
        row = self._one(self.sql.lock_player, {"id": player_id})
        return None if row is None else PlayerRow(row[0], row[1], row[2], row[3], bool(row[4]), row[5])

    def player_by_name(self, name: str) -> PlayerRow | None:
        row = self._one(self.sql.player_by_name, {"name": name})
        return None if row is None else PlayerRow(row[0], row[1], row[2], row[3], bool(row[4]), row[5])

    def insert_player(self, name: str, currency: str, demo: bool, now: datetime, brand: str = "default") -> int:
        return self._one(self.sql.insert_player, {"name": name, "balance": 0, "currency": currency, "demo": demo,
                                                  "created_at": self.ts(now), "brand": brand})[0]

    def insert_session(self, token_sha256: str, player_id: int, created_at: datetime, expires_at: datetime) -> None:
        self.cursor.execute(self.sql.insert_session, {"token_sha256": token_sha256, "player_id": player_id,
                                                      "created_at": self.ts(created_at),
                                                      "expires_at": self.ts(expires_at)})

    def demo_players(self) -> int:
        return self._one(self.sql.demo_players, {})[0]

    # the player's play session (limits per player, kept across sessions)
    def _param_sql(self, text: str) -> str:
        return text if self.sqlite else re.sub(r"(?<!:):(\w+)", r"%(\1)s", text)

    def play_period(self, player_id: int) -> tuple[datetime | None, datetime | None, datetime | None,
                                                    datetime | None]:
        """The player's play session: its start, last acknowledged reality check, end, and the player's
        last round start (None where there is none)."""
        row = self._one(self._param_sql(
            "SELECT play_started_at, play_checked_at, play_ended_at, (SELECT created_at FROM rounds "
            "WHERE player_id = :id ORDER BY id DESC LIMIT 1) FROM players WHERE id = :id"), {"id": player_id})
        return tuple(parse_ts(v) for v in row)  # type: ignore[return-value]

    def set_play(self, player_id: int, **values: datetime | None) -> None:
        """Set the player's play-session columns (``play_started_at``, ``play_checked_at``, ``play_ended_at``)."""
        assigns = ", ".join(f"{name} = :{name}" for name in values)
        self.cursor.execute(self._param_sql(f"UPDATE players SET {assigns} WHERE id = :id"),
                            {"id": player_id, **{k: self.ts(v) for k, v in values.items()}})

    def play_loss(self, player_id: int, since: datetime) -> int:
        """What the player lost since ``since``: the cost of every round not void minus the wins of the
        finished ones (an unfinished round's win is not shown yet, so it counts as nothing)."""
        row = self._one(self._param_sql(
            "SELECT coalesce(sum(cost), 0) - coalesce(sum(CASE WHEN status = 'finished' THEN win ELSE 0 END), 0) "
            "FROM rounds WHERE player_id = :id AND created_at >= :since AND status <> 'void'"),
            {"id": player_id, "since": self.ts(since)})
        return int(row[0])

    def balance(self, player_id: int) -> int:
        return self._one(self.sql.balance, {"id": player_id})[0]

    # the ledger
    def post(self, player_id: int, balance: int, entries: Sequence[LedgerEntry]) -> None:
        """Store ledger entries and the player's new ``balance`` (the last entry's balance after)."""
        self.cursor.execute(self.sql.set_balance, {"balance": balance, "player_id": player_id})
        if self.sqlite:  # one INSERT for the entries (a round's stake and win)
            self._insert_rows(_LEDGER_INSERT, [(player_id, e.kind, e.amount, e.balance_after, e.round_id,
                                                self.ts(e.created_at)) for e in entries])
            return
        self.cursor.executemany(self.sql.insert_entry, [
            {"player_id": player_id, "kind": e.kind, "amount": e.amount, "balance_after": e.balance_after,
             "round_id": e.round_id, "created_at": self.ts(e.created_at)} for e in entries])

    # idempotency records
    def stored_answer(self, scope: str, key: str) -> StoredAnswer | None:
        return _answer(self._one(self.sql.stored_answer, {"scope": scope, "key": key}))

    def _answer_params(self, record: AnswerRecord) -> dict[str, Any]:
        return {"scope": record.scope, "key": record.key, "request_sha256": record.request_sha256,
                "status_code": record.status_code, "response": record.response,
                "created_at": self.ts(record.created_at), "round_id": record.round_id, "steps_at": record.steps_at,
                "steps_shown": record.steps_shown, "keep": record.keep}

    def put_answer(self, record: AnswerRecord) -> None:
        if self.sqlite:  # positional parameters: SQLite binds a name by looking it up, twice the cost
            values = (record.scope, record.key, record.request_sha256, record.status_code, record.response,
                      self.ts(record.created_at), record.round_id, record.steps_at, record.steps_shown, record.keep)
            self.cursor.execute(_values_sql(_ANSWER_INSERT, len(values), 1), values)
            return
        self.cursor.execute(self.sql.put_answer, self._answer_params(record))

    def purge_answers(self, cutoff: datetime, batch: int) -> int:
        """Purge up to ``batch`` answers stored before ``cutoff``, oldest first: deleted, but for a charging
        request's answer stored before migration 0008, which keeps only its request hash (see
        :attr:`AnswerRecord.keep`). How many."""
        rows = self._all(self.sql.purge_batch, {"cutoff": self.ts(cutoff), "n": batch})
        for keep in (False, True):
            keys = [{"scope": scope, "key": key} for scope, key, kept in rows if bool(kept) is keep]
            if keys:
                self.cursor.executemany(self.sql.blank_answer if keep else self.sql.delete_answer, keys)
        return len(rows)

    # a transfer's key, kept on its ledger entry (its answer is purged after the retention)
    def transfer_made(self, digest: str) -> bool:
        """Whether a transfer was made with the key of this SHA-256."""
        return self._one(self.sql.transfer_made, {"k": digest}) is not None

    def key_transfer(self, player_id: int, digest: str) -> None:
        """Keep the key's SHA-256 on the player's transfer just posted (the player's row is locked)."""
        self.cursor.execute(self.sql.key_transfer, {"k": digest, "p": player_id})

    # rounds and steps
    def round(self, round_id: int, lock: bool = False) -> RoundRow | None:
        row = self._one(self.sql.lock_round if lock else self.sql.round, {"id": round_id})
        return None if row is None else _round(row)

    def open_round(self, player_id: int, game: str) -> int | None:
        row = self._one(self.sql.open_round, {"player_id": player_id, "game": game})
        return None if row is None else row[0]

    def round_bet(self, round_id: int) -> int:
        return self._one(self.sql.round_bet, {"id": round_id})[0]

    def steps(self, round_id: int, before: int | None = None) -> list[StepRow]:
        """The round's stored steps in order: all of them, or those with an index below ``before``."""
        rows = self._all(self.sql.steps, {"round_id": round_id}) if before is None else \
            self._all(self.sql.steps_before, {"round_id": round_id, "n": before})
        return [_step(r) for r in rows]

    def start_reads(self, scope: str, key: str, player_id: int, game: str) -> StartReads:
        row = self._one(self.sql.start_reads, {"scope": scope, "key": key, "player_id": player_id, "game": game,
                                               "start_key": key_digest(key)})
        end = 4 + len(ANSWER_COLUMNS)
        return StartReads(_answer(row[4:end]), row[0], parse_ts(row[1]), row[2], _seed(row[end:]), row[3])

    def step_reads(self, scope: str, key: str, round_id: int, first_step: int = 0) -> StepReads:
        """The key's stored answer, the round (row locked) and its steps from index ``first_step`` up to and
        including the next one."""
        rows = self._all(self.sql.step_reads, {"scope": scope, "key": key, "round_id": round_id,
                                               "first_step": first_step})
        first = rows[0]
        a, r = len(ANSWER_COLUMNS), len(ANSWER_COLUMNS) + len(ROUND_COLUMNS)
        rnd = None if first[a] is None else _round(first[a:r])
        return StepReads(_answer(first[:a]), rnd, [_step(row[r:]) for row in rows if row[r] is not None])

    def _round_params(self, rnd: RoundRow) -> dict[str, Any]:
        params = dict(zip(ROUND_COLUMNS, _round_values(rnd), strict=True))
        params.update(created_at=self.ts(rnd.created_at), updated_at=self.ts(rnd.updated_at),
                      finished_at=self.ts(rnd.finished_at))
        return params

    def _step_params(self, round_id: int, step: StepRow) -> dict[str, Any]:
        params = dict(zip(STEP_COLUMNS, _step_values(step), strict=True))
        params.update(round_id=round_id, created_at=self.ts(step.created_at), revealed_at=self.ts(step.revealed_at))
        return params

    def insert_round(self, rnd: RoundRow) -> None:
        if self.sqlite:  # positional parameters, as put_answer
            values = list(_round_values(rnd))
            for i in ROUND_TIMES:
                values[i] = self.ts(values[i])
            self.cursor.execute(_values_sql(_ROUND_INSERT, len(values), 1), values)
            return
        self.cursor.execute(self.sql.insert_round, self._round_params(rnd))

    def insert_steps(self, round_id: int, steps: Sequence[StepRow]) -> None:
        if self.sqlite:  # one INSERT for a round's steps (up to _MAX_PARAMETERS parameters each)
            rows = []
            for step in steps:
                values = list(_step_values(step))
                values[_STEP_CREATED], values[_STEP_REVEALED] = self.ts(step.created_at), self.ts(step.revealed_at)
                rows.append((round_id, *values))
            self._insert_rows(_STEP_INSERT, rows)
            return
        self.cursor.executemany(self.sql.insert_step, [self._step_params(round_id, s) for s in steps])

    def _insert_rows(self, head: str, rows: list[tuple[Any, ...]]) -> None:
        """SQLite: insert ``rows`` (each a tuple of the columns ``head`` names) with one multi-row ``INSERT``
        (for more than :data:`_MAX_PARAMETERS` parameters, one per that many): the rows and ids
        ``executemany`` would store, in one statement instead of one per row."""
        if not rows:
            return
        width = len(rows[0])
        per = max(1, _MAX_PARAMETERS // width)
        for first in range(0, len(rows), per):
            chunk = rows[first:first + per]
            self.cursor.execute(_values_sql(head, width, len(chunk)), [v for row in chunk for v in row])

    def update_round(self, rnd: RoundRow) -> None:
        self.cursor.execute(self.sql.update_round, self._round_params(rnd))

    def reveal_step(self, round_id: int, idx: int, at: datetime, action: str | None) -> None:
        self.cursor.execute(self.sql.reveal_step, {"round_id": round_id, "idx": idx, "revealed_at": self.ts(at),
                                                   "action": action})

    def reveal_rest(self, round_id: int, at: datetime) -> None:
        self.cursor.execute(self.sql.reveal_rest, {"round_id": round_id, "revealed_at": self.ts(at)})

    def _pg_write_params(self, rnd: RoundRow, balance: int, entries: Sequence[LedgerEntry],
                         answer: AnswerRecord) -> dict[str, Any]:
        params = self._answer_params(answer) | self._round_params(rnd)
        params.update(answer_created_at=answer.created_at, balance=balance, entries=_json_ascii([
            {"player_id": rnd.player_id, "kind": e.kind, "amount": e.amount, "balance_after": e.balance_after,
             "round_id": e.round_id, "created_at": e.created_at.isoformat()} for e in entries]))
        return params

    def write_start(self, rnd: RoundRow, steps: Sequence[StepRow], balance: int, entries: Sequence[LedgerEntry],
                    answer: AnswerRecord) -> None:
        """Store a new round (``rnd.id`` from :meth:`start_reads`), its steps, its ledger entries with the
        player's new ``balance``, and the request's answer."""
        if self.sqlite:
            self.insert_round(rnd)
            if rnd.fair_seed_id is not None:
                self.cursor.execute(self.sql.use_seed, {"fair_seed_id": rnd.fair_seed_id})
            self.post(rnd.player_id, balance, entries)
            self.insert_steps(rnd.id, steps)
            self.put_answer(answer)
            return
        params = self._pg_write_params(rnd, balance, entries, answer)
        params["steps"] = _json_text([{"round_id": rnd.id, "idx": s.idx, "kind": s.kind, "action": s.action,
                                       "draws": s.draws, "events": s.events, "win_x": s.win_x,
                                       "total_win_x": s.total_win_x, "finished": s.finished,
                                       "next_step": s.next_step, "state": s.state,
                                       "created_at": s.created_at.isoformat(),
                                       "revealed_at": s.revealed_at and s.revealed_at.isoformat(),
                                       "ranges": s.ranges} for s in steps])
        self.cursor.execute(self.sql.write_start, params)

    def write_step(self, rnd: RoundRow, step: StepRow, balance: int, entries: Sequence[LedgerEntry],
                   answer: AnswerRecord) -> None:
        """Store a revealed step (``step.revealed_at``, ``step.action``), the round after it, its ledger
        entries with the player's new ``balance``, and the request's answer."""
        if self.sqlite:
            self.reveal_step(rnd.id, step.idx, step.revealed_at, step.action)
            self.update_round(rnd)
            if entries:
                self.post(rnd.player_id, balance, entries)
            self.put_answer(answer)
            return
        params = self._pg_write_params(rnd, balance, entries, answer)
        params.update(idx=step.idx, revealed_at=step.revealed_at, action=step.action)
        self.cursor.execute(self.sql.write_step, params)

    # provably fair seed pairs (docs/FAIRNESS.md); the caller holds the player's row lock
    def active_seed(self, player_id: int) -> FairSeed | None:
        return _seed(self._one(self.sql.active_seed, {"player_id": player_id}))

    def insert_seed(self, player_id: int, server_seed: str, server_seed_sha256: str, client_seed: str,
                    now: datetime) -> FairSeed:
        """Store a new active seed pair (nonce 0)."""
        seed_id = self._one(self.sql.insert_seed, {
            "player_id": player_id, "server_seed": server_seed, "server_seed_sha256": server_seed_sha256,
            "client_seed": client_seed, "created_at": self.ts(now)})[0]
        return FairSeed(seed_id, server_seed, server_seed_sha256, client_seed, 0)

    def reveal_seed(self, seed_id: int, now: datetime) -> None:
        self.cursor.execute(self.sql.reveal_seed, {"id": seed_id, "revealed_at": self.ts(now)})

    def revealed_seed(self, seed_id: int) -> str | None:
        """The server seed of a seed pair once revealed (None while it is active)."""
        row = self._one(self.sql.revealed_seed, {"id": seed_id})
        return None if row is None else row[0]

    def player_open_round(self, player_id: int) -> tuple[int, str] | None:
        """``(round id, game)`` of one of the player's unfinished rounds, any game (None: none)."""
        row = self._one(self.sql.player_open_round, {"player_id": player_id})
        return None if row is None else (row[0], row[1])


@contextmanager
def transaction(engine: Engine, write: bool = True) -> Iterator[Tx]:
    """A transaction on a driver connection: commit on success, roll back on any error.

    SQLite writers start with ``BEGIN IMMEDIATE`` behind the process-local
    writer lock (see :func:`reelforge.server.db.write_transaction`), on the
    process's one writer connection; inside :func:`~reelforge.server.sqlite_writers.run_inline`
    (the event loop's requests) a writer is a savepoint of the loop's commit group
    instead (:class:`~reelforge.server.sqlite_writers.CommitGroup`). Readers and PostgreSQL use the pool.
    """
    sqlite = is_sqlite(engine)
    lock = getattr(engine, "info", {}).get("sqlite_write_lock") if (sqlite and write) else None
    if lock is not None and inline_writer():
        yield from _in_group(open_group(engine))
        return
    if lock is not None:
        lock, writer, cursor = begin_writer(engine)
        try:
            yield Tx(cursor, True)
            cursor.execute("COMMIT")
            engine.info["sqlite_commits"].add(1)
        finally:
            try:
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
                _rollback(engine, conn)
            raise
        if sqlite:
            cursor.execute("COMMIT")
        else:
            try:
                conn.commit()
            except BaseException:
                _rollback(engine, conn)
                raise
        cursor.close()
    finally:
        conn.close()  # back to the pool


def _in_group(group: CommitGroup) -> Iterator[Tx]:
    """A transaction in the event loop's commit group. The group's first is the transaction itself (a lone
    request runs the statements it ran before groups, and a failure rolls the group back and closes it); each
    later one is a savepoint, released when the block succeeds and rolled back to when it fails. An error that
    ended the whole transaction (SQLite rolls back by itself on some I/O and memory errors) fails the group at
    once: its other members' work went with it."""
    cursor = group.cursor
    first = group.members == 1
    if not first:
        cursor.execute("SAVEPOINT request")
    group.busy = True
    try:
        yield Tx(cursor, True)
    except BaseException as exc:
        group.busy = False
        if first:
            group.abandon()
            raise
        try:
            if group.writer.in_transaction:
                cursor.execute("ROLLBACK TO request")
                cursor.execute("RELEASE request")
            else:
                group.finish(exc)
        except BaseException as undo:  # noqa: BLE001 - the savepoint could not be undone: nothing of the group stays
            group.finish(undo)
        raise
    group.busy = False
    if not first:
        cursor.execute("RELEASE request")


def _rollback(engine: Engine, conn: Any) -> None:
    """Roll back a pooled PostgreSQL connection, or, when it is gone (PostgreSQL restarted, the connection
    cut), invalidate it so the pool neither resets nor reuses it (a reset would fail and log a traceback),
    and replace the pool: its other connections date from before too (the pool does not ping them)."""
    raw = conn.dbapi_connection
    try:
        if raw is not None and not getattr(raw, "broken", False) and not getattr(raw, "closed", False):
            raw.rollback()
            return
    except Exception:  # noqa: BLE001 - it died now: the same as below
        pass
    conn.invalidate()
    engine.dispose(close=False)
