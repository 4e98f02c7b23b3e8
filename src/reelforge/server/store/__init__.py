"""The server's data access for rounds, steps, the ledger, idempotency records and sessions: typed rows
(dataclasses) in, typed rows out, one transaction (:class:`Tx`) per request.

The money requests' statements are fixed SQL, written once per back end
when this module loads, and run on the driver's connection: raw SQL there is
measurably faster than SQLAlchemy Core (on SQLite, 5.4 us of CPU per
statement against 9.0 us for the same select through a Core connection,
built once or each time, SQLAlchemy 2.0; some 20 us per money request of 4-6
statements, about 4% of its CPU). The reads that are not on the money path
(history, ledger pages, the session's position, expiry scans, audit replay)
use SQLAlchemy Core on the same tables (:mod:`reelforge.server.schema`), in
:mod:`~reelforge.server.store.reads`.

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
``BEGIN IMMEDIATE`` (which already holds the database's write lock); on the
server's event loop each request's transaction is a savepoint of the turn's
commit group (:class:`reelforge.server.sqlite_writers.CommitGroup`), whose one COMMIT
serves every request of the turn.

Timestamps are written as SQLAlchemy writes them: ISO text without offset on
SQLite (always UTC), ``timestamptz`` on PostgreSQL; rows hand them back as
aware UTC datetimes.

One layer in four modules: :mod:`~reelforge.server.store.rows` (the typed
rows), :mod:`~reelforge.server.store.statements` (the money path's SQL per back
end), :mod:`~reelforge.server.store.tx` (one transaction: :class:`Tx`,
:func:`transaction`) and :mod:`~reelforge.server.store.reads` (the Core
reads); the rest of the server imports them from here.
"""

from reelforge.server.store.reads import (
    acknowledge_reality_check,
    fair_seed_of,
    history_page,
    ledger_page,
    legacy_round_ids_max,
    open_rounds_before,
    player_currency,
    purge_sessions,
    revealed_server_seeds,
    round_by_id,
    round_entries,
    round_ids_key,
    round_steps,
    round_wallet_calls,
    rounds_after,
    seed_pairs_page,
    session_totals,
    set_session_language,
)
from reelforge.server.store.rows import (
    ANSWER_COLUMNS,
    ROUND_COLUMNS,
    SEED_COLUMNS,
    STEP_COLUMNS,
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
    key_digest,
    parse_ts,
)
from reelforge.server.store.statements import POSTGRESQL, SQLITE, Statements
from reelforge.server.store.tx import Tx, transaction

__all__ = [
    "ANSWER_COLUMNS", "POSTGRESQL", "ROUND_COLUMNS", "SEED_COLUMNS", "SQLITE", "STEP_COLUMNS", "AnswerRecord",
    "FairSeed", "LedgerEntry", "PlayerRow", "RoundRow", "SessionPlayer", "StartReads", "Statements", "StepReads",
    "StepRow", "StoredAnswer", "Tx", "acknowledge_reality_check", "set_session_language", "fair_seed_of", "history_page", "key_digest", "legacy_round_ids_max", "ledger_page",
    "open_rounds_before", "parse_ts", "player_currency", "purge_sessions", "revealed_server_seeds", "round_by_id",
    "round_entries", "round_ids_key", "round_steps", "round_wallet_calls", "rounds_after", "seed_pairs_page",
    "session_totals", "transaction",
]
