"""Certification on a real multi-node Ray cluster of this machine: wall time against the local back end,
and the tallies compared byte for byte.

    .venv/bin/python bench/ray_cluster_certify.py [--game forge-of-gems --build 96.2] [--nodes 1,2]
        [--pilot-rounds 4e6] [--sample-rounds 2e6] [--features-per-piece 20000] [--cpus 1]

Runs the same plan (seed 7, 50 pp: the pilot and the sample, twenty pieces whose sizes are all known
at the start) locally on one worker process, then on clusters of a head and N-1 worker nodes started
with ``ray start`` (``--cpus`` CPUs each; tests/analysis/ray_cluster.py, every process killed after).
Prints, per run: wall seconds of the run (the cluster's start not counted), how many Ray nodes ran
pieces, and whether every tally file equals the local run's. A machine with fewer free cores than the
cluster's CPUs shows the overhead, not the speed-up.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.analysis.ray_cluster import ray_cluster  # noqa: E402

from reelforge.analysis import certify as cert  # noqa: E402
from reelforge.games.registry import get_game  # noqa: E402


def digests(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((out / cert.TALLIES).glob("*.npz"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="forge-of-gems")
    parser.add_argument("--build", default="96.2")
    parser.add_argument("--nodes", default="1,2", help="cluster sizes (head included), comma-separated")
    parser.add_argument("--cpus", type=int, default=1, help="CPUs of each node")
    parser.add_argument("--pilot-rounds", type=float, default=4e6)
    parser.add_argument("--sample-rounds", type=float, default=2e6)
    parser.add_argument("--features-per-piece", type=int, default=20_000)
    args = parser.parse_args()
    game = get_game(args.game)
    plan = cert.choose_plan(game, game.load_build(args.build), "paid", 50.0, 7, pilot_rounds=int(args.pilot_rounds),
                            sample_rounds=int(args.sample_rounds),
                            feature_rounds_per_piece=args.features_per_piece if game.capabilities.stratified else None)
    with tempfile.TemporaryDirectory(prefix="rf-bench-") as root:
        local = Path(root) / "local"
        t0 = time.perf_counter()
        cert.run(local, plan, resume=False, workers=1)
        print(f"local, 1 worker process: {time.perf_counter() - t0:.1f} s", flush=True)
        for n in (int(x) for x in args.nodes.split(",")):
            with ray_cluster(workers=n - 1, cpus=args.cpus) as cluster:
                out = Path(root) / f"nodes-{n}"
                t0 = time.perf_counter()
                cert.run(out, plan, resume=False, workers=args.cpus, backend="ray", address=cluster.address)
                seconds = time.perf_counter() - t0
            state = json.loads((out / cert.STATE).read_text())
            nodes = {p["node"] for p in state["main"] + state["sample"] if p["node"]}
            print(f"ray, {n} node(s) x {args.cpus} CPU: {seconds:.1f} s, pieces on {len(nodes)} node(s), tallies "
                  f"{'identical to' if digests(out) == digests(local) else 'DIFFERENT from'} the local run's",
                  flush=True)


if __name__ == "__main__":
    main()
