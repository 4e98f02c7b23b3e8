"""Coverage proof: are the 99% intervals honest? 200 independent seeded runs of each estimator at a modest size
on figures known exactly, counting how often the interval covers the exact value (pass: 195 of 200, the least
count an honest 99% interval falls short of with probability under 2%: Binomial(200, 0.99)).

    .venv/bin/python bench/interval_coverage.py [--runs 200] [--json out.json] [--only PART] [--gg-runs 100]

Estimators and exact figures:

* plain simulation (the RTP, normal interval from the sums of squares) on Forge of Fortunes 96.2, Seven Lines 96.0
  and problab's demo_normal, each against its exact RTP (``reelforge exact``, :mod:`reelforge.game.exact`);
* the Gemstones Gold estimator's paid part (reel stops by importance sampling, the multiplier reel integrated
  per board; trigger transitions as weighted ratios, post-stratified on the exact initial scatters) on the small
  enumerable test build (:mod:`reelforge.games.gemstones_gold.small`), against the exact paid-spin RTP and trigger
  rate. Its feature part is plain simulation of whole features (no exact value to hold it to);
* the Forge of Gems split-spins estimator (whole, :func:`reelforge.games.forge_of_gems.split_spins.coverage_intervals`)
  on build 96.2: the RTP against the long independent run of ``design forge-of-gems verify`` (2.4e9 paid spins +
  1.2e8 features, the earlier whole-features estimator):
  96.220% +-0.071 pp, not exact, so a run covers it where its interval holds 96.220% (the reference's own
  error is under a twentieth of a run's half-width: it moves an honest run's coverage by under 0.01).

* the delete-a-piece jackknife of the round SD (:mod:`reelforge.analysis.jackknife`, the interval a stratified
  certification package gives its SD) over pieces sized as ``certify`` grows them (ten equal pilot pieces, then
  pieces of 10 and 20 times one: twelve pieces, 40 units), the same code as the package's: on plain pieces of
  Forge of Fortunes 96.2 and Seven Lines 96.0 against their exact SD; on the Gemstones Gold stratified estimator's
  own pieces (``--gg-runs`` runs, default 100: about 2 CPU s a run) against the SD of all its runs pooled (no exact
  SD exists; the pool's own error is about 1/sqrt(runs) of a run's, so this checks the interval's width against the
  runs' spread, not a bias common to all).

Exit status 1 when a figure falls short of the pass mark. The results go to docs/maths.md.
"""

from __future__ import annotations

import argparse
import json
import sys

from reelforge.analysis.coverage import (
    PIECE_UNITS,
    Coverage,
    coverage,
    cpu_seconds,
    jackknife_sd_interval,
    min_covered,
    piece_seeds,
    plain_interval,
)
from reelforge.game.exact import exact_figures
from reelforge.games.registry import get_game, register

EXACT_GAMES = (("forge-of-fortunes", "96.2", None, 100_000), ("seven-lines", "96.0", None, 20_000),
               ("problab-demo-normal", None, "reelforge.games.problab.game:DemoNormal", 20_000))
"""(game, build, class to register where the game is outside the lobby, rounds a run)."""
GG_BOARDS = 20_000
FOG_ROUNDS = 200_000
FOG_REFERENCE = 0.96220
"""Forge of Gems 96.2: the RTP of ``design forge-of-gems verify`` (docs/maths.md), +-0.071 pp at 99%."""
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


def forge_of_gems_runs(runs: int, mark: int) -> list[Coverage]:
    from reelforge.games.forge_of_gems.split_spins import coverage_intervals

    build = get_game("forge-of-gems").load_build("96.2")
    return coverage("forge-of-gems 96.2, split spins", {"RTP": FOG_REFERENCE}, coverage_intervals(build, FOG_ROUNDS), runs,
                    FIRST_SEED, f"{FOG_ROUNDS:,} paid spins", mark)


SD_GAMES = (("forge-of-fortunes", "96.2", 100_000), ("seven-lines", "96.0", 5_000))
"""(game, build, rounds a unit): plain pieces whose SD is known exactly."""
GG_UNIT = 20_000
"""Gemstones Gold paid boards a unit (its features: the estimator's share, at least 20,000 per award a piece)."""


def sd_jackknife_runs(runs: int, mark: int, gg_runs: int, alpha: float) -> list[Coverage]:
    import math

    out = []
    for game_id, build_name, unit in SD_GAMES:
        game = get_game(game_id)
        build = game.load_build(build_name)
        exact = math.sqrt(float(exact_figures(game, build).variance))
        out += coverage(f"{game_id} {build_name}, SD by the delete-a-piece jackknife", {"SD": exact},
                        jackknife_sd_interval(game, build, unit), runs, FIRST_SEED,
                        f"{40 * unit:,} rounds in {len(PIECE_UNITS)} pieces", mark)
    if gg_runs:
        out.append(gemstones_sd_runs(gg_runs, min_covered(gg_runs, alpha)))
    return out


def gemstones_sd_runs(runs: int, mark: int) -> Coverage:
    """The stratified estimator's pieces as certify draws them; the reference is every run pooled."""
    from reelforge.analysis.jackknife import statistic_interval

    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    est = game.stratified_estimator()
    sizes = [u * GG_UNIT for u in PIECE_UNITS]
    start = cpu_seconds()
    found, pooled = [], None
    for i in range(runs):
        pieces = [est.sample(build, n, est.feature_rounds(n), s, workers=1) for n, s in zip(sizes,
                                                                                          piece_seeds(FIRST_SEED + i))]
        merged = pieces[0]
        for p in pieces[1:]:
            merged = est.merge(merged, p)
        found.append(statistic_interval(pieces, sizes, est.merge, lambda s: est.estimate(s, build).sd, merged))
        pooled = merged if pooled is None else est.merge(pooled, merged)
        print(f"gemstones-gold SD run {i + 1}/{runs}: {found[-1]['ci99']}", file=sys.stderr)
    reference = est.estimate(pooled, build).sd
    covered = sum(f["ci99"][0] <= reference <= f["ci99"][1] for f in found)
    half = sum((f["ci99"][1] - f["ci99"][0]) / 2 for f in found) / runs
    return Coverage("gemstones-gold 96.71, stratified SD by the delete-a-piece jackknife (reference: the runs pooled)",
                    reference, runs, f"{sum(sizes):,} paid boards in {len(sizes)} pieces", covered, mark, half,
                    cpu_seconds() - start)


PARTS = {"plain": plain_runs, "gemstones-gold": gemstones_runs, "forge-of-gems": forge_of_gems_runs,
         "sd-jackknife": sd_jackknife_runs}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--alpha", type=float, default=0.02, help="P(an honest estimator fails the mark) at most this")
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", action="append", choices=list(PARTS), help="run only these (repeatable; default all)")
    ap.add_argument("--gg-runs", type=int, default=100, help="runs of the Gemstones Gold SD jackknife (0: none)")
    a = ap.parse_args()
    mark = min_covered(a.runs, a.alpha)
    results = [c for name in (a.only or PARTS)
               for c in (PARTS[name](a.runs, mark, a.gg_runs, a.alpha) if name == "sd-jackknife" else
                         PARTS[name](a.runs, mark))]
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
