"""Game-server benchmark: paid rounds per second through HTTP, and request latency.

Starts ``reelforge serve`` on a fresh SQLite file (demo mode, the packaged
demo configuration, its request and round-event lines in JSON as an operator's
server writes them, ``--log-format``), then runs N concurrent clients (16 by default), each
with its own keep-alive HTTP/1.1 connection. Each client opens a demo session
and plays complete paid rounds: start the round (stake debited, paid spin),
then every remaining step until it finishes, each money request with its own
Idempotency-Key, each answer read in full and decoded.

The clients share the machine with the server, so every millisecond of CPU
they spend is one the server does not get: they run as tasks on one event
loop (uvloop when installed) and, by default, speak HTTP/1.1 over their
sockets directly (request line, headers, body; the answer's status line,
headers and ``Content-Length`` body), sending the same calls as the project's
API client (:mod:`reelforge.ops.client`). ``--client httpx`` runs the load through
that client instead: measured on the same machine it spends about ten times
the CPU per round (about 2 ms against 0.2 ms, see docs/performance.md's server
section), which the server then lacks, so the lean client stays the load
generator's default. Set-up and checks (waiting for the server, the game list)
use the API client.

Reports completed paid rounds per second, requests per second, p50/p99/max
latency per request, the CPU time the server (all its processes) and the
clients spent per round (figures that do not depend on what else the machine
is running, unlike the rate), the load average, and checks afterwards that
every stored round verifies (``reelforge verify --all``).

    reelforge bench --server [--clients 16] [--seconds 20] [--server-workers 1] [--db URL]
    python bench/server_bench.py [--clients 16] [--seconds 20] [--workers 1] [--db URL] [--game GAME]
                                 [--client raw|httpx] [--log-format json|human]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from reelforge.games.registry import game_ids
from reelforge.ops.client import API, CALLS, ApiClient, AsyncApiClient, Call, Calls, Endpoints

TRANSPORTS = ("raw", "httpx")
SRC = Path(__file__).resolve().parents[1]
"""The folder holding this ``reelforge`` package (put first on the server's PYTHONPATH)."""


def _request(call: Call, token: str | None) -> bytes:
    """The HTTP/1.1 bytes of an API call (the client's own headers, then the session token's)."""
    body = b"" if call.json is None else json.dumps(call.json).encode()
    extra = "".join(f"{k}: {v}\r\n" for k, v in call.headers.items())
    if token:
        extra += f"Authorization: Bearer {token}\r\n"
    return (f"{call.method} {API}{call.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{extra}\r\n").encode() + body


def _answer(data: bytes) -> tuple[int, bytes, bytes] | None:
    """``(status, body, what follows)`` when ``data`` starts with a complete answer, else None."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None
    head = data[:end]
    start = head.lower().find(b"\r\ncontent-length:")
    if not head.startswith(b"HTTP/1.1 ") or start < 0:
        raise ConnectionError(f"unexpected answer: {head[:200]!r}")
    stop = head.find(b"\r\n", start + 2)
    length = int(head[start + 17:stop if stop >= 0 else len(head)])
    if len(data) < end + 4 + length:
        return None
    return int(head[9:12]), data[end + 4:end + 4 + length], data[end + 4 + length:]


class _Connection(asyncio.Protocol):
    """A client's keep-alive connection on the event loop: one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.waiter: asyncio.Future | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.waiter is not None and (answer := _answer(self.buffer)) is not None:
            status, body, self.buffer = answer
            waiter, self.waiter = self.waiter, None
            waiter.set_result((status, body))

    def connection_lost(self, exc: Exception | None) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError("the server closed the connection"))

    def request(self, call: Call, token: str | None) -> asyncio.Future:
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(_request(call, token))
        return self.waiter


