"""``reelforge wallet-check``: the conformance check an operator runs against its own seamless wallet
(docs/WALLET_PROTOCOL.md, "Conformance check").

It plays the game server's part of the wallet protocol against the wallet at
a URL, with a test player the operator opened (``--player``, a few minor
units of balance are enough): every call (balance, debit, credit, the zero
close of a losing round, rollback), every retry (a call repeated with its
transaction id, as after a lost answer) and every fault path (a rollback of
a known and of an unknown debit, the debit arriving after its rollback,
insufficient funds, a bad or expired signature, another player's or another
currency's call, a repeated id with another amount). After each call it asks
the balance and compares it with what the protocol says it must be. It names
every way the wallet departs from the protocol, one line each.

The test player's balance ends where it started when the wallet is right.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from reelforge.server.seamless import PROTOCOL_HEADER, PROTOCOL_VERSION
from reelforge.server.signing import check_answer, signed_headers


@dataclass
class Answer:
    """A wallet's answer to one call: HTTP status, JSON body (None: not JSON) and what is wrong with its
    signature (None: signed right, or unsigned and signatures not required)."""

    status: int
    body: Any
    signature_problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == 200 and isinstance(self.body, dict)

    @property
    def refused(self) -> bool:
        """A refusal: a 4xx with a JSON body naming an ``error`` code."""
        return 400 <= self.status < 500 and isinstance(self.body, dict) and isinstance(self.body.get("error"), str)

    def __str__(self) -> str:
        return f"HTTP {self.status} {json.dumps(self.body)[:160] if self.body is not None else '(not JSON)'}"


@dataclass
class CheckResult:
    """One named check: what it exercised and the defects it found (none: passed)."""

    name: str
    what: str
    defects: list[str] = field(default_factory=list)


class WalletUnreachable(Exception):
    """The wallet gave no HTTP answer at all (not listening, a timeout, a TLS failure)."""


class WalletCheck:
    """The calls and the bookkeeping of one conformance run against the wallet at ``url``."""

    def __init__(self, url: str, secret: str, player: str, currency: str, brand: str = "default",
                 timeout: float = 10.0, signed_answers: bool = False,
                 client: httpx.Client | None = None) -> None:
        self.url = url.rstrip("/")
        self.base_path = urlsplit(self.url).path
        self.secret, self.player, self.currency, self.brand = secret, player, currency, brand
        self.signed_answers = signed_answers
        self.http = client or httpx.Client(timeout=timeout)
        self.round_base = int(time.time() * 1000)
        self.rounds = 0
        self.expected: int | None = None
        """The balance the protocol says the wallet holds now (None: not known yet)."""

    # -- calls ---------------------------------------------------------------------------------------
    def call(self, kind: str, body: dict[str, Any], secret: str | None = None,
             timestamp: float | None = None, timeout: float | None = None) -> Answer:
        """POST ``body`` to the wallet's ``kind`` call, signed with ``secret`` (default: the right one) at
        ``timestamp`` (default: now), waiting ``timeout`` seconds at most (default: the check's)."""
        data = json.dumps(body, separators=(",", ":")).encode()
        headers = {"content-type": "application/json", PROTOCOL_HEADER: str(PROTOCOL_VERSION),
                   **signed_headers(secret or self.secret, "POST", f"{self.base_path}/{kind}", data, timestamp)}
        try:
            answer = self.http.post(f"{self.url}/{kind}", content=data, headers=headers,
                                    **({"timeout": timeout} if timeout is not None else {}))
        except httpx.HTTPError as exc:
            raise WalletUnreachable(f"{kind}: {type(exc).__name__}: {exc}") from exc
        try:
            parsed = answer.json()
        except ValueError:
            parsed = None
        problem = None
        if self.signed_answers or "x-signature" in answer.headers:
            problem = check_answer(self.secret, answer.headers, answer.status_code, headers["X-Signature"],
                                   answer.content, 300.0)
        return Answer(answer.status_code, parsed, problem)

    def new_round(self) -> int:
        """A round id no earlier run used."""
        self.rounds += 1
        return self.round_base + self.rounds

    def money(self, kind: str, amount: int, round_id: int, tx_id: str | None = None,
              reference: str | None = None, round_closed: bool | None = None, **over: Any) -> dict[str, Any]:
        """A money call's body as the game server sends it (``over``: fields replaced, e.g. another player)."""
        body: dict[str, Any] = {
            "protocol_version": PROTOCOL_VERSION, "transaction_id": tx_id or uuid.uuid4().hex,
            "round_id": round_id, "player": self.player, "amount": amount, "currency": self.currency,
            "timestamp": int(time.time()), "brand": self.brand, "game": "wallet-check",
            "session": "wallet-check-session", "round_closed": kind != "debit" if round_closed is None else round_closed}
        if reference is not None:
            body["reference_transaction_id"] = reference
        return {**body, **over}

    def give_up(self, kind: str, body: dict[str, Any], seconds: float = 0.001) -> None:
        """Send a call and stop waiting for its answer after ``seconds`` (a game server's timeout: the wallet
        may apply it or never see it)."""
        try:
            self.call(kind, body, timeout=seconds)
        except WalletUnreachable:
            pass

    def unanswered(self, kind: str, body: dict[str, Any], change: int) -> None:
        """Send a call whose answer is taken as lost (a timeout): the protocol says the wallet applied it
        (``change`` to the balance); its retry or the balance then shows whether it did."""
        self.call(kind, body)
        if self.expected is not None:
            self.expected += change

    def balance(self) -> Answer:
        return self.call("balance", {"protocol_version": PROTOCOL_VERSION, "player": self.player,
                                     "currency": self.currency, "brand": self.brand, "game": "wallet-check",
                                     "session": "wallet-check-session", "timestamp": int(time.time())})

    # -- judging -------------------------------------------------------------------------------------
    def judge_money(self, result: CheckResult, what: str, body: dict[str, Any], answer: Answer,
                    change: int) -> None:
        """An answer that must be an acknowledgement: 200, the call's transaction id, amount and currency
        echoed, and the balance after it (``change`` from the expected one)."""
        self.judge_signature(result, what, answer)
        if not answer.ok:
            result.defects.append(f"{what}: refused or failed ({answer}); it must be acknowledged with 200")
            return
        for key in ("transaction_id", "amount", "currency"):
            if answer.body.get(key) != body[key]:
                result.defects.append(f"{what}: the answer's {key} is {answer.body.get(key)!r}, not the call's "
                                      f"{body[key]!r}")
        if self.expected is not None:
            self.expected += change
            if answer.body.get("balance") != self.expected:
                result.defects.append(f"{what}: the answer's balance is {answer.body.get('balance')!r}, "
                                      f"expected {self.expected}")

    def judge_refusal(self, result: CheckResult, what: str, answer: Answer, statuses: tuple[int, ...] = ()) -> None:
        """An answer that must be a refusal (a 4xx naming an ``error``; ``statuses``: the ones allowed)."""
        self.judge_signature(result, what, answer)
        if not answer.refused or (statuses and answer.status not in statuses):
            wanted = "/".join(map(str, statuses)) if statuses else "a 4xx"
            result.defects.append(f"{what}: must be refused with {wanted} and a JSON error code, got {answer}")

    def judge_signature(self, result: CheckResult, what: str, answer: Answer) -> None:
        if answer.signature_problem is not None:
            result.defects.append(f"{what}: {answer.signature_problem}")

    def judge_balance(self, result: CheckResult, what: str) -> None:
        """The balance call must say the expected balance (nothing lost, nothing applied twice)."""
        answer = self.balance()
        if not answer.ok or isinstance(answer.body.get("balance"), bool) \
                or not isinstance(answer.body.get("balance"), int):
            result.defects.append(f"{what}: the balance call failed ({answer})")
            return
        if self.expected is not None and answer.body["balance"] != self.expected:
            result.defects.append(f"{what}: the balance is {answer.body['balance']}, expected {self.expected} "
                                  f"({answer.body['balance'] - self.expected:+d})")
            self.expected = answer.body["balance"]  # judge the next checks from what it holds


def _balance(check: WalletCheck) -> CheckResult:
    result = CheckResult("balance", "the balance call answers a non-negative integer balance in the currency")
    answer = check.balance()
    check.judge_signature(result, "balance", answer)
    balance = answer.body.get("balance") if answer.ok else None
    if isinstance(balance, bool) or not isinstance(balance, int) or balance < 0:
        result.defects.append(f"balance: no non-negative integer balance ({answer})")
        return result
    if answer.body.get("currency", check.currency) != check.currency:
        result.defects.append(f"balance: the currency is {answer.body.get('currency')!r}, not {check.currency!r}")
    check.expected = balance
    if balance < 10:
        result.defects.append(f"balance: the test player {check.player!r} holds {balance}; the check needs at "
                              "least 10 minor units")
    return result


def _bad_signature(check: WalletCheck) -> CheckResult:
    result = CheckResult("bad_signature", "calls signed with another secret, or expired, are refused with 401 "
                                          "and change nothing")
    wrong = "not-the-operator-secret-" + uuid.uuid4().hex
    body = check.money("debit", 1, check.new_round())
    check.judge_refusal(result, "a debit signed with another secret", check.call("debit", body, secret=wrong),
                        (401, 403))
    check.judge_balance(result, "after the badly signed debit")
    old = check.money("debit", 1, check.new_round())
    check.judge_refusal(result, "a debit signed an hour ago", check.call("debit", old, timestamp=time.time() - 3600),
                        (401, 403))
    check.judge_balance(result, "after the expired debit")
    credit = check.money("credit", 5, check.new_round())
    check.judge_refusal(result, "a credit signed with another secret", check.call("credit", credit, secret=wrong),
                        (401, 403))
    check.judge_balance(result, "after the badly signed credit")
    return result


def _round(check: WalletCheck, result: CheckResult, stake: int, win: int, what: str) -> None:
    """A round: its debit of ``stake``, then its credit of ``win`` closing it (``what``), each judged."""
    round_id = check.new_round()
    debit = check.money("debit", stake, round_id)
    check.judge_money(result, "debit", debit, check.call("debit", debit), -stake)
    credit = check.money("credit", win, round_id)
    check.judge_money(result, what, credit, check.call("credit", credit), win)
    check.judge_balance(result, f"after {what}")


def _debit_credit(check: WalletCheck) -> CheckResult:
    result = CheckResult("debit_credit", "a round: a debit, then its credit with round_closed, each applied once")
    _round(check, result, 2, 2, "the credit closing the round")
    return result


def _duplicates(check: WalletCheck) -> CheckResult:
    result = CheckResult("duplicates", "a call repeated with its transaction id (a retry after a timeout or a "
                                       "lost answer) gets the first answer and changes nothing")
    round_id = check.new_round()
    debit = check.money("debit", 3, round_id)
    check.unanswered("debit", debit, -3)  # the game server retries it
    retry = {**debit, "timestamp": int(time.time())}
    check.judge_money(result, "the debit's retry", retry, check.call("debit", retry), 0)
    check.judge_balance(result, "after a debit and its retry")
    credit = check.money("credit", 3, round_id)
    check.unanswered("credit", credit, 3)
    for attempt in (1, 2):
        again = {**credit, "timestamp": int(time.time())}
        check.judge_money(result, f"the credit's retry {attempt}", again, check.call("credit", again), 0)
    check.judge_balance(result, "after a credit and two retries")
    other = {**credit, "amount": 4, "timestamp": int(time.time())}
    check.judge_refusal(result, "the credit's transaction id again with another amount", check.call("credit", other))
    check.judge_balance(result, "after a transaction id reused with another amount")
    # a real timeout: the game server gives up after 1 ms (the wallet may apply the call or never see it), then
    # retries; applied once either way
    credit = check.money("credit", 2, check.new_round())
    check.give_up("credit", credit)
    retry = {**credit, "timestamp": int(time.time())}
    check.judge_money(result, "a credit retried after a timeout", retry, check.call("credit", retry), 2)
    debit = check.money("debit", 2, check.new_round())
    check.give_up("debit", debit)
    retry = {**debit, "timestamp": int(time.time())}
    check.judge_money(result, "a debit retried after a timeout", retry, check.call("debit", retry), -2)
    check.judge_balance(result, "after a credit and a debit each retried after a timeout")
    return result


def _zero_close(check: WalletCheck) -> CheckResult:
    result = CheckResult("zero_close", "a losing round: its debit, then a zero-amount credit with round_closed")
    _round(check, result, 1, 0, "the zero-amount credit closing the round")
    check.unanswered("credit", check.money("credit", 1, check.new_round()), 1)  # the test player's unit back
    return result


def _rollbacks(check: WalletCheck) -> CheckResult:
    result = CheckResult("rollback", "a rollback refunds a debit it applied, once; a rollback of a debit it never "
                                     "saw is acknowledged and that debit refused should it arrive later")
    round_id = check.new_round()
    debit = check.money("debit", 4, round_id)
    check.unanswered("debit", debit, -4)  # the game server rolls it back
    rollback = check.money("rollback", 4, round_id, reference=debit["transaction_id"])
    check.judge_money(result, "the rollback of a known debit", rollback, check.call("rollback", rollback), 4)
    again = {**rollback, "timestamp": int(time.time())}
    check.judge_money(result, "the rollback's retry", again, check.call("rollback", again), 0)
    check.judge_balance(result, "after a debit, its rollback and the rollback's retry")
    round_id = check.new_round()
    unseen = uuid.uuid4().hex
    unknown = check.money("rollback", 2, round_id, reference=unseen)
    check.judge_money(result, "the rollback of a debit it never saw", unknown, check.call("rollback", unknown), 0)
    check.judge_balance(result, "after the rollback of an unknown debit")
    late = check.money("debit", 2, round_id, tx_id=unseen)
    answer = check.call("debit", late)
    check.judge_refusal(result, "the debit arriving after its rollback", answer)
    check.judge_balance(result, "after the debit that arrived after its rollback")
    return result


def _insufficient_funds(check: WalletCheck) -> CheckResult:
    result = CheckResult("insufficient_funds", "a debit above the balance is refused (4xx, error code) and "
                                               "takes nothing")
    if check.expected is None:
        result.defects.append("insufficient_funds: not checked, the balance is not known")
        return result
    debit = check.money("debit", check.expected + 1, check.new_round())
    answer = check.call("debit", debit)
    check.judge_refusal(result, "a debit of one more than the balance", answer)
    if answer.refused and answer.body.get("transaction_id") not in (None, debit["transaction_id"]):
        result.defects.append("a debit of one more than the balance: the refusal names another transaction id "
                              f"({answer.body.get('transaction_id')!r})")
    check.judge_balance(result, "after the refused debit")
    return result


def _wrong_party(check: WalletCheck) -> CheckResult:
    result = CheckResult("wrong_party", "a call for an unknown player, or in another currency, is refused and "
                                        "changes nothing")
    stranger = f"wallet-check-nobody-{uuid.uuid4().hex[:8]}"
    check.judge_refusal(result, "a debit of an unknown player",
                        check.call("debit", check.money("debit", 1, check.new_round(), player=stranger)))
    currency = "XTS" if check.currency != "XTS" else "XXX"
    check.judge_refusal(result, f"a debit in {currency} (the player's currency is {check.currency})",
                        check.call("debit", check.money("debit", 1, check.new_round(), currency=currency)))
    check.judge_balance(result, "after the calls of another party")
    return result


CHECKS: tuple[Callable[[WalletCheck], CheckResult], ...] = (
    _balance, _bad_signature, _debit_credit, _duplicates, _zero_close, _rollbacks, _insufficient_funds,
    _wrong_party)
"""Every check, in the order run (the first reads the starting balance the others are judged from)."""


def run_wallet_check(check: WalletCheck) -> list[CheckResult]:
    """Run every check against the wallet; their results (raises :class:`WalletUnreachable` when it does not
    answer at all)."""
    results = []
    for run in CHECKS:
        results.append(run(check))
        if run is _balance and results[-1].defects and check.expected is None:
            break  # nothing else can be judged without a balance
    return results
