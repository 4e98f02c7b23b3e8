"""The money requests' SQL, written once per back end when the data-access layer loads (``:name``
parameters on SQLite, ``%(name)s`` on PostgreSQL; on PostgreSQL a start's and a step's writes are
one data-modifying ``WITH`` statement each)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from reelforge.server.store.rows import ANSWER_COLUMNS, ROUND_COLUMNS, SEED_COLUMNS, STEP_COLUMNS


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
    transfer_made: str
    key_transfer: str
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
                       "p.currency, s.profile, s.min_bet, s.max_bet, p.wallet_balance, s.language, p.brand, "
                       "p.play_started_at, p.play_checked_at, p.play_ended_at, s.limits, s.game "
                       "FROM sessions s JOIN players p ON p.id = s.player_id WHERE s.token_sha256 = :token",
            "lock_player": f"SELECT id, name, balance, currency, demo, brand FROM players WHERE id = :id{lock}",
            "player_by_name": "SELECT id, name, balance, currency, demo, brand FROM players WHERE name = :name",
            "insert_player": "INSERT INTO players (name, balance, currency, demo, created_at, brand) "
                             "VALUES (:name, :balance, :currency, :demo, :created_at, :brand) RETURNING id",
            "insert_session": "INSERT INTO sessions (token_sha256, player_id, created_at, expires_at) "
                              "VALUES (:token_sha256, :player_id, :created_at, :expires_at)",
            "demo_players": "SELECT count(*) FROM players WHERE demo",
            # Read after the lock is held (see the module docstring): the stored answer, the open round of
            # the game, the player's last round start (ids grow with time under the player's lock), a new id,
            # the round this key already started (its answer purged after the retention) and the player's
            # active provably fair seed pair.
            "start_reads": answer_of.replace("SELECT ", "SELECT (SELECT id FROM rounds WHERE player_id = :player_id "
                                             "AND game = :game AND status = 'open'), (SELECT created_at FROM rounds "
                                             "WHERE player_id = :player_id ORDER BY id DESC LIMIT 1), "
                                             f"{new_id}, (SELECT id FROM rounds WHERE player_id = :player_id "
                                             "AND start_key = :start_key), ", 1).replace(" FROM (SELECT 1) AS one",
                                                                f", {_cols(SEED_COLUMNS, 'f.')} FROM (SELECT 1) AS one")
                           + " LEFT JOIN fair_seeds f ON f.player_id = :player_id AND f.revealed_at IS NULL",
            # The stored answer, the round (row locked) and its steps up to the next one (from :first_step: the
            # steps before it this process showed last, see round_json.ShownSteps), in one result: a row per
            # step (at least one row, the stored answer's, even when the round does not exist).
            "step_reads": f"WITH r AS (SELECT {_ROUND_INSERT_COLUMNS} FROM rounds WHERE id = :round_id{lock}) "
                          f"SELECT {_cols(ANSWER_COLUMNS, 'i.')}, {_cols(ROUND_COLUMNS, 'r.')}, "
                          f"{_cols(STEP_COLUMNS, 's.')} FROM (SELECT 1) AS one "
                          "LEFT JOIN idempotency i ON i.scope = :scope AND i.key = :key LEFT JOIN r ON true "
                          "LEFT JOIN steps s ON s.round_id = r.id AND s.idx <= r.step_count AND s.idx >= :first_step "
                          "ORDER BY s.idx",
            "stored_answer": answer_of,
            "put_answer": f"INSERT INTO idempotency ({_ANSWER_INSERT_COLUMNS}) VALUES (:scope, :key, :request_sha256, "
                          ":status_code, :response, :created_at, :round_id, :steps_at, :steps_shown, :keep)",
            # The purge's work, oldest first, from the index of the answers not yet purged (ix_idempotency_unpurged).
            "purge_batch": "SELECT scope, key, keep FROM idempotency WHERE response <> '' AND created_at < :cutoff "
                           "ORDER BY created_at LIMIT :n",
            "delete_answer": "DELETE FROM idempotency WHERE scope = :scope AND key = :key",
            "transfer_made": "SELECT 1 FROM ledger WHERE transfer_key = :k",
            "key_transfer": "UPDATE ledger SET transfer_key = :k WHERE id = (SELECT max(id) FROM ledger "
                            "WHERE player_id = :p)",
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
