"""A local Stake Engine RGS (``reelforge serve --stake DIR``): the endpoints a Stake front end calls
(``docs/rgs_docs/RGS.md`` of StakeEngine/math-sdk), served from a math package on disk, so a studio
develops its front end against its own game without uploading it.

* Money is integer units of one millionth (``1000000`` is 1.00), as Stake's.
* ``/wallet/authenticate`` opens (or resumes) a session: a session id seen for the first time starts
  with :attr:`RgsSettings.balance`; the answer carries the bet levels and the session's last round,
  still ``active`` when it was not ended, so a reloaded front end resumes it.
* ``/wallet/play`` takes a base bet (``amount``: between ``minBet`` and ``maxBet``, a multiple of
  ``stepBet``) and a mode, debits ``amount x cost``, and draws the round's book by the lookup table's
  weights with the operating system's CSPRNG. A round paying nothing is over at once; a round that
  pays stays ``active`` until ``/wallet/end-round`` credits ``amount x payoutMultiplier / 100``.
* ``/bet/event`` keeps the front end's progress marker in the active round (returned on resume).
* Every refusal is HTTP 400 with ``{"error": code, "detail": message}``, the code one of RGS.md's
  (``ERR_VAL`` invalid request, ``ERR_IPB`` insufficient balance, ``ERR_IS`` unknown session), and
  changes nothing.

Balances and rounds live in a small SQLite file, one transaction per request, so a restart keeps them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse

from reelforge.server.stake_package import StakeMode, StakePackage

UNIT = 1_000_000
"""Money units per whole currency unit (six decimals)."""

DEFAULT_LEVELS = tuple(int(x * UNIT) for x in (
    0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10, 15, 20, 25, 50, 75, 100, 250, 500, 1000))


@dataclass(frozen=True)
class RgsSettings:
    """What a session starts with and what it may bet (money in millionths)."""

    balance: int = 1000 * UNIT
    currency: str = "USD"
    min_bet: int = DEFAULT_LEVELS[0]
    max_bet: int = DEFAULT_LEVELS[-1]
    step_bet: int = 10_000
    bet_levels: tuple[int, ...] = DEFAULT_LEVELS
    default_bet: int = UNIT
    jurisdiction: dict[str, Any] = field(default_factory=lambda: {
        "socialCasino": False, "disabledFullscreen": False, "disabledTurbo": False})

    def __post_init__(self) -> None:
        if self.balance < 0:
            raise ValueError(f"the starting balance must not be negative, not {self.balance}")
        if not 0 < self.step_bet <= self.min_bet <= self.max_bet:
            raise ValueError("bets need 0 < stepBet <= minBet <= maxBet")
        # a payout is amount x payoutMultiplier / 100 with the multiplier a whole number of hundredths
        if self.step_bet % 100 or self.min_bet % self.step_bet:
            raise ValueError(f"stepBet ({self.step_bet}) must be a multiple of 100 units and divide minBet")
        if any(not self.min_bet <= b <= self.max_bet or b % self.step_bet for b in self.bet_levels):
            raise ValueError("every bet level must lie between minBet and maxBet and be a multiple of stepBet")

    def config(self) -> dict[str, Any]:
        return {"minBet": self.min_bet, "maxBet": self.max_bet, "stepBet": self.step_bet,
                "defaultBetLevel": self.default_bet, "betLevels": list(self.bet_levels),
                "jurisdiction": dict(self.jurisdiction)}


class RgsError(Exception):
    """A refused request (HTTP 400): ``code`` is one of RGS.md's error codes."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    balance INTEGER NOT NULL CHECK (balance >= 0),
    currency TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    bet_id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(session_id),
    mode TEXT NOT NULL,
    amount INTEGER NOT NULL,
    debit INTEGER NOT NULL,
    book_row INTEGER NOT NULL,
    payout_multiplier INTEGER NOT NULL,
    payout INTEGER NOT NULL,
    active INTEGER NOT NULL,
    event TEXT
);
CREATE INDEX IF NOT EXISTS rounds_by_session ON rounds (session_id, bet_id);
"""


class StakeRgs:
    """The RGS's state: the package it serves and its session store (thread-safe: one lock, one
    SQLite transaction per call)."""

    def __init__(self, package: StakePackage, store: str | Path, settings: RgsSettings | None = None) -> None:
        self.package = package
        self.settings = settings or RgsSettings()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(store), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    # -- one transaction per request -------------------------------------------------------
    def _run(self, work: Any) -> Any:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                answer = work()
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return answer

    def _session(self, session_id: str) -> sqlite3.Row:
        row = self._db.execute("SELECT * FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        if row is None:
            raise RgsError("ERR_IS", f"session {session_id!r} is not authenticated; call /wallet/authenticate first")
        return row

    def _last_round(self, session_id: str) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM rounds WHERE session_id = ? ORDER BY bet_id DESC LIMIT 1",
                                (session_id,)).fetchone()

    def _active_round(self, session_id: str) -> sqlite3.Row | None:
        last = self._last_round(session_id)
        return last if last is not None and last["active"] else None

    def _balance(self, session_id: str) -> dict[str, Any]:
        row = self._session(session_id)
        return {"amount": row["balance"], "currency": row["currency"]}

    def _round_json(self, row: sqlite3.Row | None) -> dict[str, Any] | None:
        if row is None:
            return None
        mode = self.package.modes[row["mode"]]
        return {"betID": row["bet_id"], "mode": row["mode"], "amount": row["amount"], "cost": float(mode.cost),
                "payoutMultiplier": row["payout_multiplier"], "payout": row["payout"], "active": bool(row["active"]),
                "event": row["event"], "state": mode.book(row["book_row"])["events"]}

    # -- the endpoints' work ---------------------------------------------------------------
    def authenticate(self, session_id: str) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            self._db.execute("INSERT OR IGNORE INTO sessions (session_id, balance, currency) VALUES (?, ?, ?)",
                             (session_id, self.settings.balance, self.settings.currency))
            return {"balance": self._balance(session_id), "config": self.settings.config(),
                    "round": self._round_json(self._last_round(session_id))}
        return self._run(work)

    def balance(self, session_id: str) -> dict[str, Any]:
        return self._run(lambda: {"balance": self._balance(session_id)})

    def play(self, session_id: str, amount: int, mode_name: str) -> dict[str, Any]:
        s = self.settings

        def work() -> dict[str, Any]:
            session = self._session(session_id)
            active = self._active_round(session_id)
            if active is not None:
                raise RgsError("ERR_VAL", f"round {active['bet_id']} is still active; end it with /wallet/end-round "
                                          "before the next play")
            mode = self.package.mode(mode_name)
            if mode is None:
                raise RgsError("ERR_VAL", f"unknown mode {mode_name!r}; this game's modes are "
                                          f"{', '.join(self.package.modes)}")
            if not s.min_bet <= amount <= s.max_bet or amount % s.step_bet:
                raise RgsError("ERR_VAL", f"bet amount {amount} must be between minBet {s.min_bet} and maxBet "
                                          f"{s.max_bet} and a multiple of stepBet {s.step_bet}")
            debit = amount * mode.cost
            if debit.denominator != 1:
                raise RgsError("ERR_VAL", f"bet amount {amount} times the {mode.name} cost {mode.cost} is not a whole "
                                          "number of units")
            if session["balance"] < debit:
                raise RgsError("ERR_IPB", f"balance {session['balance']} is less than the {mode.name} bet's cost {debit}")
            return self._start_round(session_id, session["balance"], mode, amount, int(debit))
        return self._run(work)

    def _start_round(self, session_id: str, balance: int, mode: StakeMode, amount: int, debit: int) -> dict[str, Any]:
        row = mode.draw()
        multiplier = mode.payouts[row]
        payout = Fraction(amount * multiplier, 100)
        if payout.denominator != 1:  # the settings make amount a multiple of 100; kept as a guard
            raise RgsError("ERR_VAL", f"bet amount {amount} cannot be paid {multiplier}/100 in whole units")
        self._db.execute("UPDATE sessions SET balance = ? WHERE session_id = ?", (balance - debit, session_id))
        self._db.execute(
            "INSERT INTO rounds (session_id, mode, amount, debit, book_row, payout_multiplier, payout, active) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, mode.name, amount, debit, row, multiplier, int(payout), int(multiplier > 0)))
        return {"balance": self._balance(session_id), "round": self._round_json(self._last_round(session_id))}

    def end_round(self, session_id: str) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            self._session(session_id)
            active = self._active_round(session_id)
            if active is None:
                raise RgsError("ERR_VAL", "no active round to end (a round that pays nothing ends when played)")
            self._db.execute("UPDATE sessions SET balance = balance + ? WHERE session_id = ?",
                             (active["payout"], session_id))
            self._db.execute("UPDATE rounds SET active = 0 WHERE bet_id = ?", (active["bet_id"],))
            return {"balance": self._balance(session_id)}
        return self._run(work)

    def event(self, session_id: str, event: str) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            self._session(session_id)
            active = self._active_round(session_id)
            if active is None:
                raise RgsError("ERR_VAL", "no active round to record an event in")
            self._db.execute("UPDATE rounds SET event = ? WHERE bet_id = ?", (event, active["bet_id"]))
            return {"event": event}
        return self._run(work)


def _field(body: dict[str, Any], name: str, kind: type) -> Any:
    value = body.get(name)
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if isinstance(value, str) and value.isdigit():  # RGS.md's own example sends "1000000"
            value, ok = int(value), True
    else:
        ok = isinstance(value, kind) and bool(value)
    if not ok:
        raise RgsError("ERR_VAL", f"'{name}' must be {'a whole number of units' if kind is int else 'a non-empty string'}, "
                                  f"not {json.dumps(value)}")
    return value


_SESSION = ("sessionID", str)
ENDPOINTS: dict[str, tuple[str, tuple[tuple[str, type], ...]]] = {
    "/wallet/authenticate": ("authenticate", (_SESSION,)),
    "/wallet/balance": ("balance", (_SESSION,)),
    "/wallet/play": ("play", (_SESSION, ("amount", int), ("mode", str))),
    "/wallet/end-round": ("end_round", (_SESSION,)),
    "/bet/event": ("event", (_SESSION, ("event", str))),
}
"""RGS.md's endpoints: the :class:`StakeRgs` method each calls and the body fields it passes, in order."""


