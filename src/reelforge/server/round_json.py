"""The JSON shapes of a round, built in one place: a round in full (its revealed steps), a round's
summary (history pages), and a money request's answer as text (:class:`Answer`, :class:`RoundAnswer`),
with the encoding every stored step and answer uses (:func:`dumps`) and a win in minor units
(:func:`money`).

A round answer's text splices in the stored JSON of its steps as it is, instead of decoding and
re-encoding it (:meth:`RoundViews.round_answer`): the bytes are those :func:`dumps` of the whole
round would give.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from reelforge.server import fair
from reelforge.server.clock import iso
from reelforge.server.config import ServerConfig
from reelforge.server.roundids import RoundIds
from reelforge.server.seamless import SeamlessWallet, WalletTx
from reelforge.server.store import RoundRow, StepRow


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


class RoundViews:
    """The JSON of a round, a part of :class:`~reelforge.server.rounds.RoundService`: it shows the round's
    public id (``ids``), the server's currency by default (``config``) and, with the seamless ``wallet``,
    the round's settlement."""

    config: ServerConfig
    ids: RoundIds
    wallet: SeamlessWallet | None

    def round_json(self, rnd: RoundRow, step_rows: list[StepRow], balance: int | None,
                   server_seed: str | None = None, currency: str | None = None,
                   settlement: tuple[str, str] | None = None) -> dict[str, Any]:
        """A round in full: every step with its draws, events, win and state (``server_seed``: its seed pair's
        revealed server seed)."""
        body = self.summary_json(rnd, server_seed, currency, settlement)
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

    def round_answer(self, status: int, rnd: RoundRow, step_rows: list[StepRow], balance: int | None,
                     currency: str | None = None, outbox: WalletTx | None = None,
                     outbox_status: str = "pending") -> RoundAnswer:
        """``dumps(self.round_json(rnd, step_rows, balance))`` in its three parts (see :class:`RoundAnswer`),
        made without decoding and re-encoding the stored JSON of every step (draws, events, state): that
        text is spliced in as it is (it was written by :func:`dumps`, so it is what re-encoding would give).
        Only the revealed steps (the first ``step_count``) are ever in it."""
        settlement = None if outbox is None else (outbox.kind, outbox_status)
        return RoundAnswer(status, f'{dumps(self.summary_json(rnd, None, currency, settlement))[:-1]},"steps":[',
                           steps_text(rnd.bet, step_rows[:rnd.step_count]),
                           f'],"state":{rnd.state},"balance":{"null" if balance is None else balance}}}', rnd.id,
                           rnd.step_count)

    def round_text(self, rnd: RoundRow, step_rows: list[StepRow], balance: int) -> str:
        """The answer text of :meth:`round_answer`."""
        return self.round_answer(200, rnd, step_rows, balance).text

    def summary_json(self, rnd: RoundRow, server_seed: str | None = None, currency: str | None = None,
                     settlement: tuple[str, str] | None = None) -> dict[str, Any]:
        """A round without its steps (``server_seed``: its seed pair's server seed, once revealed; ``currency``:
        its player's, default the server's; ``settlement``: seamless wallet, the round's credit or rollback
        and whether the operator's wallet acknowledged it, ``pending`` (the player sees "win being
        credited") or ``done``)."""
        body = {
            "id": self.ids.public(rnd.id), "game": rnd.game, "build": rnd.build, "build_version": rnd.build_version,
            "mode": rnd.mode, "bet": rnd.bet,
            "requested_bet": rnd.requested_bet, "bet_adjusted": rnd.bet != rnd.requested_bet,
            "cost": rnd.cost, "currency": currency or self.config.currency, "status": rnd.status,
            "next_step": rnd.next_step, "step_count": rnd.step_count, "total_win_x": rnd.total_win_x,
            "total_win": rnd.win if rnd.status != "open" else _money_of(rnd.bet, rnd.total_win_x),
            "paid": rnd.win, "void_reason": rnd.void_reason, "completed_on_expiry": rnd.completed_on_expiry,
            "created_at": _iso(rnd.created_at), "updated_at": _iso(rnd.updated_at),
            "finished_at": _iso(rnd.finished_at), "fair": fair.round_fair_json(rnd, server_seed),
        }
        if self.wallet is not None:
            body["wallet_settlement"] = None if settlement is None else {"kind": settlement[0],
                                                                         "status": settlement[1]}
        return body
