"""Benchmarks: kernel rounds per second per core, beside this machine's raw
random-number rate measured in the same process, so figures compare across
machines.

On a shared machine the rate of the moment swings with what else runs, so
:func:`bench` alternates short raw and kernel runs and times both in this
thread's CPU time (what the process got of a core, not the wall clock): the
ratio of each pair is what compares across runs and machines.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from reelforge.games.registry import get_game

RAW_ARRAY = 1_000_000


def _raw_fill(rng: np.random.Generator, buf: np.ndarray, fills: int) -> None:
    for _ in range(fills):
        rng.random(out=buf)


def _timed(run: Callable[[], object], clock: Callable[[], float] = time.thread_time) -> float:
    t0 = clock()
    run()
    return clock() - t0


def raw_draws_per_second(repeats: int = 5, seconds: float = 1.0) -> float:
    """float64 draws/s from PCG64 (the kernels' bit generator) filling a 10^6 array.

    Fills repeatedly for about ``seconds`` in all, split into ``repeats``
    timed runs; returns the median run's rate (thread CPU time).
    """
    rng = np.random.Generator(np.random.PCG64(12345))
    buf = np.empty(RAW_ARRAY)
    fills = _size(lambda k: _raw_fill(rng, buf, k), seconds / repeats)
    return statistics.median(fills * RAW_ARRAY / _timed(lambda: _raw_fill(rng, buf, fills))
                             for _ in range(repeats))


def _size(run: Callable[[int], object], seconds: float, start: int = 1) -> int:
    """The count ``k`` for which ``run(k)`` takes about ``seconds`` of CPU time."""
    k = start
    while True:
        dt = _timed(lambda k=k: run(k))
        if dt >= seconds / 4:
            return max(start, int(k * seconds / dt))
        k *= 4


def rounds_per_second(game_id: str, build_name: str | None = None, mode: str = "paid",
                      repeats: int = 5, seconds: float = 1.0) -> tuple[str, float]:
    """Median rounds/s of the game's kernel on this core, over ``repeats`` runs of about ``seconds``."""
    r = bench(game_id, build_name, mode, repeats, seconds)
    return r["build"], r["rounds_per_second_per_core"]


def bench(game_id: str, build_name: str | None = None, mode: str = "paid", repeats: int = 5,
          seconds: float = 1.0) -> dict:
    """One game's benchmark record (the ``--json`` contract).

    ``repeats`` pairs of runs (the raw rate, then the kernel), each about ``seconds`` of CPU
    time; rates are the medians, the ratio the median of the pairs' ratios (with their range).
    """
    game = get_game(game_id)
    build = game.load_build(build_name or game.default_build())
    game.simulate_chunk(build, 1000, np.random.SeedSequence(2026), mode)  # compile / load the cache
    n = _size(lambda k: game.simulate_chunk(build, k, np.random.SeedSequence(2026), mode), seconds, 10_000)
    rng = np.random.Generator(np.random.PCG64(12345))
    buf = np.empty(RAW_ARRAY)
    fills = _size(lambda k: _raw_fill(rng, buf, k), seconds)
    load = os.getloadavg()[0]
    raws, rates = [], []
    for i in range(repeats):
        raws.append(fills * RAW_ARRAY / _timed(lambda: _raw_fill(rng, buf, fills)))
        seed = np.random.SeedSequence(2026 + i)
        rates.append(n / _timed(lambda seed=seed: game.simulate_chunk(build, n, seed, mode)))
    ratios = [k / r for k, r in zip(rates, raws, strict=True)]
    return {"game": game_id, "build": build.name, "mode": mode,
            "rounds_per_second_per_core": statistics.median(rates),
            "raw_draws_per_second": statistics.median(raws),
            "rounds_per_million_raw_draws": statistics.median(ratios) * 1e6,
            "rounds_per_million_raw_draws_range": [min(ratios) * 1e6, max(ratios) * 1e6],
            "rounds_per_run": n, "runs": repeats, "timer": "thread CPU time",
            "load_average": [round(load, 2), round(os.getloadavg()[0], 2)]}


def scaling(game_id: str, build_name: str | None, rounds: int, workers: tuple[int, ...] = (1, 2),
            seed: int = 2026) -> dict:
    """Rounds/s of the whole simulation driver for each worker count (same seed, same totals)."""
    from reelforge.analysis.simulate import simulate

    game = get_game(game_id)
    name = build_name or game.default_build()
    build = game.load_build(name)
    game.simulate_chunk(build, 1000, np.random.SeedSequence(1))  # warm the cache
    out = {"game": game_id, "build": name, "rounds": rounds, "runs": []}
    keys = set()
    for w in workers:
        r = simulate(game, build, rounds, seed=seed, workers=w)
        keys.add(r.accumulator.key())
        out["runs"].append({"workers": w, "seconds": r.seconds, "rounds_per_second": rounds / r.seconds})
    base = out["runs"][0]["rounds_per_second"]
    for run in out["runs"]:
        run["speedup"] = run["rounds_per_second"] / base
    out["identical_totals"] = len(keys) == 1
    return out


def ray_overhead(game_id: str, build_name: str | None, rounds: int, workers: int = 2, seed: int = 2026) -> dict:
    """Time of the same run on the local backend and on a local Ray instance (started beforehand)."""
    import ray

    from reelforge.analysis.simulate import simulate

    game = get_game(game_id)
    name = build_name or game.default_build()
    build = game.load_build(name)
    local = simulate(game, build, rounds, seed=seed, workers=workers)
    t0 = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
    startup = time.perf_counter() - t0
    try:
        remote = simulate(game, build, rounds, seed=seed, backend="ray")
    finally:
        ray.shutdown()
    return {"game": game_id, "build": name, "rounds": rounds, "workers": workers,
            "local_seconds": local.seconds, "ray_seconds": remote.seconds, "ray_startup_seconds": startup,
            "ray_over_local": remote.seconds / local.seconds,
            "identical_totals": local.accumulator.key() == remote.accumulator.key()}
