"""Rounds as step machines over the common :class:`~reelforge.game.Game` interface.

One round, one transaction per request:

* start: lock the player, debit the stake (or the feature-buy price) as a
  ledger entry, create the round, play its first step (the paid spin);
* step: lock the player, play the round's next step, persist the step (its
  draws, events, win and the state after it);
* the step that finishes a round credits the win, ``floor(bet * total_win_x)``
  minor units, as a ledger entry. Builds' win amounts are multiples of
  ``1 / game.win_unit(build)`` of the bet, so a bet that is a multiple of the
  win unit never rounds (the shipped ladders are; a test checks it). Should an
  operator configure a bet that is not, the player is paid the floor and the
  exact ``total_win_x`` stays on the round for the audit.

Live play draws from the OS CSPRNG through a :class:`~reelforge.draws.RecordingDraws`
so every draw is stored with its step; :func:`reelforge.server.verify.verify_round`
replays them.

"Malfunction voids all pays and plays": any error while the rules play a step
(other than a :class:`~reelforge.game.RulesError`, which is the client's
mistake and changes nothing) voids the round in the same transaction: the
stake is refunded, nothing is paid, and the error is recorded as the reason.
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

from reelforge.draws import DrawSource, RecordingDraws, SecureDraws
from reelforge.game import Game, RulesError
from reelforge.games.registry import get_game
from reelforge.server.auth import SessionToken, session_principal
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
                    action: Callable[[], tuple[int, str]]) -> Answer:
        """Run ``action`` (giving the status and the body as JSON text) once per (scope, key);
        a retry returns the stored first answer.

        The caller holds the player's row lock, so a concurrent retry waits
        here and then finds the stored answer. Refusals (4xx raised as
        :class:`ApiError`) roll back and are not stored: they changed nothing.
        """
        row = tx.one("idem_get", {"scope": scope, "key": key})
        if row is not None:
            if row[0] != req_hash:
                raise ApiError(409, "idempotency_key_reused",
                               "this Idempotency-Key was already used for a different request")
            return Answer(row[1], row[2])
        status, text = action()
        tx.run("idem_put", {"scope": scope, "key": key, "request_sha256": req_hash, "status_code": status,
                            "response": text, "created_at": tx.ts(utcnow())})
        return Answer(status, text)

    # -- rounds -------------------------------------------------------------------
    @staticmethod
    def _lock(tx: Tx, player: int | SessionToken) -> tuple[int, int]:
        """``(player_id, balance)`` with the player's row locked: a player id as given, or the session
        token's player (checked, and locked, by the same statement)."""
        if isinstance(player, int):
            return player, lock_player(tx, player)[1]
        who = session_principal(tx, player, lock=True)
        return who.player_id, who.balance

    def start_round(self, player: int | SessionToken, game_id: str, bet: int, auto_adjust_bet: bool,
                    buy_feature: bool | str | None, key: str) -> Answer:
        """Debit the stake, create the round and play its first step."""
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
            player_id, balance = self._lock(tx, player)

            def act() -> tuple[int, str]:
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
                state = dumps(active.game.start_round(active.build, mode))
                rnd = {"player_id": player_id, "game": game_id, "build": active.config.build, "mode": mode,
                       "bet": chosen, "requested_bet": bet, "cost": cost, "status": "open", "state": state,
                       "next_step": None, "step_count": 0, "total_win_x": "0", "win": 0, "void_reason": None,
                       "created_at": now, "updated_at": now, "finished_at": None}
                step_rows: list[dict[str, Any]] = []
                new_balance = self._play(tx, active.game, active.build, rnd, step_rows, None, balance,
                                         stake_kind="stake" if mode == "paid" else "feature_buy")
                return 201, self.round_text(rnd, step_rows, new_balance)

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
        """Play the next step of the player's unfinished round."""
        req = request_hash("step", round_id, action)
        with transaction(self.engine) as tx:
            player_id, balance = self._lock(tx, player)

            def act() -> tuple[int, str]:
                rnd = self._own_round(tx, player_id, round_id, lock=True)
                if rnd["status"] != "open":
                    raise ApiError(409, "round_not_open",
                                   f"round {round_id} is {rnd['status']}; no step is left to play")
                game = get_game(rnd["game"])
                if action is not None and action not in game.step_actions:
                    raise ApiError(422, "unknown_action",
                                   f"{rnd['game']} steps take no action {action!r}; actions: {list(game.step_actions)}")
                step_rows = tx.steps(round_id)
                if self._expired(rnd, utcnow()):
                    new_balance = self._void(tx, rnd, balance, self._expiry_reason(rnd))
                else:
                    build = self.build(rnd["game"], rnd["build"])
                    new_balance = self._play(tx, game, build, rnd, step_rows, action, balance)
                return 200, self.round_text(rnd, step_rows, new_balance)

            return self._idempotent(tx, f"player:{player_id}", key, req, act)

    def _play(self, tx: Tx, game: Game, build: Any, rnd: dict[str, Any], step_rows: list[dict[str, Any]],
              action: str | None, balance: int, stake_kind: str | None = None) -> int:
        """Play one step of ``rnd`` and persist it (``rnd`` and ``step_rows`` are updated in place);
        return the player's balance afterwards.

        A new round (no ``id`` yet; ``stake_kind`` says how its cost is debited) is inserted only
        after its first step is played, with the state after it, and then debited: a round that
        its paid spin finishes never passes through the open-round indexes.
        """
        recorder = RecordingDraws(self.draw_factory())
        malfunction = None
        try:
            step = game.play_step(build, json.loads(rnd["state"]), recorder, action)
            events, new_state = dumps(step.events), dumps(step.state)
            win_x, total_x = Fraction(step.win), Fraction(step.total_win)
        except RulesError as exc:
            raise ApiError(409, "rules_refused", str(exc)) from exc
        except Exception as exc:  # noqa: BLE001 - a malfunction voids the round instead of failing the request
            log.exception("malfunction in round %s step %s", rnd.get("id", "(new)"), rnd["step_count"] + 1)
            malfunction = f"malfunction during step {rnd['step_count'] + 1}: {type(exc).__name__}: {exc}"
        now = utcnow()
        new = "id" not in rnd
        if malfunction is not None:
            if not new:
                return self._void(tx, rnd, balance, malfunction)
            rnd.update(status="void", void_reason=malfunction, win=0, next_step=None, updated_at=now,
                       finished_at=now)
            self._insert(tx, rnd)
            balance = post_entry(tx, rnd["player_id"], balance, stake_kind, -rnd["cost"], rnd["id"], now)
            return post_entry(tx, rnd["player_id"], balance, "refund", rnd["cost"], rnd["id"], now) \
                if rnd["cost"] else balance
        row = {"idx": rnd["step_count"], "kind": step.kind, "action": action, "draws": dumps(recorder.take()),
               "events": events, "win_x": str(win_x), "total_win_x": str(total_x), "finished": bool(step.finished),
               "next_step": step.next_step, "state": new_state, "created_at": now}
        rnd.update(state=new_state, step_count=rnd["step_count"] + 1, total_win_x=str(total_x),
                   next_step=step.next_step, updated_at=now)
        if step.finished:
            rnd.update(status="finished", win=money(rnd["bet"], total_x), finished_at=now, next_step=None)
        if new:
            self._insert(tx, rnd)
            balance = post_entry(tx, rnd["player_id"], balance, stake_kind, -rnd["cost"], rnd["id"], now)
        else:
            self._save(tx, rnd)
        tx.run("insert_step", {**row, "round_id": rnd["id"], "created_at": tx.ts(now)})
        step_rows.append(row)
        if step.finished and rnd["win"]:
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
                                                     "total_win_x", "win", "void_reason")}
               | {"updated_at": tx.ts(rnd["updated_at"]), "finished_at": tx.ts(rnd["finished_at"])})

    def _void(self, tx: Tx, rnd: dict[str, Any], balance: int, reason: str) -> int:
        """Void an open round: refund what it cost, pay nothing, record why."""
        now = utcnow()
        rnd.update(status="void", void_reason=reason, win=0, next_step=None, updated_at=now, finished_at=now)
        self._save(tx, rnd)
        if rnd["cost"]:
            balance = post_entry(tx, rnd["player_id"], balance, "refund", rnd["cost"], rnd["id"], now)
        return balance

    def _expired(self, rnd: dict[str, Any], now: datetime) -> bool:
        return parse_ts(rnd["created_at"]) + timedelta(days=self.config.round_expiry_days) <= now

    def _expiry_reason(self, rnd: dict[str, Any]) -> str:
        return (f"expired: unfinished for more than {self.config.round_expiry_days:g} days "
                f"(started {iso(parse_ts(rnd['created_at']))}); stake refunded, pays void")

    def purge_sessions(self, now: datetime | None = None) -> int:
        """Delete sessions that expired more than a day ago (their tokens are refused anyway)."""
        from sqlalchemy import delete

        from reelforge.server.db import write_transaction
        from reelforge.server.schema import sessions

        cutoff = (now or utcnow()) - timedelta(days=1)
        with write_transaction(self.engine) as conn:
            return conn.execute(delete(sessions).where(sessions.c.expires_at < cutoff)).rowcount

    def expire(self, now: datetime | None = None, batch: int = 500) -> int:
        """Void every round unfinished longer than the expiry; return how many were voided.

        Safe to run from several processes at once: each round is re-checked
        under its player's row lock before it is voided.
        """
        now = now or utcnow()
        cutoff = now - timedelta(days=self.config.round_expiry_days)
        voided = 0
        while True:
            with read_transaction(self.engine) as conn:
                candidates = conn.execute(select(rounds.c.id, rounds.c.player_id).where(
                    rounds.c.status == "open", rounds.c.created_at <= cutoff).order_by(rounds.c.id).limit(batch)).all()
            if not candidates:
                return voided
            for round_id, player_id in candidates:
                with transaction(self.engine) as tx:
                    _, balance, _ = lock_player(tx, player_id)
                    rnd = tx.round(round_id, lock=True)
                    if rnd["status"] == "open" and self._expired(rnd, now):
                        self._void(tx, rnd, balance, self._expiry_reason(rnd))
                        voided += 1
            if len(candidates) < batch:
                return voided

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
        } for s in step_rows]
        body["state"] = json.loads(rnd["state"])
        body["balance"] = balance
        return body

    def round_text(self, rnd: dict[str, Any], step_rows: list[dict[str, Any]], balance: int) -> str:
        """``dumps(self.round_json(rnd, step_rows, balance))``, made without decoding and re-encoding
        the stored JSON of every step (draws, events, state): that text is spliced in as it is (it was
        written by :func:`dumps`, so it is what re-encoding would give)."""
        bet = rnd["bet"]
        steps = ",".join(
            f'{{"index":{s["idx"]},"kind":{_jstr(s["kind"])},"action":{_jstr(s["action"])},'
            f'"draws":{s["draws"]},"events":{s["events"]},"win_x":{_jstr(s["win_x"])},'
            f'"win":{_money_of(bet, s["win_x"])},"total_win_x":{_jstr(s["total_win_x"])},'
            f'"finished":{"true" if s["finished"] else "false"},"next_step":{_jstr(s["next_step"])},'
            f'"state":{s["state"]},"created_at":{_jstr(_stored_iso(s["created_at"]))}}}'
            for s in step_rows)
        return f'{dumps(self.summary_json(rnd))[:-1]},"steps":[{steps}],"state":{rnd["state"]},"balance":{balance}}}'

    def summary_json(self, rnd: Any) -> dict[str, Any]:
        return {
            "id": rnd["id"], "game": rnd["game"], "build": rnd["build"], "mode": rnd["mode"], "bet": rnd["bet"],
            "requested_bet": rnd["requested_bet"], "bet_adjusted": rnd["bet"] != rnd["requested_bet"],
            "cost": rnd["cost"], "currency": self.config.currency, "status": rnd["status"],
            "next_step": rnd["next_step"], "step_count": rnd["step_count"], "total_win_x": rnd["total_win_x"],
            "total_win": rnd["win"] if rnd["status"] != "open" else _money_of(rnd["bet"], rnd["total_win_x"]),
            "paid": rnd["win"], "void_reason": rnd["void_reason"],
            "created_at": _stored_iso(rnd["created_at"]), "updated_at": _stored_iso(rnd["updated_at"]),
            "finished_at": _stored_iso(rnd["finished_at"]),
        }

    def _full(self, tx: Tx, rnd: dict[str, Any]) -> dict[str, Any]:
        balance = tx.one("balance", {"id": rnd["player_id"]})[0]
        return self.round_json(rnd, tx.steps(rnd["id"]), balance)

    def get_round(self, player_id: int, round_id: int) -> dict[str, Any]:
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
