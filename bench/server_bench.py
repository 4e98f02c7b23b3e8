"""Game-server benchmark: paid rounds per second through HTTP, and request latency.

Starts ``reelforge serve`` on a fresh SQLite file (demo mode, the packaged
demo configuration), then runs N concurrent clients (threads with keep-alive
HTTP connections, 16 by default). Each client opens a demo session and plays
complete paid rounds: start the round (stake debited, paid spin), then every
remaining step until it finishes, each request with its own Idempotency-Key.

Reports completed paid rounds per second, requests per second, p50/p99/max
latency per request, the CPU time the server (all its processes) and the
clients spent per round (a figure that does not depend on what else the
machine is running, unlike the rate), and checks afterwards that every stored round verifies
(``reelforge verify --all``).

    python bench/server_bench.py [--clients 16] [--seconds 20] [--workers 1] [--db URL] [--game forge-of-fortunes]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/v1/games")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("server did not come up")


class Client(threading.Thread):
    def __init__(self, port: int, name: str, game: str, bet: int, stop_at: float, start_at: float) -> None:
        super().__init__(daemon=True)
        self.port, self.name, self.game, self.bet = port, name, game, bet
        self.stop_at, self.start_at = stop_at, start_at
        self.latencies: list[float] = []
        self.rounds = 0
        self.errors: list[str] = []

    def call(self, conn: http.client.HTTPConnection, method: str, path: str, body: dict | None,
             headers: dict[str, str]) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        t0 = time.perf_counter()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **headers})
        resp = conn.getresponse()
        payload = resp.read()
        elapsed = time.perf_counter() - t0
        if time.monotonic() >= self.start_at:
            self.latencies.append(elapsed)
        return resp.status, json.loads(payload)

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        status, body = self.call(conn, "POST", "/api/v1/sessions", {"player": self.name}, {})
        if status != 201:
            self.errors.append(f"session: {status} {body}")
            return
        auth = {"Authorization": f"Bearer {body['token']}"}
        while time.monotonic() < self.stop_at:
            status, rnd = self.call(conn, "POST", f"/api/v1/games/{self.game}/rounds", {"bet": self.bet},
                                    {**auth, "Idempotency-Key": uuid.uuid4().hex})
            if status != 201:
                self.errors.append(f"start: {status} {rnd}")
                return
            while rnd["status"] == "open":
                status, rnd = self.call(conn, "POST", f"/api/v1/rounds/{rnd['id']}/steps", {},
                                        {**auth, "Idempotency-Key": uuid.uuid4().hex})
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


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes; on SQLite one is best (writers serialise on the file lock, "
                             "and a second process only adds lock waits); use PostgreSQL to scale out")
    parser.add_argument("--game", default="forge-of-fortunes")
    parser.add_argument("--bet", type=int, default=None, help="default: the lowest ladder value")
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="reelforge-bench-") as tmp:
        print(json.dumps(run(args, args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"), indent=2))


def run(args: argparse.Namespace, db: str) -> dict:
    """Start the server on ``db``, run the clients, stop the server, verify; return the figures."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    server = subprocess.Popen(
        [sys.executable, "-m", "reelforge", "serve", "--demo", "--db", db, "--port", str(port),
         "--workers", str(args.workers)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_up(port)
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", "/api/v1/games")
        games = {g["id"]: g for g in json.loads(conn.getresponse().read())}
        bet = args.bet or games[args.game]["bet_ladder"][0]
        now = time.monotonic()
        start_at, stop_at = now + args.warmup, now + args.warmup + args.seconds
        clients = [Client(port, f"bench-{i}-{uuid.uuid4().hex[:6]}", args.game, bet, stop_at, start_at)
                   for i in range(args.clients)]
        for c in clients:
            c.start()
        time.sleep(max(0.0, start_at - time.monotonic()))
        cpu0, client0 = group_cpu_seconds(server.pid), time.process_time()
        for c in clients:
            c.join()
        server_cpu, client_cpu = group_cpu_seconds(server.pid) - cpu0, time.process_time() - client0
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    errors = [e for c in clients for e in c.errors]
    latencies = [x for c in clients for x in c.latencies]
    rounds = sum(c.rounds for c in clients)
    verify = subprocess.run([sys.executable, "-m", "reelforge", "verify", "--db", db, "--all"], env=env,
                            capture_output=True, text=True)
    result = {
        "game": args.game, "bet": bet, "clients": args.clients, "workers": args.workers, "seconds": args.seconds,
        "database": "sqlite" if db.startswith("sqlite") else db.split(":")[0],
        "paid_rounds": rounds, "rounds_per_s": round(rounds / args.seconds, 1),
        "requests": len(latencies), "requests_per_s": round(len(latencies) / args.seconds, 1),
        "latency_ms": {"p50": round(percentile(latencies, 0.50) * 1000, 2),
                       "p99": round(percentile(latencies, 0.99) * 1000, 2),
                       "max": round(max(latencies) * 1000, 2)} if latencies else None,
        "server_cpu_ms_per_round": round(server_cpu / rounds * 1000, 3) if rounds else None,
        "client_cpu_ms_per_round": round(client_cpu / rounds * 1000, 3) if rounds else None,
        "load_average_1min": os.getloadavg()[0],
        "errors": errors[:5], "error_count": len(errors),
        "verify": verify.stdout.strip().splitlines()[-1] if verify.stdout else verify.stderr.strip(),
        "cpus": os.cpu_count(),
    }
    return result


if __name__ == "__main__":
    main()
