"""Simulation driver: the seeded chunk runner (:mod:`reelforge.core.chunks`) applied to a game's kernel.

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

import math
import secrets
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field

import numpy as np

from reelforge.core.chunks import BACKENDS, MAX_ROUNDS, ChunkRun, chunk_sizes, chunk_stream, default_workers
from reelforge.core.stats import Z99, Accumulator
from reelforge.game.contract import Build, Game
from reelforge.games.registry import get_game

__all__ = ["BACKENDS", "CHUNK_ROUNDS", "MAX_ROUNDS", "SimulationJob", "SimulationResult", "chunk_seed",
           "chunk_sizes", "default_workers", "half_width_pp", "new_seed", "rounds_for_precision", "simulate"]

CHUNK_ROUNDS = 1 << 21
"""Rounds per chunk (about 0.1 s of the fastest kernel, seconds for the slowest)."""


def chunk_seed(seed: int, index: int) -> np.random.SeedSequence:
    """The stream of chunk ``index`` (equal to ``SeedSequence(seed).spawn(n)[index]``)."""
    return chunk_stream(seed, index)


@dataclass(frozen=True)
class SimulationJob:
    """One chunk of a build's rounds through the game's kernel. Forked local workers inherit the game and
    build themselves; where the job crosses to another process by pickling (Ray ships it to its nodes) it
    travels as small data, the game id and the build's name and version, and is loaded again there."""

    game: Game
    build: Build
    mode: str = "paid"

    def __call__(self, rounds: int, stream: np.random.SeedSequence) -> Accumulator:
        return self.game.simulate_chunk(self.build, rounds, stream, self.mode)

    def __reduce__(self) -> tuple[Callable[..., SimulationJob], tuple[str, str, str, str]]:
        name, version = self.build.name, self.build.identity.version
        if self.game.load_build(name, version) is not self.build:  # the other side could load another one
            raise ValueError(f"build {name} {version} of {self.game.id} is not a shipped build: it cannot be "
                             "sent to another process by name")
        return _loaded_job, (self.game.id, name, version, self.mode)


def _loaded_job(game_id: str, build_name: str, version: str, mode: str) -> SimulationJob:
    """A pickled :class:`SimulationJob`, its game and build loaded by id, name and version."""
    game = get_game(game_id)
    return SimulationJob(game, game.load_build(build_name, version), mode)


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


def simulate(game: Game, build: Build, rounds: int | None = None, seed: int | None = None,
             workers: int | None = None, mode: str = "paid", progress: ProgressCallback | None = None,
             chunk: int = CHUNK_ROUNDS, precision_pp: float | None = None, backend: str = "local",
             address: str | None = None, batch: int | None = None) -> SimulationResult:
    """Simulate a build until ``rounds`` rounds, or until the 99% RTP half-width is below
    ``precision_pp`` percentage points (``rounds`` then acts as a ceiling).

    Ctrl-C stops cleanly: the merged prefix of finished chunks is returned with
    ``interrupted=True``.
    """
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
    n_chunks = None if rounds is None else -(-rounds // chunk)
    run = ChunkRun(SimulationJob(game, build, mode), chunk_sizes(rounds, chunk), seed, workers, backend,
                   address, batch, chunks=n_chunks)
    total = game.new_accumulator(build, mode)
    checkpoints: list[tuple[int, float, float, float]] = []
    interrupted = False
    start = time.perf_counter()
    try:
        with closing(iter(run)) as results:
            for _, acc in results:
                total.merge_in(acc)
                lo, hi = total.rtp_ci99()
                checkpoints.append((total.rounds, total.rtp, lo, hi))
                if progress:
                    progress(total)
                if precision_pp is not None and half_width_pp(total) < precision_pp:
                    break
    except KeyboardInterrupt:
        interrupted = True
    return SimulationResult(total, seed, rounds, run.workers, time.perf_counter() - start, backend, interrupted,
                            precision_pp, checkpoints)


def rounds_for_precision(sd_x: float, half_width: float, stake_x: float = 1.0) -> int:
    """Rounds needed for a 99% RTP half-width of ``half_width`` percentage points."""
    return math.ceil((Z99 * sd_x / stake_x / (half_width / 100)) ** 2)
