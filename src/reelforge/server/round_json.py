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
import threading
from datetime import datetime
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from reelforge.server import fair
from reelforge.server.clock import iso
from reelforge.server.config import ServerConfig
from reelforge.server.jsontext import encoder
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


_encode = encoder(to_jsonable)
"""``json.dumps`` with :func:`dumps`'s options, built once (see :mod:`reelforge.server.jsontext`; it keeps no
state between calls, so one serves every thread)."""


def dumps(value: Any) -> str:
    """Compact JSON (Fractions as strings)."""
    return _encode(value)


def ints_text(values: list[Any]) -> str:
    """:func:`dumps` of a list of draws or ranges: the same text, written directly when every item is a
    plain ``int`` (a step's draws are; ``bool`` and numpy integers go through the encoder)."""
    for value in values:
        if type(value) is not int:
            return _encode(values)
    return "[" + ",".join(map(str, values)) + "]"


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


class ShownSteps:
    """The JSON text of open rounds' revealed steps, kept by this server process between their requests.

    A step's answer carries every step revealed so far, and a revealed step never changes; so the
    text of the first ``count`` steps, as a committed request of this process answered it, is kept
    for the round's next step request, which then reads and writes only the step it reveals (instead
    of reading every earlier step again and writing each one's JSON again: a round's requests cost
    grew with the square of its steps). Kept per round with its creation time (a round id is
    unique in one database); at most :attr:`MAX_CHARS` characters in all, the oldest dropped first,
    and a round's entry is dropped when it ends. A round this process did not see last (another
    server process played its previous step) is read whole, as without this.
    """

    MAX_CHARS = 32 * 1024 * 1024

    def __init__(self) -> None:
        self._texts: dict[int, tuple[int, str, datetime]] = {}
        self._chars = 0
        self._lock = threading.Lock()  # the database threads (PostgreSQL) keep and drop entries concurrently

    def get(self, round_id: int) -> tuple[int, str, datetime] | None:
        """``(count, text, created_at)`` of the round's first ``count`` revealed steps (None: not kept)."""
        return self._texts.get(round_id)

    def clear(self) -> None:
        """Forget every round's steps (a commit failed: what was kept may not have been committed)."""
        with self._lock:
            self._texts.clear()
            self._chars = 0

    def keep(self, rnd: RoundRow, answer: RoundAnswer | None) -> None:
        """After the commit of a request that answered ``answer`` for ``rnd``: keep its steps' text while the
        round is open, else drop it."""
        with self._lock:
            old = self._texts.pop(rnd.id, None)
            if old is not None:
                self._chars -= len(old[1])
            if answer is None or rnd.status != "open" or not answer.shown:
                return
            self._texts[rnd.id] = (answer.shown, answer.steps, rnd.created_at)
            self._chars += len(answer.steps)
            while self._chars > self.MAX_CHARS:
                self._chars -= len(self._texts.pop(next(iter(self._texts)))[1])


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
                     outbox_status: str = "pending", shown: tuple[int, str, datetime] | None = None) -> RoundAnswer:
        """``dumps(self.round_json(rnd, step_rows, balance))`` in its three parts (see :class:`RoundAnswer`),
        made without decoding and re-encoding the stored JSON of every step (draws, events, state): that
        text is spliced in as it is (it was written by :func:`dumps`, so it is what re-encoding would give).
        Only the revealed steps (the first ``step_count``) are ever in it. ``shown``: the text of the first
        steps (:class:`ShownSteps`), whose rows ``step_rows`` then need not hold."""
        settlement = None if outbox is None else (outbox.kind, outbox_status)
        if shown is None:
            steps = steps_text(rnd.bet, step_rows[:rnd.step_count])
        else:
            rest = steps_text(rnd.bet, step_rows[shown[0]:rnd.step_count])
            steps = f"{shown[1]},{rest}" if rest else shown[1]
        return RoundAnswer(status, f'{dumps(self.summary_json(rnd, None, currency, settlement))[:-1]},"steps":[',
                           steps, f'],"state":{rnd.state},"balance":{"null" if balance is None else balance}}}',
                           rnd.id, rnd.step_count)

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
        if rnd.campaign_id is not None:  # a free round: no debit, its win paid by its campaign (docs/OPERATORS.md)
            body["campaign"] = rnd.campaign_id
        if self.wallet is not None:
            body["wallet_settlement"] = None if settlement is None else {"kind": settlement[0],
                                                                         "status": settlement[1]}
        return body
