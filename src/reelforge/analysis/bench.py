"""Benchmarks: kernel rounds per second per core, beside this machine's raw
random-number rate measured in the same process, so figures compare across
machines."""

from __future__ import annotations

import statistics
import time

import numpy as np

from reelforge.games.registry import get_game

RAW_ARRAY = 1_000_000


def raw_draws_per_second(repeats: int = 5, seconds: float = 1.0) -> float:
    """float64 draws/s from PCG64 (the kernels' bit generator) filling a 10^6 array.

    Fills repeatedly for about ``seconds`` in all, split into ``repeats``
    timed runs; returns the median run's rate.
    """
    rng = np.random.Generator(np.random.PCG64(12345))
    buf = np.empty(RAW_ARRAY)
    rng.random(out=buf)
    rates = []
    for _ in range(repeats):
        n = 0
        t0 = time.perf_counter()
        while True:
            rng.random(out=buf)
            n += 1
            dt = time.perf_counter() - t0
            if dt >= seconds / repeats:
                break
        rates.append(n * RAW_ARRAY / dt)
    return statistics.median(rates)


def rounds_per_second(game_id: str, build_name: str | None = None, mode: str = "paid",
                      repeats: int = 5, seconds: float = 1.0) -> tuple[str, float]:
    """Median rounds/s of the game's kernel on this core, over ``repeats`` runs of about ``seconds``."""
    game = get_game(game_id)
    build = game.load_build(build_name or game.default_build())
    seed = np.random.SeedSequence(2026)
    game.simulate_chunk(build, 1000, seed, mode)  # compile / load the cache
    n = 10_000
    while True:  # size one timed run to about `seconds`
        t0 = time.perf_counter()
        game.simulate_chunk(build, n, seed, mode)
        dt = time.perf_counter() - t0
        if dt >= seconds / 4:
            break
        n *= 4
    n = max(1000, int(n * seconds / dt))
    rates = []
    for i in range(repeats):
        t0 = time.perf_counter()
        game.simulate_chunk(build, n, np.random.SeedSequence(2026 + i), mode)
        rates.append(n / (time.perf_counter() - t0))
    return build.name, statistics.median(rates)


def bench(game_id: str, build_name: str | None = None, mode: str = "paid", repeats: int = 5) -> dict:
    """One game's benchmark record (the ``--json`` contract)."""
    name, rps = rounds_per_second(game_id, build_name, mode, repeats)
    raw = raw_draws_per_second()
    return {"game": game_id, "build": name, "mode": mode, "rounds_per_second_per_core": rps,
            "raw_draws_per_second": raw, "rounds_per_million_raw_draws": rps / raw * 1e6}


def scaling(game_id: str, build_name: str | None, rounds: int, workers: tuple[int, ...] = (1, 2),
            seed: int = 2026) -> dict:
    """Rounds/s of the whole simulation driver for each worker count (same seed, same totals)."""
    from reelforge.analysis.simulate import simulate

    game = get_game(game_id)
    name = build_name or game.default_build()
    game.simulate_chunk(game.load_build(name), 1000, np.random.SeedSequence(1))  # warm the cache
    out = {"game": game_id, "build": name, "rounds": rounds, "runs": []}
    keys = set()
    for w in workers:
        r = simulate(game_id, name, rounds, seed=seed, workers=w)
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
    local = simulate(game_id, name, rounds, seed=seed, workers=workers)
    t0 = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
    startup = time.perf_counter() - t0
    try:
        remote = simulate(game_id, name, rounds, seed=seed, backend="ray")
    finally:
        ray.shutdown()
    return {"game": game_id, "build": name, "rounds": rounds, "workers": workers,
            "local_seconds": local.seconds, "ray_seconds": remote.seconds, "ray_startup_seconds": startup,
            "ray_over_local": remote.seconds / local.seconds,
            "identical_totals": local.accumulator.key() == remote.accumulator.key()}
