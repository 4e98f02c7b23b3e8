"""How long does a request wait while PostgreSQL refuses connections (stopped, restarting)?

    .venv/bin/python bench/outage.py [--requests 12] [--timeout 1] [--pool 2 1] [--silent]

Builds the server app (demo configuration, ``db_pool_timeout_seconds`` =
``--timeout``, a pool of ``--pool`` SIZE OVERFLOW connections and as many threads)
on a PostgreSQL URL where nothing listens, and sends ``--requests`` round
starts at once (``--silent``: where connections are accepted and never
answered, a hung host); prints the slowest answer and the answers by status. Every
answer should come within the timeout (plus the hand-off). Run with
``PYTHONPATH=<other checkout>/src`` to measure another version.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

if "PYTHONPATH" not in os.environ:  # PYTHONPATH=<other checkout>/src measures that version
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from fastapi.testclient import TestClient  # noqa: E402

from reelforge.server.app import create_app  # noqa: E402
from reelforge.server.config import load_config  # noqa: E402
from reelforge.server.db import PoolSettings, make_engine  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=12)
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--pool", type=int, nargs=2, default=[2, 1], metavar=("SIZE", "OVERFLOW"))
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
    size, overflow = args.pool
    config = replace(load_config(None), expiry_check_seconds=0, db_pool_timeout_seconds=args.timeout,
                     db_pool_size=size, db_max_overflow=overflow)
    engine = make_engine(f"postgresql+psycopg://nobody@127.0.0.1:{port}/none", PoolSettings(size, overflow, args.timeout))
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
    print(json.dumps({"requests": args.requests, "pool": args.pool, "silent": args.silent, "db_pool_timeout_seconds": args.timeout,
                      "slowest_s": round(max(t for _, t in answers), 2),
                      "median_s": round(sorted(t for _, t in answers)[len(answers) // 2], 2),
                      "deciles_s": [round(sorted(t for _, t in answers)[len(answers) * i // 10], 2) for i in range(10)],
                      "answers": dict(Counter(code for code, _ in answers))}))


if __name__ == "__main__":
    main()