def wait_up(port: int, server: subprocess.Popen | None = None, timeout: float = 60) -> None:
    """Wait until the server answers (SystemExit when it exits first or takes over ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server is not None and server.poll() is not None:
            raise SystemExit(f"server exited with status {server.returncode}")
        try:
            with ApiClient.connect(f"http://127.0.0.1:{port}", timeout=2) as api:
                if api.games().status_code == 200:
                    return
        except httpx.TransportError:
            time.sleep(0.2)
    raise SystemExit("server did not come up")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """One player on its own connection: a session, then complete paid rounds until ``stop_at``.

    ``transport``: ``raw`` (the lean HTTP/1.1 protocol above) or ``httpx`` (:class:`AsyncApiClient`), the
    same calls either way."""

    def __init__(self, port: int, name: str, game: str, bet: int, stop_at: float, start_at: float,
                 transport: str = "raw") -> None:
        self.port, self.name, self.game, self.bet = port, name, game, bet
        self.stop_at, self.start_at, self.transport = stop_at, start_at, transport
        self.latencies: list[float] = []
        self.rounds = 0
        self.errors: list[str] = []

    async def run(self) -> None:
        try:
            if self.transport == "httpx":
                api = AsyncApiClient.connect(f"http://127.0.0.1:{self.port}", connections=1)
                try:
                    await self._play(api.send, api)
                finally:
                    await api.aclose()
                return
            loop = asyncio.get_running_loop()
            transport, conn = await loop.create_connection(_Connection, "127.0.0.1", self.port)
            session = Calls()  # this player's: it holds the token once the session is open

            async def send(call: Call) -> tuple[int, bytes]:
                return await conn.request(call, session.token)

            try:
                await self._play(send, session)
            finally:
                transport.close()
        except (OSError, ValueError, httpx.TransportError) as exc:  # a dropped connection, an unreadable answer
            self.errors.append(f"{type(exc).__name__}: {exc}")

    async def call(self, send: Callable[[Call], Awaitable[Any]], call: Call) -> tuple[int, dict[str, Any]]:
        t0 = time.perf_counter()
        answer = await send(call)
        elapsed = time.perf_counter() - t0
        if time.monotonic() >= self.start_at:
            self.latencies.append(elapsed)
        if isinstance(answer, httpx.Response):
            return answer.status_code, answer.json()
        status, payload = answer
        return status, json.loads(payload)

    async def _play(self, send: Callable[[Call], Awaitable[Any]], session: Endpoints) -> None:
        status, body = await self.call(send, CALLS.open_session(self.name))
        if status != 201:
            self.errors.append(f"session: {status} {body}")
            return
        session.use_session(body["token"])
        while time.monotonic() < self.stop_at:
            status, rnd = await self.call(send, CALLS.start_round(self.game, self.bet))
            if status != 201:
                self.errors.append(f"start: {status} {rnd}")
                return
            while rnd["status"] == "open":
                status, rnd = await self.call(send, CALLS.step(rnd["id"]))
                if status != 200:
                    self.errors.append(f"step: {status} {rnd}")
                    return
            if time.monotonic() >= self.start_at:
                self.rounds += 1


def group_cpu_seconds(pgid: int) -> float:
    """CPU seconds (user + system) used so far by every process in a process group (Linux /proc)."""
    total = 0
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # field 5 (pgrp), counted after the command name
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def _event_loop_run(coroutine: Any) -> Any:
    """Run the clients on uvloop where it is installed (it is with uvicorn's standard extras:
    a third less client CPU per request than asyncio's own loop), else on asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


_COMMIT_COUNTERS = ("reelforge_sqlite_commits_total", "reelforge_sqlite_committed_transactions_total")


def sqlite_commits(port: int) -> dict[str, Any] | None:
    """The SQLite server's COMMITs of money request transactions and the transactions they held, over the
    whole run (warm-up included), from its ``/metrics`` (open on the bench's demo server), with how many
    transactions one COMMIT held (see ``reelforge.server.sqlite_writers.CommitGroup``); None where it has no such counters."""
    try:
        text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    except httpx.HTTPError:
        return None
    values = {name: float(value) for name, _, value in (line.partition(" ") for line in text.splitlines())
              if name in _COMMIT_COUNTERS}
    if len(values) < 2 or not values[_COMMIT_COUNTERS[0]]:
        return None
    commits, transactions = int(values[_COMMIT_COUNTERS[0]]), int(values[_COMMIT_COUNTERS[1]])
    return {"commits": commits, "transactions": transactions, "per_commit": round(transactions / commits, 2)}


def run(clients: int = 16, seconds: float = 20.0, warmup: float = 3.0, workers: int = 1,
        game: str | None = None, bet: int | None = None, db: str | None = None,
        transport: str = "raw", log_format: str = "json", serve: list[str] | None = None) -> dict[str, Any]:
    """Start the server on ``db`` (default: a fresh SQLite file), run the clients, stop the server,
    verify every stored round; return the figures. ``game``: default the registry's first game;
    ``transport``: the clients' HTTP, ``raw`` or ``httpx`` (see :class:`Client`); ``log_format``: the
    server's request and round-event lines (to a discarded output), ``json`` as an operator's server
    writes them (``serve`` without ``--demo``) or ``human`` as the demo's; ``serve``: the command that starts
    the server, before its options (default: this Python's ``-m reelforge serve``)."""
    if transport not in TRANSPORTS:
        raise ValueError(f"unknown client transport {transport!r}; transports: {', '.join(TRANSPORTS)}")
    game = game or game_ids()[0]
    if db is None:
        with tempfile.TemporaryDirectory(prefix="reelforge-bench-") as tmp:
            return run(clients, seconds, warmup, workers, game, bet, f"sqlite:///{Path(tmp) / 'bench.db'}",
                       transport, log_format, serve)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    log = tempfile.TemporaryFile()  # the server's stderr (a pipe nobody read could fill and stall it)
    server = subprocess.Popen(
        [*(serve or [sys.executable, "-m", "reelforge", "serve"]), "--demo", "--db", db, "--port", str(port),
         "--workers", str(workers), "--log-format", log_format],
        env=env, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    players: list[Client] = []
    try:
        try:
            wait_up(port, server)
        except SystemExit:
            log.seek(0)
            raise SystemExit("the server did not come up:\n" + log.read().decode(errors="replace")[-2000:]) from None
        with ApiClient.connect(f"http://127.0.0.1:{port}") as api:
            games = {g["id"]: g for g in api.games().json()}
        if game not in games:
            raise SystemExit(f"unknown game {game!r}; the demo server offers {', '.join(games)}")
        bet = bet or games[game]["bet_ladder"][0]
        now = time.monotonic()
        start_at, stop_at = now + warmup, now + warmup + seconds
        players = [Client(port, f"bench-{i}-{os.urandom(3).hex()}", game, bet, stop_at, start_at, transport)
                   for i in range(clients)]

        async def play() -> tuple[float, float]:
            tasks = [asyncio.create_task(c.run()) for c in players]
            await asyncio.sleep(max(0.0, start_at - time.monotonic()))
            cpu0, client0 = group_cpu_seconds(server.pid), time.process_time()
            await asyncio.gather(*tasks)
            return group_cpu_seconds(server.pid) - cpu0, time.process_time() - client0

        server_cpu, client_cpu = _event_loop_run(play())
        commits = sqlite_commits(port) if db.startswith("sqlite") and workers == 1 else None
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGINT)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
    log.close()
    errors = [e for c in players for e in c.errors]
    latencies = [x for c in players for x in c.latencies]
    rounds = sum(c.rounds for c in players)
    verify = subprocess.run([sys.executable, "-m", "reelforge", "verify", "--db", db, "--all"], env=env,
                            capture_output=True, text=True)
    return {
        "game": game, "bet": bet, "client_transport": transport, "log_format": log_format, "clients": clients,
        "workers": workers, "seconds": seconds,
        "database": "sqlite" if db.startswith("sqlite") else db.split(":")[0],
        "paid_rounds": rounds, "rounds_per_s": round(rounds / seconds, 1),
        "requests": len(latencies), "requests_per_s": round(len(latencies) / seconds, 1),
        "latency_ms": {"p50": round(percentile(latencies, 0.50) * 1000, 2),
                       "p99": round(percentile(latencies, 0.99) * 1000, 2),
                       "max": round(max(latencies) * 1000, 2)} if latencies else None,
        "server_cpu_ms_per_round": round(server_cpu / rounds * 1000, 3) if rounds else None,
        "client_cpu_ms_per_round": round(client_cpu / rounds * 1000, 3) if rounds else None,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "sqlite_commits": commits,
        "errors": errors[:5], "error_count": len(errors),
        "verify": verify.stdout.strip().splitlines()[-1] if verify.stdout else verify.stderr.strip(),
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None, serve: list[str] | None = None) -> None:
    """The bench's command line (``serve``: see :func:`run`)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes; on SQLite one is best (writers serialise on the file lock, "
                             "and a second process only adds lock waits); use PostgreSQL to scale out")
    parser.add_argument("--game", default=None, help="default: the registry's first game")
    parser.add_argument("--bet", type=int, default=None, help="default: the lowest ladder value")
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--client", choices=TRANSPORTS, default="raw",
                        help="the load generator's HTTP: raw (lean HTTP/1.1, the default) or httpx")
    parser.add_argument("--log-format", choices=("json", "human"), default="json",
                        help="the server's log lines: json (an operator's server, the default) or human (the demo's)")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.clients, args.seconds, args.warmup, args.workers, args.game, args.bet, args.db,
                         args.client, args.log_format, serve), indent=2))


if __name__ == "__main__":
    main()
