"""A reference operator wallet for the seamless wallet mode: a real HTTP server with its own database,
and fault injection (docs/OPERATORS.md, "Reference wallet").

Run: ``python -m reelforge.ops.refwallet --db URL --port N --secret S [--seed N]`` (prints
``ready <port>`` once it serves). It keeps a balance per player and a ledger
of every transaction, applies ``debit``, ``credit`` and ``rollback`` calls
once per transaction id (a repeated call gets the first answer and changes
nothing), and refuses unsigned, badly signed or expired calls with 401.
Rollback semantics, as most operators' wallets: a rollback of a debit it
applied refunds it; a rollback of a debit it never saw is recorded, and that
debit is refused should it arrive later; a rollback naming another player or
another amount than its debit's is refused (409 ``transaction_mismatch``)
and changes nothing. Every answer it gives (refusals included) is signed
(``X-Timestamp``, ``X-Signature``: :func:`reelforge.server.signing.answer_headers`,
tied to the call it answers), and a debit's ``game``, ``brand`` and operator
``session`` are kept in its ledger.

Faults, set with ``POST /admin/faults`` (signed): the probability of each
per call, drawn from a seeded stream: ``timeout_before`` (hang without
applying), ``timeout_after`` (apply, commit, then hang), ``error_before``
and ``error_after`` (a 500 without / after applying), ``nonsense`` (apply,
then answer a wrong transaction id, a wrong amount or a body that is not
JSON), ``slow`` (wait ``slow_seconds`` first), ``refuse_after`` (apply,
commit, then answer 409 ``injected_refusal``, as a gateway or a wallet failing
after its commit would), ``dribble`` (apply, then send the answer one byte
every ``slow_seconds``); ``hang_seconds`` is how long a hang lasts. Restarts are the caller's: kill the process and start it again
on the same database. ``GET /admin/stats``: calls, faults injected and
duplicate deliveries (a transaction id seen again) counted since start.
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    event,
    select,
    update,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from reelforge.server.errors import ApiError
from reelforge.server.signing import answer_headers, check_signature

metadata = MetaData()
accounts = Table(
    "rw_accounts", metadata,
    Column("player", String(64), primary_key=True),
    Column("currency", String(3), nullable=False),
    Column("balance", BigInteger, nullable=False),
)
transactions = Table(
    "rw_transactions", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("id", String(64), nullable=False, unique=True),
    Column("kind", String(16), nullable=False),  # debit, credit, rollback, or 'tombstone' (a debit rolled back unseen)
    Column("player", String(64), nullable=False),
    Column("round_id", BigInteger),
    Column("amount", BigInteger, nullable=False),  # what the call asked
    Column("applied", BigInteger, nullable=False),  # signed change of the balance it made
    Column("currency", String(3), nullable=False),
    Column("reference", String(64)),
    Column("status", String(16), nullable=False),  # applied, rolled_back (a debit), tombstone
    Column("balance_after", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("game", String(64)),  # a debit's context, as the game server sent it
    Column("brand", String(32)),
    Column("session", String(128)),
    Column("round_closed", Boolean),  # the wallet protocol's context of the call (version 2)
    Column("campaign_id", String(64)),
    Column("protocol_version", Integer),
)

DEFECTS = {
    "accepts_bad_signature": "takes calls whatever their signature",
    "debits_duplicate_twice": "applies a debit repeated with its transaction id again",
    "credits_duplicate_twice": "pays a credit repeated with its transaction id again",
    "ignores_rollback": "acknowledges a rollback without refunding its debit",
    "applies_debit_after_its_rollback": "applies a debit that arrives after its rollback",
    "refuses_zero_credit": "refuses a zero-amount credit (the close of a losing round)",
    "allows_overdraft": "takes a debit above the balance",
    "answers_old_balance": "answers the balance from before the call",
}
"""Deliberate protocol defects (``POST /admin/defects``, ``--defects``): a wrong wallet for ``reelforge
wallet-check``'s own tests, each defect one the check must name."""

FAULTS = ("timeout_before", "timeout_after", "error_before", "error_after", "nonsense", "slow", "refuse_after",
          "dribble")


@dataclass
class Faults:
    """The fault plan: a probability per fault, per money call."""

    rates: dict[str, float] = field(default_factory=dict)
    kinds: tuple[str, ...] = ("debit", "credit", "rollback")
    """The calls faults are injected into."""
    hang_seconds: float = 5.0
    slow_seconds: float = 0.2
    rng: random.Random = field(default_factory=random.Random)

    def pick(self, kind: str) -> str | None:
        """The fault of this call (at most one), or None."""
        if kind not in self.kinds:
            return None
        draw = self.rng.random()
        for name in FAULTS:
            rate = self.rates.get(name, 0.0)
            if draw < rate:
                return name
            draw -= rate
        return None


