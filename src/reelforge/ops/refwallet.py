"""A reference operator wallet for the seamless wallet mode: a real HTTP server with its own database,
and fault injection (docs/OPERATORS.md, "Reference wallet").

Run: ``python -m reelforge.ops.refwallet --db URL --port N --secret S [--seed N]`` (prints
``ready <port>`` once it serves). It keeps a balance per player and a ledger
of every transaction, applies ``debit``, ``credit`` and ``rollback`` calls
once per transaction id (a repeated call gets the first answer and changes
nothing), and refuses unsigned, badly signed or expired calls with 401.
Rollback semantics, as most operators' wallets: a rollback of a debit it
applied refunds it; a rollback of a debit it never saw is recorded, and that
debit is refused should it arrive later.

Faults, set with ``POST /admin/faults`` (signed): the probability of each
per call, drawn from a seeded stream: ``timeout_before`` (hang without
applying), ``timeout_after`` (apply, commit, then hang), ``error_before``
and ``error_after`` (a 500 without / after applying), ``nonsense`` (apply,
then answer a wrong transaction id, a wrong amount or a body that is not
JSON), ``slow`` (wait ``slow_seconds`` first); ``hang_seconds`` is how long a
hang lasts. Restarts are the caller's: kill the process and start it again
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
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from reelforge.server.errors import ApiError
from reelforge.server.signing import check_signature

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
)

FAULTS = ("timeout_before", "timeout_after", "error_before", "error_after", "nonsense", "slow")


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
        self.faults = Faults(rng=random.Random(seed))
        self.lock = threading.Lock()  # one money transaction at a time (one process owns the database)
        self.stats: dict[str, int] = {"calls": 0, "duplicates": 0, **{f: 0 for f in FAULTS}}
        metadata.create_all(engine)

    async def signed(self, request: Request) -> dict[str, Any]:
        body = await request.body()
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
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
            if seen is not None and seen.status != "tombstone":
                self.stats["duplicates"] += 1
                if seen.kind != kind or seen.amount != amount or seen.player != player:
                    return 409, {"error": "transaction_mismatch", "detail": f"{tx_id} was a different call"}
                return 200, self._answer(tx_id, amount, currency, account.balance if account else 0)
            if seen is not None:  # a debit rolled back before it arrived
                return 409, {"error": "transaction_rolled_back", "detail": f"{tx_id} was rolled back"}
            if account is None:
                return 404, {"error": "unknown_player", "detail": f"no account {player!r}"}
            if account.currency != currency:
                return 409, {"error": "wrong_currency", "detail": f"the account is in {account.currency}"}
            balance, applied, reference = account.balance, 0, body.get("reference_transaction_id")
            if kind == "debit":
                if amount > balance:
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
                elif debit is not None and debit.kind == "debit" and debit.status == "applied":
                    applied = -debit.applied
                    conn.execute(update(transactions).where(transactions.c.id == reference)
                                 .values(status="rolled_back"))
            balance += applied
            conn.execute(update(accounts).where(accounts.c.player == player).values(balance=balance))
            conn.execute(transactions.insert().values(
                id=tx_id, kind=kind, player=player, round_id=body.get("round_id"), amount=amount, applied=applied,
                currency=currency, reference=reference if kind == "rollback" else None, status="applied",
                balance_after=balance, created_at=now))
            return 200, self._answer(tx_id, amount, currency, balance)

    @staticmethod
    def _answer(tx_id: str, amount: int, currency: str, balance: int) -> dict[str, Any]:
        return {"transaction_id": tx_id, "amount": amount, "currency": currency, "balance": balance}

    def balance_of(self, player: str) -> int | None:
        with self.engine.connect() as conn:
            return conn.execute(select(accounts.c.balance).where(accounts.c.player == player)).scalar()

    def ledger(self, round_id: int | None, after: int) -> list[dict[str, Any]]:
        """Transactions (a round's, or all after sequence number ``after``), oldest first."""
        query = select(transactions).where(transactions.c.seq > after)
        if round_id is not None:
            query = query.where(transactions.c.round_id == round_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(transactions.c.seq).limit(10_000)).all()
        return [{"seq": r.seq, "transaction_id": r.id, "kind": r.kind, "player": r.player, "round_id": r.round_id,
                 "amount": r.amount, "applied": r.applied, "currency": r.currency, "reference": r.reference,
                 "status": r.status, "balance_after": r.balance_after} for r in rows]


def create_wallet_app(wallet: RefWallet) -> Starlette:
    """The wallet's HTTP routes."""

    async def money(request: Request) -> Response:
        kind = request.path_params["kind"]
        try:
            body = await wallet.signed(request)
        except ApiError as exc:
            return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=exc.status)
        wallet.stats["calls"] += 1
        fault = wallet.faults.pick(kind)
        if fault:
            wallet.stats[fault] += 1
        if fault == "slow":
            await _sleep(wallet.faults.slow_seconds)
        if fault in ("timeout_before", "error_before"):
            if fault == "timeout_before":
                await _sleep(wallet.faults.hang_seconds)
            return JSONResponse({"error": "injected_fault"}, status_code=500)
        if kind == "balance":
            balance = wallet.balance_of(str(body.get("player")))
            if balance is None:
                return JSONResponse({"error": "unknown_player"}, status_code=404)
            return JSONResponse({"player": body.get("player"), "currency": body.get("currency"), "balance": balance})
        import asyncio

        status, answer = await asyncio.to_thread(wallet.apply, kind, body)
        if fault == "timeout_after":
            await _sleep(wallet.faults.hang_seconds)
        if fault == "error_after":
            return JSONResponse({"error": "injected_fault"}, status_code=500)
        if fault == "nonsense" and status == 200:
            choice = wallet.faults.rng.randrange(3)
            if choice == 0:
                return JSONResponse({**answer, "transaction_id": "no-such-transaction"})
            if choice == 1:
                return JSONResponse({**answer, "amount": answer["amount"] + 1})
            return Response(b"<html>gateway</html>", media_type="text/html")
        return JSONResponse(answer, status_code=status)

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
        return JSONResponse({"error": "not_found"}, status_code=404)

    async def ledger(request: Request) -> Response:
        try:
            await wallet.signed(request)
        except ApiError as exc:
            return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=exc.status)
        round_id = request.query_params.get("round_id")
        after = int(request.query_params.get("after", "0"))
        return JSONResponse({"transactions": wallet.ledger(int(round_id) if round_id else None, after)})

    async def stats(_request: Request) -> Response:
        return JSONResponse(wallet.stats)

    return Starlette(routes=[
        Route("/transactions", ledger, methods=["GET"]),
        Route("/admin/stats", stats, methods=["GET"]),
        Route("/admin/{what}", admin, methods=["POST"]),
        Route("/{kind:str}", money, methods=["POST"]),
    ])


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
    args = parser.parse_args(argv)
    wallet = RefWallet(open_wallet_db(args.db), args.secret, args.seed)
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