def create_stake_app(rgs: StakeRgs) -> FastAPI:
    """The HTTP face of ``rgs``: POST endpoints with JSON bodies, as RGS.md lists them. Any origin may
    call it (a front end's development server runs on a port of its own)."""
    app = FastAPI(title="reelforge local Stake RGS", docs_url=None, redoc_url=None)
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["POST", "GET", "OPTIONS"],
                       allow_headers=["*"])
    app.state.rgs = rgs

    @app.exception_handler(RgsError)
    async def refused(_: Request, exc: RgsError) -> JSONResponse:
        return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=400)

    async def body_of(request: Request) -> dict[str, Any]:
        try:
            body = json.loads(await request.body() or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise RgsError("ERR_VAL", "the request body must be a JSON object") from None
        if not isinstance(body, dict):
            raise RgsError("ERR_VAL", "the request body must be a JSON object")
        return body

    def endpoint(method: str, fields: tuple[tuple[str, type], ...]) -> Any:
        async def answer(request: Request) -> dict[str, Any]:
            body = await body_of(request)
            return getattr(rgs, method)(*(_field(body, name, kind) for name, kind in fields))
        return answer

    for path, (method, fields) in ENDPOINTS.items():
        app.post(path, name=method)(endpoint(method, fields))

    @app.get("/")
    async def about() -> dict[str, Any]:
        return {"server": "reelforge local Stake RGS", "package": str(rgs.package.folder),
                "modes": [{"name": m.name, "cost": float(m.cost), "books": len(m.ids)}
                          for m in rgs.package.modes.values()]}

    return app
