"""The seamless wallet: the operator's wallet holds the balance and this server calls it
(docs/OPERATORS.md, "Seamless wallet").

Three money calls, each idempotent by its transaction id on both sides and
signed (:mod:`reelforge.server.signing`): ``debit`` (a round's stake or buy
price, before the round is decided), ``credit`` (its win, at the reveal of
its last step or its completion on expiry) and ``rollback`` (of a debit:
the round was voided, or the debit's answer was lost). ``balance`` reads the
balance.

Every call is a row of ``wallet_transactions`` first:

* a debit is written ``pending`` before it is sent and settled after
  (``done``: its round is stored in the same transaction; ``refused``: the
  wallet said no; ``rolled_back``: a rollback row for it exists). A debit
  whose answer never came is never taken as failed or as done: a rollback of
  it (idempotent: the wallet applies it whether or not it applied the debit)
  is written and delivered, and the round is not shown;
* a credit or a rollback is written ``pending`` in the transaction that
  records the round's end (the outbox) and delivered, with backoff, until the
  wallet acknowledges it, by :meth:`SeamlessWallet.deliver_due` (the server's
  outbox thread, every process, after restarts). A debit left ``pending`` by
  a process that died is rolled back the same way once it is stale.

Monitoring (issue 26 wires it): :attr:`SeamlessWallet.stats` (a
:class:`WalletStats`: calls, failures and latency per call kind, and hooks
called with every call) and :meth:`SeamlessWallet.outbox_depth`.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy import Engine, func, select

from reelforge.server.clock import utcnow
from reelforge.server.config_operator import OperatorConfig
from reelforge.server.db import read_transaction
from reelforge.server.logs import wallet_event
from reelforge.server.schema import players, wallet_transactions
from reelforge.server.signing import check_answer, signed_headers
from reelforge.server.store import Tx, parse_ts, transaction

log = logging.getLogger("reelforge.wallet")

PROTOCOL_VERSION = 2
"""The wallet protocol's version (docs/WALLET_PROTOCOL.md), in every call's body (``protocol_version``, signed)
and its ``X-Wallet-Protocol`` header. Version 1 (issue 32) had no version field, and game, brand and session
on debits only; version 2 adds them to every call, with ``round_closed`` and ``campaign_id``."""
PROTOCOL_HEADER = "X-Wallet-Protocol"

MAX_BACKOFF_SECONDS = 30.0
"""The longest wait between two deliveries of an outbox call."""
STALE_MARGIN_SECONDS = 1.0
"""A debit still pending this long after its caller's time limit (``start_limit_seconds``) is left by a
dead process: a living caller never waits on the wallet longer than that limit."""


class WalletUnavailable(Exception):
    """No usable answer: a timeout, a connection error, a 5xx, or an answer that makes no sense."""


class WalletRefused(Exception):
    """The wallet refused a debit (``code``: e.g. ``insufficient_funds``). ``stated``: the refusal is the
    wallet's signed statement about this very transaction (nothing was taken); otherwise it may come from
    a gateway, or from a wallet that failed after applying it, and the debit is rolled back."""

    def __init__(self, code: str, detail: str, stated: bool = False) -> None:
        super().__init__(f"{code}: {detail}")
        self.code, self.detail, self.stated = code, detail, stated


@dataclass
class WalletStats:
    """Counters of the wallet calls of this process, for monitoring.

    ``calls[kind][outcome]``: how many (outcome ``ok``, ``refused``,
    ``timeout``, ``unavailable``, ``nonsense``); ``seconds[kind]``: their
    total latency and ``max_seconds[kind]`` the longest; every hook is called
    with ``(kind, seconds, outcome)`` after each call.
    """

    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    max_seconds: dict[str, float] = field(default_factory=dict)
    hooks: list[Callable[[str, float, str], None]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, kind: str, seconds: float, outcome: str) -> None:
        with self.lock:
            per = self.calls.setdefault(kind, {})
            per[outcome] = per.get(outcome, 0) + 1
            self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds
            self.max_seconds[kind] = max(self.max_seconds.get(kind, 0.0), seconds)
        for hook in self.hooks:
            try:
                hook(kind, seconds, outcome)
            except Exception:  # noqa: BLE001 - monitoring never breaks a money call
                log.exception("wallet stats hook failed")

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {"calls": {k: dict(v) for k, v in self.calls.items()}, "seconds": dict(self.seconds),
                    "max_seconds": dict(self.max_seconds)}


@dataclass(slots=True)
class WalletTx:
    """A row of ``wallet_transactions``."""

    id: str
    kind: str
    player_id: int
    round_id: int | None
    public_round_id: int
    amount: int
    currency: str
    reference: str | None
    status: str
    attempts: int
    next_attempt_at: datetime
    last_error: str | None
    created_at: datetime
    updated_at: datetime
    brand: str = "default"
    """The brand whose wallet the call goes to (only a server serving it delivers it)."""
    game: str | None = None
    """The game of the call's round (None: a call written before protocol version 2)."""
    operator_session: str | None = None
    """The operator's session token of the session that played the round (None: the launch gave none)."""
    round_closed: bool | None = None
    """Whether it is the round's last call (a credit, a zero close or a rollback; a debit: never)."""
    campaign_id: str | None = None
    """The free-round campaign the round belongs to (None: a paid round)."""


