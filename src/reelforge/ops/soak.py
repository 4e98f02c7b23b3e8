"""Load and crash soak for the game server, with exact reconciliation afterwards.

:func:`run_soak` starts real server processes (:class:`~reelforge.ops.supervisor.ServerSupervisor`,
127.0.0.1 only) on a database, then N simulated players (asyncio, :class:`~reelforge.ops.client.AsyncApiClient`,
one keep-alive connection each) play complete rounds, every step included, for a
fixed time. Optionally a killer SIGKILLs the server at random moments (on
average every ``kill_every`` seconds, uniformly between half and one and a
half times that) and starts a fresh server process.

A player that loses its connection (its server was killed) retries the same
request with the same ``Idempotency-Key`` until it gets an answer, so every
round it started is continued where the server left it. After the time is up
players finish the round they are in and stop; everything is bounded by a
hard deadline.

Then the server is stopped and the database is reconciled, exactly, for this
run's players:

* each wallet's balance equals the sum of its ledger entries, and each entry's
  ``balance_after`` is the running sum (never negative);
* each wallet's balance equals what its player computed from the answers it
  got (starting balance - costs + wins): a lost or duplicated debit or credit
  shows up here;
* each round was debited its cost exactly once and credited its win exactly
  once, never refunded unless void; rounds are decided when staked, so a void
  round (a malfunction while deciding it) showed nothing (no revealed step)
  and was refunded once; the ledger's total stakes and wins equal the rounds'
  costs and wins; every stored round is one its player knows;
* no round is left open (``unfinishable_rounds``): each is finished by its
  player or completed on expiry (``rounds_completed_on_expiry``), and every
  round verifies by replaying its stored draws through the rules
  (``verify_failures``).

``lost_or_duplicated_money`` is the sum, in minor units, of the absolute
differences found by these money checks (0 when everything reconciles).
"""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select

from reelforge.games.registry import game_ids
from reelforge.ops.client import CALLS, ApiClient, AsyncApiClient, Call
from reelforge.ops.supervisor import ServerSupervisor
from reelforge.server.db import make_engine
from reelforge.server.roundids import RoundIds
from reelforge.server.schema import ledger, players, rounds
from reelforge.server.store import round_ids_key
from reelforge.server.verify import verify_round_row

RETRY_PAUSE = 0.05
"""Seconds between retries of a request whose connection failed."""
MAX_CLIENTS = 512
MAX_SECONDS = 24 * 3600.0


class SoakError(RuntimeError):
    """The soak could not run (bad arguments, server did not start)."""


@dataclass
class Counters:
    """What the players saw (shared by every player of a run; asyncio runs them on one thread)."""

    latencies: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    transport_errors: int = 0
    unexpected: list[str] = field(default_factory=list)
    rounds: int = 0
    feature_rounds: int = 0
    steps: int = 0
    resumed_after_error: int = 0


@dataclass
class PlayerRecord:
    """One simulated player's own account of its money, from the answers it got."""

    name: str
    start_balance: int | None = None
    deposits: int = 0
    costs: int = 0
    wins: int = 0
    round_ids: set[int] = field(default_factory=set)
    open_round: int | None = None
    final_balance: int | None = None
    unfinished_at_end: bool = False

    @property
    def expected_balance(self) -> int | None:
        if self.start_balance is None:
            return None
        return self.start_balance + self.deposits - self.costs + self.wins


