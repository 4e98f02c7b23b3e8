"""Coverage proof: are the 99% intervals honest? 200 independent seeded runs of each estimator at a modest size
on figures known exactly, counting how often the interval covers the exact value (pass: 195 of 200, the least
count an honest 99% interval falls short of with probability under 2%: Binomial(200, 0.99)).

    .venv/bin/python bench/coverage.py [--runs 200] [--json out.json]

Estimators and exact figures:

* plain simulation (the RTP, normal interval from the sums of squares) on Forge of Fortunes 96.2, Seven Lines 96.0
  and problab's demo_normal, each against its exact RTP (``reelforge exact``, :mod:`reelforge.game.exact`);
* the Gemstones Gold estimator's paid part (reel stops by importance sampling, the multiplier reel integrated
  per board; trigger transitions as weighted ratios, post-stratified on the exact initial scatters) on the small
  enumerable test build (:mod:`reelforge.games.gemstones_gold.small`), against the exact paid-spin RTP and trigger
  rate. Its feature part is plain simulation of whole features (no exact value to hold it to).

Exit status 1 when a figure falls short of the pass mark. The results go to docs/maths.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

# this file's name is the coverage package's (numba imports it): keep bench/ off the import path
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

from reelforge.analysis.coverage import Coverage, coverage, min_covered, plain_interval  # noqa: E402
from reelforge.game.exact import exact_figures  # noqa: E402
from reelforge.games.registry import get_game, register  # noqa: E402

EXACT_GAMES = (("forge-of-fortunes", "96.2", None, 100_000), ("seven-lines", "96.0", None, 20_000),
               ("problab-demo-normal", None, "reelforge.games.problab.game:DemoNormal", 20_000))
"""(game, build, class to register where the game is outside the lobby, rounds a run)."""
GG_BOARDS = 20_000
FIRST_SEED = 360_000


def plain_runs(runs: int, mark: int) -> list[Coverage]:
    out = []
    for game_id, build_name, cls, rounds in EXACT_GAMES:
        if cls:
            register(game_id, cls)
        game = get_game(game_id)
        build = game.load_build(build_name) if build_name else game.load_build(game.default_build())
        exact = float(exact_figures(game, build).rtp)
        out += coverage(f"{game_id} {build.name}, plain simulation", {"RTP": exact},
                        plain_interval(game, build, rounds), runs, FIRST_SEED, f"{rounds:,} rounds", mark)
    return out


def gemstones_runs(runs: int, mark: int) -> list[Coverage]:
    from reelforge.games.gemstones_gold.small import exact_paid, paid_intervals, small_build

    build = small_build()
    exact = {k: float(v) for k, v in exact_paid(build).items()}
    return coverage("gemstones-gold small-exact, importance-sampled paid boards", exact,
                    paid_intervals(build, GG_BOARDS), runs, FIRST_SEED, f"{GG_BOARDS:,} paid boards", mark)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--alpha", type=float, default=0.02, help="P(an honest estimator fails the mark) at most this")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    mark = min_covered(a.runs, a.alpha)
    results = plain_runs(a.runs, mark) + gemstones_runs(a.runs, mark)
    print(f"| figure | exact | run size | covered (of {a.runs}; pass mark {mark}) | P(so few or fewer) | mean 99% half-width | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for c in results:
        print(f"| {c.figure} | {c.exact:.10g} | {c.size} | **{c.covered}** {'pass' if c.passed else 'FAIL'} | "
              f"{c.probability_at_most:.3g} | {c.mean_half_width:.4g} | {c.cpu_seconds:.1f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump([c.as_dict() for c in results], f, indent=2)
    return 0 if all(c.passed for c in results) else 1


if __name__ == "__main__":
    sys.exit(main())
