"""Compile the games' numba kernels once, in parallel, before the test suite starts its workers.

``make test`` runs this first (``python -m tests.warm_kernels``). Every kernel is ``@njit(cache=True)``: once
compiled here, each test process loads it from numba's cache (a few milliseconds) instead of compiling it
again itself, which on a fresh checkout every xdist worker that reaches a kernel first would otherwise do (a
big kernel such as Forge of Gems' round loop takes about 30 CPU seconds to compile). The games are shared
out among processes, the slowest to compile first, so the compiling takes about as long as the slowest game.

The calls are the ones the tests make, on tiny samples: the kernel loop of every mode (simulation, and the
per-round wins the conformance checks compare), the stratified and best estimators, and the round observers
of the Stake Engine export. Nothing is checked
here: a kernel this misses, or a game that fails here, is compiled by the first test that needs it, as before
(and its tests report the failure)."""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

import numpy as np

EXTRA_GAMES = {
    # games outside the registry that the tests register for a block, with their classes
    "problab-demo-normal": "reelforge.games.problab.demo_normal.game:DemoNormal",
    "problab-demo-cascade": "reelforge.games.problab.demo_cascade.game:DemoCascade",
    "mathsdk-lines": "reelforge.games.mathsdk_lines.game:MathSdkLines",
    "toy-line": "tests.toy_game.game:ToyLine",
}
OBSERVED = ("gemstones-gold", "seven-lines")
"""The games whose rounds tests/analysis/test_stake.py observes one by one (a loop of its own per game)."""
SLOWEST_FIRST = ("forge-of-gems", "gemstones-gold", "problab-demo-cascade", "canyon-ways", "forge-of-fortunes")
"""The games whose kernels take longest to compile; the rest follow in registry order."""


def _targets() -> dict[str, str]:
    from reelforge.games.registry import GAME_CLASSES

    targets = {**GAME_CLASSES, **EXTRA_GAMES}
    first = [g for g in SLOWEST_FIRST if g in targets]
    return {g: targets[g] for g in first + [g for g in targets if g not in first]}


def warm_game(target: str) -> float:
    """Run every kernel of the game at ``module:Class`` on a few rounds; return the CPU seconds it took."""
    import importlib

    from reelforge.core.draws import SeededDraws

    started = time.process_time()
    module, _, name = target.partition(":")
    game = getattr(importlib.import_module(module), name)()
    build = game.load_build(game.default_build())
    for mode in game.modes:
        for seed in range(20):  # the reference rules call the mechanics' kernels too: a few rounds reach most
            game.play_round(build, SeededDraws(seed), mode)
        game.simulate_chunk(build, 50, np.random.SeedSequence(1), mode)
        game.kernel_round_wins(build, 50, 1, mode)
        if getattr(game, "pay_loop", None) is not None:  # the per-pay kernel behind a PAR sheet's per-pay tables
            game.simulate_pays_chunk(build, 50, np.random.SeedSequence(1), mode)
    estimator = game.best_estimator(build)
    if estimator is not None:
        estimator.warm_up()
    if game.capabilities.stratified:
        game.stratified_estimator().sample(build, 1_000, 100, 0, workers=1)
    if game.id in OBSERVED:
        from reelforge.analysis.stake.table import observe

        for mode in game.modes:
            observe(game, build, mode, 50, 1)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    started = time.monotonic()
    targets = _targets()
    # spawn: each process imports numba and the games afresh (nothing compiled is shared through a fork)
    with ProcessPoolExecutor(args.processes, mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(warm_game, target): game for game, target in targets.items()}
        for future in as_completed(futures):
            try:
                print(f"warm_kernels: {futures[future]} {future.result():.1f} CPU s", flush=True)
            except Exception as exc:  # noqa: BLE001 - the tests of that game will compile it and report the error
                print(f"warm_kernels: {futures[future]} not compiled ({exc!r}); its tests compile it", flush=True)
    print(f"warm_kernels: {len(targets)} games in {time.monotonic() - started:.1f} s on {args.processes} processes")


if __name__ == "__main__":
    main()
