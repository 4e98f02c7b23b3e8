"""The server's data access for rounds, steps, the ledger, idempotency records and sessions: typed rows
(dataclasses) in, typed rows out, one transaction (:class:`Tx`) per request.

The money requests' statements are fixed SQL, written once per back end
when this module loads, and run on the driver's connection: raw SQL there is
measurably faster than SQLAlchemy Core (on SQLite, 5.4 us of CPU per
statement against 9.0 us for the same select through a Core connection,
built once or each time, SQLAlchemy 2.0; some 20 us per money request of 4-6
statements, about 4% of its CPU). The reads that are not on the money path
(history, ledger pages, the session's position, expiry scans, audit replay)
use SQLAlchemy Core on the same tables (:mod:`reelforge.server.schema`), at
the end of this module.

A money request is three statements on PostgreSQL, whatever its shape: the
row lock (the session's player, ``FOR UPDATE``), one read of everything the
request decides on (its idempotency record, the round and its steps, or the
open round and a new round id), and one write (a data-modifying ``WITH``
statement that stores the round, its steps, the ledger entries, the balance
and the idempotency record together), then COMMIT. The read runs after the
lock is held, so a concurrent retry of the same request waits for the first
and then finds its stored answer (READ COMMITTED: each statement sees what
committed before it began). SQLite, in process and without round trips,
runs the same reads and writes as separate plain statements inside
``BEGIN IMMEDIATE`` (which already holds the database's write lock).

Timestamps are written as SQLAlchemy writes them: ISO text without offset on
SQLite (always UTC), ``timestamptz`` on PostgreSQL; rows hand them back as
aware UTC datetimes.

Over 500 lines on purpose: every statement the server runs is here, in one
place, beside the rows it reads and writes (rows, statements per back end,
the transaction, the Core reads, in that order).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, select, update

from reelforge.server.clock import parse_ts
from reelforge.server.db import (
    acquire_writer_lock,
    begin_immediate,
    is_sqlite,
    read_transaction,
    sqlite_writer,
    write_transaction,
)
from reelforge.server.schema import fair_seeds, ledger, players, rounds, server_keys, sessions, steps


# -- rows -------------------------------------------------------------------------------------------
@dataclass(slots=True)
class RoundRow:
    """A round as stored (``state`` is JSON text; amounts in minor units; ``total_win_x`` a fraction)."""

    id: int
    player_id: int
    game: str
    build: str
    mode: str
    bet: int
    requested_bet: int
    cost: int
    status: str
    state: str
    next_step: str | None
    step_count: int
    total_win_x: str
    win: int
    void_reason: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    completed_on_expiry: bool
    build_version: str
    """The version of ``build`` the round is played with (its maths: replayed and finished with it)."""
    build_hash: str | None
    """That version's content hash (None: recorded before versions, for a build migration 0003 did not know)."""
    # provably fair rounds (docs/FAIRNESS.md): the seed pair drawn from, as it was at the stake; None: CSPRNG
    fair_seed_id: int | None = None
    fair_nonce: int | None = None
    fair_server_seed_sha256: str | None = None
    fair_client_seed: str | None = None


@dataclass(slots=True)
class StepRow:
    """A step as stored: its draws, events and state as JSON text; ``revealed_at`` None until shown."""

    idx: int
    kind: str
    action: str | None
    draws: str
    events: str
    win_x: str
    total_win_x: str
    finished: bool
    next_step: str | None
    state: str
    created_at: datetime
    revealed_at: datetime | None
    ranges: str | None = None
    """Provably fair steps: the range of each draw (JSON text); None otherwise."""