class WalletProcess:
    """The reference wallet as a child process (tests and the soak): start, SIGKILL, restart, and its
    signed admin calls."""

    def __init__(self, db: str, secret: str, seed: int | None = None, port: int | None = None) -> None:
        self.db, self.secret, self.seed = db, secret, seed
        self.port = port or free_port()
        self.proc: Any = None
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        import subprocess
        import sys

        args = [sys.executable, "-m", "reelforge.ops.refwallet", "--db", self.db, "--port", str(self.port),
                "--secret", self.secret]
        if self.seed is not None:
            args += ["--seed", str(self.seed + self.restarts)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + timeout
        line = self.proc.stdout.readline()
        if not line.startswith("ready") or time.monotonic() > deadline:
            self.kill()
            raise RuntimeError(f"the reference wallet did not start: {line!r}")

    def kill(self) -> None:
        """SIGKILL it (a crash: nothing is flushed or closed)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> None:
        self.kill()
        self.restarts += 1
        self.start()

    def stop(self) -> None:
        self.kill()
        if self.proc is not None and self.proc.stdout:
            self.proc.stdout.close()

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """A signed call to the wallet; its JSON answer."""
        import httpx

        from reelforge.server.signing import signed_headers

        data = b"" if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json", **signed_headers(self.secret, method, path, data)}
        answer = httpx.request(method, self.url + path, content=data, headers=headers, timeout=30)
        answer.raise_for_status()
        return answer.json()

    def open_account(self, player: str, currency: str, balance: int) -> None:
        self.call("POST", "/admin/accounts", {"player": player, "currency": currency, "balance": balance})

    def set_faults(self, hang_seconds: float = 5.0, slow_seconds: float = 0.2,
                   kinds: tuple[str, ...] = ("debit", "credit", "rollback"), **rates: float) -> None:
        """Set the fault plan (``rates``: probability per fault name; none: no faults)."""
        self.call("POST", "/admin/faults", {"rates": rates, "hang_seconds": hang_seconds,
                                             "slow_seconds": slow_seconds, "kinds": list(kinds)})

    def balance(self, player: str) -> int:
        import httpx

        from reelforge.server.signing import signed_headers

        data = json.dumps({"player": player, "currency": "", "timestamp": int(time.time())}).encode()
        answer = httpx.post(self.url + "/balance", content=data,
                            headers=signed_headers(self.secret, "POST", "/balance", data), timeout=30)
        answer.raise_for_status()
        return answer.json()["balance"]

    def ledger(self, round_id: int | None = None) -> list[dict[str, Any]]:
        """The wallet's transactions (a round's), oldest first."""
        out: list[dict[str, Any]] = []
        while True:
            query = f"after={out[-1]['seq'] if out else 0}" + (f"&round_id={round_id}" if round_id else "")
            page = self.call("GET", f"/transactions?{query}")["transactions"]
            out += page
            if len(page) < 10_000:
                return out

    def stats(self) -> dict[str, int]:
        import httpx

        return httpx.get(self.url + "/admin/stats", timeout=30).json()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
