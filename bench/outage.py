"""How long does a request wait while PostgreSQL refuses connections (stopped, restarting)?

    .venv/bin/python bench/outage.py [--requests 90] [--timeout 2]

Builds the server app (demo configuration, ``db_pool_timeout_seconds`` =
``--timeout``, the default pool of 20 + 10 connections and as many threads)
on a PostgreSQL URL where nothing listens, and sends ``--requests`` round
starts at once (``--silent``: where connections are accepted and never
answered, a hung host); prints the slowest answer and the answers by status. Every
answer should come within the timeout (plus the hand-off). Run with
``PYTHONPATH=<other checkout>/src`` to measure another version.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from fastapi.testclient import TestClient  # noqa: E402

from reelforge.server.app import create_app  # noqa: E402
from reelforge.server.config import load_config  # noqa: E402
from reelforge.server.db import PoolSettings, make_engine  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=90)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--silent", action="store_true",
                        help="a PostgreSQL port that accepts connections and never answers (a hung host), "
                             "instead of one that refuses them")
    args = parser.parse_args()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    if args.silent:
        listener.listen(1024)  # the kernel completes the handshakes; nothing ever answers
    else:
        listener.close()
    config = replace(load_config(None), expiry_check_seconds=0, db_pool_timeout_seconds=args.timeout)
    engine = make_engine(f"postgresql+psycopg://nobody@127.0.0.1:{port}/none",
                         PoolSettings(config.db_pool_size, config.db_max_overflow, args.timeout))
    with TestClient(create_app(config, engine=engine)) as client:
        def start(_: int) -> tuple[int, float]:
            t0 = time.monotonic()
            r = client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10},
                            headers={"Authorization": f"Bearer {uuid.uuid4().hex}", "Idempotency-Key": "k"})
            return r.status_code, time.monotonic() - t0

        with ThreadPoolExecutor(args.requests) as pool:
            answers = list(pool.map(start, range(args.requests)))
    engine.dispose()
    listener.close()
    print(json.dumps({"requests": args.requests, "silent": args.silent, "db_pool_timeout_seconds": args.timeout,
                      "slowest_s": round(max(t for _, t in answers), 2),
                      "median_s": round(sorted(t for _, t in answers)[len(answers) // 2], 2),
                      "deciles_s": [round(sorted(t for _, t in answers)[len(answers) * i // 10], 2) for i in range(10)],
                      "answers": dict(Counter(code for code, _ in answers))}))


if __name__ == "__main__":
    main()
