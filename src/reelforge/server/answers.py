"""Idempotency answers: every money request runs once per (scope, Idempotency-Key); its answer is
stored with its changes and replayed to a retry, and purged after the retention
(:class:`IdempotentAnswers`, a part of :class:`~reelforge.server.rounds.RoundService`)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from reelforge.server.clock import utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.errors import ApiError
from reelforge.server.jsontext import encoder
from reelforge.server.round_json import Answer, RoundAnswer, steps_text, to_jsonable
from reelforge.server.store import AnswerRecord, StoredAnswer, Tx, transaction

_encode_sorted = encoder(to_jsonable, separators=(", ", ": "), ensure_ascii=True, sort_keys=True)  # json.dumps's


def request_hash(*parts: Any) -> str:
    """The hash of a request's parts, stored with its answer: a retry must repeat the same request."""
    return hashlib.sha256(_encode_sorted(parts).encode()).hexdigest()


class IdempotentAnswers:
    """Storing and replaying the answers of money requests."""

    engine: Engine
    config: ServerConfig

    # Every money request runs once per (scope, key): its answer is stored with its changes, and a
    # retry (which finds the stored answer in the reads it makes under the player's row lock, so a
    # concurrent retry waits for the first) gets that answer again. Refusals (4xx raised as ApiError)
    # roll back and are not stored: they changed nothing. A round answer is stored without its steps
    # (they are stored once, in ``steps``, and never change once revealed), so a round's stored bytes
    # grow with its steps, not with their square; a retry puts them back.
    @staticmethod
    def _record(scope: str, key: str, req_hash: str, answer: RoundAnswer | tuple[int, str],
                now: datetime) -> AnswerRecord:
        """The idempotency record of ``answer``."""
        if isinstance(answer, RoundAnswer):
            return AnswerRecord(scope, key, req_hash, answer.status, answer.head + answer.tail, now, answer.round_id,
                                len(answer.head), answer.shown)
        return AnswerRecord(scope, key, req_hash, answer[0], answer[1], now)

    def _store_answer(self, tx: Tx, scope: str, key: str, req_hash: str, answer: RoundAnswer | tuple[int, str],
                      now: datetime) -> Answer:
        tx.put_answer(self._record(scope, key, req_hash, answer, now))
        return answer.answer() if isinstance(answer, RoundAnswer) else Answer(*answer)

    def _replay(self, tx: Tx, stored: StoredAnswer, req_hash: str) -> Answer:
        """The stored first answer of a retried request (409 for another request under the same key)."""
        if stored.request_sha256 != req_hash:
            raise ApiError(409, "idempotency_key_reused",
                           "this Idempotency-Key was already used for a different request")
        if stored.response == "":  # purged before 0008 kept the key's hash: carried out then, not again
            raise self._spent_key()
        text, at = stored.response, stored.steps_at
        if stored.round_id is None:
            return Answer(stored.status_code, text)
        steps = steps_text(tx.round_bet(stored.round_id), tx.steps(stored.round_id, stored.steps_shown))
        return Answer(stored.status_code, text[:at] + steps + text[at:])

    def _spent_key(self) -> ApiError:
        """The refusal of a key whose request was carried out and whose answer was purged after the retention
        (the round or the transfer it made keeps the key's hash, unique: nothing is charged twice)."""
        return ApiError(409, "idempotency_key_expired",
                        f"this Idempotency-Key was used more than {self.config.idempotency_retention_days:g} "
                        "days ago; the request was carried out then and is not repeated (its answer is no "
                        "longer kept)")

    def purge_idempotency(self, now: datetime | None = None, batch: int = 500) -> int:
        """Purge the stored answers of idempotency keys older than the retention; return how many.

        Every stored answer is deleted, a step's, a round start's or a
        transfer's: the round a start made keeps its key's SHA-256
        (``rounds.start_key``, unique per player) and a transfer's ledger entry
        its own (``ledger.transfer_key``, unique), so a retry after the
        retention is refused with ``idempotency_key_expired`` instead of being
        carried out a second time, and nothing is ever charged twice. (A
        start's or transfer's answer stored before migration 0008 keeps its
        request hash instead: its round or transfer does not hold the key.) Each
        ``batch`` is its own short transaction, so requests go on between them
        (SQLite's write lock is held for one batch at a time).
        """
        cutoff = (now or utcnow()) - timedelta(days=self.config.idempotency_retention_days)
        purged = 0
        while True:
            with transaction(self.engine) as tx:
                done = tx.purge_answers(cutoff, batch)
            purged += done
            if done < batch:
                return purged