@dataclass(frozen=True, slots=True)
class FairSeed:
    """A provably fair seed pair (``server_seed`` secret while ``revealed_at`` is None)."""

    id: int
    server_seed: str
    server_seed_sha256: str
    client_seed: str
    next_nonce: int


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One balance change (``amount`` signed minor units) and the balance after it."""

    kind: str
    amount: int
    balance_after: int
    round_id: int | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """An idempotency record: the request's hash and its first answer (a round answer without its
    steps: the first ``steps_shown`` steps of ``round_id`` go back in at character ``steps_at``)."""

    request_sha256: str
    status_code: int
    response: str
    round_id: int | None
    steps_at: int | None
    steps_shown: int | None


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """An answer to store under an idempotency key (see :class:`StoredAnswer`)."""

    scope: str
    key: str
    request_sha256: str
    status_code: int
    response: str
    created_at: datetime
    round_id: int | None = None
    steps_at: int | None = None
    steps_shown: int | None = None

    @property
    def keep(self) -> bool:
        """Whether the key outlives its answer's retention: a round start's (201) or a transfer's key (they
        charge money: a retry after the retention must be refused, not carried out again); a step's key is
        deleted then (revealing a decided step charges nothing)."""
        return self.round_id is None or self.status_code == 201


@dataclass(frozen=True, slots=True)
class SessionPlayer:
    """A session token's player (``balance`` current only when read with the row lock), with the session's
    start and its last acknowledged reality check (None: none yet)."""

    expires_at: datetime
    player_id: int
    name: str
    demo: bool
    balance: int
    started_at: datetime
    reality_checked_at: datetime | None
    currency: str = "EUR"
    profile: str | None = None
    """A launched session's jurisdiction profile (None: the server's configuration)."""
    min_bet: int | None = None
    max_bet: int | None = None
    wallet_balance: int | None = None
    """Seamless wallet: the balance the operator's wallet last reported."""
    language: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerRow:
    id: int
    name: str
    balance: int
    currency: str
    demo: bool


@dataclass(frozen=True, slots=True)
class StartReads:
    """What starting a round decides on: the key's stored answer, the game's open round, the
    player's last round start, and the id the new round will have."""

    stored: StoredAnswer | None
    open_round: int | None
    last_start: datetime | None
    new_round_id: int
    fair_seed: FairSeed | None = None
    """The player's active provably fair seed pair (None: none yet)."""


@dataclass(frozen=True, slots=True)
class StepReads:
    """What playing a step decides on: the key's stored answer, the round (row locked) and its steps
    up to and including the next one."""

    stored: StoredAnswer | None
    round: RoundRow | None
    steps: list[StepRow]


ROUND_COLUMNS = tuple(f.name for f in fields(RoundRow))
STEP_COLUMNS = tuple(f.name for f in fields(StepRow))
ANSWER_COLUMNS = tuple(f.name for f in fields(StoredAnswer))
SEED_COLUMNS = tuple(f.name for f in fields(FairSeed))
_ROUND_TIMES = tuple(ROUND_COLUMNS.index(c) for c in ("created_at", "updated_at", "finished_at"))
_STEP_TIMES = tuple(STEP_COLUMNS.index(c) for c in ("created_at", "revealed_at"))


def _round(values: Sequence[Any]) -> RoundRow:
    row = RoundRow(*values)
    row.created_at, row.updated_at, row.finished_at = (parse_ts(values[i]) for i in _ROUND_TIMES)
    row.completed_on_expiry = bool(row.completed_on_expiry)
    return row


def _step(values: Sequence[Any]) -> StepRow:
    row = StepRow(*values)
    row.created_at, row.revealed_at = (parse_ts(values[i]) for i in _STEP_TIMES)
    row.finished = bool(row.finished)
    return row


def _answer(values: Sequence[Any]) -> StoredAnswer | None:
    return None if values[0] is None else StoredAnswer(*values)


def _seed(values: Sequence[Any] | None) -> FairSeed | None:
    return None if values is None or values[0] is None else FairSeed(*values)


# -- statements ----------------------------------------------------------------------------------------
def _cols(names: Sequence[str], prefix: str = "") -> str:
    return ", ".join(prefix + n for n in names)


_ROUND_INSERT_COLUMNS = _cols(ROUND_COLUMNS)
_STEP_INSERT_COLUMNS = "round_id, " + _cols(STEP_COLUMNS)
_LEDGER_COLUMNS = "player_id, kind, amount, balance_after, round_id, created_at"
_ANSWER_INSERT_COLUMNS = ("scope, key, request_sha256, status_code, response, created_at, round_id, steps_at, "
                          "steps_shown, keep")


