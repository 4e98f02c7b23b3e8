"""Does a round start's latency tell the round's unrevealed rest? Gemstones Gold feature buys through HTTP.

    .venv/bin/python bench/timing_tell.py [--rounds 300] [--quantum-ms 50 | --no-quantum-key]

Starts ``reelforge serve`` (demo mode, a fresh SQLite file, a large demo
balance), buys ``--rounds`` features at the lowest bet on one keep-alive
connection, timing each start request at the client, then steps each round
to its end to learn its length. Prints the Spearman rank correlation of the
start latency with the round's step count and the AUC of the latency as a
predictor of "this feature retriggers" (more than the 10 free spins the buy
gives), each with a bootstrap 95% interval: 0 and 0.5 are chance. Run with
``PYTHONPATH=<other checkout>/src --no-quantum-key`` to measure a server
that knows no ``round_start_quantum_ms``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if "PYTHONPATH" not in os.environ:  # PYTHONPATH=<other checkout>/src measures that version
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from reelforge.bench.server import free_port, wait_up  # noqa: E402
from reelforge.ops.client import ApiClient  # noqa: E402

GAME = "gemstones-gold"


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: list[float], y: list[float]) -> float:
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / var if var else 0.0


def auc(scores: list[float], labels: list[bool]) -> float:
    """P(score of a positive > score of a negative), ties counting half (Mann-Whitney)."""
    r = ranks(scores)
    pos = [ri for ri, lab in zip(r, labels) if lab]
    n_pos, n_neg = len(pos), len(labels) - len(pos)
    if not n_pos or not n_neg:
        return float("nan")
    return (sum(pos) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def interval(stat, samples: list[tuple[float, int]], draws: int = 1000) -> tuple[float, float]:
    rng = random.Random(1)
    values = sorted(stat([samples[rng.randrange(len(samples))] for _ in samples]) for _ in range(draws))
    return values[int(0.025 * draws)], values[int(0.975 * draws) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--quantum-ms", type=float, default=None, help="round_start_quantum_ms (default: the server's)")
    parser.add_argument("--no-quantum-key", action="store_true", help="a server without round_start_quantum_ms")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server_keys = "" if args.quantum_ms is None else f"round_start_quantum_ms = {args.quantum_ms}\n"
        Path(f"{tmp}/bench.toml").write_text(
            f'[server]\nmode = "demo"\ndemo_balance = 1000000000000\nexpiry_check_seconds = 0\n{server_keys}'
            f'\n[games.{GAME}]\nbet_ladder = [20]\n')
        server = subprocess.Popen([sys.executable, "-m", "reelforge", "serve", "--config", f"{tmp}/bench.toml",
                                   "--db", f"sqlite:///{tmp}/timing.db", "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples: list[tuple[float, int]] = []
        try:
            wait_up(port, server)
            with ApiClient.connect(f"http://127.0.0.1:{port}", timeout=30) as api:
                api.use_session(api.open_session("timing").json()["token"])
                for _ in range(args.rounds):
                    t0 = time.perf_counter()
                    r = api.start_round(GAME, 20, buy_feature=True)
                    latency = time.perf_counter() - t0
                    rnd = r.json()
                    assert r.status_code == 201, r.text
                    while rnd["status"] == "open":
                        rnd = api.step(rnd["id"]).json()
                    samples.append((latency, len(rnd["steps"])))
        finally:
            server.terminate()
            server.wait(10)
    lat = [s[0] for s in samples]
    steps = [s[1] for s in samples]
    shortest = min(steps)

    def rho(ss: list[tuple[float, int]]) -> float:
        return spearman([s[0] for s in ss], [s[1] for s in ss])

    def area(ss: list[tuple[float, int]]) -> float:
        return auc([s[0] for s in ss], [s[1] > shortest for s in ss])

    by_len: dict[int, list[float]] = {}
    for latency, n in samples:
        by_len.setdefault(n, []).append(latency)
    medians = {n: round(1000 * sorted(v)[len(v) // 2], 1) for n, v in sorted(by_len.items())}
    print(json.dumps({
        "rounds": len(samples), "quantum_ms": args.quantum_ms, "retriggered": sum(n > shortest for n in steps),
        "spearman_latency_vs_steps": round(rho(samples), 3),
        "spearman_95": [round(v, 3) for v in interval(rho, samples)],
        "auc_retrigger": round(area(samples), 3), "auc_95": [round(v, 3) for v in interval(area, samples)],
        "median_start_ms_by_steps": medians, "max_start_ms": round(1000 * max(lat), 1),
    }, indent=1))


if __name__ == "__main__":
    main()
