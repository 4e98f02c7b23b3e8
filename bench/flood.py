"""A half-open connection flood against a real server process, and what an ordinary client sees meanwhile.

    .venv/bin/python bench/flood.py [--connections 1100] [--nofile 1024] [--seconds 15]

Starts ``reelforge serve --demo`` on a fresh SQLite file with its descriptor
limit (``ulimit -n``) at ``--nofile``, then opens ``--connections``
connections that each send half a request and nothing more (reopening any
the server closes, as an attacker keeping the flood up would), while a
probe opens a new connection every 0.1 s and asks ``GET /api/v1/games``
(2 s timeout). Prints the probe's successes, failures and latencies, and the
server's largest descriptor count. Run with ``PYTHONPATH=<other checkout>/src``
to measure another version of the server the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if "PYTHONPATH" not in os.environ:  # PYTHONPATH=<other checkout>/src measures that version
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from reelforge.bench.server import free_port, percentile, wait_up  # noqa: E402

HALF = b"POST /api/v1/sessions HTTP/1.1\r\nHost: flood\r\nContent-Type: application/json\r\nContent-Len"
PROBE = b"GET /api/v1/games HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n"


async def hold(port: int, stop: float, counts: dict[str, int]) -> None:
    """One flood connection: half a request, then silence; reopened whenever the server closes it."""
    while time.monotonic() < stop:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(HALF)
            counts["opened"] += 1
            try:
                await asyncio.wait_for(reader.read(), timeout=max(0.1, stop - time.monotonic()))
            except TimeoutError:
                pass
            writer.close()
        except OSError:
            counts["refused"] += 1
            await asyncio.sleep(0.05)


async def probe(port: int, stop: float, results: list[tuple[bool, float, str]]) -> None:
    """An ordinary client: a new connection and one request every 0.1 s."""
    while time.monotonic() < stop:
        t0 = time.perf_counter()
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 2)
            writer.write(PROBE)
            head = await asyncio.wait_for(reader.read(), 2)
            writer.close()
            ok = head.startswith(b"HTTP/1.1 200")
            results.append((ok, time.perf_counter() - t0, "" if ok else head[:40].decode(errors="replace")))
        except (OSError, TimeoutError) as exc:
            results.append((False, time.perf_counter() - t0, type(exc).__name__))
        await asyncio.sleep(0.1)


def descriptors(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


async def attack(port: int, pid: int, connections: int, seconds: float) -> dict:
    stop = time.monotonic() + seconds
    counts = {"opened": 0, "refused": 0}
    results: list[tuple[bool, float, str]] = []
    peak = 0
    tasks = [asyncio.create_task(hold(port, stop, counts)) for _ in range(connections)]
    await asyncio.sleep(1.0)  # the flood is up before the probe starts
    probe_task = asyncio.create_task(probe(port, stop, results))
    while time.monotonic() < stop:
        peak = max(peak, descriptors(pid))
        await asyncio.sleep(0.2)
    await asyncio.gather(probe_task, *tasks, return_exceptions=True)
    latencies = [t for ok, t, _ in results if ok]
    failures: dict[str, int] = {}
    for ok, _, why in results:
        if not ok:
            failures[why] = failures.get(why, 0) + 1
    return {"probes": len(results), "ok": len(latencies), "failures": failures,
            "p50_ms": round(1000 * percentile(latencies, 0.5), 1) if latencies else None,
            "p99_ms": round(1000 * percentile(latencies, 0.99), 1) if latencies else None,
            "max_ms": round(1000 * max(latencies), 1) if latencies else None,
            "flood_connections_opened": counts["opened"], "flood_connects_refused": counts["refused"],
            "server_peak_descriptors": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1100)
    parser.add_argument("--nofile", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # the flood itself needs the descriptors
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 2 * args.connections + 100)), hard))
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "reelforge", "serve", "--demo", "--db", f"sqlite:///{tmp}/flood.db",
             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/server.log", "w"),
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (args.nofile, hard)))
        try:
            wait_up(port, server)
            result = asyncio.run(attack(port, server.pid, args.connections, args.seconds))
        finally:
            server.terminate()
            server.wait(10)
        result.update(connections=args.connections, nofile=args.nofile, seconds=args.seconds,
                      server_log_lines=len(Path(f"{tmp}/server.log").read_text().splitlines()))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