TX_COLUMNS = tuple(WalletTx.__slots__)
_TIMES = ("next_attempt_at", "created_at", "updated_at")


def tx_row(values: Any) -> WalletTx:
    row = WalletTx(*values)
    for name in _TIMES:
        setattr(row, name, parse_ts(getattr(row, name)))
    return row


def _sql(tx: Tx, text: str) -> str:
    """``:name`` parameters as the back end's driver writes them."""
    if tx.sqlite:
        return text
    import re

    return re.sub(r"(?<!:):(\w+)", r"%(\1)s", text)


class WalletClient:
    """Signed HTTP calls to an operator's seamless wallet, with the answers checked.

    Every call has a deadline for its whole answer (``wallet_timeout_seconds``,
    or less when the caller has less time left): the request runs on a worker
    thread that reads the answer in chunks and gives up past the deadline, and
    the caller waits for it at most until the deadline, so a wallet that
    dribbles its answer byte by byte holds nobody longer than that."""

    def __init__(self, config: OperatorConfig, stats: WalletStats) -> None:
        assert config.wallet_url and config.secret
        self.url = config.wallet_url.rstrip("/")
        self.base_path = urlsplit(self.url).path
        self.secret = config.secret
        self.timeout = config.wallet_timeout_seconds
        self.signed_answers = config.signed_answers
        self.window = config.signature_window_seconds
        self.stats = stats
        self.http = httpx.Client(timeout=config.wallet_timeout_seconds)
        self.workers = ThreadPoolExecutor(max_workers=32, thread_name_prefix="wallet-call")

    def close(self) -> None:
        self.workers.shutdown(wait=False, cancel_futures=True)
        self.http.close()

    def _post(self, url: str, data: bytes, headers: dict[str, str], end: float) -> tuple[int, Any, bytes]:
        """POST and read the whole answer by ``end`` (monotonic seconds); raises :class:`WalletUnavailable`."""
        left = end - time.monotonic()
        if left <= 0:  # queued behind other calls past its deadline: not sent at all
            raise WalletUnavailable("no time left to send the call")
        chunks: list[bytes] = []
        with self.http.stream("POST", url, content=data, headers=headers, timeout=left) as answer:
            for chunk in answer.iter_bytes():
                chunks.append(chunk)
                if time.monotonic() > end:
                    raise WalletUnavailable("the answer did not arrive in full within the time limit")
            return answer.status_code, answer.headers, b"".join(chunks)

    def call(self, kind: str, body: dict[str, Any], deadline: float | None = None) -> dict[str, Any]:
        """POST ``body`` to the wallet's ``kind`` call; its checked answer (``balance`` an integer), within
        ``wallet_timeout_seconds`` or by ``deadline`` (monotonic seconds), whichever comes first.
        Raises :class:`WalletRefused` (a debit's 4xx refusal) or :class:`WalletUnavailable`."""
        data = json.dumps(body, separators=(",", ":")).encode()
        path = f"{self.base_path}/{kind}"
        headers = {"content-type": "application/json", PROTOCOL_HEADER: str(PROTOCOL_VERSION),
                   **signed_headers(self.secret, "POST", path, data)}
        started = time.monotonic()
        end = started + self.timeout if deadline is None else min(started + self.timeout, deadline)
        outcome = "unavailable"
        try:
            try:
                status, answer_headers, content = self.workers.submit(
                    self._post, f"{self.url}/{kind}", data, headers, end).result(timeout=max(0.0, end - started))
            except (FutureTimeout, httpx.TimeoutException) as exc:
                outcome = "timeout"
                raise WalletUnavailable(f"no answer within the time limit ({type(exc).__name__})") from exc
            except WalletUnavailable:
                outcome = "timeout"
                raise
            except httpx.HTTPError as exc:
                raise WalletUnavailable(f"{type(exc).__name__}: {exc}") from exc
            if status >= 500:
                raise WalletUnavailable(f"HTTP {status}")
            try:
                parsed = json.loads(content)
            except ValueError as exc:
                outcome = "nonsense"
                raise WalletUnavailable(f"HTTP {status} with a body that is not JSON") from exc
            signed = self.signed_answers and check_answer(
                self.secret, answer_headers, status, headers["X-Signature"], content, self.window) is None
            if self.signed_answers and not signed:
                outcome = "nonsense"
                problem = check_answer(self.secret, answer_headers, status, headers["X-Signature"], content,
                                       self.window)
                raise WalletUnavailable(f"HTTP {status}: {problem}")
            if status != 200:
                code = parsed.get("error") if isinstance(parsed, dict) else None
                if kind == "debit" and 400 <= status < 500 and isinstance(code, str):
                    outcome = "refused"
                    # Only the wallet's signed statement about this very transaction proves nothing was taken.
                    stated = signed and parsed.get("transaction_id") == body.get("transaction_id")
                    raise WalletRefused(code, str(parsed.get("detail", "")), stated)
                outcome = "nonsense"
                raise WalletUnavailable(f"HTTP {status}: {content[:200].decode(errors='replace')}")
            problem = self._check(body, parsed)
            if problem:
                outcome = "nonsense"
                raise WalletUnavailable(f"answer makes no sense: {problem}")
            outcome = "ok"
            return parsed
        finally:
            self.stats.record(kind, time.monotonic() - started, outcome)

    @staticmethod
    def _check(body: dict[str, Any], answer: Any) -> str | None:
        """What is wrong with a 200 answer (None: nothing)."""
        if not isinstance(answer, dict):
            return "not a JSON object"
        balance = answer.get("balance")
        if isinstance(balance, bool) or not isinstance(balance, int) or balance < 0:
            return f"balance {balance!r} is not a non-negative integer"
        if "transaction_id" in body and answer.get("transaction_id") != body["transaction_id"]:
            return f"transaction_id {answer.get('transaction_id')!r} is not the call's {body['transaction_id']!r}"
        if "amount" in body and answer.get("amount") != body["amount"]:
            return f"amount {answer.get('amount')!r} is not the call's {body['amount']}"
        if answer.get("currency", body.get("currency")) != body.get("currency"):
            return f"currency {answer.get('currency')!r} is not the call's {body.get('currency')!r}"
        return None


