"""Rounds as step machines over the common :class:`~reelforge.game.Game` interface,
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
default), from :class:`~reelforge.draws.FairDraws` keyed by the player's seed
pair and the round's nonce (:mod:`reelforge.server.fair`), through a
:class:`~reelforge.draws.RecordingDraws` so every draw is stored with its step;
:func:`reelforge.server.verify.verify_round` replays them.

"Malfunction voids all pays and plays": any error of the rules or the draw
source while a round is decided voids it in the stake's transaction, before
anything of it is shown: the stake is refunded, nothing is paid, and the
error is recorded as the reason. A step action the rules refuse (a
:class:`~reelforge.game.RulesError` for the player's ``action``) is the
client's mistake and changes nothing.

Over 500 lines on purpose: the whole round lifecycle (start, step, expiry,
void, idempotent answers and their JSON) reads in one place.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from reelforge.draws import DrawSource, RecordedDraws, RecordingDraws, SecureDraws
from reelforge.game import Game, RulesError
from reelforge.games.registry import get_game
from reelforge.server import fair, store
from reelforge.server.auth import DEMO_REFUSED, Principal, SessionToken, session_principal
from reelforge.server.config import GameConfig, ServerConfig
from reelforge.server.errors import ApiError, database_errors
from reelforge.server.limits import check_round_start
from reelforge.server.logs import INFO, ROUNDS, round_event
from reelforge.server.roundids import RoundIds
from reelforge.server.store import AnswerRecord, RoundRow, StepRow, StoredAnswer, Tx, transaction
from reelforge.server.wallet import entries, iso, post_entry, utcnow

log = logging.getLogger("reelforge.server")

DrawFactory = Callable[[], DrawSource]
"""Gives the draw source for one round (tests only: production draws from :class:`SecureDraws`, or from the
player's provably fair seed pair)."""


def to_jsonable(value: Any) -> Any:
    """``json.dumps`` default: Fractions as strings, numpy scalars/arrays as Python values."""
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def dumps(value: Any) -> str:
    """Compact JSON (Fractions as strings)."""
    return json.dumps(value, default=to_jsonable, separators=(",", ":"), ensure_ascii=False)


_encode_str = json.encoder.encode_basestring  # json.dumps of a str with ensure_ascii=False


def _jstr(value: str | None) -> str:
    return "null" if value is None else _encode_str(value)


class Answer(NamedTuple):
    """A money request's answer: the status and the body as JSON text (encoded once, stored
    for idempotent retries and sent as it is)."""

    status: int
    text: str

    @property
    def body(self) -> dict[str, Any]:
        return json.loads(self.text)


def money(bet: int, x: Fraction) -> int:
    """Minor units of ``x`` times ``bet``, rounded down (exact whenever the bet is a multiple of the win unit)."""
    return bet * x.numerator // x.denominator


@lru_cache(maxsize=4096)
def _money_of(bet: int, x: str) -> int:
    """:func:`money` of a stored fraction string (answers repeat a round's earlier steps: cached)."""
    return money(bet, Fraction(x))


_iso = lru_cache(maxsize=4096)(iso)  # answers repeat a round's earlier steps: cached like _money_of


def steps_text(bet: int, step_rows: list[StepRow]) -> str:
    """The JSON text of steps (the items of a round answer's ``steps`` list, without brackets)."""
    return ",".join(
        f'{{"index":{s.idx},"kind":{_jstr(s.kind)},"action":{_jstr(s.action)},'
        f'"draws":{s.draws},"ranges":{s.ranges or "null"},"events":{s.events},"win_x":{_jstr(s.win_x)},'
        f'"win":{_money_of(bet, s.win_x)},"total_win_x":{_jstr(s.total_win_x)},'
        f'"finished":{"true" if s.finished else "false"},"next_step":{_jstr(s.next_step)},'
        f'"state":{s.state},"created_at":{_jstr(_iso(s.created_at))}}}'
        for s in step_rows)


class RoundAnswer(NamedTuple):
    """A round answer in parts: ``head`` (the round up to its ``steps`` list), the ``steps`` (the
    first ``shown`` steps of round ``round_id``) and ``tail``; stored without the steps."""

    status: int
    head: str
    steps: str
    tail: str
    round_id: int
    shown: int

    @property
    def text(self) -> str:
        return self.head + self.steps + self.tail

    def answer(self) -> Answer:
        return Answer(self.status, self.text)


class Malfunction(Exception):
    """The rules or the draw source failed while deciding a round: the round is void."""


MAX_ROUND_STEPS = 100_000
"""A round that has not finished after this many steps is a malfunction of the rules."""


def request_hash(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=to_jsonable).encode()).hexdigest()