@dataclass(frozen=True)
class Statements:
    """The SQL of one back end (``:name`` parameters on SQLite, ``%(name)s`` on PostgreSQL)."""

    session: str
    lock_session: str
    lock_player: str
    player_by_name: str
    insert_player: str
    insert_session: str
    demo_players: str
    start_reads: str
    step_reads: str
    stored_answer: str
    put_answer: str
    purge_batch: str
    delete_answer: str
    blank_answer: str
    round: str
    lock_round: str
    open_round: str
    steps: str
    steps_before: str
    round_bet: str
    balance: str
    insert_round: str
    insert_step: str
    update_round: str
    reveal_step: str
    reveal_rest: str
    set_balance: str
    insert_entry: str
    active_seed: str
    insert_seed: str
    reveal_seed: str
    revealed_seed: str
    use_seed: str
    player_open_round: str
    write_start: str | None  # PostgreSQL: one statement for everything starting a round stores
    write_step: str | None  # PostgreSQL: one statement for everything revealing a step stores

    @classmethod
    def of(cls, pg: bool) -> Statements:
        lock = " FOR UPDATE" if pg else ""
        new_id = "nextval(pg_get_serial_sequence('rounds', 'id'))" if pg else \
            "(SELECT coalesce(max(id), 0) + 1 FROM rounds)"  # what SQLite assigns (no AUTOINCREMENT), under its write lock
        answer_of = "SELECT " + _cols(ANSWER_COLUMNS, "i.") + " FROM (SELECT 1) AS one LEFT JOIN idempotency i " \
                    "ON i.scope = :scope AND i.key = :key"
        sql = {
            "session": "SELECT s.expires_at, p.id, p.name, p.demo, p.balance, s.created_at, s.reality_checked_at, "
                       "p.currency, s.profile, s.min_bet, s.max_bet, p.wallet_balance, s.language "
                       "FROM sessions s JOIN players p ON p.id = s.player_id WHERE s.token_sha256 = :token",
            "lock_player": f"SELECT id, name, balance, currency, demo FROM players WHERE id = :id{lock}",
            "player_by_name": "SELECT id, name, balance, currency, demo FROM players WHERE name = :name",
            "insert_player": "INSERT INTO players (name, balance, currency, demo, created_at) "
                             "VALUES (:name, :balance, :currency, :demo, :created_at) RETURNING id",
            "insert_session": "INSERT INTO sessions (token_sha256, player_id, created_at, expires_at) "
                              "VALUES (:token_sha256, :player_id, :created_at, :expires_at)",
            "demo_players": "SELECT count(*) FROM players WHERE demo",
            # Read after the lock is held (see the module docstring): the stored answer, the open round of
            # the game, the player's last round start (ids grow with time under the player's lock), a new id.
            # and the player's active provably fair seed pair.
            "start_reads": answer_of.replace("SELECT ", "SELECT (SELECT id FROM rounds WHERE player_id = :player_id "
                                             "AND game = :game AND status = 'open'), (SELECT created_at FROM rounds "
                                             "WHERE player_id = :player_id ORDER BY id DESC LIMIT 1), "
                                             f"{new_id}, ", 1).replace(" FROM (SELECT 1) AS one",
                                                                f", {_cols(SEED_COLUMNS, 'f.')} FROM (SELECT 1) AS one")
                           + " LEFT JOIN fair_seeds f ON f.player_id = :player_id AND f.revealed_at IS NULL",
            # The stored answer, the round (row locked) and its steps up to the next one, in one result: a row
            # per step (at least one row, the stored answer's, even when the round does not exist).
            "step_reads": f"WITH r AS (SELECT {_ROUND_INSERT_COLUMNS} FROM rounds WHERE id = :round_id{lock}) "
                          f"SELECT {_cols(ANSWER_COLUMNS, 'i.')}, {_cols(ROUND_COLUMNS, 'r.')}, "
                          f"{_cols(STEP_COLUMNS, 's.')} FROM (SELECT 1) AS one "
                          "LEFT JOIN idempotency i ON i.scope = :scope AND i.key = :key LEFT JOIN r ON true "
                          "LEFT JOIN steps s ON s.round_id = r.id AND s.idx <= r.step_count ORDER BY s.idx",
            "stored_answer": answer_of,
            "put_answer": f"INSERT INTO idempotency ({_ANSWER_INSERT_COLUMNS}) VALUES (:scope, :key, :request_sha256, "
                          ":status_code, :response, :created_at, :round_id, :steps_at, :steps_shown, :keep)",
            # The purge's work, oldest first, from the index of the answers not yet purged (ix_idempotency_unpurged).
            "purge_batch": "SELECT scope, key, keep FROM idempotency WHERE response <> '' AND created_at < :cutoff "
                           "ORDER BY created_at LIMIT :n",
            "delete_answer": "DELETE FROM idempotency WHERE scope = :scope AND key = :key",
            "blank_answer": "UPDATE idempotency SET response = '', round_id = NULL, steps_at = NULL, "
                            "steps_shown = NULL WHERE scope = :scope AND key = :key",
            "round": f"SELECT {_ROUND_INSERT_COLUMNS} FROM rounds WHERE id = :id",
            "lock_round": f"SELECT {_ROUND_INSERT_COLUMNS} FROM rounds WHERE id = :id{lock}",
            "open_round": "SELECT id FROM rounds WHERE player_id = :player_id AND game = :game AND status = 'open'",
            "steps": f"SELECT {_cols(STEP_COLUMNS)} FROM steps WHERE round_id = :round_id ORDER BY idx",
            "steps_before": f"SELECT {_cols(STEP_COLUMNS)} FROM steps WHERE round_id = :round_id AND idx < :n "
                            "ORDER BY idx",
            "round_bet": "SELECT bet FROM rounds WHERE id = :id",
            "balance": "SELECT balance FROM players WHERE id = :id",
            "insert_round": f"INSERT INTO rounds ({_ROUND_INSERT_COLUMNS}) VALUES "
                            f"({_cols(ROUND_COLUMNS, ':')})",
            "insert_step": f"INSERT INTO steps ({_STEP_INSERT_COLUMNS}) VALUES (:round_id, {_cols(STEP_COLUMNS, ':')})",
            "update_round": "UPDATE rounds SET status = :status, state = :state, next_step = :next_step, "
                            "step_count = :step_count, total_win_x = :total_win_x, win = :win, "
                            "void_reason = :void_reason, updated_at = :updated_at, finished_at = :finished_at, "
                            "completed_on_expiry = :completed_on_expiry WHERE id = :id",
            "reveal_step": "UPDATE steps SET revealed_at = :revealed_at, action = :action WHERE round_id = :round_id "
                           "AND idx = :idx AND revealed_at IS NULL",
            "reveal_rest": "UPDATE steps SET revealed_at = :revealed_at WHERE round_id = :round_id "
                           "AND revealed_at IS NULL",
            "set_balance": "UPDATE players SET balance = :balance WHERE id = :player_id",
            "insert_entry": f"INSERT INTO ledger ({_LEDGER_COLUMNS}) VALUES (:player_id, :kind, :amount, "
                            ":balance_after, :round_id, :created_at)",
            # provably fair seed pairs (the player's row is locked by the request: no lock of their own)
            "active_seed": f"SELECT {_cols(SEED_COLUMNS)} FROM fair_seeds WHERE player_id = :player_id "
                           "AND revealed_at IS NULL",
            "insert_seed": "INSERT INTO fair_seeds (player_id, server_seed, server_seed_sha256, client_seed, next_nonce, "
                           "created_at) VALUES (:player_id, :server_seed, :server_seed_sha256, :client_seed, 0, "
                           ":created_at) RETURNING id",
            "reveal_seed": "UPDATE fair_seeds SET revealed_at = :revealed_at WHERE id = :id AND revealed_at IS NULL",
            "revealed_seed": "SELECT server_seed FROM fair_seeds WHERE id = :id AND revealed_at IS NOT NULL",
            "use_seed": "UPDATE fair_seeds SET next_nonce = next_nonce + 1 WHERE id = :fair_seed_id",
            "player_open_round": "SELECT id, game FROM rounds WHERE player_id = :player_id AND status = 'open' "
                                 "ORDER BY id LIMIT 1",
            "write_start": None, "write_step": None,
        }
        sql["lock_session"] = sql["session"] + (" FOR UPDATE OF p" if pg else "")
        if pg:
            # Several rows in one statement as one JSON parameter: the SQL text is the same for any count, and
            # json.dumps costs far less than psycopg's adaptation of Python lists to arrays (about 0.3 ms
            # per request for the dozen arrays of a round start, measured with cProfile).
            entries = (f"l AS (INSERT INTO ledger ({_LEDGER_COLUMNS}) SELECT {_LEDGER_COLUMNS} FROM "
                       "json_populate_recordset(NULL::ledger, :entries::json)), "
                       "p AS (UPDATE players SET balance = :balance WHERE id = :player_id AND balance <> :balance) ")
            answer = sql["put_answer"].replace(":created_at", ":answer_created_at")  # the round has a created_at
            sql["write_start"] = (  # f: the round's nonce used (no row when it is not provably fair)
                f"WITH r AS ({sql['insert_round']}), f AS ({sql['use_seed']}), "
                f"s AS (INSERT INTO steps ({_STEP_INSERT_COLUMNS}) SELECT {_STEP_INSERT_COLUMNS} FROM "
                "json_populate_recordset(NULL::steps, :steps::json)), "
                f"{entries}{answer}")
            sql["write_step"] = (
                f"WITH s AS ({sql['reveal_step'].replace(':round_id', ':id')}), r AS ({sql['update_round']}), "
                f"{entries}{answer}")
            sql = {k: v and re.sub(r"(?<!:):(\w+)", r"%(\1)s", v) for k, v in sql.items()}
        return cls(**sql)


