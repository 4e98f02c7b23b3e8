"""Simulation driver: deterministic chunks, per-chunk seeded streams, exact merge.

The work is cut into fixed-size chunks *independent of the worker count*;
chunk ``i`` draws from ``SeedSequence(seed, spawn_key=(i,))`` (what
``SeedSequence(seed).spawn`` would give as child ``i``). Each chunk's integer
tallies are merged exactly, so the same seed and round count give identical
totals whatever the number of workers.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import secrets
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from reelforge.games.registry import get_game
from reelforge.stats import Accumulator

CHUNK_ROUNDS = 1 << 21
"""Rounds per chunk (about 0.1 s of the fastest kernel, seconds for the slowest)."""


def chunk_sizes(rounds: int, chunk: int = CHUNK_ROUNDS) -> list[int]:
    """Split ``rounds`` into deterministic chunk sizes."""
    if rounds < 1:
        raise ValueError("rounds must be a positive integer")
    full, rest = divmod(rounds, chunk)
    return [chunk] * full + ([rest] if rest else [])


def chunk_seed(seed: int, index: int) -> np.random.SeedSequence:
    """The stream of chunk ``index`` (equal to ``SeedSequence(seed).spawn(n)[index]``)."""
    return np.random.SeedSequence(seed, spawn_key=(index,))


def run_chunk(game_id: str, build_name: str, rounds: int, seed: int, index: int, mode: str) -> Accumulator:
    """Simulate one chunk (top level so worker processes can run it)."""
    game = get_game(game_id)
    build = game.load_build(build_name)
    return game.simulate_chunk(build, rounds, chunk_seed(seed, index), mode)


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def new_seed() -> int:
    """A fresh 63-bit seed (printed with results so any run can be repeated)."""
    return secrets.randbits(63)


@dataclass
class SimulationResult:
    accumulator: Accumulator
    seed: int
    requested_rounds: int
    workers: int
    seconds: float
    interrupted: bool = False
    checkpoints: list[tuple[int, float, float, float]] | None = None
    """(rounds, rtp, ci_low, ci_high) after each merged chunk, in chunk order."""


ProgressCallback = Callable[[Accumulator], None]


def simulate(game_id: str, build_name: str, rounds: int, seed: int | None = None, workers: int | None = None,
             mode: str = "paid", progress: ProgressCallback | None = None,
             chunk: int = CHUNK_ROUNDS) -> SimulationResult:
    """Simulate ``rounds`` rounds of a build on ``workers`` processes (default: all cores).

    Ctrl-C stops cleanly: the chunks already finished are merged and returned
    with ``interrupted=True``.
    """
    game = get_game(game_id)
    build = game.load_build(build_name)
    game.check_mode(mode)
    if workers is not None and workers < 1:
        raise ValueError("workers must be at least 1")
    seed = new_seed() if seed is None else seed
    sizes = chunk_sizes(rounds, chunk)
    workers = min(workers or default_workers(), len(sizes))
    total = game.new_accumulator(build, mode)
    done: dict[int, Accumulator] = {}
    start = time.perf_counter()
    interrupted = False

    def absorb(index: int, acc: Accumulator) -> None:
        done[index] = acc
        total.merge_in(acc)
        if progress:
            progress(total)

    try:
        if workers == 1:
            for i, n in enumerate(sizes):
                absorb(i, game.simulate_chunk(build, n, chunk_seed(seed, i), mode))
        else:
            ctx = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                pending: dict[Future, int] = {}
                queue = list(enumerate(sizes))
                try:
                    while queue or pending:
                        while queue and len(pending) < 2 * workers:
                            i, n = queue.pop(0)
                            pending[pool.submit(run_chunk, game_id, build_name, n, seed, i, mode)] = i
                        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            absorb(pending.pop(fut), fut.result())
                except KeyboardInterrupt:
                    for fut in pending:
                        fut.cancel()
                    raise
    except KeyboardInterrupt:
        interrupted = True
    checkpoints = []
    running = game.new_accumulator(build, mode)
    for i in sorted(done):
        running.merge_in(done[i])
        lo, hi = running.rtp_ci99()
        checkpoints.append((running.rounds, running.rtp, lo, hi))
    return SimulationResult(total, seed, rounds, workers, time.perf_counter() - start, interrupted, checkpoints)


def rounds_for_precision(sd_x: float, half_width_pp: float) -> int:
    """Rounds needed for a 99% RTP half-width of ``half_width_pp`` percentage points."""
    return math.ceil((2.5758293035489004 * sd_x / (half_width_pp / 100)) ** 2)
