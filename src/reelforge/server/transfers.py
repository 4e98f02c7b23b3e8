"""The operator's transfers on the transfer wallet: a deposit to or a withdrawal from a player's balance
as a ledger entry, once per Idempotency-Key (:class:`Transfers`, a part of
:class:`~reelforge.server.rounds.RoundService`)."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError

from reelforge.server.answers import IdempotentAnswers, request_hash
from reelforge.server.auth import DEMO_REFUSED
from reelforge.server.clock import utcnow
from reelforge.server.errors import ApiError
from reelforge.server.ledger import post_entry
from reelforge.server.round_json import Answer, dumps
from reelforge.server.store import key_digest, transaction


class Transfers(IdempotentAnswers):
    """The operator's deposits and withdrawals (their answers stored and replayed like a round's)."""

    def transfer(self, player: str, amount: int, kind: str, key: str, brand: str = "default") -> Answer:
        """Credit (``deposit``) or debit (``withdrawal``) a player's wallet of ``brand``, once per
        Idempotency-Key (each brand's keys their own)."""
        req = request_hash(kind, player, amount)
        scope = "operator" if brand == self.config.operator.brand else f"operator:{brand}"
        integrity_errors = (IntegrityError, self.engine.dialect.loaded_dbapi.IntegrityError)
        try:
            with transaction(self.engine) as tx:
                found = tx.player_by_name(player)
                if found is None or found.brand != brand:
                    raise ApiError(404, "player_not_found", f"no player {player!r} (open a session for it first)")
                if found.demo and not self.config.demo:
                    raise DEMO_REFUSED
                locked = tx.lock_player(found.id)
                stored = tx.stored_answer(scope, key)
                if stored is not None:
                    return self._replay(tx, stored, req)
                if tx.transfer_made(key_digest(key)):  # its answer purged after the retention: not again
                    raise self._spent_key()
                if kind == "deposit" and locked.balance + amount > self.config.max_balance:
                    raise ApiError(409, "balance_cap_exceeded",
                                   f"a deposit of {amount} would take the balance {locked.balance} over the cap of "
                                   f"{self.config.max_balance} minor units")
                now = utcnow()
                balance = post_entry(tx, locked.id, locked.balance, kind, amount if kind == "deposit" else -amount,
                                     None, now)
                tx.key_transfer(locked.id, key_digest(key))
                answer = 200, dumps({"player": player, "balance": balance, "currency": locked.currency})
                return self._store_answer(tx, scope, key, req, answer, now)
        except integrity_errors:
            # The operator's keys are one scope for all players, but the lock is per player: the same
            # key used at once for two players' transfers collides on the key's primary key (PostgreSQL;
            # SQLite serialises all writers). Everything was rolled back; answer as a retry would.
            with transaction(self.engine, write=False) as tx:
                stored = tx.stored_answer(scope, key)
                if stored is None:
                    raise
                return self._replay(tx, stored, req)
