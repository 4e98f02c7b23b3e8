"""Can one player starve another? A greedy player on 8 connections against one ordinary player.

    .venv/bin/python bench/starvation.py [--seconds 10] [--connections 8]

Starts ``reelforge serve`` (demo mode, a fresh SQLite file, a large demo
balance). The ordinary player plays Forge of Fortunes paid rounds at the
lowest bet on one connection, one after another, first alone for
``--seconds``, then as long again while the greedy player, one session on
``--connections`` connections, plays one long Gemstones Gold feature and
then asks its audit replay (``GET /rounds/{id}/verify``: cheap to ask, some
20 ms of the server's CPU) on every connection without pause. Prints the ordinary player's rounds/s and p50/p99 latency in
both phases, and the greedy player's requests/s and answers by status. Run
with ``PYTHONPATH=<other checkout>/src`` to measure another version.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

if "PYTHONPATH" not in os.environ:  # PYTHONPATH=<other checkout>/src measures that version
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from reelforge.bench.server import free_port, percentile, wait_up  # noqa: E402
from reelforge.ops.client import CALLS, AsyncApiClient, Call  # noqa: E402


async def ordinary(api: AsyncApiClient, stop: float) -> dict:
    latencies: list[float] = []
    rounds = 0
    t_start = time.monotonic()
    while time.monotonic() < stop:
        t0 = time.perf_counter()
        r = await api.send(CALLS.start_round("forge-of-fortunes", 10))
        latencies.append(time.perf_counter() - t0)
        rnd = r.json()
        while r.status_code in (200, 201) and rnd["status"] == "open":
            t0 = time.perf_counter()
            r = await api.send(CALLS.step(rnd["id"]))
            latencies.append(time.perf_counter() - t0)
            rnd = r.json()
        rounds += r.status_code in (200, 201)
    took = time.monotonic() - t_start
    return {"rounds_per_s": round(rounds / took, 1), "p50_ms": round(1000 * percentile(latencies, 0.5), 1),
            "p99_ms": round(1000 * percentile(latencies, 0.99), 1)}


async def greedy(api: AsyncApiClient, stop: float, statuses: Counter, round_id: int) -> None:
    """Ask the audit replay of a long round (cheap to ask, some 20 ms of the server's CPU) without pause."""
    while time.monotonic() < stop:
        r = await api.send(Call("GET", f"/rounds/{round_id}/verify", None, {}))
        statuses[r.status_code] += 1
        if r.status_code == 429:
            await asyncio.sleep(float(r.headers.get("retry-after", "1")))


async def long_round(api: AsyncApiClient) -> int:
    """Buy Gemstones Gold features until one has more than the 10 free spins, play it through; its id."""
    while True:
        rnd = (await api.send(CALLS.start_round("gemstones-gold", 20, buy_feature=True))).json()
        while rnd["status"] == "open":
            rnd = (await api.send(CALLS.step(rnd["id"]))).json()
        if len(rnd["steps"]) > 20:
            return rnd["id"]


async def greedy_process(port: int, token: str, seconds: float, connections: int) -> None:
    """The greedy player (in a process of its own, so its client's work does not slow the other's)."""
    apis = []
    for _ in range(connections):
        api = AsyncApiClient.connect(f"http://127.0.0.1:{port}", connections=1)
        api.use_session(token)
        apis.append(api)
    round_id = await long_round(apis[0])
    statuses: Counter = Counter()
    t0 = time.monotonic()
    await asyncio.gather(*(greedy(api, t0 + seconds, statuses, round_id) for api in apis))
    took = time.monotonic() - t0
    for api in apis:
        await api.aclose()
    print(json.dumps({"requests_per_s": round(sum(statuses.values()) / took, 1),
                      "answers": dict(sorted(statuses.items()))}))


async def run(port: int, seconds: float, connections: int) -> dict:
    base = f"http://127.0.0.1:{port}"
    victim = AsyncApiClient.connect(base, connections=1)
    victim.use_session((await victim.send(CALLS.open_session("ordinary"))).json()["token"])
    token = (await victim.send(Call("POST", "/sessions", {"player": "greedy"}, {}))).json()["token"]
    alone = await ordinary(victim, time.monotonic() + seconds)
    attacker = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--greedy", str(port), f"--token={token}", "--seconds", str(seconds + 3),
        "--connections", str(connections), stdout=asyncio.subprocess.PIPE)
    await asyncio.sleep(3.0)  # the greedy player has its long round and is at full speed
    under = await ordinary(victim, time.monotonic() + seconds)
    greedy_result = json.loads((await attacker.communicate())[0])
    await victim.aclose()
    return {"alone": alone, "under_attack": under,
            "ratio_rounds_per_s": round(under["rounds_per_s"] / alone["rounds_per_s"], 2),
            "greedy": greedy_result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--greedy", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--token", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.greedy:
        asyncio.run(greedy_process(args.greedy, args.token, args.seconds, args.connections))
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        Path(f"{tmp}/bench.toml").write_text(
            '[server]\nmode = "demo"\ndemo_balance = 1000000000000\nexpiry_check_seconds = 0\n'
            '\n[games.forge-of-fortunes]\nbet_ladder = [10]\n\n[games.gemstones-gold]\nbet_ladder = [20]\n')
        server = subprocess.Popen([sys.executable, "-m", "reelforge", "serve", "--config", f"{tmp}/bench.toml",
                                   "--db", f"sqlite:///{tmp}/starve.db", "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_up(port, server)
            result = asyncio.run(run(port, args.seconds, args.connections))
        finally:
            server.terminate()
            server.wait(10)
    print(json.dumps({"seconds": args.seconds, "connections": args.connections, **result}, indent=1))


if __name__ == "__main__":
    main()
