"""The soak on a durable PostgreSQL cluster of its own (fsync, synchronous_commit, full_page_writes on),
optionally restarted abruptly during the run (``pg_ctl stop -m immediate``, then start: crash recovery).

    python bench/soak_durable_postgres.py [--clients 32] [--seconds 60] [--kill-every 3]
                                          [--restarts 3 --restart-after 10 --restart-pause 15]

Prints the soak's JSON figures (``fault``: per restart, how long the server took to answer a request that needs
the database just before it, how long PostgreSQL took to accept connections again and how long after that the
server answered the same request).
"""

from __future__ import annotations

import argparse
import json
import uuid

from reelforge.ops.pgcluster import PostgresCluster, new_database, restart_fault
from reelforge.ops.soak import run_soak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--kill-every", type=float, default=3)
    parser.add_argument("--restarts", type=int, default=0, help="abrupt PostgreSQL restarts during the run")
    parser.add_argument("--restart-after", type=float, default=10, help="seconds into the run of the first")
    parser.add_argument("--restart-pause", type=float, default=15, help="seconds between restarts")
    args = parser.parse_args()
    cluster = PostgresCluster(max_connections=200)
    try:
        cluster.start()
        url = new_database(cluster, f"soak_{uuid.uuid4().hex[:8]}")
        fault = restart_fault(cluster, args.restart_after, args.restarts, args.restart_pause) if args.restarts else None
        result = run_soak(db=url, clients=args.clients, seconds=args.seconds, kill_every=args.kill_every or None,
                          fault=fault)
        result["postgres"] = "durable: fsync=on synchronous_commit=on full_page_writes=on"
        print(json.dumps(result, sort_keys=True))
    finally:
        cluster.close()


if __name__ == "__main__":
    main()