class RefWallet:
    """The wallet's state: its database, secret, fault plan and counters."""

    def __init__(self, engine: Engine, secret: str, seed: int | None, window: float = 300.0) -> None:
        self.engine = engine
        self.secret = secret
        self.window = window
        self.page_size = 10_000
        """Transactions per page of ``GET /transactions`` (the soak and tests set a small one)."""
        self.faults = Faults(rng=random.Random(seed))
        self.lock = threading.Lock()  # one money transaction at a time (one process owns the database)
        self.stats: dict[str, int] = {"calls": 0, "duplicates": 0, **{f: 0 for f in FAULTS}}
        self.defects: set[str] = set()
        """Deliberate defects (:data:`DEFECTS`; none: the reference behaviour)."""
        metadata.create_all(engine)

    async def signed(self, request: Request) -> dict[str, Any]:
        body = await request.body()
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        if "accepts_bad_signature" not in self.defects or request.url.path.startswith("/admin"):
            check_signature(self.secret, request.headers.get("x-timestamp"), request.headers.get("x-signature"),
                            request.method, path, body, self.window)
        if not body:
            return {}
        try:
            parsed = json.loads(body)
        except ValueError as exc:
            raise ApiError(400, "malformed_body", "the body is not JSON") from exc
        if not isinstance(parsed, dict):
            raise ApiError(400, "malformed_body", "the body is not a JSON object")
        return parsed

    # -- the money calls ---------------------------------------------------------------------------
    def apply(self, kind: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Apply a money call once per transaction id; ``(status, answer)``."""
        tx_id, player = body.get("transaction_id"), body.get("player")
        amount, currency = body.get("amount"), body.get("currency")
        if not isinstance(tx_id, str) or not isinstance(player, str) or isinstance(amount, bool) \
                or not isinstance(amount, int) or amount < 0 or not isinstance(currency, str):
            return 400, {"error": "malformed_call", "detail": "transaction_id, player, amount, currency needed"}
        now = datetime.now(UTC)
        with self.lock, self.engine.begin() as conn:
            seen = conn.execute(select(transactions).where(transactions.c.id == tx_id)).first()
            account = conn.execute(select(accounts).where(accounts.c.player == player)).first()
            again = f"{kind}s_duplicate_twice" in self.defects  # a wrong wallet's defect: applied once more
            if seen is not None and seen.status != "tombstone" and not again:
                self.stats["duplicates"] += 1
                if seen.kind != kind or seen.amount != amount or seen.player != player:
                    return 409, {"error": "transaction_mismatch", "detail": f"{tx_id} was a different call"}
                return 200, self._answer(tx_id, amount, currency, account.balance if account else 0)
            if seen is not None and seen.status == "tombstone" and "applies_debit_after_its_rollback" not in self.defects:
                return 409, {"error": "transaction_rolled_back", "detail": f"{tx_id} was rolled back"}
            if seen is not None:  # a defect lets it through: its row is replaced
                conn.execute(transactions.delete().where(transactions.c.id == tx_id))
            if account is None:
                return 404, {"error": "unknown_player", "detail": f"no account {player!r}"}
            if account.currency != currency:
                return 409, {"error": "wrong_currency", "detail": f"the account is in {account.currency}"}
            balance, applied, reference = account.balance, 0, body.get("reference_transaction_id")
            if kind == "credit" and amount == 0 and "refuses_zero_credit" in self.defects:
                return 400, {"error": "invalid_amount", "detail": "amount must be positive"}
            if kind == "debit":
                if amount > balance and "allows_overdraft" not in self.defects:
                    return 402, {"error": "insufficient_funds", "detail": f"balance {balance} < {amount}"}
                applied = -amount
            elif kind == "credit":
                applied = amount
            else:  # rollback of ``reference``
                debit = conn.execute(select(transactions).where(transactions.c.id == reference)).first() \
                    if isinstance(reference, str) else None
                if debit is None and isinstance(reference, str):  # never seen: refuse it should it come later
                    conn.execute(transactions.insert().values(
                        id=reference, kind="debit", player=player, round_id=body.get("round_id"), amount=amount,
                        applied=0, currency=currency, reference=None, status="tombstone", balance_after=balance,
                        created_at=now))
                elif debit is not None and (debit.player != player or debit.amount != amount):
                    return 409, {"error": "transaction_mismatch",
                                 "detail": f"{reference} was a debit of another player or amount"}
                elif debit is not None and debit.kind == "debit" and debit.status == "applied":
                    applied = 0 if "ignores_rollback" in self.defects else -debit.applied
                    conn.execute(update(transactions).where(transactions.c.id == reference)
                                 .values(status="rolled_back"))
            balance += applied
            conn.execute(update(accounts).where(accounts.c.player == player).values(balance=balance))
            conn.execute(transactions.insert().values(
                id=tx_id, kind=kind, player=player, round_id=body.get("round_id"), amount=amount, applied=applied,
                currency=currency, reference=reference if kind == "rollback" else None, status="applied",
                balance_after=balance, created_at=now, **{k: _text(body.get(k)) for k in ("game", "brand", "session", "campaign_id")},
                round_closed=body.get("round_closed") if isinstance(body.get("round_closed"), bool) else None,
                protocol_version=_whole(body.get("protocol_version"))))
            answered = balance - applied if "answers_old_balance" in self.defects else balance
            return 200, self._answer(tx_id, amount, currency, answered)

    def reply(self, request: Request, payload: Any, status: int = 200) -> Response:
        """A JSON answer signed for the call it answers (unsigned when the call had no signature)."""
        body = json.dumps(payload).encode()
        sig = request.headers.get("x-signature")
        headers = answer_headers(self.secret, status, sig, body) if sig else {}
        return Response(body, status_code=status, media_type="application/json", headers=headers)

    @staticmethod
    def _answer(tx_id: str, amount: int, currency: str, balance: int) -> dict[str, Any]:
        return {"transaction_id": tx_id, "amount": amount, "currency": currency, "balance": balance}

    def balance_of(self, player: str) -> int | None:
        with self.engine.connect() as conn:
            return conn.execute(select(accounts.c.balance).where(accounts.c.player == player)).scalar()

    def ledger(self, round_id: int | None, after: int, limit: int = 10_000) -> list[dict[str, Any]]:
        """Transactions (a round's, or all) after sequence number ``after``, oldest first, ``limit`` at most."""
        query = select(transactions).where(transactions.c.seq > after)
        if round_id is not None:
            query = query.where(transactions.c.round_id == round_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(transactions.c.seq).limit(limit)).all()
        return [{"seq": r.seq, "transaction_id": r.id, "kind": r.kind, "player": r.player, "round_id": r.round_id,
                 "amount": r.amount, "applied": r.applied, "currency": r.currency, "reference": r.reference,
                 "status": r.status, "balance_after": r.balance_after, "game": r.game, "brand": r.brand,
                 "session": r.session, "round_closed": r.round_closed, "campaign_id": r.campaign_id,
                 "protocol_version": r.protocol_version} for r in rows]


def create_wallet_app(wallet: RefWallet) -> Starlette:
    """The wallet's HTTP routes."""

    async def money(request: Request) -> Response:
        kind = request.path_params["kind"]
        try:
            body = await wallet.signed(request)
        except ApiError as exc:
            return wallet.reply(request, {"error": exc.code, "detail": exc.detail}, exc.status)
        wallet.stats["calls"] += 1
        fault = wallet.faults.pick(kind)
        if fault:
            wallet.stats[fault] += 1
        if fault == "slow":
            await _sleep(wallet.faults.slow_seconds)
        if fault in ("timeout_before", "error_before"):
            if fault == "timeout_before":
                await _sleep(wallet.faults.hang_seconds)
            return wallet.reply(request, {"error": "injected_fault"}, 500)
        if kind == "balance":
            balance = wallet.balance_of(str(body.get("player")))
            if balance is None:
                return wallet.reply(request, {"error": "unknown_player"}, 404)
            return wallet.reply(request, {"player": body.get("player"), "currency": body.get("currency"),
                                          "balance": balance})
        import asyncio

        status, answer = await asyncio.to_thread(wallet.apply, kind, body)
        if status != 200:  # its refusal is its statement about this very transaction: nothing was applied
            answer["transaction_id"] = body.get("transaction_id")
        if fault == "timeout_after":
            await _sleep(wallet.faults.hang_seconds)
        if fault == "error_after":
            return wallet.reply(request, {"error": "injected_fault"}, 500)
        if fault == "refuse_after" and status == 200:
            return wallet.reply(request, {"error": "injected_refusal", "detail": "refused after applying it"}, 409)
        if fault == "dribble":
            signed = wallet.reply(request, answer, status)
            return StreamingResponse(_dribble(signed.body, wallet.faults.slow_seconds), status_code=status,
                                     media_type="application/json",
                                     headers={k: v for k, v in signed.headers.items() if k.startswith("x-")})
        if fault == "nonsense" and status == 200:
            choice = wallet.faults.rng.randrange(3)
            if choice == 0:
                return wallet.reply(request, {**answer, "transaction_id": "no-such-transaction"})
            if choice == 1:
                return wallet.reply(request, {**answer, "amount": answer["amount"] + 1})
            return Response(b"<html>gateway</html>", media_type="text/html")
        return wallet.reply(request, answer, status)

    async def admin(request: Request) -> Response:
        try:
            body = await wallet.signed(request)
        except ApiError as exc:
            return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=exc.status)
        what = request.path_params["what"]
        if what == "accounts":
            with wallet.lock, wallet.engine.begin() as conn:
                if conn.execute(select(accounts).where(accounts.c.player == body["player"])).first() is None:
                    conn.execute(accounts.insert().values(player=body["player"], currency=body["currency"],
                                                          balance=int(body["balance"])))
            return JSONResponse({"player": body["player"], "balance": wallet.balance_of(body["player"])})
        if what == "faults":
            unknown = set(body.get("rates", {})) - set(FAULTS)
            if unknown:
                return JSONResponse({"error": "unknown_fault", "detail": sorted(unknown)}, status_code=422)
            wallet.faults.rates = {k: float(v) for k, v in body.get("rates", {}).items()}
            wallet.faults.hang_seconds = float(body.get("hang_seconds", wallet.faults.hang_seconds))
            wallet.faults.slow_seconds = float(body.get("slow_seconds", wallet.faults.slow_seconds))
            wallet.faults.kinds = tuple(body.get("kinds", ("debit", "credit", "rollback")))
            return JSONResponse({"rates": wallet.faults.rates})
        if what == "defects":
            unknown = set(body.get("defects", [])) - set(DEFECTS)
            if unknown:
                return JSONResponse({"error": "unknown_defect", "detail": sorted(unknown)}, status_code=422)
            wallet.defects = set(body.get("defects", []))
            return JSONResponse({"defects": sorted(wallet.defects)})
        return JSONResponse({"error": "not_found"}, status_code=404)

    async def ledger(request: Request) -> Response:
        try:
            await wallet.signed(request)
        except ApiError as exc:
            return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=exc.status)
        round_id = request.query_params.get("round_id")
        after = int(request.query_params.get("after", "0"))
        # its page size is its own (``page_size``); ``next``: the cursor of the next page, null at the end
        page = wallet.ledger(int(round_id) if round_id else None, after, wallet.page_size)
        return JSONResponse({"transactions": page,
                             "next": str(page[-1]["seq"]) if len(page) == wallet.page_size else None})

    async def stats(_request: Request) -> Response:
        return JSONResponse(wallet.stats)

    return Starlette(routes=[
        Route("/transactions", ledger, methods=["GET"]),
        Route("/admin/stats", stats, methods=["GET"]),
        Route("/admin/{what}", admin, methods=["POST"]),
        Route("/{kind:str}", money, methods=["POST"]),
    ])


