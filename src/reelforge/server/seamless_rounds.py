"""Rounds on the seamless wallet (docs/OPERATORS.md): a round start whose stake is debited by the
operator's wallet, and a round's win (a credit) or void (the debit's rollback) written to the outbox
and delivered (:class:`SeamlessRounds`, a part of :class:`~reelforge.server.rounds.RoundService`;
the wallet's calls and outbox are :mod:`reelforge.server.seamless`)."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from sqlalchemy import Engine

from reelforge.server.auth import SessionToken
from reelforge.server.clock import utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.deadlines import request_deadline
from reelforge.server.errors import ApiError, database_errors
from reelforge.server.limits import check_loss, check_round_start
from reelforge.server.logs import wallet_event
from reelforge.server.offer import ActiveGame
from reelforge.server.round_json import Answer, RoundAnswer
from reelforge.server.seamless import SeamlessWallet, WalletRefused, WalletTx, WalletUnavailable
from reelforge.server.store import RoundRow, StepRow, Tx, key_digest, transaction


def operator_session(tx: Tx, player: int | SessionToken) -> str | None:
    """The operator's own session token the request's session was launched with (None: none given)."""
    if not isinstance(player, SessionToken):
        return None
    tx.cursor.execute("SELECT operator_session FROM sessions WHERE token_sha256 = "
                      + (":t" if tx.sqlite else "%(t)s"), {"t": player.sha256})
    row = tx.cursor.fetchone()
    return None if row is None else row[0]

log = logging.getLogger("reelforge.server")


class SeamlessRounds:
    """The seamless wallet's part of the round lifecycle (the rest of it, the checks and the deciding, is
    the service's: ``_lock``, ``_check_*``, ``_fit``, ``_decide_start``, ``_replay``, ``_record``,
    ``round_answer``)."""

    engine: Engine
    config: ServerConfig
    wallet: SeamlessWallet

    # A start in three steps: (1) under the player's lock, the checks and the debit written pending (its
    # round id reserved); (2) the debit sent, no lock held; (3) under the lock again, the debit settled and
    # the round decided and stored, with its credit (or, void, its rollback) in the outbox. A debit
    # without a usable answer, or refused without the wallet's signed statement that nothing was taken
    # (a gateway's 4xx, a wallet failing after applying it), is rolled back; the round is never shown.
    # The whole start waits on the wallet at most ``start_limit_seconds``.
    def _start_seamless(self, player: int | SessionToken, active: ActiveGame, mode: str, bet: int,
                        auto_adjust_bet: bool, key: str, req: str) -> Answer:
        wallet = self.wallet
        limit = time.monotonic() + self.config.operator.start_limit_seconds
        with transaction(self.engine) as tx:
            who = self._lock(tx, player)
            player_id = who.player_id
            scope = f"player:{player_id}"
            reads = tx.start_reads(scope, key, player_id, active.id)
            if reads.stored is not None:
                return self._replay(tx, reads.stored, req)
            if reads.keyed_round is not None:
                raise self._spent_key()
            ladder, rules = self._check_bet(who, active, bet, mode)
            now = utcnow()
            check_round_start(rules, who, now)
            self._check_pace(reads.last_start, rules)
            self._check_open(reads.open_round, active.id)
            inflight = wallet.pending_debit(tx, player_id)
            if inflight is not None:
                if (now - inflight.created_at).total_seconds() < wallet.stale_after:
                    wait = wallet.stale_after - (now - inflight.created_at).total_seconds()
                    raise ApiError(409, "round_starting", "another round start of this player is waiting for the "
                                                          f"operator's wallet; try again in {max(1, round(wait))} s")
                wallet.rollback_of(tx, inflight, now, "stale: its caller never settled it")
            balance = who.wallet_balance if auto_adjust_bet else None
            chosen, cost = self._fit(active, ladder, bet, mode, balance, auto_adjust_bet)
            check_loss(tx, rules, who, cost)
            currency = who.currency or self.config.brand(who.brand).currency
            round_id = wallet.next_round_id(tx, reads.new_round_id)
            debit = wallet.new_tx(tx, "debit", player_id, round_id, cost, currency, now,
                                  due=now + timedelta(seconds=wallet.stale_after), brand=who.brand, game=active.id,
                                  operator_session=operator_session(tx, player))
        try:
            paid = wallet.send(debit, who.player, deadline=limit)
        except WalletRefused as exc:
            if exc.stated:
                with transaction(self.engine) as tx:
                    tx.lock_player(player_id)
                    wallet.settle(tx, debit.id, "refused", utcnow(), str(exc))
            else:
                wallet_event(logging.WARNING, "wallet_debit_rolled_back",
                             f"wallet debit {debit.id} (round {debit.public_round_id}) refused without the "
                             f"wallet's signed statement: {exc}; rolling it back", kind="debit",
                             transaction=debit.id, round=debit.public_round_id, error=str(exc)[:500],
                             reason="refused_unsigned")
                self._resolve_debit(debit, who.player, f"refused ({exc}) without the wallet's signed statement",
                                    limit)
            if exc.code == "insufficient_funds":
                raise ApiError(402, "insufficient_balance",
                               f"the operator's wallet refused the stake of {cost}: {exc.detail or exc.code}") from exc
            raise ApiError(409, "wallet_refused", f"the operator's wallet refused the stake: {exc}") from exc
        except WalletUnavailable as exc:
            wallet_event(logging.WARNING, "wallet_debit_rolled_back",
                         f"wallet debit {debit.id} (round {debit.public_round_id}) got no usable answer: {exc}; "
                         "rolling it back", kind="debit", transaction=debit.id, round=debit.public_round_id,
                         error=str(exc)[:500], reason="no_usable_answer")
            resolved = self._resolve_debit(debit, who.player, str(exc), limit)
            raise ApiError(503, "wallet_unavailable", "the operator's wallet gave no usable answer to the stake; "
                           + ("it was rolled back and nothing is charged: try again" if resolved else
                              "its rollback is being delivered and nothing will be charged: try again later")) from exc
        with transaction(self.engine) as tx:
            # By the player's id: the debit is taken, so the round is stored even if the session ended meanwhile.
            locked = tx.lock_player(player_id)
            now = utcnow()
            if not wallet.settle(tx, debit.id, "done", now):  # rolled back meanwhile as stale (a long stall)
                raise ApiError(503, "wallet_unavailable", "the stake's debit was rolled back; nothing is charged: "
                                                          "try again")
            wallet.set_balance(tx, player_id, paid["balance"])
            reads = tx.start_reads(scope, key, player_id, active.id)  # its seed pair, read under the lock again
            rnd, decided, changes = self._decide_start(tx, active, mode, reads, player_id, chosen, bet, cost, now,
                                                       round_id)
            rnd.start_key = key_digest(key)
            rnd.brand = who.brand
            outbox = self._outbox(tx, rnd, debit, changes, now)
            answer = self.round_answer(201, rnd, decided[:1], paid["balance"], currency, outbox)
            tx.write_start(rnd, decided, locked.balance, [], self._record(scope, key, req, answer, now))
        self._logged(rnd, who.player, currency, "round_started")  # committed: the events happened
        return self._delivered(answer, rnd, decided[:1], paid["balance"], currency, outbox, who.player)

    def _outbox(self, tx: Tx, rnd: RoundRow, debit: WalletTx | None, changes: list[tuple[str, int]],
                now: datetime, campaign_id: str | None = None) -> WalletTx | None:
        """Write a round's win (a credit) or its void (the debit's rollback) to the outbox, in ``tx``; a round
        that finished without a win gets a zero-amount credit closing it when its brand's
        ``close_losing_rounds`` is on. Each carries the round's game, the operator's session token of its debit
        and its campaign (``campaign_id``, default: a free round's campaign; a paid round has none);
        ``round_closed`` is true on all of them (the round's last call)."""
        debit = debit or self._debit_of(tx, rnd.id)
        currency = debit.currency if debit is not None else self._currency(tx, rnd.player_id)
        context = {"due": utcnow(),  # deliverable at once, whatever clock ``now`` is (the expiry takes one)
                   "brand": rnd.brand, "game": rnd.game, "round_closed": True,
                   "operator_session": None if debit is None else debit.operator_session,
                   "campaign_id": campaign_id or self._campaign_key(tx, rnd)}  # a free round's: its campaign's
        for kind, amount in changes:
            if kind == "win":
                return self.wallet.new_tx(tx, "credit", rnd.player_id, rnd.id, amount, currency, now, **context)
            if kind == "refund":
                return self.wallet.new_tx(tx, "rollback", rnd.player_id, rnd.id, amount, currency, now,
                                          reference=None if debit is None else debit.id, **context)
        if rnd.status == "finished" and self._closes_losing_rounds(rnd.brand):
            return self.wallet.new_tx(tx, "credit", rnd.player_id, rnd.id, 0, currency, now, **context)
        return None

    def _closes_losing_rounds(self, brand: str) -> bool:
        """Whether ``brand``'s wallet gets a zero-amount credit closing each round without a win."""
        try:
            return self.config.brand(brand).operator.close_losing_rounds
        except KeyError:  # a brand no longer served: its wallet is not this server's to call
            return False

    def _currency(self, tx: Tx, player_id: int) -> str:
        return tx.lock_player(player_id).currency

    @staticmethod
    def _debit_of(tx: Tx, round_id: int) -> WalletTx | None:
        from reelforge.server.seamless import TX_COLUMNS, _sql, tx_row

        tx.cursor.execute(_sql(tx, f"SELECT {', '.join(TX_COLUMNS)} FROM wallet_transactions WHERE round_id = :r "
                                   "AND kind = 'debit' AND status = 'done'"), {"r": round_id})
        row = tx.cursor.fetchone()
        return None if row is None else tx_row(row)

    def _delivered(self, answer: RoundAnswer, rnd: RoundRow, rows: list[StepRow], balance: int | None,
                   currency: str, outbox: WalletTx | None, player: str) -> Answer:
        """Deliver a round's outbox call right away (once; the outbox thread retries it otherwise); the answer
        as it stands then ("win being credited" until the wallet acknowledged it)."""
        if outbox is None:
            return answer.answer()
        new_balance = self.wallet.deliver(outbox, player)
        if new_balance is None:
            return answer.answer()
        return self.round_answer(answer.status, rnd, rows, new_balance, currency, outbox, "done").answer()

    def _resolve_debit(self, debit: WalletTx, player: str, why: str, limit: float) -> bool:
        """Roll back a debit whose answer was lost or not to be trusted, retrying until ``limit`` (monotonic
        seconds: the start's time limit); whether the wallet acknowledged it (if not, the outbox goes on
        delivering it)."""
        try:
            with request_deadline(limit), transaction(self.engine) as tx:  # a busy database waits until the limit
                tx.lock_player(debit.player_id)
                rollback = self.wallet.rollback_of(tx, debit, utcnow(), why)
        except database_errors() as exc:  # the debit stays pending: stale, the outbox rolls it back
            log.warning("wallet debit %s: its rollback could not be written within the start limit (%s); the "
                        "outbox rolls it back once it is stale", debit.id, type(exc).__name__)
            return False
        if rollback is None:  # settled meanwhile by the stale-debit resolver, which delivers the rollback
            return False
        delay = 0.1
        while time.monotonic() < limit:
            if self.wallet.deliver(rollback, player, deadline=limit) is not None:
                return True
            rollback.attempts += 1
            if time.monotonic() + delay >= limit:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
        return False