@dataclass
class ActiveGame:
    """A game as this server offers it."""

    game: Game
    config: GameConfig
    build: Any

    @property
    def id(self) -> str:
        return self.game.id


class RoundService:
    """Everything that changes or reads rounds and wallets."""

    def __init__(self, engine: Engine, config: ServerConfig, draw_factory: DrawFactory | None = None) -> None:
        self.engine = engine
        self.config = config
        # A test's draw source replaces the live ones; live rounds are provably fair unless configured off.
        self.fair = config.provably_fair and draw_factory is None
        self.draw_factory = draw_factory or SecureDraws
        self.seed_pairs = fair.SeedPairs(engine, self.fair, lambda round_id: self.ids.public(round_id))
        self.games: dict[str, ActiveGame] = {}
        self._builds: dict[tuple[str, str, str | None], Any] = {}
        self._costs: dict[tuple[str, int, str], int | None] = {}
        self._ids: RoundIds | None = None
        try:
            self.ids  # noqa: B018 - read now, not inside the first round request
        except database_errors():  # not reachable now (a server started during an outage): when first needed
            pass
        for game_id, gconf in config.games.items():
            game = get_game(game_id)
            self.games[game_id] = ActiveGame(game, gconf, self.build(game_id, gconf.build))

    # -- lookups ----------------------------------------------------------------
    @property
    def ids(self) -> RoundIds:
        """Public round ids (what the API shows; the database and the operator's tools use internal ones),
        keyed with the database's key."""
        if self._ids is None:
            self._ids = RoundIds(store.round_ids_key(self.engine))
        return self._ids

    def build(self, game_id: str, name: str, version: str | None = None) -> Any:
        """A build by name, its current version or ``version`` (cached: published builds never change).
        A round is played, finished and replayed with the version stored on it (``""``: stored before
        versions for a build migration 0003 did not know; its current version)."""
        key = (game_id, name, version or None)
        if key not in self._builds:
            self._builds[key] = get_game(game_id).load_build(name, version or None)
        return self._builds[key]

    def round_build(self, rnd: RoundRow) -> Any:
        """The build (name and version) ``rnd`` is played with."""
        return self.build(rnd.game, rnd.build, rnd.build_version)

    def active(self, game_id: str) -> ActiveGame:
        if game_id not in self.games:
            raise ApiError(404, "unknown_game", f"unknown game {game_id!r}; games offered: {', '.join(self.games)}")
        return self.games[game_id]

    def resolve_mode(self, active: ActiveGame, buy_feature: bool | str | None) -> str:
        """Round mode: ``paid``, or the game's feature-buy mode when ``buy_feature`` asks for it."""
        if buy_feature is None or buy_feature is False:
            return "paid"
        buy_modes = [m for m in active.game.modes if m != "paid"]
        if isinstance(buy_feature, str):
            if buy_feature not in buy_modes:
                raise ApiError(422, "no_such_feature_buy",
                               f"{active.id} has no feature buy {buy_feature!r}; available: {buy_modes or 'none'}")
            return buy_feature
        if not buy_modes or active.game.feature_buy_price_x(active.build) is None:
            raise ApiError(422, "no_feature_buy", f"{active.id} has no feature buy")
        if len(buy_modes) > 1:
            raise ApiError(422, "ambiguous_feature_buy", f"{active.id} has several feature buys; name one: {buy_modes}")
        return buy_modes[0]

    def cost(self, active: ActiveGame, bet: int, mode: str) -> int | None:
        """Minor units a round of ``mode`` at ``bet`` costs; None when not a whole number."""
        key = (active.id, bet, mode)
        if key not in self._costs:  # builds are immutable: a (game, bet, mode) always costs the same
            price = Fraction(bet) * active.game.stake_x(active.build, mode)
            self._costs[key] = int(price) if price.denominator == 1 else None
        return self._costs[key]

    # -- idempotency --------------------------------------------------------------
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
        if stored.response == "":  # purged after the retention: the request was carried out; it is not carried out again
            raise ApiError(409, "idempotency_key_expired",
                           f"this Idempotency-Key was used more than {self.config.idempotency_retention_days:g} "
                           "days ago; the request was carried out then and is not repeated (its answer is no "
                           "longer kept)")
        text, at = stored.response, stored.steps_at
        if stored.round_id is None:
            return Answer(stored.status_code, text)
        steps = steps_text(tx.round_bet(stored.round_id), tx.steps(stored.round_id, stored.steps_shown))
        return Answer(stored.status_code, text[:at] + steps + text[at:])

    def purge_idempotency(self, now: datetime | None = None, batch: int = 500) -> int:
        """Purge the stored answers of idempotency keys older than the retention; return how many.

        A step's key goes with its answer; a round start's or a transfer's
        key keeps its request's hash (a few dozen bytes): a retry after the
        retention is refused with ``idempotency_key_expired`` instead of being
        carried out a second time, so nothing is ever charged twice. Each
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

    # -- the operator's transfers -----------------------------------------------------
    def transfer(self, player: str, amount: int, kind: str, key: str) -> Answer:
        """Credit (``deposit``) or debit (``withdrawal``) a player's wallet, once per Idempotency-Key."""
        req = request_hash(kind, player, amount)
        integrity_errors = (IntegrityError, self.engine.dialect.loaded_dbapi.IntegrityError)
        try:
            with transaction(self.engine) as tx:
                found = tx.player_by_name(player)
                if found is None:
                    raise ApiError(404, "player_not_found", f"no player {player!r} (open a session for it first)")
                if found.demo and not self.config.demo:
                    raise DEMO_REFUSED
                locked = tx.lock_player(found.id)
                stored = tx.stored_answer("operator", key)
                if stored is not None:
                    return self._replay(tx, stored, req)
                if kind == "deposit" and locked.balance + amount > self.config.max_balance:
                    raise ApiError(409, "balance_cap_exceeded",
                                   f"a deposit of {amount} would take the balance {locked.balance} over the cap of "
                                   f"{self.config.max_balance} minor units")
                now = utcnow()
                balance = post_entry(tx, locked.id, locked.balance, kind, amount if kind == "deposit" else -amount,
                                     None, now)
                answer = 200, dumps({"player": player, "balance": balance, "currency": locked.currency})
                return self._store_answer(tx, "operator", key, req, answer, now)
        except integrity_errors:
            # The operator's keys are one scope for all players, but the lock is per player: the same
            # key used at once for two players' transfers collides on the key's primary key (PostgreSQL;
            # SQLite serialises all writers). Everything was rolled back; answer as a retry would.
            with transaction(self.engine, write=False) as tx:
                stored = tx.stored_answer("operator", key)
                if stored is None:
                    raise
                return self._replay(tx, stored, req)

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
            return Principal(row.id, row.name, row.balance)
        return session_principal(tx, player, lock=True, operator=not self.config.demo)

    def start_round(self, player: int | SessionToken, game_id: str, bet: int, auto_adjust_bet: bool,
                    buy_feature: bool | str | None, key: str) -> Answer:
        """Debit the stake, decide the whole round, and reveal its first step (the paid spin)."""
        active = self.active(game_id)
        mode = self.resolve_mode(active, buy_feature)
        ladder = active.config.bet_ladder
        max_bet = self.config.play.max_bet
        if max_bet is not None and bet > max_bet:
            raise ApiError(422, "bet_above_maximum", f"bet {bet} is above the maximum bet {max_bet} on this server")
        if bet not in ladder:
            raise ApiError(422, "bet_not_on_ladder",
                           f"bet {bet} is not on the bet ladder of {game_id}: {list(ladder)}")
        if self.cost(active, bet, mode) is None:
            raise ApiError(422, "price_not_whole",
                           f"a {mode} round at bet {bet} would cost a fraction of a minor unit; choose another bet")
        self._check_stake(active, bet, mode)
        req = request_hash("start", game_id, bet, auto_adjust_bet, buy_feature)

        with transaction(self.engine) as tx:
            who = self._lock(tx, player)
            player_id, balance = who.player_id, who.balance
            scope = f"player:{player_id}"
            reads = tx.start_reads(scope, key, player_id, game_id)
            if reads.stored is not None:
                return self._replay(tx, reads.stored, req)
            check_round_start(self.config.play, who, utcnow())  # the session's time limit and reality check
            self._check_pace(reads.last_start)
            if reads.open_round is not None:
                raise ApiError(409, "unfinished_round",
                               f"round {self.ids.public(reads.open_round)} of {game_id} is unfinished: play it to the end first "
                               f"(GET /api/v1/games/{game_id}/rounds/unfinished)")
            chosen, cost = bet, self.cost(active, bet, mode)
            if cost > balance:
                if not auto_adjust_bet:
                    raise ApiError(402, "insufficient_balance",
                                   f"balance {balance} does not cover the round's cost {cost}")
                fits = [v for v in ladder if v <= bet and (c := self.cost(active, v, mode)) is not None
                        and c <= balance]
                if not fits:
                    raise ApiError(402, "insufficient_balance",
                                   f"balance {balance} does not cover the lowest bet {ladder[0]}")
                chosen = fits[-1]
                cost = self.cost(active, chosen, mode)
            now = utcnow()
            start = active.game.start_round(active.build, mode)
            identity = active.build.identity
            rnd = RoundRow(reads.new_round_id, player_id, game_id, active.config.build, mode, chosen, bet, cost,
                           "open", dumps(start), None, 0, "0", 0, None, now, now, None, False,
                           identity.version, identity.content_hash)
            changes = [("stake" if mode == "paid" else "feature_buy", -cost)]
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
            posted, balance = entries(balance, changes, rnd.id, now)
            answer = self.round_answer(201, rnd, decided[:1], balance)
            tx.write_start(rnd, decided, balance, posted, self._record(scope, key, req, answer, now))
        self._logged(rnd, who.player, "round_started")  # committed: the events happened
        return answer.answer()

    def _check_stake(self, active: ActiveGame, bet: int, mode: str) -> None:
        """Refuse a round whose cost (stake or feature-buy price) is above the server's stake limit."""
        limit = self.config.play.stake_limit
        cost = self.cost(active, bet, mode)
        if limit is None or cost <= limit:
            return
        what = "stake" if mode == "paid" else f"feature buy ({mode})"
        fits = [b for b in active.config.bet_ladder if (c := self.cost(active, b, mode)) is not None and c <= limit]
        hint = f"; the highest bet it is offered at is {fits[-1]}" if fits else "; it is not offered at any bet"
        raise ApiError(422, "stake_above_maximum",
                       f"the {what} at bet {bet} costs {cost}, above the maximum stake of {limit} minor units "
                       f"per round on this server{hint}")

    def _check_pace(self, last_start: datetime | None) -> None:
        """Refuse a new round sooner than ``min_round_seconds`` after the player's previous one started
        (``last_start`` read under the player's row lock, so concurrent requests cannot both slip through)."""
        gap = self.config.play.min_round_seconds
        if not gap or last_start is None:
            return
        wait = gap - (utcnow() - last_start).total_seconds()
        if wait > 0:
            raise ApiError(429, "too_soon", f"a new round may start {gap:g} seconds after the previous one "
                                            f"started; wait {wait:.1f} more seconds")

    def play_step(self, player: int | SessionToken, public_id: int, action: str | None,
                  key: str) -> Answer:
        """Reveal the next step of the player's unfinished round (its public id; the last step credits the
        win)."""
        req = request_hash("step", public_id, action)
        round_id = self.ids.internal(public_id) or 0  # 0: no round has it (refused as not found below)
        with transaction(self.engine) as tx:
            answer, ended, player_name = self._step(tx, player, public_id, round_id, action, key, req)
        if ended is not None:  # committed: log how the round ended
            self._logged(ended, player_name)
        return answer

    def _step(self, tx: Tx, player: int | SessionToken, public_id: int, round_id: int, action: str | None,
              key: str, req: str) -> tuple[Answer, RoundRow | None, str]:
        """:meth:`play_step` in its transaction: the answer, the round when this request ended it, the player."""
        who = self._lock(tx, player)
        player_id, balance = who.player_id, who.balance
        scope = f"player:{player_id}"
        reads = tx.step_reads(scope, key, round_id)
        if reads.stored is not None:
            return self._replay(tx, reads.stored, req), None, who.player
        rnd = self._own(reads.round, player_id, public_id)
        if rnd.status != "open":
            raise ApiError(409, "round_not_open", f"round {public_id} is {rnd.status}; no step is left to play")
        game = get_game(rnd.game)
        if action is not None and action not in game.step_actions:
            raise ApiError(409, "unknown_action",
                           f"{rnd.game} steps take no action {action!r}; actions: {list(game.step_actions)}")
        build = self.round_build(rnd)
        now = utcnow()
        index = rnd.step_count
        rows = reads.steps
        if len(rows) <= index:  # stored before rounds were decided at the stake
            try:
                rows += self._store_decided(tx, rnd, game, build, now)
            except Malfunction as exc:
                answer = self.round_answer(200, rnd, rows, self._void(tx, rnd, balance, str(exc), now))
                return self._store_answer(tx, scope, key, req, answer, now), rnd, who.player
        if self._expired(rnd, now):
            rows = tx.steps(round_id)
            answer = self.round_answer(200, rnd, rows, self._complete(tx, rnd, rows, balance, now))
            return self._store_answer(tx, scope, key, req, answer, now), rnd, who.player
        row = rows[index]
        if action is not None:
            self._check_action(game, build, rnd.state, row, action)
        self._advance(rnd, row, action, now)
        posted, balance = entries(balance, [("win", rnd.win)] if rnd.status == "finished" and rnd.win else [],
                                  round_id, now)
        answer = self.round_answer(200, rnd, rows, balance)
        tx.write_step(rnd, row, balance, posted, self._record(scope, key, req, answer, now))
        return answer.answer(), (rnd if rnd.status != "open" else None), who.player

    def _logged(self, rnd: RoundRow, player: str | None, first: str | None = None) -> None:
        """Log a committed round's events: ``first`` (``round_started``), then how it ended if it did."""
        if not ROUNDS.isEnabledFor(INFO):
            return
        public = self.ids.public(rnd.id)
        if first is not None:
            round_event(first, rnd, public, player, self.config.currency)
        if rnd.status != "open":
            end = ("round_voided" if rnd.status == "void" else
                   "round_completed_on_expiry" if rnd.completed_on_expiry else "round_finished")
            round_event(end, rnd, public, player, self.config.currency)

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
                rows.append(StepRow(first + len(rows), step.kind, None, dumps(values), dumps(step.events),
                                    str(Fraction(step.win)), str(Fraction(step.total_win)), bool(step.finished),
                                    step.next_step, dumps(step.state), now, None,
                                    dumps(ranges) if draws is not None else None))
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
        if rnd.win:
            balance = post_entry(tx, rnd.player_id, balance, "win", rnd.win, rnd.id, now)
        return balance

    def _void(self, tx: Tx, rnd: RoundRow, balance: int, reason: str, now: datetime) -> int:
        """Void an open round (a malfunction while deciding it): refund what it cost, pay nothing, record why."""
        rnd.status, rnd.void_reason, rnd.win, rnd.next_step = "void", reason, 0, None
        rnd.updated_at = rnd.finished_at = now
        tx.update_round(rnd)
        if rnd.cost:
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
                    balance = tx.lock_player(player_id).balance
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
                            continue
                    self._complete(tx, rnd, rows, balance, now)
                    completed += 1
                self._logged(rnd, None)  # committed (a round voided or skipped above logs nothing)
            if len(candidates) < batch:
                return completed

    # -- reading ----------------------------------------------------------------------
    @staticmethod
    def _own(rnd: RoundRow | None, player_id: int, public_id: int) -> RoundRow:
        # A foreign round is reported exactly like a missing one.
        if rnd is None or rnd.player_id != player_id:
            raise ApiError(404, "round_not_found", f"no round {public_id} for this player")
        return rnd

    def round_json(self, rnd: RoundRow, step_rows: list[StepRow], balance: int,
                   server_seed: str | None = None) -> dict[str, Any]:
        """A round in full: every step with its draws, events, win and state (``server_seed``: its seed pair's
        revealed server seed)."""
        body = self.summary_json(rnd, server_seed)
        body["steps"] = [{
            "index": s.idx, "kind": s.kind, "action": s.action, "draws": json.loads(s.draws),
            "ranges": json.loads(s.ranges) if s.ranges else None, "events": json.loads(s.events),
            "win_x": s.win_x, "win": money(rnd.bet, Fraction(s.win_x)),
            "total_win_x": s.total_win_x, "finished": s.finished, "next_step": s.next_step,
            "state": json.loads(s.state), "created_at": iso(s.created_at),
        } for s in step_rows[:rnd.step_count]]
        body["state"] = json.loads(rnd.state)
        body["balance"] = balance
        return body

    def round_answer(self, status: int, rnd: RoundRow, step_rows: list[StepRow], balance: int) -> RoundAnswer:
        """``dumps(self.round_json(rnd, step_rows, balance))`` in its three parts (see :class:`RoundAnswer`),
        made without decoding and re-encoding the stored JSON of every step (draws, events, state): that
        text is spliced in as it is (it was written by :func:`dumps`, so it is what re-encoding would give).
        Only the revealed steps (the first ``step_count``) are ever in it."""
        return RoundAnswer(status, f'{dumps(self.summary_json(rnd))[:-1]},"steps":[',
                           steps_text(rnd.bet, step_rows[:rnd.step_count]),
                           f'],"state":{rnd.state},"balance":{balance}}}', rnd.id, rnd.step_count)

    def round_text(self, rnd: RoundRow, step_rows: list[StepRow], balance: int) -> str:
        """The answer text of :meth:`round_answer`."""
        return self.round_answer(200, rnd, step_rows, balance).text

    def summary_json(self, rnd: RoundRow, server_seed: str | None = None) -> dict[str, Any]:
        """A round without its steps (``server_seed``: its seed pair's server seed, once revealed)."""
        return {
            "id": self.ids.public(rnd.id), "game": rnd.game, "build": rnd.build, "build_version": rnd.build_version,
            "mode": rnd.mode, "bet": rnd.bet,
            "requested_bet": rnd.requested_bet, "bet_adjusted": rnd.bet != rnd.requested_bet,
            "cost": rnd.cost, "currency": self.config.currency, "status": rnd.status,
            "next_step": rnd.next_step, "step_count": rnd.step_count, "total_win_x": rnd.total_win_x,
            "total_win": rnd.win if rnd.status != "open" else _money_of(rnd.bet, rnd.total_win_x),
            "paid": rnd.win, "void_reason": rnd.void_reason, "completed_on_expiry": rnd.completed_on_expiry,
            "created_at": _iso(rnd.created_at), "updated_at": _iso(rnd.updated_at),
            "finished_at": _iso(rnd.finished_at), "fair": fair.round_fair_json(rnd, server_seed),
        }

    def _full(self, tx: Tx, rnd: RoundRow) -> dict[str, Any]:
        seed = None if rnd.fair_seed_id is None else tx.revealed_seed(rnd.fair_seed_id)
        return self.round_json(rnd, tx.steps(rnd.id, rnd.step_count), tx.balance(rnd.player_id), seed)

    def get_round(self, player_id: int, public_id: int) -> dict[str, Any]:
        """One of the player's rounds (by its public id) with its revealed steps."""
        with transaction(self.engine, write=False) as tx:
            return self._full(tx, self._own(tx.round(self.ids.internal(public_id) or 0), player_id, public_id))

    def own_round(self, player_id: int, public_id: int) -> int:
        """The internal id of one of the player's rounds by its public id (404 when it is not the player's)."""
        with transaction(self.engine, write=False) as tx:
            return self._own(tx.round(self.ids.internal(public_id) or 0), player_id, public_id).id

    def unfinished(self, player_id: int, game_id: str) -> dict[str, Any]:
        self.active(game_id)
        with transaction(self.engine, write=False) as tx:
            open_round = tx.open_round(player_id, game_id)
            if open_round is None:
                raise ApiError(404, "no_unfinished_round", f"no unfinished round of {game_id}")
            return self._full(tx, tx.round(open_round))

    def history(self, player_id: int, limit: int, before: int | None, game_id: str | None) -> dict[str, Any]:
        """The player's rounds, newest first; ``next_before`` (a public round id: the rounds played before
        that one) pages further."""
        if before is not None:
            before = self.ids.internal(before) or 0
        page, next_before = store.history_page(self.engine, player_id, limit, before, game_id)
        seeds = store.revealed_server_seeds(self.engine, [r.fair_seed_id for r in page if r.fair_seed_id is not None])
        return {"rounds": [self.summary_json(r, seeds.get(r.fair_seed_id)) for r in page],
                "next_before": None if next_before is None else self.ids.public(next_before)}