SQLITE = Statements.of(pg=False)
POSTGRESQL = Statements.of(pg=True)


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
        return None if row is None else SessionPlayer(parse_ts(row[0]), row[1], row[2], bool(row[3]), row[4],
                                                      parse_ts(row[5]), parse_ts(row[6]), *row[7:])

    def lock_player(self, player_id: int) -> PlayerRow | None:
        """The player, row locked for the rest of the transaction."""
        row = self._one(self.sql.lock_player, {"id": player_id})
        return None if row is None else PlayerRow(row[0], row[1], row[2], row[3], bool(row[4]))

    def player_by_name(self, name: str) -> PlayerRow | None:
        row = self._one(self.sql.player_by_name, {"name": name})
        return None if row is None else PlayerRow(row[0], row[1], row[2], row[3], bool(row[4]))

    def insert_player(self, name: str, currency: str, demo: bool, now: datetime) -> int:
        return self._one(self.sql.insert_player, {"name": name, "balance": 0, "currency": currency, "demo": demo,
                                                  "created_at": self.ts(now)})[0]

    def insert_session(self, token_sha256: str, player_id: int, created_at: datetime, expires_at: datetime) -> None:
        self.cursor.execute(self.sql.insert_session, {"token_sha256": token_sha256, "player_id": player_id,
                                                      "created_at": self.ts(created_at),
                                                      "expires_at": self.ts(expires_at)})

    def demo_players(self) -> int:
        return self._one(self.sql.demo_players, {})[0]

    def balance(self, player_id: int) -> int:
        return self._one(self.sql.balance, {"id": player_id})[0]

    # the ledger
    def post(self, player_id: int, balance: int, entries: Sequence[LedgerEntry]) -> None:
        """Store ledger entries and the player's new ``balance`` (the last entry's balance after)."""
        self.cursor.execute(self.sql.set_balance, {"balance": balance, "player_id": player_id})
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
        self.cursor.execute(self.sql.put_answer, self._answer_params(record))

    def purge_answers(self, cutoff: datetime, batch: int) -> int:
        """Purge up to ``batch`` answers stored before ``cutoff``, oldest first: a step's key is deleted, a
        charging request's key keeps only its request hash (see :attr:`AnswerRecord.keep`). How many."""
        rows = self._all(self.sql.purge_batch, {"cutoff": self.ts(cutoff), "n": batch})
        for keep in (False, True):
            keys = [{"scope": scope, "key": key} for scope, key, kept in rows if bool(kept) is keep]
            if keys:
                self.cursor.executemany(self.sql.blank_answer if keep else self.sql.delete_answer, keys)
        return len(rows)

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
        row = self._one(self.sql.start_reads, {"scope": scope, "key": key, "player_id": player_id, "game": game})
        end = 3 + len(ANSWER_COLUMNS)
        return StartReads(_answer(row[3:end]), row[0], parse_ts(row[1]), row[2], _seed(row[end:]))

    def step_reads(self, scope: str, key: str, round_id: int) -> StepReads:
        rows = self._all(self.sql.step_reads, {"scope": scope, "key": key, "round_id": round_id})
        first = rows[0]
        a, r = len(ANSWER_COLUMNS), len(ANSWER_COLUMNS) + len(ROUND_COLUMNS)
        rnd = None if first[a] is None else _round(first[a:r])
        return StepReads(_answer(first[:a]), rnd, [_step(row[r:]) for row in rows if row[r] is not None])

    def _round_params(self, rnd: RoundRow) -> dict[str, Any]:
        params = {name: getattr(rnd, name) for name in ROUND_COLUMNS}
        for name in ("created_at", "updated_at", "finished_at"):
            params[name] = self.ts(params[name])
        return params

    def _step_params(self, round_id: int, step: StepRow) -> dict[str, Any]:
        params = {name: getattr(step, name) for name in STEP_COLUMNS}
        params.update(round_id=round_id, created_at=self.ts(step.created_at), revealed_at=self.ts(step.revealed_at))
        return params

    def insert_round(self, rnd: RoundRow) -> None:
        self.cursor.execute(self.sql.insert_round, self._round_params(rnd))

    def insert_steps(self, round_id: int, steps: Sequence[StepRow]) -> None:
        self.cursor.executemany(self.sql.insert_step, [self._step_params(round_id, s) for s in steps])

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
        params.update(answer_created_at=answer.created_at, balance=balance, entries=json.dumps([
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
        params["steps"] = json.dumps([{"round_id": rnd.id, "idx": s.idx, "kind": s.kind, "action": s.action,
                                       "draws": s.draws, "events": s.events, "win_x": s.win_x,
                                       "total_win_x": s.total_win_x, "finished": s.finished,
                                       "next_step": s.next_step, "state": s.state,
                                       "created_at": s.created_at.isoformat(),
                                       "revealed_at": s.revealed_at and s.revealed_at.isoformat(),
                                       "ranges": s.ranges} for s in steps],
                                     ensure_ascii=False)
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
    process's one writer connection; readers and PostgreSQL use the pool.
    """
    sqlite = is_sqlite(engine)
    lock = getattr(engine, "info", {}).get("sqlite_write_lock") if (sqlite and write) else None
    if lock is not None:
        lock = acquire_writer_lock(engine)
        try:
            writer = sqlite_writer(engine)
            cursor = writer.cursor()
            try:
                begin_immediate(engine, cursor)
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


# -- reads off the money path (SQLAlchemy Core) -------------------------------------------------------
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
    """Record that the session's player acknowledged a reality check at ``at``."""
    with write_transaction(engine) as conn:
        conn.execute(update(sessions).where(sessions.c.token_sha256 == token_sha256)
                     .values(reality_checked_at=at))


def round_ids_key(engine: Engine) -> bytes:
    """The server's secret key of public round ids (made by the migration ``0004_fair_share``)."""
    with read_transaction(engine) as conn:
        return bytes.fromhex(conn.execute(select(server_keys.c.value)
                                          .where(server_keys.c.name == "round_ids")).scalar_one())