class Player:
    """A simulated player: opens a session, then plays full rounds until told to stop."""

    def __init__(self, base_url: str, name: str, game: str, bet: int, counters: Counters, hard_deadline: float,
                 done: threading.Event | None = None) -> None:
        self.api = AsyncApiClient.connect(base_url, connections=1)
        self.record = PlayerRecord(name)
        self.game, self.bet = game, bet
        self.counters = counters
        self.hard_deadline = hard_deadline
        self.done = done or threading.Event()

    async def request(self, call: Call) -> tuple[int, Any]:
        """One request, retried as it is (the same idempotency key) after connection failures and 5xx answers."""
        method, path = call.method, call.path
        failed = False
        while True:
            if time.monotonic() > self.hard_deadline:
                raise TimeoutError(f"{method} {path} got no answer before the hard deadline")
            t0 = time.perf_counter()
            try:
                r = await self.api.send(call)
            except httpx.TransportError:
                self.counters.transport_errors += 1
                failed = True
                await asyncio.sleep(RETRY_PAUSE)
                continue
            self.counters.latencies.append(time.perf_counter() - t0)
            self.counters.statuses[r.status_code] += 1
            if r.status_code >= 500:
                self.counters.unexpected.append(f"{method} {path}: {r.status_code} {r.text[:200]}")
                failed = True
                await asyncio.sleep(RETRY_PAUSE)
                continue
            if failed:
                self.counters.resumed_after_error += 1
            try:
                return r.status_code, r.json()
            except ValueError:
                return r.status_code, r.text

    async def open_session(self) -> bool:
        """Open the player's session (before the clock starts); False when that failed."""
        rec = self.record
        try:
            status, body = await self.request(CALLS.open_session(rec.name))
        except TimeoutError as exc:
            self.counters.unexpected.append(f"{rec.name}: {exc}")
            return False
        if status != 201:
            self.counters.unexpected.append(f"{rec.name}: session {status} {body}")
            return False
        self.api.use_session(body["token"])
        rec.start_balance = body["balance"]
        return True

    async def run(self, stop_at: float) -> None:
        try:
            if self.api.token:
                await self._run(stop_at)
        except TimeoutError as exc:
            self.counters.unexpected.append(f"{self.record.name}: {exc}")
            self.record.unfinished_at_end = self.record.open_round is not None
        finally:
            await self.api.aclose()

    async def _run(self, stop_at: float) -> None:
        rec = self.record
        while time.monotonic() < stop_at and not self.done.is_set():
            status, rnd = await self.request(CALLS.start_round(self.game, self.bet))
            if status != 201:
                self.counters.unexpected.append(f"{rec.name}: start {status} {rnd}")
                return
            rec.round_ids.add(rnd["id"])
            rec.costs += rnd["cost"]
            rec.open_round = rnd["id"]
            self.counters.steps += 1
            while rnd["status"] == "open":
                status, nxt = await self.request(CALLS.step(rnd["id"]))
                if status != 200 or nxt["id"] != rnd["id"] or nxt["step_count"] != rnd["step_count"] + 1:
                    self.counters.unexpected.append(f"{rec.name}: step of round {rnd['id']}: {status} {nxt}")
                    return
                rnd = nxt
                self.counters.steps += 1
            rec.open_round = None
            if rnd["status"] != "finished":
                self.counters.unexpected.append(f"{rec.name}: round {rnd['id']} ended {rnd['status']}: "
                                                f"{rnd.get('void_reason')}")
            rec.wins += rnd["paid"] if rnd["status"] == "finished" else 0
            if rnd["status"] == "void":
                rec.costs -= rnd["cost"]  # refunded
            self.counters.rounds += 1
            self.counters.feature_rounds += rnd["step_count"] > 1
        status, wallet = await self.request(CALLS.wallet())
        if status == 200:
            rec.final_balance = wallet["balance"]
        status, _ = await self.request(CALLS.unfinished(self.game))
        if status != 404:
            self.counters.unexpected.append(f"{rec.name}: an unfinished round is reported after the last round")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Killer(threading.Thread):
    """SIGKILLs a server process at random moments and starts a fresh one, until stopped."""

    def __init__(self, supervisor: ServerSupervisor, every: float, seed: int | None, max_kills: int | None) -> None:
        super().__init__(name="soak-killer", daemon=True)
        self.supervisor, self.every, self.max_kills = supervisor, every, max_kills
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.downtimes: list[float] = []
        self.error: BaseException | None = None
        self.done = threading.Event()
        """Set when ``max_kills`` kills are done (players then stop starting rounds)."""

    def run(self) -> None:
        try:
            while not self.stop.wait(self.rng.uniform(0.5, 1.5) * self.every):
                self.downtimes.append(self.supervisor.restart())
                if self.max_kills is not None and len(self.downtimes) >= self.max_kills:
                    return
        except BaseException as exc:  # noqa: BLE001 - reported by the soak
            self.error = exc
        finally:
            self.done.set()