class SeamlessWallet:
    """The seamless wallets of one server process, one per brand it serves: their clients, their rows and
    their outbox. A call is sent to the wallet of its row's brand; the outbox delivers only the rows of the
    brands this process serves (another process, configured for the others, delivers theirs)."""

    def __init__(self, engine: Engine, config: OperatorConfig, public_id: Callable[[int], int],
                 brands: list[OperatorConfig] | None = None) -> None:
        self.engine = engine
        self.config = config
        self.stats = WalletStats()
        self.clients = {op.brand: WalletClient(op, self.stats) for op in [config, *(brands or [])]}
        self.client = self.clients[config.brand]
        self.public_id = public_id

    def close(self) -> None:
        for client in self.clients.values():
            client.close()

    @property
    def stale_after(self) -> float:
        """Seconds after which a pending debit is its dead caller's (rolled back by the outbox)."""
        return self.config.start_limit_seconds + STALE_MARGIN_SECONDS

    # -- rows ---------------------------------------------------------------------------------
    def new_tx(self, tx: Tx, kind: str, player_id: int, round_id: int, amount: int, currency: str,
               now: datetime, reference: str | None = None, status: str = "pending",
               due: datetime | None = None, brand: str | None = None, game: str | None = None,
               operator_session: str | None = None, round_closed: bool | None = None,
               campaign_id: str | None = None) -> WalletTx:
        """Write a call's row (``pending``: to be sent; due at ``due``, default now) for ``brand``'s wallet
        (default: this server's default brand), with the protocol's context: the round's ``game``, the
        ``operator_session``, ``round_closed`` (default: a debit opens its round, a credit or a rollback closes
        it) and the ``campaign_id`` of a free round."""
        closed = kind != "debit" if round_closed is None else round_closed
        row = WalletTx(uuid.uuid4().hex, kind, player_id, round_id, self.public_id(round_id), amount, currency,
                       reference, status, 0, due or now, None, now, now, brand or self.config.brand, game,
                       operator_session, closed, campaign_id)
        params = {name: getattr(row, name) for name in TX_COLUMNS}
        for name in _TIMES:
            params[name] = tx.ts(params[name])
        tx.cursor.execute(_sql(tx, f"INSERT INTO wallet_transactions ({', '.join(TX_COLUMNS)}) VALUES "
                                   f"({', '.join(':' + c for c in TX_COLUMNS)})"), params)
        return row

    @staticmethod
    def settle(tx: Tx, tx_id: str, status: str, now: datetime, error: str | None = None) -> bool:
        """Move a pending call to ``status``; False when it was no longer pending (another process settled it)."""
        tx.cursor.execute(_sql(tx, "UPDATE wallet_transactions SET status = :status, updated_at = :now, "
                                   "last_error = coalesce(:error, last_error) WHERE id = :id AND status = 'pending'"),
                          {"status": status, "now": tx.ts(now), "id": tx_id, "error": error})
        return tx.cursor.rowcount == 1

    @staticmethod
    def pending_debit(tx: Tx, player_id: int) -> WalletTx | None:
        """The player's debit in flight, if any (one at a time per player)."""
        tx.cursor.execute(_sql(tx, f"SELECT {', '.join(TX_COLUMNS)} FROM wallet_transactions WHERE player_id = :p "
                                   "AND kind = 'debit' AND status = 'pending' ORDER BY created_at LIMIT 1"),
                          {"p": player_id})
        row = tx.cursor.fetchone()
        return None if row is None else tx_row(row)

    @staticmethod
    def next_round_id(tx: Tx, candidate: int) -> int:
        """A round id no debit has reserved (SQLite assigns max(id) + 1, which a debit in flight already
        carries; PostgreSQL's sequence never repeats)."""
        if not tx.sqlite:
            return candidate
        tx.cursor.execute("SELECT coalesce(max(round_id), 0) + 1 FROM wallet_transactions WHERE kind = 'debit'")
        return max(candidate, tx.cursor.fetchone()[0])

    @staticmethod
    def set_balance(tx: Tx, player_id: int, balance: int) -> None:
        """Remember the balance the wallet last reported for the player."""
        tx.cursor.execute(_sql(tx, "UPDATE players SET wallet_balance = :b WHERE id = :id"),
                          {"b": balance, "id": player_id})

    @staticmethod
    def player_name(tx: Tx, player_id: int) -> str:
        tx.cursor.execute(_sql(tx, "SELECT name FROM players WHERE id = :id"), {"id": player_id})
        return tx.cursor.fetchone()[0]

    @staticmethod
    def cached_balance(tx: Tx, player_id: int) -> int | None:
        tx.cursor.execute(_sql(tx, "SELECT wallet_balance FROM players WHERE id = :id"), {"id": player_id})
        row = tx.cursor.fetchone()
        return None if row is None else row[0]

    def rollback_of(self, tx: Tx, debit: WalletTx, now: datetime, why: str) -> WalletTx | None:
        """Settle a pending ``debit`` as rolled back and write its rollback to the outbox (None: it was
        settled meanwhile, by another process)."""
        if not self.settle(tx, debit.id, "rolled_back", now, why):
            return None
        return self.new_tx(tx, "rollback", debit.player_id, debit.round_id, debit.amount, debit.currency, now,
                           reference=debit.id, brand=debit.brand, game=debit.game,
                           operator_session=debit.operator_session, campaign_id=debit.campaign_id)

    # -- calls ----------------------------------------------------------------------------------
    @staticmethod
    def body(row: WalletTx, player: str) -> dict[str, Any]:
        """A call's body (its signature covers all of it; docs/WALLET_PROTOCOL.md): the protocol version, the
        transaction, the round and its context (game, brand, the operator's session token, whether the round
        closes, its campaign). A context field that is not known is left out (calls written before version
        2; no operator session given at launch; no campaign)."""
        body: dict[str, Any] = {"protocol_version": PROTOCOL_VERSION, "transaction_id": row.id,
                                "round_id": row.public_round_id, "player": player, "amount": row.amount,
                                "currency": row.currency, "timestamp": int(time.time()), "brand": row.brand}
        if row.reference is not None:
            body["reference_transaction_id"] = row.reference
        context = {"game": row.game, "session": row.operator_session, "round_closed": row.round_closed,
                   "campaign_id": row.campaign_id}
        body.update({k: v for k, v in context.items() if v is not None})
        return body

    def send(self, row: WalletTx, player: str, deadline: float | None = None) -> dict[str, Any]:
        """Send a call once, to its brand's wallet, answered by ``deadline`` (monotonic seconds) at the latest
        (raises :class:`WalletUnavailable` / :class:`WalletRefused`)."""
        return self.clients[row.brand].call(row.kind, self.body(row, player), deadline)

    def balance(self, player: str, currency: str, brand: str | None = None, game: str | None = None,
                session: str | None = None) -> int:
        """The player's balance in the wallet of ``brand`` (default: the default brand's), asked for the
        session's ``game`` and operator ``session`` token when known (raises :class:`WalletUnavailable`)."""
        brand = brand or self.config.brand
        body: dict[str, Any] = {"protocol_version": PROTOCOL_VERSION, "player": player, "currency": currency,
                                "brand": brand, "timestamp": int(time.time())}
        body.update({k: v for k, v in (("game", game), ("session", session)) if v is not None})
        return self.clients[brand].call("balance", body)["balance"]

    def balance_or_none(self, player: str, currency: str, brand: str | None = None, game: str | None = None,
                        session: str | None = None) -> int | None:
        """:meth:`balance`, None when the wallet gives no usable answer."""
        try:
            return self.balance(player, currency, brand, game, session)
        except (WalletUnavailable, WalletRefused) as exc:
            wallet_event(logging.WARNING, "wallet_balance_unavailable",
                         f"wallet balance of {player} not available: {exc}", kind="balance", player=player,
                         brand=brand or self.config.brand, error=str(exc)[:500])
            return None

    def deliver(self, row: WalletTx, player: str, deadline: float | None = None) -> int | None:
        """Deliver one outbox call now (answered by ``deadline`` at the latest); record the outcome
        (acknowledged: done, else the next attempt's time). The balance the wallet answered (None: not
        acknowledged, or a brand this process does not serve: a process serving it delivers it, never another
        brand's wallet)."""
        if row.brand not in self.clients:
            return None
        try:
            answer = self.send(row, player, deadline=deadline)
        except (WalletUnavailable, WalletRefused) as exc:
            delay = min(MAX_BACKOFF_SECONDS, 0.25 * 2 ** min(row.attempts, 10)) * random.uniform(0.75, 1.25)
            wallet_event(logging.WARNING, "wallet_call_not_acknowledged",
                         f"wallet {row.kind} {row.id} (round {row.public_round_id}) not acknowledged, attempt "
                         f"{row.attempts + 1}: {exc}", kind=row.kind, transaction=row.id, round=row.public_round_id,
                         attempt=row.attempts + 1, retry_in_seconds=round(delay, 2), error=str(exc)[:500])
            with transaction(self.engine) as tx:
                tx.cursor.execute(_sql(tx, "UPDATE wallet_transactions SET attempts = attempts + 1, "
                                           "next_attempt_at = :due, last_error = :error, updated_at = :now "
                                           "WHERE id = :id AND status = 'pending'"),
                                  {"due": tx.ts(utcnow() + timedelta(seconds=delay)), "error": str(exc)[:500],
                                   "now": tx.ts(utcnow()), "id": row.id})
            return None
        with transaction(self.engine) as tx:
            tx.lock_player(row.player_id)
            self.settle(tx, row.id, "done", utcnow())
            self.set_balance(tx, row.player_id, answer["balance"])
        return answer["balance"]

    def deliver_due(self, batch: int = 100) -> int:
        """Deliver the outbox calls that are due, and roll back stale debits; how many were acknowledged."""
        now = utcnow()
        with read_transaction(self.engine) as conn:
            rows = conn.execute(select(*(wallet_transactions.c[n] for n in TX_COLUMNS), players.c.name)
                                .join(players, players.c.id == wallet_transactions.c.player_id)
                                .where(wallet_transactions.c.status == "pending",
                                       wallet_transactions.c.next_attempt_at <= now,
                                       wallet_transactions.c.brand.in_(list(self.clients)))
                                .order_by(wallet_transactions.c.next_attempt_at).limit(batch)).all()
        done = 0
        for values in rows:
            row, name = tx_row(values[:-1]), values[-1]
            if row.kind == "debit":  # stale: its caller died between writing it and settling it
                with transaction(self.engine) as tx:
                    tx.lock_player(row.player_id)
                    rollback = self.rollback_of(tx, row, utcnow(), "stale: its caller never settled it")
                if rollback is not None:
                    wallet_event(logging.WARNING, "wallet_debit_stale",
                                 f"wallet debit {row.id} (round {row.public_round_id}) left pending by a stopped "
                                 f"process: rolling it back ({rollback.id})", kind="debit", transaction=row.id,
                                 round=row.public_round_id, rollback=rollback.id)
                    done += self.deliver(rollback, name) is not None
                continue
            done += self.deliver(row, name) is not None
        return done

    def outbox_depth(self) -> int:
        """Calls of this server's brands not yet acknowledged (credits and rollbacks to deliver, debits in flight)."""
        with read_transaction(self.engine) as conn:
            return conn.execute(select(func.count()).select_from(wallet_transactions)
                                .where(wallet_transactions.c.status == "pending",
                                       wallet_transactions.c.brand.in_(list(self.clients)))).scalar_one()


    def outbox_by_brand(self) -> dict[str, tuple[int, datetime | None]]:
        """Per brand of this server: its calls not yet acknowledged and the oldest one's creation."""
        with read_transaction(self.engine) as conn:
            found = {brand: (int(n), parse_ts(oldest)) for brand, n, oldest in conn.execute(
                select(wallet_transactions.c.brand, func.count(), func.min(wallet_transactions.c.created_at))
                .where(wallet_transactions.c.status == "pending",
                       wallet_transactions.c.brand.in_(list(self.clients)))
                .group_by(wallet_transactions.c.brand))}
        return {brand: found.get(brand, (0, None)) for brand in self.clients}
