"""The rows of the data-access layer: what the server reads and writes (rounds, steps, seed pairs, ledger
entries, idempotency records, sessions' players), as dataclasses, with their columns and the
conversions from a driver's row (timestamps as aware UTC datetimes)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from reelforge.server.clock import parse_ts


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
    brand: str = "default"
    """The operator brand of the round's player."""
    start_key: str | None = None
    """SHA-256 of the Idempotency-Key that started it (:func:`key_digest`; None: stored before 0008)."""
    campaign_id: int | None = None
    """A free round's campaign (``campaigns.id``: no debit, its win paid by the campaign); None: a paid round."""


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
        """Whether the key outlives its answer's retention: never since migration 0008 (every answer is
        deleted then; a round start's or a transfer's key lives on, hashed, in its round's ``start_key`` or
        its ledger entry's ``transfer_key``, so a retry after the retention is refused, not carried out
        again). Answers stored before 0008 were written with ``keep`` true and are blanked, not deleted:
        their rounds and transfers do not hold their key."""
        return False


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
    brand: str = "default"
    play_started_at: datetime | None = None
    """The player's play session (kept across sessions): its start, last acknowledged reality check and end."""
    play_checked_at: datetime | None = None
    play_ended_at: datetime | None = None
    limits: str | None = None
    """The session's launch limits (JSON; None: none)."""
    game: str | None = None
    """The one game a launched session may play (None: any)."""


@dataclass(frozen=True, slots=True)
class PlayerRow:
    id: int
    name: str
    balance: int
    currency: str
    demo: bool
    brand: str = "default"


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
    keyed_round: int | None = None
    """The round the request's Idempotency-Key already started (its stored answer purged): not again."""


@dataclass(frozen=True, slots=True)
class StepReads:
    """What playing a step decides on: the key's stored answer, the round (row locked) and its steps
    up to and including the next one (from the first the read asked for)."""

    stored: StoredAnswer | None
    round: RoundRow | None
    steps: list[StepRow]


ROUND_COLUMNS = tuple(f.name for f in fields(RoundRow))
STEP_COLUMNS = tuple(f.name for f in fields(StepRow))
ANSWER_COLUMNS = tuple(f.name for f in fields(StoredAnswer))
SEED_COLUMNS = tuple(f.name for f in fields(FairSeed))
# the timestamp columns of a round and of a step, by position (stored as text on SQLite, parsed on reading)
ROUND_TIMES = tuple(ROUND_COLUMNS.index(c) for c in ("created_at", "updated_at", "finished_at"))
STEP_TIMES = tuple(STEP_COLUMNS.index(c) for c in ("created_at", "revealed_at"))


def key_digest(key: str) -> str:
    """The SHA-256 (hex) of an Idempotency-Key, as a round or a transfer keeps it."""
    return hashlib.sha256(key.encode()).hexdigest()


def _round(values: Sequence[Any]) -> RoundRow:
    row = RoundRow(*values)
    row.created_at, row.updated_at, row.finished_at = (parse_ts(values[i]) for i in ROUND_TIMES)
    row.completed_on_expiry = bool(row.completed_on_expiry)
    return row


def _step(values: Sequence[Any]) -> StepRow:
    row = StepRow(*values)
    row.created_at, row.revealed_at = (parse_ts(values[i]) for i in STEP_TIMES)
    row.finished = bool(row.finished)
    return row


def _answer(values: Sequence[Any]) -> StoredAnswer | None:
    return None if values[0] is None else StoredAnswer(*values)


def _seed(values: Sequence[Any] | None) -> FairSeed | None:
    return None if values is None or values[0] is None else FairSeed(*values)