def reconcile(db_url: str, records: list[PlayerRecord]) -> dict[str, Any]:
    """Check the database against itself and against the players' own accounts (see the module docstring)."""
    engine = make_engine(db_url)
    names = [r.name for r in records]
    by_name = {r.name: r for r in records}
    lost = 0
    problems: list[str] = []
    verify_failures = 0
    open_rounds = 0
    verified = 0
    completed = 0
    try:
        public = RoundIds(round_ids_key(engine)).public  # players know their rounds by their public ids
        with engine.connect() as conn:
            rows = conn.execute(select(players.c.id, players.c.name, players.c.balance)
                                .where(players.c.name.in_(names))).all()
            ids = {r.id: r.name for r in rows}
            for pid, name, balance in rows:
                entries = conn.execute(select(ledger.c.amount, ledger.c.balance_after)
                                       .where(ledger.c.player_id == pid).order_by(ledger.c.id)).all()
                running = 0
                for amount, after in entries:
                    running += amount
                    if after != running or after < 0:
                        problems.append(f"{name}: ledger entry balance_after {after}, running sum {running}")
                        lost += abs(after - running)
                if balance != running:
                    problems.append(f"{name}: balance {balance} != ledger sum {running}")
                    lost += abs(balance - running)
                rec = by_name[name]
                if rec.expected_balance is not None and not rec.unfinished_at_end and balance != rec.expected_balance:
                    problems.append(f"{name}: balance {balance}, the player's own account says {rec.expected_balance}")
                    lost += abs(balance - rec.expected_balance)
                if rec.final_balance is not None and rec.final_balance != balance:
                    problems.append(f"{name}: wallet answered {rec.final_balance}, database holds {balance}")
            missing = set(names) - set(ids.values())
            problems += [f"{n}: no player in the database" for n in sorted(missing)
                         if by_name[n].start_balance is not None]

            # Per round: one debit of its cost, one credit of its win (or one refund when void).
            per_round: dict[int, Counter] = {}
            for round_id, kind, amount in conn.execute(
                    select(ledger.c.round_id, ledger.c.kind, ledger.c.amount)
                    .where(ledger.c.player_id.in_(list(ids)), ledger.c.round_id.is_not(None))):
                per_round.setdefault(round_id, Counter())[kind] += amount
            round_rows = conn.execute(select(rounds).where(rounds.c.player_id.in_(list(ids)))
                                      .order_by(rounds.c.id)).all()
            total_cost = total_win = 0
            for rnd in round_rows:
                got = per_round.pop(rnd.id, Counter())
                debit = -(got["stake"] + got["feature_buy"])
                if debit != rnd.cost:
                    problems.append(f"round {rnd.id}: debited {debit}, cost {rnd.cost}")
                    lost += abs(debit - rnd.cost)
                if got["win"] != rnd.win:
                    problems.append(f"round {rnd.id}: credited {got['win']}, win {rnd.win}")
                    lost += abs(got["win"] - rnd.win)
                refund = rnd.cost if rnd.status == "void" else 0
                if got["refund"] != refund:
                    problems.append(f"round {rnd.id}: refunded {got['refund']}, expected {refund}")
                    lost += abs(got["refund"] - refund)
                if rnd.status == "void" and rnd.step_count:
                    problems.append(f"round {rnd.id}: void after {rnd.step_count} step(s) were shown "
                                    "(a decided round is never void)")
                completed += bool(rnd.completed_on_expiry)
                total_cost += rnd.cost
                total_win += rnd.win
                if rnd.status == "open":
                    open_rounds += 1
                if public(rnd.id) not in by_name[ids[rnd.player_id]].round_ids:
                    problems.append(f"round {rnd.id} of {ids[rnd.player_id]} was never answered to its player")
                    lost += rnd.cost + rnd.win
                diffs = verify_round_row(conn, rnd)
                verified += 1
                if diffs:
                    verify_failures += 1
                    problems.append(f"round {rnd.id} does not verify: {diffs[:3]}")
            for round_id, got in per_round.items():
                problems.append(f"ledger entries for unknown round {round_id}: {dict(got)}")
                lost += sum(abs(v) for v in got.values())
            known = sum(len(r.round_ids) for r in records)
            if known != len(round_rows):
                problems.append(f"players know {known} rounds, the database holds {len(round_rows)}")
            totals = dict(conn.execute(select(ledger.c.kind, func.coalesce(func.sum(ledger.c.amount), 0))
                                       .where(ledger.c.player_id.in_(list(ids))).group_by(ledger.c.kind)).all())
            ledger_debits = -(int(totals.get("stake", 0)) + int(totals.get("feature_buy", 0)))
            if ledger_debits != total_cost or int(totals.get("win", 0)) != total_win:
                problems.append(f"ledger totals stakes {ledger_debits} wins {totals.get('win', 0)}; "
                                f"rounds' costs {total_cost} wins {total_win}")
    finally:
        engine.dispose()
    return {
        "rounds_stored": len(round_rows),
        "rounds_verified": verified,
        "total_staked": total_cost,
        "total_won": total_win,
        "lost_or_duplicated_money": lost,
        "open_rounds_left": open_rounds,
        "rounds_completed_on_expiry": completed,
        "verify_failures": verify_failures,
        "problems": problems,
    }


