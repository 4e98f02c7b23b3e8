"""Rounds as step machines over the common :class:`~reelforge.game.contract.Game` interface,
decided when they are staked (``shared/spec/PLATFORM.md``, "Rounds").

One round, one transaction per request; this module is the one place of the
round lifecycle:

* start: lock the player, debit the stake (or the feature-buy price) as a
  ledger entry, play the whole round through the rules with the live draw
  source (every step, every draw), store every step, and reveal the first
  (the paid spin). Nothing of a later step leaves the server before it is
  revealed: answers carry the revealed steps only, and the round's row holds
  only what is revealed (its state, step count and win so far);
* step: lock the player, reveal the round's next stored step;
* the reveal of the last step credits the win, ``floor(bet * total_win_x)``
  minor units, as a ledger entry. Builds' win amounts are multiples of
  ``1 / game.win_unit(build)`` of the bet, so a bet that is a multiple of the
  win unit never rounds (the shipped ladders are; a test checks it). Should an
  operator configure a bet that is not, the player is paid the floor and the
  exact ``total_win_x`` stays on the round for the audit;
* expiry: a round still unfinished after ``round_expiry_days`` is completed:
  its remaining steps are revealed and its decided win is credited, recorded
  as ``completed_on_expiry`` with the date. It is never refunded: abandoning
  a round that went badly gains nothing.

Live play draws from the OS CSPRNG, or, with provably fair draws on (the
default), from :class:`~reelforge.core.draws.FairDraws` keyed by the player's seed
pair and the round's nonce (:mod:`reelforge.server.fair`), through a
:class:`~reelforge.core.draws.RecordingDraws` so every draw is stored with its step;
:func:`reelforge.server.verify.verify_round` replays them.

"Malfunction voids all pays and plays": any error of the rules or the draw
source while a round is decided voids it in the stake's transaction, before
anything of it is shown: the stake is refunded, nothing is paid, and the
error is recorded as the reason. A step action the rules refuse (a
:class:`~reelforge.game.contract.RulesError` for the player's ``action``) is the
client's mistake and changes nothing.

The rest of the service lives beside this module, one concept each:
:mod:`~reelforge.server.offer` (the offered games, builds and costs),
:mod:`~reelforge.server.round_checks` (the refusals before a start),
:mod:`~reelforge.server.seamless_rounds` (starts and settlements on the
seamless wallet), :mod:`~reelforge.server.answers` (idempotency: stored
answers replayed), :mod:`~reelforge.server.transfers` (the operator's
deposits and withdrawals), :mod:`~reelforge.server.round_json` (the JSON of a
round) and :mod:`~reelforge.server.round_reads` (a round, the unfinished one,
history).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from sqlalchemy import Engine

from reelforge.core.draws import DrawSource, RecordedDraws, RecordingDraws, SecureDraws
from reelforge.game.contract import Game, RulesError
from reelforge.games.registry import get_game
from reelforge.server import fair, store
from reelforge.server.answers import request_hash
from reelforge.server.auth import Principal, SessionToken, session_principal
from reelforge.server.callbacks import LIMIT_REASONS, OperatorCallbacks
from reelforge.server.campaign_rounds import CampaignRounds
from reelforge.server.clock import utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.errors import ApiError, database_errors
from reelforge.server.ledger import entries, post_entry
from reelforge.server.limits import check_loss, check_round_start
from reelforge.server.logs import INFO, ROUNDS, round_event
from reelforge.server.offer import ActiveGame
from reelforge.server.round_checks import StartChecks, game_not_launched
from reelforge.server.round_json import Answer, RoundAnswer, ShownSteps, dumps, ints_text, money
from reelforge.server.round_reads import RoundReads
from reelforge.server.roundids import RoundIds
from reelforge.server.seamless import SeamlessWallet
from reelforge.server.seamless_rounds import SeamlessRounds
from reelforge.server.store import RoundRow, StepRow, Tx, key_digest, transaction
from reelforge.server.transfers import Transfers

log = logging.getLogger("reelforge.server")

DrawFactory = Callable[[], DrawSource]
"""Gives the draw source for one round (tests only: production draws from :class:`SecureDraws`, or from the
player's provably fair seed pair)."""


def _fraction_text(x: Any) -> str:
    """``str(Fraction(x))``, a step's win as stored (the rules give Fractions: those are not made again)."""
    return str(x if type(x) is Fraction else Fraction(x))


class Malfunction(Exception):
    """The rules or the draw source failed while deciding a round: the round is void."""


MAX_ROUND_STEPS = 100_000
"""A round that has not finished after this many steps is a malfunction of the rules."""


class RoundService(RoundReads, SeamlessRounds, CampaignRounds, Transfers, StartChecks):
    """Everything that changes or reads rounds and wallets: the round lifecycle here, the rest from its
    parts (see the module docstring)."""

    def __init__(self, engine: Engine, config: ServerConfig, draw_factory: DrawFactory | None = None) -> None:
        self.engine = engine
        self.config = config
        self._ids: RoundIds | None = None
        # A test's draw source replaces the live ones; live rounds are provably fair unless configured off.
        self.fair = config.provably_fair and draw_factory is None
        self.draw_factory = draw_factory or SecureDraws
        self.seed_pairs = fair.SeedPairs(engine, self.fair, lambda round_id: self.ids.public(round_id))
        self.games: dict[str, ActiveGame] = {}
        self._builds: dict[tuple[str, str, str | None], Any] = {}
        self._costs: dict[tuple[str, int, str], int | None] = {}
        self.shown = ShownSteps()  # open rounds' revealed steps as this process last answered them
        self.callbacks = OperatorCallbacks(engine, config)
        self.wallet = SeamlessWallet(engine, config.operator, lambda round_id: self.ids.public(round_id),
                                     [b.operator for b in config.brands.values()]) if config.seamless else None
        try:
            self.ids  # noqa: B018 - read now, not inside the first round request
        except database_errors():  # not reachable now (a server started during an outage): when first needed
            pass
        for game_id, gconf in config.games.items():
            game = get_game(game_id)
            self.games[game_id] = ActiveGame(game, gconf, self.build(game_id, gconf.build))

    # -- public round ids -------------------------------------------------------
    @property
    def ids(self) -> RoundIds:
        """Public round ids (what the API shows; the database and the operator's tools use internal ones),
        keyed with the database's key (read once: kept from then on; read again while it fails)."""
        # Kept by hand, not by functools.cached_property: on Python 3.11 that holds one lock for every instance
        # while it computes, here a database read, and a request's greenlet on the event loop (PostgreSQL)
        # waiting for that lock behind a thread would stop the loop. Two first reads at once read the same key.
        ids = self._ids
        if ids is None:
            ids = self._ids = RoundIds(store.round_ids_key(self.engine), store.legacy_round_ids_max(self.engine))
        return ids

    # -- the round lifecycle ----------------------------------------------------------
    # A round is decided when it is staked: start_round plays it through to the end (every step,
    # every draw) and stores every step, unrevealed; each step request reveals the next stored
    # step; the last reveal credits the win. Expiry completes a round (reveals the rest, credits
    # the decided win); only a malfunction while deciding voids one (refund, nothing paid).
    def _lock(self, tx: Tx, player: int | SessionToken) -> Principal:
        """The player with its row locked (``balance`` current): a player id as given, or the session
        token's player (checked, and locked, by the same statement)."""
        if isinstance(player, int):
            row = tx.lock_player(player)
            if row is None:
                raise ApiError(404, "player_not_found", "no such player")
            return Principal(row.id, row.name, row.balance, currency=row.currency, brand=row.brand)
        return session_principal(tx, player, lock=True, operator=not self.config.demo)

    def start_round(self, player: int | SessionToken, game_id: str, bet: int, auto_adjust_bet: bool,
                    buy_feature: bool | str | None, key: str) -> Answer:
        """Debit the stake, decide the whole round, and reveal its first step (the paid spin). A start refused
        by the play session's time or loss limit ends a launched session (the operator's callback says so)."""
        try:
            return self._start_round(player, game_id, bet, auto_adjust_bet, buy_feature, key)
        except ApiError as exc:
            if exc.code in LIMIT_REASONS and isinstance(player, SessionToken):
                self.callbacks.session_ended(player.sha256, LIMIT_REASONS[exc.code])
            raise

    def _start_round(self, player: int | SessionToken, game_id: str, bet: int, auto_adjust_bet: bool,
                     buy_feature: bool | str | None, key: str) -> Answer:
        active = self.active(game_id)
        mode = self.resolve_mode(active, buy_feature)
        if self.cost(active, bet, mode) is None:
            raise ApiError(422, "price_not_whole",
                           f"a {mode} round at bet {bet} would cost a fraction of a minor unit; choose another bet")
        req = request_hash("start", game_id, bet, auto_adjust_bet, buy_feature)
        if self.wallet is not None:
            return self._start_seamless(player, active, mode, bet, auto_adjust_bet, key, req)

        with transaction(self.engine) as tx:
            who = self._lock(tx, player)
            player_id, balance = who.player_id, who.balance
            scope = f"player:{player_id}"
            reads = tx.start_reads(scope, key, player_id, game_id)
            if reads.stored is not None:
                return self._replay(tx, reads.stored, req)
            if reads.keyed_round is not None:
                raise self._spent_key()
            ladder, rules = self._check_bet(who, active, bet, mode)
            check_round_start(rules, who, utcnow())  # the play session's end, time limit and reality check
            self._check_pace(reads.last_start, rules)
            self._check_open(reads.open_round, game_id)
            chosen, cost = self._fit(active, ladder, bet, mode, balance, auto_adjust_bet)
            check_loss(tx, rules, who, cost)
            now = utcnow()
            rnd, decided, changes = self._decide_start(tx, active, mode, reads, player_id, chosen, bet, cost, now,
                                                       reads.new_round_id)
            rnd.start_key = key_digest(key)
            rnd.brand = who.brand
            changes = [("stake" if mode == "paid" else "feature_buy", -cost)] + changes
            posted, balance = entries(balance, changes, rnd.id, now)
            answer = self.round_answer(201, rnd, decided[:1], balance, who.currency)
            tx.write_start(rnd, decided, balance, posted, self._record(scope, key, req, answer, now))
        self.shown.keep(rnd, answer)  # committed: the next step's request starts from these steps
        self._logged(rnd, who.player, who.currency, "round_started")  # committed: the events happened
        return answer.answer()

    def _decide_start(self, tx: Tx, active: ActiveGame, mode: str, reads: Any, player_id: int, chosen: int,
                      bet: int, cost: int, now: datetime, round_id: int) -> tuple[RoundRow, list[StepRow],
                                                                                 list[tuple[str, int]]]:
        """A new round decided (every step), its first step revealed; with the balance changes after its
        stake: its win if it finished, or its refund if the deciding failed (void)."""
        start = active.game.start_round(active.build, mode)
        identity = active.build.identity
        rnd = RoundRow(round_id, player_id, active.id, active.config.build, mode, chosen, bet, cost,
                       "open", dumps(start), None, 0, "0", 0, None, now, now, None, False,
                       identity.version, identity.content_hash)
        changes: list[tuple[str, int]] = []
        draws = None
        if self.fair:  # the player's seed pair, opened on the first round; its next nonce is this round's
            seed = reads.fair_seed or fair.open_pair(tx, player_id, now)
            fair.stake(rnd, seed)
            draws = fair.draws_of(seed)
        try:
            decided = self._decide(active.game, active.build, start, 0, now, draws)
        except Malfunction as exc:
            rnd.status, rnd.void_reason, rnd.finished_at = "void", str(exc), now
            decided = []
            changes += [("refund", cost)] if cost else []
        else:
            self._advance(rnd, decided[0], None, now)
            changes += [("win", rnd.win)] if rnd.status == "finished" and rnd.win else []
        return rnd, decided, changes

    def play_step(self, player: int | SessionToken, public_id: int, action: str | None,
                  key: str) -> Answer:
        """Reveal the next step of the player's unfinished round (its public id; the last step credits the
        win)."""
        req = request_hash("step", public_id, action)
        round_id = self.ids.internal(public_id) or 0  # 0: no round has it (refused as not found below)
        answer, ended, who, shown = self._step(player, public_id, round_id, action, key, req)
        if ended is not None:  # committed: forget its steps, log how the round ended
            self.shown.keep(ended, None)
            if who is not None:
                self._logged(ended, who.player, who.currency)
        elif shown is not None:  # committed: the next step's request starts from these steps
            self.shown.keep(shown[0], shown[1])
        return answer

    def _step(self, player: int | SessionToken, public_id: int, round_id: int, action: str | None, key: str,
              req: str) -> tuple[Answer, RoundRow | None, Principal | None, tuple[RoundRow, RoundAnswer] | None]:
        """:meth:`play_step`: the answer, the round when this request ended it, the player, and the round and
        its answer to keep in :attr:`shown` (transfer mode)."""
        # The steps this process last showed of the round: only the step after them is read (see ShownSteps).
        kept = self.shown.get(round_id) if self.wallet is None else None
        with transaction(self.engine) as tx:
            who = self._lock(tx, player)
            player_id, balance = who.player_id, who.balance
            scope = f"player:{player_id}"
            reads = tx.step_reads(scope, key, round_id, kept[0] if kept else 0)
            if reads.stored is not None:
                return self._replay(tx, reads.stored, req), None, None, None
            rnd = self._own(reads.round, player_id, public_id)
            if who.game is not None and rnd.game != who.game:
                raise game_not_launched(rnd.game, who.game)
            if rnd.status != "open":
                raise ApiError(409, "round_not_open", f"round {public_id} is {rnd.status}; no step is left to play")
            game = get_game(rnd.game)
            if action is not None and action not in game.step_actions:
                raise ApiError(409, "unknown_action",
                               f"{rnd.game} steps take no action {action!r}; actions: {list(game.step_actions)}")
            build = self.round_build(rnd)
            now = utcnow()
            index = rnd.step_count
            rows: list[Any] = reads.steps
            if kept is not None:
                if kept[0] == index and kept[2] == rnd.created_at and rows and rows[0].idx == index:
                    rows = [None] * index + rows  # the earlier steps are in kept's text
                else:  # played on elsewhere since (another server process): read whole
                    kept, rows = None, tx.steps(round_id, index + 1)
            if len(rows) <= index:  # stored before rounds were decided at the stake
                try:
                    rows += self._store_decided(tx, rnd, game, build, now)
                except Malfunction as exc:
                    answer = self.round_answer(200, rnd, rows, self._void(tx, rnd, balance, str(exc), now))
                    return self._store_answer(tx, scope, key, req, answer, now), rnd, who, None
            if self._expired(rnd, now):
                rows = tx.steps(round_id)
                answer = self.round_answer(200, rnd, rows, self._complete(tx, rnd, rows, balance, now))
                return self._store_answer(tx, scope, key, req, answer, now), rnd, who, None
            row = rows[index]
            if action is not None:
                self._check_action(game, build, rnd.state, row, action)
            self._advance(rnd, row, action, now)
            changes = self._win_changes(tx, rnd, now, who.player)
            if self.wallet is None:
                posted, balance = entries(balance, changes, round_id, now)
                answer = self.round_answer(200, rnd, rows, balance, who.currency, shown=kept)
                tx.write_step(rnd, row, balance, posted, self._record(scope, key, req, answer, now))
                return answer.answer(), (rnd if rnd.status != "open" else None), who, (rnd, answer)
            outbox = self._outbox(tx, rnd, None, changes, now)
            answer = self.round_answer(200, rnd, rows, who.wallet_balance, who.currency, outbox)
            tx.write_step(rnd, row, balance, [], self._record(scope, key, req, answer, now))
        return (self._delivered(answer, rnd, rows, who.wallet_balance, who.currency, outbox, who.player),
                (rnd if rnd.status != "open" else None), who, None)

    def _logged(self, rnd: RoundRow, player: str | None, currency: str | None = None,
                first: str | None = None) -> None:
        """Log a committed round's events: ``first`` (``round_started``), then how it ended if it did."""
        if not ROUNDS.isEnabledFor(INFO):
            return
        public = self.ids.public(rnd.id)
        currency = currency or self.config.currency
        if first is not None:
            round_event(first, rnd, public, player, currency)
        if rnd.status != "open":
            end = ("round_voided" if rnd.status == "void" else
                   "round_completed_on_expiry" if rnd.completed_on_expiry else "round_finished")
            round_event(end, rnd, public, player, currency)

    def _decide(self, game: Game, build: Any, state: dict[str, Any], first: int, now: datetime,
                draws: DrawSource | None = None) -> list[StepRow]:
        """Play a round from ``state`` to its end with ``draws`` (a provably fair round's source, whose steps
        keep the range of each draw too) or the live draw source; the step rows (unrevealed, numbered from
        ``first``). Any error of the rules or the draw source is a :class:`Malfunction`."""
        rows: list[StepRow] = []
        try:
            recorder = RecordingDraws(draws or self.draw_factory())
            while True:
                step = game.play_step(build, state, recorder, None)
                values, ranges = recorder.take_with_ranges()
                rows.append(StepRow(first + len(rows), step.kind, None, ints_text(values), dumps(step.events),
                                    _fraction_text(step.win), _fraction_text(step.total_win), bool(step.finished),
                                    step.next_step, dumps(step.state), now, None,
                                    ints_text(ranges) if draws is not None else None))
                if step.finished:
                    return rows
                if len(rows) >= MAX_ROUND_STEPS:
                    raise RuntimeError(f"the round did not finish within {MAX_ROUND_STEPS} steps")
                state = step.state
        except Exception as exc:  # noqa: BLE001 - a malfunction voids the round instead of failing the request
            log.error("malfunction while deciding a round of %s: %s: %s", game.id, type(exc).__name__, exc)
            raise Malfunction(f"malfunction while deciding step {first + len(rows) + 1}: "
                              f"{type(exc).__name__}: {exc}") from exc

    def _store_decided(self, tx: Tx, rnd: RoundRow, game: Game, build: Any, now: datetime) -> list[StepRow]:
        """Decide and store the rest of a round stored before rounds were decided at the stake
        (its later steps were to be drawn when played); the new step rows."""
        rows = self._decide(game, build, json.loads(rnd.state), rnd.step_count, now)
        tx.insert_steps(rnd.id, rows)
        return rows

    @staticmethod
    def _check_action(game: Game, build: Any, state: str, row: StepRow, action: str) -> None:
        """Refuse an action the step being revealed does not take (the rules say which, as when the
        step was played on request): its stored draws go through the rules with the action."""
        try:
            game.play_step(build, json.loads(state), RecordedDraws(json.loads(row.draws)), action)
        except RulesError as exc:
            raise ApiError(409, "rules_refused", str(exc)) from exc

    @staticmethod
    def _advance(rnd: RoundRow, row: StepRow, action: str | None, now: datetime) -> None:
        """Reveal ``row`` (the round's next step) in ``rnd`` and ``row`` (in memory)."""
        row.revealed_at, row.action = now, action
        rnd.state, rnd.step_count, rnd.total_win_x = row.state, row.idx + 1, row.total_win_x
        rnd.next_step, rnd.updated_at = row.next_step, now
        if row.finished:
            rnd.status, rnd.win = "finished", money(rnd.bet, Fraction(row.total_win_x))
            rnd.finished_at, rnd.next_step = now, None

    def _complete(self, tx: Tx, rnd: RoundRow, rows: list[StepRow], balance: int, now: datetime) -> int:
        """Complete an expired round: reveal its remaining steps and credit its decided win."""
        tx.reveal_rest(rnd.id, now)
        for row in rows[rnd.step_count:]:
            self._advance(rnd, row, None, now)
        rnd.completed_on_expiry = True
        tx.update_round(rnd)
        # the operator's wallet holds the money: credited from the outbox; else the ledger
        return self._credit_changes(tx, rnd, self._win_changes(tx, rnd, now), balance, now)[0]

    def _void(self, tx: Tx, rnd: RoundRow, balance: int, reason: str, now: datetime) -> int:
        """Void an open round (a malfunction while deciding it): refund what it cost, pay nothing, record why."""
        rnd.status, rnd.void_reason, rnd.win, rnd.next_step = "void", reason, 0, None
        rnd.updated_at = rnd.finished_at = now
        tx.update_round(rnd)
        if rnd.cost and self.wallet is not None:  # the debit is rolled back from the outbox
            self._outbox(tx, rnd, None, [("refund", rnd.cost)], now)
        elif rnd.cost:
            balance = post_entry(tx, rnd.player_id, balance, "refund", rnd.cost, rnd.id, now)
        return balance

    def _expired(self, rnd: RoundRow, now: datetime) -> bool:
        return rnd.created_at + timedelta(days=self.config.round_expiry_days) <= now

    def purge_sessions(self, now: datetime | None = None) -> int:
        """Delete sessions that expired more than a day ago (their tokens are refused anyway)."""
        return store.purge_sessions(self.engine, (now or utcnow()) - timedelta(days=1))

    def expire(self, now: datetime | None = None, batch: int = 500) -> int:
        """Complete every round unfinished longer than the expiry (its remaining steps revealed, its
        decided win credited, never refunded); return how many were completed.

        Safe to run from several processes at once: each round is re-checked
        under its player's row lock before it is completed.
        """
        now = now or utcnow()
        cutoff = now - timedelta(days=self.config.round_expiry_days)
        completed = 0
        while True:
            candidates = store.open_rounds_before(self.engine, cutoff, batch)
            if not candidates:
                return completed
            for round_id, player_id in candidates:
                with transaction(self.engine) as tx:
                    locked = tx.lock_player(player_id)
                    balance = locked.balance
                    rnd = tx.round(round_id, lock=True)
                    if rnd.status != "open" or not self._expired(rnd, now):
                        continue
                    rows = tx.steps(round_id)
                    if not rows or not rows[-1].finished:  # stored before rounds were decided at the stake
                        game = get_game(rnd.game)
                        try:
                            rows += self._store_decided(tx, rnd, game, self.round_build(rnd), now)
                        except Malfunction as exc:
                            self._void(tx, rnd, balance, str(exc), now)
                    if rnd.status == "open":
                        self._complete(tx, rnd, rows, balance, now)
                        completed += 1
                # committed: round_completed_on_expiry (or round_voided), in the player's currency
                self._logged(rnd, locked.name, locked.currency)
            if len(candidates) < batch:
                return completed
