"""Sum the per-test cost log of ``REELFORGE_TEST_COSTS`` (tests/cost_log.py): the costliest files and
tests, numba compile CPU per kernel, and what each worker did.

    REELFORGE_TEST_COSTS=/tmp/costs make test          # or any pytest run
    python bench/suite_costs.py /tmp/costs [--top 15]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path


def load(folder: Path) -> list[dict]:
    """Every record of every worker's log in ``folder``."""
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    rows = load(args.folder)
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0, 0])
    compiles: Counter[str] = Counter()
    compile_count: Counter[str] = Counter()
    workers: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, float("inf"), 0.0])
    for r in rows:
        f = files[r["test"].split("::", 1)[0]]
        compiled = sum(r["compile"].values())
        f[0] += r["cpu"]
        f[1] += r["children"]
        f[2] += r["wall"]
        f[3] += compiled
        f[4] += 1
        for name, s in r["compile"].items():
            compiles[name] += s
            compile_count[name] += 1
        w = workers[r["worker"]]
        w[0] += r["cpu"] + r["children"]
        w[1] += r["wall"]
        w[2] = min(w[2], r["end"] - r["wall"])
        w[3] = max(w[3], r["end"])
    total_cpu = sum(r["cpu"] for r in rows)
    total_children = sum(r["children"] for r in rows)
    print(f"{len(rows)} tests: {total_cpu:.0f} CPU s in the test processes + {total_children:.0f} in their children; "
          f"numba compilation {sum(compiles.values()):.0f} CPU s")
    print("\nworkers (CPU s, busy wall s, span wall s):")
    for name, (cpu, wall, start, end) in sorted(workers.items()):
        print(f"  {name:6} {cpu:8.1f} {wall:8.1f} {end - start:8.1f}")
    print(f"\ntop {args.top} files (CPU s = own + children; compile CPU s; wall s; tests):")
    for name, (cpu, ch, wall, comp, n) in sorted(files.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:args.top]:
        print(f"  {cpu + ch:7.1f}  ({comp:5.1f} compile)  {wall:7.1f} wall  {n:4d}  {name}")
    print(f"\ntop {args.top} tests (CPU s = own + children; compile; wall):")
    for r in sorted(rows, key=lambda r: -(r["cpu"] + r["children"]))[:args.top]:
        print(f"  {r['cpu'] + r['children']:7.1f}  ({sum(r['compile'].values()):5.1f})  {r['wall']:7.1f}  {r['test']}")
    print(f"\ntop {args.top} numba kernels by compile CPU s (summed over processes; compilations):")
    for name, s in compiles.most_common(args.top):
        print(f"  {s:7.1f}  {compile_count[name]:3d}  {name}")


if __name__ == "__main__":
    main()