def run_soak(db: str | None = None, clients: int = 32, seconds: float = 30.0, kill_every: float | None = None,
             max_kills: int | None = None, bet: int | None = None, seed: int | None = None,
             hard_timeout: float | None = None, workdir: str | Path | None = None,
             keep: bool = False, fault: Callable[[str], Any] | None = None,
             game: str | None = None) -> dict[str, Any]:
    """Run the soak and return its figures (see the module docstring); never leaves a process behind.

    With ``kill_every``, a server process is SIGKILLed and restarted every ~``kill_every`` seconds;
    with ``max_kills`` too, the run ends after that many kills (or after ``seconds``, whichever is first).
    ``fault``: run in a thread once the clock starts, with the server's base URL (e.g. restart the
    database abruptly); what it returns is the result's ``fault`` (an exception it raises, a problem).
    ``game``: the game every player plays (default: the registry's first game; its bet: the lowest of the
    server's ladder unless ``bet``).
    """
    game = game or game_ids()[0]
    if not 1 <= clients <= MAX_CLIENTS:
        raise SoakError(f"clients must be in [1, {MAX_CLIENTS}], got {clients}")
    if not 0 < seconds <= MAX_SECONDS:
        raise SoakError(f"seconds must be in (0, {MAX_SECONDS:g}], got {seconds}")
    if kill_every is not None and kill_every <= 0:
        raise SoakError(f"--kill-every must be positive, got {kill_every}")
    tmp = Path(tempfile.mkdtemp(prefix="reelforge-soak-", dir=workdir))
    db_url = db or f"sqlite:///{tmp / 'soak.db'}"
    backend = db_url.split(":", 1)[0].split("+", 1)[0]
    run_id = uuid.uuid4().hex[:8]
    hard_timeout = hard_timeout if hard_timeout is not None else seconds + 120.0
    supervisor = None
    try:
        try:
            supervisor = ServerSupervisor(db_url, tmp / "server.log")
            supervisor.start()
        except Exception as exc:
            raise SoakError(f"the server did not start on {db_url}: {exc}") from exc
        with ApiClient.connect(supervisor.base_url, timeout=30) as api:
            offered = {g["id"]: g for g in api.games().json()}
        if game not in offered:
            raise SoakError(f"the server offers no game {game!r}; it offers {', '.join(offered)}")
        if bet is None:
            bet = offered[game]["bet_ladder"][0]
        counters = Counters()
        killer = Killer(supervisor, kill_every, seed, max_kills) if kill_every else None
        hard_deadline = time.monotonic() + hard_timeout + 120.0
        plist = [Player(supervisor.base_url, f"soak-{run_id}-{i}", game, bet, counters, hard_deadline,
                        killer.done if killer is not None and max_kills is not None else None)
                 for i in range(clients)]
        clock: dict[str, float] = {}
        fault_result: dict[str, Any] = {}

        def run_fault() -> None:
            try:
                fault_result["value"] = fault(supervisor.base_url)
            except BaseException as exc:  # noqa: BLE001 - reported with the figures
                fault_result["error"] = exc

        fault_thread = threading.Thread(target=run_fault, name="soak-fault", daemon=True) if fault else None

        async def drive() -> None:
            # Sessions first (they are not part of the figures), then the clock starts.
            await asyncio.gather(*(p.open_session() for p in plist))
            counters.latencies.clear()
            counters.statuses.clear()
            clock["t0"] = time.monotonic()
            for p in plist:
                p.hard_deadline = clock["t0"] + hard_timeout
            if killer is not None:
                killer.start()
            if fault_thread is not None:
                fault_thread.start()
            await asyncio.gather(*(p.run(clock["t0"] + seconds) for p in plist))

        try:
            asyncio.run(drive())
        finally:
            if killer is not None and killer.is_alive():
                killer.stop.set()
                killer.join(timeout=180)
            if fault_thread is not None and fault_thread.is_alive():
                fault_thread.join(timeout=180)
        t0 = clock.get("t0", time.monotonic())
        elapsed = time.monotonic() - t0
        supervisor.close()
        log_text = (tmp / "server.log").read_text(errors="replace")
        records = [p.record for p in plist]
        recon = reconcile(db_url, records)
        internal_errors = log_text.count("internal error") + log_text.count("Traceback")
        tokens = [p.api.token for p in plist if p.api.token]
        tokens_in_log = sum(t in log_text for t in tokens)
        errors_5xx = sum(n for s, n in counters.statuses.items() if s >= 500)
        unfinishable = recon["open_rounds_left"] + sum(r.unfinished_at_end for r in records)
        problems = list(recon["problems"])
        if killer is not None and killer.error is not None:
            problems.append(f"the killer failed: {killer.error!r}")
        if "error" in fault_result:
            problems.append(f"the fault failed: {fault_result['error']!r}")
        if tokens_in_log:
            problems.append(f"{tokens_in_log} session token(s) appear in the server log")
        reconciled = (not problems and recon["lost_or_duplicated_money"] == 0 and unfinishable == 0
                      and recon["verify_failures"] == 0 and not counters.unexpected and errors_5xx == 0)
        lat = counters.latencies
        result = {
            "backend": backend,
            "clients": clients,
            "seconds": round(elapsed, 3),
            "game": game,
            "bet": bet,
            "rounds": counters.rounds,
            "feature_rounds": counters.feature_rounds,
            "steps": counters.steps,
            "requests": len(lat),
            "rounds_per_second": round(counters.rounds / elapsed, 2),
            "p50_ms": round(_percentile(lat, 0.50) * 1000, 2),
            "p99_ms": round(_percentile(lat, 0.99) * 1000, 2),
            "max_ms": round(max(lat, default=0.0) * 1000, 2),
            "status_counts": {str(k): v for k, v in sorted(counters.statuses.items())},
            "errors_5xx": errors_5xx,
            "unexpected_answers": len(counters.unexpected),
            "transport_errors_retried": counters.transport_errors,
            "requests_resumed_after_error": counters.resumed_after_error,
            "kills": supervisor.kills,
            "restart_p50_ms": round(_percentile(killer.downtimes, 0.5) * 1000, 1) if killer else None,
            "server_log_internal_errors": internal_errors,
            "tokens_in_server_log": tokens_in_log,
            "rounds_stored": recon["rounds_stored"],
            "rounds_verified": recon["rounds_verified"],
            "total_staked": recon["total_staked"],
            "total_won": recon["total_won"],
            "lost_or_duplicated_money": recon["lost_or_duplicated_money"],
            "unfinishable_rounds": unfinishable,
            "rounds_completed_on_expiry": recon["rounds_completed_on_expiry"],
            "verify_failures": recon["verify_failures"],
            "reconciled": reconciled,
            "problems": (problems + counters.unexpected)[:50],
        }
        if fault is not None:
            result["fault"] = fault_result.get("value")
        if keep:
            result["workdir"] = str(tmp)
        return result
    finally:
        if supervisor is not None:
            supervisor.close()
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
