"""Simulation driver: deterministic chunks, per-chunk seeded streams, exact merge.

The work is cut into fixed-size chunks *independent of the worker count and
the backend*; chunk ``i`` draws from ``SeedSequence(seed, spawn_key=(i,))``
(what ``SeedSequence(seed).spawn(n)[i]`` gives). Chunk tallies are integers and
merge exactly, and results are absorbed in chunk order (a contiguous prefix),
so the same seed and round count give identical totals on one process, on a
local process pool of any size, or on a Ray cluster. The precision stopping
rule is evaluated on that same prefix, so it is deterministic too.

Backends:
* ``local`` (default): worker processes on this machine (fork), or in-process for one worker;
* ``ray``: Ray tasks on a cluster (``address``) or on a local Ray instance; each task
  plays a batch of consecutive chunks so many nodes stay busy with little overhead.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import secrets
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reelforge.games.registry import get_game
from reelforge.stats import Z99, Accumulator

CHUNK_ROUNDS = 1 << 21
"""Rounds per chunk (about 0.1 s of the fastest kernel, seconds for the slowest)."""
MAX_ROUNDS = 10**13
"""Ceiling for precision-driven runs without --rounds."""
BACKENDS = ("local", "ray")


def chunk_sizes(rounds: int | None, chunk: int = CHUNK_ROUNDS) -> Iterator[int]:
    """Deterministic chunk sizes for ``rounds`` (endless, up to MAX_ROUNDS, when None)."""
    if rounds is not None and rounds < 1:
        raise ValueError("rounds must be a positive integer")
    total = MAX_ROUNDS if rounds is None else rounds
    full, rest = divmod(total, chunk)
    yield from itertools.repeat(chunk, full)
    if rest:
        yield rest


def chunk_seed(seed: int, index: int) -> np.random.SeedSequence:
    """The stream of chunk ``index`` (equal to ``SeedSequence(seed).spawn(n)[index]``)."""
    return np.random.SeedSequence(seed, spawn_key=(index,))


def run_chunks(game_id: str, build_name: str, seed: int, mode: str,
               chunks: list[tuple[int, int]]) -> list[tuple[int, Accumulator]]:
    """Simulate a batch of ``(index, rounds)`` chunks (top level, so workers can run it)."""
    game = get_game(game_id)
    build = game.load_build(build_name)
    return [(i, game.simulate_chunk(build, n, chunk_seed(seed, i), mode)) for i, n in chunks]


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def new_seed() -> int:
    """A fresh 63-bit seed (reported with results so any run can be repeated)."""
    return secrets.randbits(63)


def half_width_pp(acc: Accumulator) -> float:
    """Half-width of the 99% RTP interval, in percentage points."""
    if acc.rounds < 2:
        return math.inf
    lo, hi = acc.rtp_ci99()
    return (hi - lo) / 2 * 100


@dataclass
class SimulationResult:
    accumulator: Accumulator
    seed: int
    requested_rounds: int | None
    workers: int
    seconds: float
    backend: str = "local"
    interrupted: bool = False
    precision_pp: float | None = None
    checkpoints: list[tuple[int, float, float, float]] = field(default_factory=list)
    """(rounds, rtp, ci_low, ci_high) after each chunk of the merged prefix."""


ProgressCallback = Callable[[Accumulator], None]


class _Inline:
    """Runs batches in this process, one at a time."""

    def __init__(self, args: tuple) -> None:
        self.args = args
        self.ready: list[list[tuple[int, Accumulator]]] = []

    capacity = 1

    def submit(self, batch: list[tuple[int, int]]) -> None:
        self.ready.append(run_chunks(*self.args, batch))

    def wait(self) -> list[list[tuple[int, Accumulator]]]:
        out, self.ready = self.ready, []
        return out

    def pending(self) -> int:
        return len(self.ready)

    def close(self, cancel: bool = False) -> None:
        pass


class _ProcessPool:
    """A local process pool (fork: workers inherit the loaded game)."""

    def __init__(self, args: tuple, workers: int) -> None:
        self.args = args
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
        self.futures: set[Future] = set()
        self.capacity = 2 * workers

    def submit(self, batch: list[tuple[int, int]]) -> None:
        self.futures.add(self.pool.submit(run_chunks, *self.args, batch))

    def wait(self) -> list[list[tuple[int, Accumulator]]]:
        done, self.futures = wait(self.futures, return_when=FIRST_COMPLETED)
        return [f.result() for f in done]

    def pending(self) -> int:
        return len(self.futures)

    def close(self, cancel: bool = False) -> None:
        self.pool.shutdown(wait=not cancel, cancel_futures=cancel)


class _Ray:
    """Ray tasks on a cluster (or a local Ray instance started here)."""

    def __init__(self, args: tuple, workers: int | None, address: str | None) -> None:
        import ray

        self.ray = ray
        self.started_here = False
        if not ray.is_initialized():
            init: dict[str, Any] = {"address": address, "include_dashboard": False, "log_to_driver": False,
                                    "configure_logging": False}
            if address is None and workers:
                init["num_cpus"] = workers
            ray.init(**{k: v for k, v in init.items() if v is not None})
            self.started_here = True
        self.remote = ray.remote(run_chunks)
        self.args = args
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.capacity = 2 * max(cpus, 1)
        self.refs: list = []

    def submit(self, batch: list[tuple[int, int]]) -> None:
        self.refs.append(self.remote.remote(*self.args, batch))

    def wait(self) -> list[list[tuple[int, Accumulator]]]:
        done, self.refs = self.ray.wait(self.refs, num_returns=1)
        return self.ray.get(done)

    def pending(self) -> int:
        return len(self.refs)

    def close(self, cancel: bool = False) -> None:
        if cancel:
            for ref in self.refs:
                self.ray.cancel(ref, force=True)
        if self.started_here:
            self.ray.shutdown()


def simulate(game_id: str, build_name: str, rounds: int | None = None, seed: int | None = None,
             workers: int | None = None, mode: str = "paid", progress: ProgressCallback | None = None,
             chunk: int = CHUNK_ROUNDS, precision_pp: float | None = None, backend: str = "local",
             address: str | None = None, batch: int | None = None) -> SimulationResult:
    """Simulate a build until ``rounds`` rounds, or until the 99% RTP half-width is below
    ``precision_pp`` percentage points (``rounds`` then acts as a ceiling).

    Ctrl-C stops cleanly: the merged prefix of finished chunks is returned with
    ``interrupted=True``.
    """
    game = get_game(game_id)
    build = game.load_build(build_name)
    game.check_mode(mode)
    if rounds is None and precision_pp is None:
        raise ValueError("give a number of rounds or a precision")
    if precision_pp is not None and not precision_pp > 0:
        raise ValueError("precision must be a positive number of percentage points")
    if workers is not None and workers < 1:
        raise ValueError("workers must be at least 1")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    seed = new_seed() if seed is None else seed
    args = (game_id, build_name, seed, mode)
    n_chunks = None if rounds is None else -(-rounds // chunk)
    if backend == "ray":
        runner: Any = _Ray(args, workers, address)
        batch = batch or 4
        workers_used = runner.capacity // 2
    else:
        workers_used = workers or default_workers()
        if n_chunks is not None:
            workers_used = min(workers_used, n_chunks)
        runner = _Inline(args) if workers_used == 1 else _ProcessPool(args, workers_used)
        batch = batch or 1
    sizes = enumerate(chunk_sizes(rounds, chunk))
    total = game.new_accumulator(build, mode)
    waiting: dict[int, Accumulator] = {}
    checkpoints: list[tuple[int, float, float, float]] = []
    next_chunk = 0
    exhausted = stop = interrupted = False
    start = time.perf_counter()
    try:
        while True:
            while not (exhausted or stop) and runner.pending() < runner.capacity:
                work = list(itertools.islice(sizes, batch))
                if not work:
                    exhausted = True
                    break
                runner.submit(work)
            if runner.pending() == 0:
                break
            for results in runner.wait():
                for i, acc in results:
                    waiting[i] = acc
            while next_chunk in waiting and not stop:
                total.merge_in(waiting.pop(next_chunk))
                next_chunk += 1
                lo, hi = total.rtp_ci99()
                checkpoints.append((total.rounds, total.rtp, lo, hi))
                if precision_pp is not None and half_width_pp(total) < precision_pp:
                    stop = True
            if progress:
                progress(total)
            if stop:
                break
    except KeyboardInterrupt:
        interrupted = True
    finally:
        runner.close(cancel=stop or interrupted)
    return SimulationResult(total, seed, rounds, workers_used, time.perf_counter() - start, backend, interrupted,
                            precision_pp, checkpoints)


def rounds_for_precision(sd_x: float, half_width: float, stake_x: float = 1.0) -> int:
    """Rounds needed for a 99% RTP half-width of ``half_width`` percentage points."""
    return math.ceil((Z99 * sd_x / stake_x / (half_width / 100)) ** 2)
