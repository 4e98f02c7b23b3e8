"""The estimator efficiency table of docs/performance.md: plain simulation against each game's best
unbiased estimator, measured in one run on this machine.

    python bench/efficiency.py                      # every shipped game, default sizes, 1 worker
    python bench/efficiency.py --game forge-of-gems --best-rounds 4e7 --plain-rounds 2e8 --repeats 3

Per game and estimator it runs what ``reelforge simulate GAME --estimator plain|best --rounds N --json``
runs (:func:`reelforge.analysis.efficiency.measure`): the half-width is the 99% one, the CPU seconds those
of this process and its workers (kernels compiled before the clock starts). Efficiency =
1 / (half_width^2 x CPU s); the ratio best / plain is the factor of CPU time saved at any precision. With
``--repeats R`` the two estimators alternate R times (different seeds) and the table gives each run and the
ratio of the pooled efficiencies (total CPU over the rounds, pooled variance), which the load of a shared
machine moves less than one pair.
"""

from __future__ import annotations

import argparse
import json
import sys

from reelforge.analysis.efficiency import efficiency, measure
from reelforge.games.registry import all_games, get_game

PLAIN_ROUNDS = {"forge-of-gems": 10**8, "gemstones-gold": 2 * 10**7}
"""Plain rounds per game (default 2e7)."""
BEST_ROUNDS = {"forge-of-gems": 2 * 10**7, "gemstones-gold": 4 * 10**6}
"""The best estimator's paid rounds (spins) per game (exact games: none)."""


def pooled(runs: list[dict]) -> float | None:
    """Efficiency of runs pooled as one: each run's variance (h^2) weighted by its CPU share."""
    cpu = sum(r["cpu_seconds"] for r in runs)
    if any(r["half_width"] <= 0 for r in runs):
        return None
    # a run of CPU c and half-width h is worth 1 / h^2 = c x eff in precision; precisions add
    precision = sum(1 / r["half_width"] ** 2 for r in runs)
    return efficiency((1 / precision) ** 0.5, cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", help="game id (repeatable; default every shipped game)")
    ap.add_argument("--plain-rounds", type=float)
    ap.add_argument("--best-rounds", type=float)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    games = [get_game(g) for g in args.game] if args.game else all_games()
    rows = []
    for g in games:
        b = g.load_build(g.default_build())
        runs: dict[str, list[dict]] = {"plain": [], "best": []}
        for i in range(args.repeats):
            for which in ("plain", "best"):
                if which == "best" and runs["best"] and runs["best"][0]["exact"]:
                    continue
                n = int(args.plain_rounds or PLAIN_ROUNDS.get(g.id, 2 * 10**7)) if which == "plain" else \
                    int(args.best_rounds or BEST_ROUNDS.get(g.id, 10**6))
                r = measure(g, b, which, n, args.seed + 100 * i + (which == "best"), args.workers)
                runs[which].append(r)
                print(json.dumps({k: r[k] for k in ("game", "estimator", "method", "rtp", "half_width_pp", "rounds",
                                                    "feature_rounds", "cpu_seconds", "efficiency")}), file=sys.stderr)
        plain, best = pooled(runs["plain"]), pooled(runs["best"])
        rows.append({"game": g.title, "build": b.name, "method": runs["best"][0]["method"], "plain": runs["plain"],
                     "best": runs["best"], "plain_efficiency": plain, "best_efficiency": best,
                     "ratio": None if best is None or plain is None else best / plain})
    print("| game | build | best estimator | plain: rounds, +- pp, CPU s, efficiency | best: rounds, +- pp, CPU s, "
          "efficiency | best / plain |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        def cell(runs: list[dict]) -> str:
            return "; ".join(f"{x['rounds']:.3g}, {x['half_width_pp']:.4f}, {x['cpu_seconds']:.1f}, "
                             + ("exact" if x["efficiency"] is None else f"{x['efficiency']:.4g}") for x in runs)
        ratio = "exact (no simulation)" if r["ratio"] is None else f"**{r['ratio']:.2f}x**"
        print(f"| {r['game']} | {r['build']} | {r['method']} | {cell(r['plain'])} | {cell(r['best'])} | {ratio} |")


if __name__ == "__main__":
    main()
