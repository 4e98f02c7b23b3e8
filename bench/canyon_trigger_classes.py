"""Canyon Ways: would post-stratifying the paid rounds on the first board's Suns pay? (docs/maths.md, the
feature split). The paid rounds' variance that the feature split leaves is mostly whether a round triggers
(p (1 - p) E[F]^2); the first board's Sun count has an exact distribution (the heights and strips are data), so
if it decided the trigger, post-stratifying on it would remove that term. It does not: Suns never tumble away and
new ones drop in, so most triggers come from boards that showed none at first.

    python bench/canyon_trigger_classes.py [--build 96.0] [--rounds 200000]

Plays the reference rules on seeds 0..rounds-1 and prints, per first-board Sun count (0, 1, 2, 3, 4+), its share
of the rounds, its trigger rate and its share of the triggers, then the trigger indicator's variance and what is
left of it within the classes (the most any post-stratification on them removes is the difference).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from reelforge.core.draws import SeededDraws
from reelforge.games.registry import get_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="96.0")
    parser.add_argument("--rounds", type=int, default=200_000)
    args = parser.parse_args()
    game = get_game("canyon-ways")
    build = game.load_build(args.build)
    rounds, triggers = Counter(), Counter()
    began = time.process_time()
    for seed in range(args.rounds):
        events = game.play_round(build, SeededDraws(seed)).steps[0].events
        suns = min(sum(reel.count("Sun") for reel in events[0]["board"]), 4)
        rounds[suns] += 1
        triggers[suns] += any(e["type"] == "free_spins_awarded" for e in events)
    n, t = sum(rounds.values()), sum(triggers.values())
    print(f"Canyon Ways {args.build}: {n:,} paid rounds (seeds 0-{n - 1:,}), {t:,} triggers, "
          f"{time.process_time() - began:.0f} CPU s")
    print("first-board Suns | share of rounds | trigger rate | share of triggers")
    for k in sorted(rounds):
        print(f"{k}{'+' if k == 4 else ''} | {rounds[k] / n:.5f} | {triggers[k] / rounds[k]:.5f} | {triggers[k] / t:.4f}")
    p = t / n
    within = sum(rounds[k] / n * (q := triggers[k] / rounds[k]) * (1 - q) for k in rounds)
    print(f"trigger variance p(1 - p) {p * (1 - p):.6f}; within the classes {within:.6f}: the classes explain "
          f"{1 - within / (p * (1 - p)):.1%} of it")


if __name__ == "__main__":
    main()
