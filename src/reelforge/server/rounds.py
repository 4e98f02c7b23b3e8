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

Live play draws from the OS CSPRNG through a :class:`~reelforge.draws.RecordingDraws`
so every draw is stored with its step; :func:`reelforge.server.verify.verify_round`
replays them.

"Malfunction voids all pays and plays": any error of the rules or the draw
source while a round is decided voids it in the stake's transaction, before
anything of it is shown: the stake is refunded, nothing is paid, and the
error is recorded as the reason. A step action the rules refuse (a
:class:`~reelforge.game.RulesError` for the player's ``action``) is the
client's mistake and changes nothing.
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
from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError

from reelforge.draws import DrawSource, RecordedDraws, RecordingDraws, SecureDraws
from reelforge.game import Game, RulesError
from reelforge.games.registry import get_game
from reelforge.server.auth import DEMO_REFUSED, SessionToken, session_principal
from reelforge.server.config import GameConfig, ServerConfig
from reelforge.server.db import read_transaction
from reelforge.server.errors import ApiError
from reelforge.server.schema import rounds
from reelforge.server.store import Tx, parse_ts, transaction
from reelforge.server.wallet import iso, lock_player, post_entry, utcnow

log = logging.getLogger("reelforge.server")

DrawFactory = Callable[[], DrawSource]
"""Gives the draw source for one step. Production: :class:`SecureDraws` (stateless)."""


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


def _stored_iso(value: Any) -> str | None:
    """A stored timestamp in the API's ISO form (SQLite's text cached like :func:`_money_of`)."""
    return _text_iso(value) if isinstance(value, str) else iso(parse_ts(value))


@lru_cache(maxsize=4096)
def _text_iso(value: str) -> str | None:
    return iso(parse_ts(value))


def steps_text(bet: int, step_rows: list[dict[str, Any]]) -> str:
    """The JSON text of steps (the items of a round answer's ``steps`` list, without brackets)."""
    return ",".join(
        f'{{"index":{s["idx"]},"kind":{_jstr(s["kind"])},"action":{_jstr(s["action"])},'
        f'"draws":{s["draws"]},"events":{s["events"]},"win_x":{_jstr(s["win_x"])},'
        f'"win":{_money_of(bet, s["win_x"])},"total_win_x":{_jstr(s["total_win_x"])},'
        f'"finished":{"true" if s["finished"] else "false"},"next_step":{_jstr(s["next_step"])},'
        f'"state":{s["state"]},"created_at":{_jstr(_stored_iso(s["created_at"]))}}}'
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

    def __init__(self, engine: Engine, config: ServerConfig, draw_factory: DrawFactory = SecureDraws) -> None:
        self.engine = engine
        self.config = config
        self.draw_factory = draw_factory
        self.games: dict[str, ActiveGame] = {}
        self._builds: dict[tuple[str, str], Any] = {}
        self._costs: dict[tuple[str, int, str], int | None] = {}
        for game_id, gconf in config.games.items():
            game = get_game(game_id)
            self.games[game_id] = ActiveGame(game, gconf, self.build(game_id, gconf.build))

    # -- lookups ----------------------------------------------------------------
    def build(self, game_id: str, name: str) -> Any:
        """A build by name (cached: builds are immutable data files)."""
        key = (game_id, name)
        if key not in self._builds:
            self._builds[key] = get_game(game_id).load_build(name)
        return self._builds[key]

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
    def _idempotent(self, tx: Tx, scope: str, key: str, req_hash: str,
                    action: Callable[[], tuple[int, str] | RoundAnswer]) -> Answer:
        """Run ``action`` (giving the status and the body as JSON text, or a :class:`RoundAnswer`)
        once per (scope, key); a retry returns the stored first answer.

        The caller holds the player's row lock, so a concurrent retry waits
        here and then finds the stored answer. Refusals (4xx raised as
        :class:`ApiError`) roll back and are not stored: they changed nothing.
        A round answer is stored without its steps (they are stored once, in
        ``steps``, and never change once revealed), so a round's stored bytes
        grow with its steps, not with their square; a retry puts them back.
        """
        row = tx.one("idem_get", {"scope": scope, "key": key})
        if row is not None:
            return self._stored_answer(tx, row, req_hash)
        answer = action()
        record = {"scope": scope, "key": key, "request_sha256": req_hash, "status_code": answer[0],
                  "created_at": tx.ts(utcnow()), "round_id": None, "steps_at": None, "steps_shown": None}
        if isinstance(answer, RoundAnswer):
            record.update(response=answer.head + answer.tail, round_id=answer.round_id, steps_at=len(answer.head),
                          steps_shown=answer.shown)
            answer = Answer(answer.status, answer.text)
        else:
            record["response"] = answer[1]
        tx.run("idem_put", record)
        return Answer(*answer)

    def _stored_answer(self, tx: Tx, row: tuple, req_hash: str) -> Answer:
        stored_hash, status, text, round_id, steps_at, shown = row
        if stored_hash != req_hash:
            raise ApiError(409, "idempotency_key_reused",
                           "this Idempotency-Key was already used for a different request")
        if text == "":  # purged after the retention: the request was carried out; it is not carried out again
            raise ApiError(409, "idempotency_key_expired",
                           f"this Idempotency-Key was used more than {self.config.idempotency_retention_days:g} "
                           "days ago; the request was carried out then and is not repeated (its answer is no "
                           "longer kept)")
        if round_id is None:
            return Answer(status, text)
        bet = tx.one("round_bet", {"id": round_id})[0]
        return Answer(status, text[:steps_at] + steps_text(bet, tx.steps(round_id, shown)) + text[steps_at:])

    def purge_idempotency(self, now: datetime | None = None) -> int:
        """Drop the stored answers of idempotency keys older than the retention; return how many.

        The key and its request's hash stay (a few dozen bytes): a retry after
        the retention is refused with ``idempotency_key_expired`` instead of
        being carried out a second time, so nothing is ever charged twice.
        """
        cutoff = (now or utcnow()) - timedelta(days=self.config.idempotency_retention_days)
        with transaction(self.engine) as tx:
            tx.run("idem_purge", {"cutoff": tx.ts(cutoff)})
            return tx.cursor.rowcount

    # -- the operator's transfers -----------------------------------------------------
    def transfer(self, player: str, amount: int, kind: str, key: str) -> Answer:
        """Credit (``deposit``) or debit (``withdrawal``) a player's wallet, once per Idempotency-Key."""
        req = request_hash(kind, player, amount)
        integrity_errors = (IntegrityError, self.engine.dialect.loaded_dbapi.IntegrityError)
        try:
            with transaction(self.engine) as tx:
                row = tx.one("player_by_name", {"name": player})
                if row is None:
                    raise ApiError(404, "player_not_found", f"no player {player!r} (open a session for it first)")
                if row[4] and not self.config.demo:
                    raise DEMO_REFUSED
                player_id, balance, currency = lock_player(tx, row[0])

                def act() -> tuple[int, str]:
                    if kind == "deposit" and balance + amount > self.config.max_balance:
                        raise ApiError(409, "balance_cap_exceeded",
                                       f"a deposit of {amount} would take the balance {balance} over the cap of "
                                       f"{self.config.max_balance} minor units")
                    new_balance = post_entry(tx, player_id, balance, kind,
                                             amount if kind == "deposit" else -amount, None, utcnow())
                    return 200, dumps({"player": player, "balance": new_balance, "currency": currency})

                return self._idempotent(tx, "operator", key, req, act)
        except integrity_errors:
            # The operator's keys are one scope for all players, but the lock is per player: the same
            # key used at once for two players' transfers collides on the key's primary key (PostgreSQL;
            # SQLite serialises all writers). Everything was rolled back; answer as a retry would.
            with transaction(self.engine, write=False) as tx:
                stored = tx.one("idem_get", {"scope": "operator", "key": key})
                if stored is None:
                    raise
                return self._stored_answer(tx, stored, req)

    # -- the round lifecycle ----------------------------------------------------------
    # A round is decided when it is staked: start_round plays it through to the end (every step,
    # every draw) and stores every step, unrevealed; each step request reveals the next stored
    # step; the last reveal credits the win. Expiry completes a round (reveals the rest, credits
    # the decided win); only a malfunction while deciding voids one (refund, nothing paid).
    @staticmethod
    def _lock(tx: Tx, player: int | SessionToken, operator: bool = False) -> tuple[int, int]:
        """``(player_id, balance)`` with the player's row locked: a player id as given, or the session
        token's player (checked, and locked, by the same statement)."""
        if isinstance(player, int):
            return player, lock_player(tx, player)[1]
        who = session_principal(tx, player, lock=True, operator=operator)
        return who.player_id, who.balance

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
        req = request_hash("start", game_id, bet, auto_adjust_bet, buy_feature)

        with transaction(self.engine) as tx:
            player_id, balance = self._lock(tx, player, not self.config.demo)

            def act() -> RoundAnswer:
                self._check_pace(tx, player_id)
                open_round = tx.one("open_round", {"player_id": player_id, "game": game_id})
                if open_round is not None:
                    raise ApiError(409, "unfinished_round",
                                   f"round {open_round[0]} of {game_id} is unfinished: play it to the end first "
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
                rnd = {"player_id": player_id, "game": game_id, "build": active.config.build, "mode": mode,
                       "bet": chosen, "requested_bet": bet, "cost": cost, "status": "open", "state": dumps(start),
                       "next_step": None, "step_count": 0, "total_win_x": "0", "win": 0, "void_reason": None,
                       "created_at": now, "updated_at": now, "finished_at": None, "completed_on_expiry": False}
                stake_kind = "stake" if mode == "paid" else "feature_buy"
                try:
                    decided = self._decide(active.game, active.build, start, 0, now)
                except Malfunction as exc:
                    rnd.update(status="void", void_reason=str(exc), finished_at=now)
                    self._insert(tx, rnd)
                    balance_after = post_entry(tx, player_id, balance, stake_kind, -cost, rnd["id"], now)
                    if cost:
                        balance_after = post_entry(tx, player_id, balance_after, "refund", cost, rnd["id"], now)
                    return self.round_answer(201, rnd, [], balance_after)
                self._advance(rnd, decided[0], None, now)
                self._insert(tx, rnd)
                balance_after = post_entry(tx, player_id, balance, stake_kind, -cost, rnd["id"], now)
                tx.many("insert_step", [{**row, "round_id": rnd["id"], "created_at": tx.ts(now),
                                         "revealed_at": tx.ts(row["revealed_at"])} for row in decided])
                if rnd["status"] == "finished" and rnd["win"]:
                    balance_after = post_entry(tx, player_id, balance_after, "win", rnd["win"], rnd["id"], now)
                return self.round_answer(201, rnd, decided[:1], balance_after)

            return self._idempotent(tx, f"player:{player_id}", key, req, act)

    def _check_pace(self, tx: Tx, player_id: int) -> None:
        """Refuse a new round sooner than ``min_round_seconds`` after the player's previous one started
        (checked under the player's row lock, so concurrent requests cannot both slip through)."""
        gap = self.config.play.min_round_seconds
        if not gap:
            return
        row = tx.one("last_round_start", {"player_id": player_id})
        last = parse_ts(row[0]) if row and row[0] is not None else None
        if last is None:
            return
        wait = gap - (utcnow() - last).total_seconds()
        if wait > 0:
            raise ApiError(429, "too_soon", f"a new round may start {gap:g} seconds after the previous one "
                                            f"started; wait {wait:.1f} more seconds")

    def play_step(self, player: int | SessionToken, round_id: int, action: str | None,
                  key: str) -> Answer:
        """Reveal the next step of the player's unfinished round (the last one credits the win)."""
        req = request_hash("step", round_id, action)
        with transaction(self.engine) as tx:
            player_id, balance = self._lock(tx, player, not self.config.demo)

            def act() -> RoundAnswer:
                rnd = self._own_round(tx, player_id, round_id, lock=True)
                if rnd["status"] != "open":
                    raise ApiError(409, "round_not_open",
                                   f"round {round_id} is {rnd['status']}; no step is left to play")
                game = get_game(rnd["game"])
                if action is not None and action not in game.step_actions:
                    raise ApiError(409, "unknown_action",
                                   f"{rnd['game']} steps take no action {action!r}; actions: {list(game.step_actions)}")
                build = self.build(rnd["game"], rnd["build"])
                now = utcnow()
                index = rnd["step_count"]
                rows = tx.steps(round_id, index + 1)
                if len(rows) <= index:  # stored before rounds were decided at the stake
                    try:
                        rows += self._store_decided(tx, rnd, game, build, now)
                    except Malfunction as exc:
                        return self.round_answer(200, rnd, rows, self._void(tx, rnd, balance, str(exc)))
                if self._expired(rnd, now):
                    rows = tx.steps(round_id)
                    return self.round_answer(200, rnd, rows, self._complete(tx, rnd, rows, balance, now))
                row = rows[index]
                if action is not None:
                    self._check_action(game, build, rnd["state"], row, action)
                self._advance(rnd, row, action, now)
                tx.run("reveal_step", {"round_id": round_id, "idx": index, "revealed_at": tx.ts(now),
                                       "action": action})
                self._save(tx, rnd)
                new_balance = balance
                if rnd["status"] == "finished" and rnd["win"]:
                    new_balance = post_entry(tx, player_id, balance, "win", rnd["win"], round_id, now)
                return self.round_answer(200, rnd, rows, new_balance)

            return self._idempotent(tx, f"player:{player_id}", key, req, act)

    def _decide(self, game: Game, build: Any, state: dict[str, Any], first: int,
                now: datetime) -> list[dict[str, Any]]:
        """Play a round from ``state`` to its end with the live draw source; the step rows (unrevealed,
        numbered from ``first``). Any error of the rules or the draw source is a :class:`Malfunction`."""
        rows: list[dict[str, Any]] = []
        try:
            recorder = RecordingDraws(self.draw_factory())
            while True:
                step = game.play_step(build, state, recorder, None)
                rows.append({"idx": first + len(rows), "kind": step.kind, "action": None,
                             "draws": dumps(recorder.take()), "events": dumps(step.events),
                             "win_x": str(Fraction(step.win)), "total_win_x": str(Fraction(step.total_win)),
                             "finished": bool(step.finished), "next_step": step.next_step,
                             "state": dumps(step.state), "created_at": now, "revealed_at": None})
                if step.finished:
                    return rows
                if len(rows) >= MAX_ROUND_STEPS:
                    raise RuntimeError(f"the round did not finish within {MAX_ROUND_STEPS} steps")
                state = step.state
        except Exception as exc:  # noqa: BLE001 - a malfunction voids the round instead of failing the request
            log.error("malfunction while deciding a round of %s: %s: %s", game.id, type(exc).__name__, exc)
            raise Malfunction(f"malfunction while deciding step {first + len(rows) + 1}: "
                              f"{type(exc).__name__}: {exc}") from exc

    def _store_decided(self, tx: Tx, rnd: dict[str, Any], game: Game, build: Any,
                       now: datetime) -> list[dict[str, Any]]:
        """Decide and store the rest of a round stored before rounds were decided at the stake
        (its later steps were to be drawn when played); the new step rows."""
        rows = self._decide(game, build, json.loads(rnd["state"]), rnd["step_count"], now)
        tx.many("insert_step", [{**row, "round_id": rnd["id"], "created_at": tx.ts(now), "revealed_at": None}
                                for row in rows])
        return rows

    @staticmethod
    def _check_action(game: Game, build: Any, state: str, row: dict[str, Any], action: str) -> None:
        """Refuse an action the step being revealed does not take (the rules say which, as when the
        step was played on request): its stored draws go through the rules with the action."""
        try:
            game.play_step(build, json.loads(state), RecordedDraws(json.loads(row["draws"])), action)
        except RulesError as exc:
            raise ApiError(409, "rules_refused", str(exc)) from exc

    @staticmethod
    def _advance(rnd: dict[str, Any], row: dict[str, Any], action: str | None, now: datetime) -> None:
        """Reveal ``row`` (the round's next step) in ``rnd`` and ``row`` (in memory)."""
        row.update(revealed_at=now, action=action)
        rnd.update(state=row["state"], step_count=row["idx"] + 1, total_win_x=row["total_win_x"],
                   next_step=row["next_step"], updated_at=now)
        if row["finished"]:
            rnd.update(status="finished", win=money(rnd["bet"], Fraction(row["total_win_x"])), finished_at=now,
                       next_step=None)

    def _complete(self, tx: Tx, rnd: dict[str, Any], rows: list[dict[str, Any]], balance: int,
                  now: datetime) -> int:
        """Complete an expired round: reveal its remaining steps and credit its decided win."""
        tx.run("reveal_rest", {"round_id": rnd["id"], "revealed_at": tx.ts(now)})
        for row in rows[rnd["step_count"]:]:
            self._advance(rnd, row, None, now)
        rnd["completed_on_expiry"] = True
        self._save(tx, rnd)
        if rnd["win"]:
            balance = post_entry(tx, rnd["player_id"], balance, "win", rnd["win"], rnd["id"], now)
        return balance

    @staticmethod
    def _insert(tx: Tx, rnd: dict[str, Any]) -> None:
        rnd["id"] = tx.one("insert_round", {**rnd, "created_at": tx.ts(rnd["created_at"]),
                                            "updated_at": tx.ts(rnd["updated_at"]),
                                            "finished_at": tx.ts(rnd["finished_at"])})[0]

    @staticmethod
    def _save(tx: Tx, rnd: dict[str, Any]) -> None:
        tx.run("update_round", {k: rnd[k] for k in ("id", "status", "state", "next_step", "step_count",
                                                     "total_win_x", "win", "void_reason", "completed_on_expiry")}
               | {"updated_at": tx.ts(rnd["updated_at"]), "finished_at": tx.ts(rnd["finished_at"])})

    def _void(self, tx: Tx, rnd: dict[str, Any], balance: int, reason: str) -> int:
        """Void an open round (a malfunction while deciding it): refund what it cost, pay nothing, record why."""
        now = utcnow()
        rnd.update(status="void", void_reason=reason, win=0, next_step=None, updated_at=now, finished_at=now)
        self._save(tx, rnd)
        if rnd["cost"]:
            balance = post_entry(tx, rnd["player_id"], balance, "refund", rnd["cost"], rnd["id"], now)
        return balance

    def _expired(self, rnd: dict[str, Any], now: datetime) -> bool:
        return parse_ts(rnd["created_at"]) + timedelta(days=self.config.round_expiry_days) <= now

    def purge_sessions(self, now: datetime | None = None) -> int:
        """Delete sessions that expired more than a day ago (their tokens are refused anyway)."""
        from sqlalchemy import delete

        from reelforge.server.db import write_transaction
        from reelforge.server.schema import sessions

        cutoff = (now or utcnow()) - timedelta(days=1)
        with write_transaction(self.engine) as conn:
            return conn.execute(delete(sessions).where(sessions.c.expires_at < cutoff)).rowcount

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
            with read_transaction(self.engine) as conn:
                candidates = conn.execute(select(rounds.c.id, rounds.c.player_id).where(
                    rounds.c.status == "open", rounds.c.created_at <= cutoff).order_by(rounds.c.id).limit(batch)).all()
            if not candidates:
                return completed
            for round_id, player_id in candidates:
                with transaction(self.engine) as tx:
                    _, balance, _ = lock_player(tx, player_id)
                    rnd = tx.round(round_id, lock=True)
                    if rnd["status"] != "open" or not self._expired(rnd, now):
                        continue
                    rows = tx.steps(round_id)
                    if not rows or not rows[-1]["finished"]:  # stored before rounds were decided at the stake
                        game = get_game(rnd["game"])
                        try:
                            rows += self._store_decided(tx, rnd, game, self.build(rnd["game"], rnd["build"]), now)
                        except Malfunction as exc:
                            self._void(tx, rnd, balance, str(exc))
                            continue
                    self._complete(tx, rnd, rows, balance, now)
                    completed += 1
            if len(candidates) < batch:
                return completed

    # -- reading ----------------------------------------------------------------------
    @staticmethod
    def _own_round(tx: Tx, player_id: int, round_id: int, lock: bool = False) -> dict[str, Any]:
        rnd = tx.round(round_id, lock=lock)
        # A foreign round is reported exactly like a missing one.
        if rnd is None or rnd["player_id"] != player_id:
            raise ApiError(404, "round_not_found", f"no round {round_id} for this player")
        return rnd

    def round_json(self, rnd: dict[str, Any], step_rows: list[dict[str, Any]], balance: int) -> dict[str, Any]:
        """A round in full: every step with its draws, events, win and state."""
        body = self.summary_json(rnd)
        body["steps"] = [{
            "index": s["idx"], "kind": s["kind"], "action": s["action"], "draws": json.loads(s["draws"]),
            "events": json.loads(s["events"]), "win_x": s["win_x"], "win": money(rnd["bet"], Fraction(s["win_x"])),
            "total_win_x": s["total_win_x"], "finished": bool(s["finished"]), "next_step": s["next_step"],
            "state": json.loads(s["state"]), "created_at": iso(parse_ts(s["created_at"])),
        } for s in step_rows[:rnd["step_count"]]]
        body["state"] = json.loads(rnd["state"])
        body["balance"] = balance
        return body

    def round_answer(self, status: int, rnd: dict[str, Any], step_rows: list[dict[str, Any]],
                     balance: int) -> RoundAnswer:
        """``dumps(self.round_json(rnd, step_rows, balance))`` in its three parts (see :class:`RoundAnswer`),
        made without decoding and re-encoding the stored JSON of every step (draws, events, state): that
        text is spliced in as it is (it was written by :func:`dumps`, so it is what re-encoding would give).
        Only the revealed steps (the first ``step_count``) are ever in it."""
        return RoundAnswer(status, f'{dumps(self.summary_json(rnd))[:-1]},"steps":[',
                           steps_text(rnd["bet"], step_rows[:rnd["step_count"]]),
                           f'],"state":{rnd["state"]},"balance":{balance}}}', rnd["id"], rnd["step_count"])

    def round_text(self, rnd: dict[str, Any], step_rows: list[dict[str, Any]], balance: int) -> str:
        """The answer text of :meth:`round_answer`."""
        return self.round_answer(200, rnd, step_rows, balance).text

    def summary_json(self, rnd: Any) -> dict[str, Any]:
        return {
            "id": rnd["id"], "game": rnd["game"], "build": rnd["build"], "mode": rnd["mode"], "bet": rnd["bet"],
            "requested_bet": rnd["requested_bet"], "bet_adjusted": rnd["bet"] != rnd["requested_bet"],
            "cost": rnd["cost"], "currency": self.config.currency, "status": rnd["status"],
            "next_step": rnd["next_step"], "step_count": rnd["step_count"], "total_win_x": rnd["total_win_x"],
            "total_win": rnd["win"] if rnd["status"] != "open" else _money_of(rnd["bet"], rnd["total_win_x"]),
            "paid": rnd["win"], "void_reason": rnd["void_reason"],
            "completed_on_expiry": bool(rnd["completed_on_expiry"]),
            "created_at": _stored_iso(rnd["created_at"]), "updated_at": _stored_iso(rnd["updated_at"]),
            "finished_at": _stored_iso(rnd["finished_at"]),
        }

    def _full(self, tx: Tx, rnd: dict[str, Any]) -> dict[str, Any]:
        balance = tx.one("balance", {"id": rnd["player_id"]})[0]
        return self.round_json(rnd, tx.steps(rnd["id"], rnd["step_count"]), balance)

    def get_round(self, player_id: int, round_id: int) -> dict[str, Any]:
        """One of the player's rounds with its revealed steps."""
        with transaction(self.engine, write=False) as tx:
            return self._full(tx, self._own_round(tx, player_id, round_id))

    def unfinished(self, player_id: int, game_id: str) -> dict[str, Any]:
        self.active(game_id)
        with transaction(self.engine, write=False) as tx:
            row = tx.one("open_round", {"player_id": player_id, "game": game_id})
            if row is None:
                raise ApiError(404, "no_unfinished_round", f"no unfinished round of {game_id}")
            return self._full(tx, tx.round(row[0]))

    def history(self, player_id: int, limit: int, before: int | None, game_id: str | None) -> dict[str, Any]:
        """The player's rounds, newest first; ``next_before`` pages further."""
        query = select(rounds).where(rounds.c.player_id == player_id)
        if before is not None:
            query = query.where(rounds.c.id < before)
        if game_id is not None:
            query = query.where(rounds.c.game == game_id)
        with read_transaction(self.engine) as conn:
            rows = conn.execute(query.order_by(rounds.c.id.desc()).limit(limit + 1)).mappings().all()
        more = len(rows) > limit
        rows = rows[:limit]
        return {"rounds": [self.summary_json(r) for r in rows], "next_before": rows[-1]["id"] if more else None}