async def _dribble(body: bytes, every: float) -> Any:
    for i in range(len(body)):
        await _sleep(every)
        yield body[i:i + 1]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def open_wallet_db(url: str) -> Engine:
    """The wallet's own database (SQLite in WAL mode, or PostgreSQL)."""
    engine = create_engine(url)
    if url.startswith("sqlite"):
        @event.listens_for(engine, "connect")
        def _wal(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            dbapi_conn.execute("PRAGMA synchronous=FULL")
            dbapi_conn.execute("PRAGMA busy_timeout=5000")
    return engine


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="the wallet's own database URL")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True, help="the HMAC secret shared with the game server")
    parser.add_argument("--seed", type=int, default=None, help="seed of the fault draws")
    parser.add_argument("--page-size", type=int, default=10_000, help="transactions per page of its ledger")
    parser.add_argument("--defects", default="", help="comma-separated deliberate defects (a wrong wallet for "
                                                      f"wallet-check's tests): {', '.join(DEFECTS)}")
    args = parser.parse_args(argv)
    wallet = RefWallet(open_wallet_db(args.db), args.secret, args.seed)
    wallet.defects = {d for d in args.defects.split(",") if d}
    if wallet.defects - set(DEFECTS):
        parser.error(f"unknown defect(s) {sorted(wallet.defects - set(DEFECTS))}; defects: {', '.join(DEFECTS)}")
    wallet.page_size = args.page_size
    config = uvicorn.Config(create_wallet_app(wallet), host="127.0.0.1", port=args.port, log_level="warning",
                            access_log=False)
    server = uvicorn.Server(config)
    started = threading.Thread(target=lambda: (_wait_started(server), print(f"ready {args.port}", flush=True)),
                               daemon=True)
    started.start()
    server.run()


def _wait_started(server: Any) -> None:
    while not server.started:
        time.sleep(0.02)


if __name__ == "__main__":
    main()
