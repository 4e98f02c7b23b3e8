"""One seeded chunk runner for every long computation (simulations, calibration samples).

The work is cut into chunks whose sizes do not depend on the worker count or the
back end, and chunk ``i`` draws from child ``i`` of the seed (what
``SeedSequence(seed).spawn(n)[i]`` gives: :func:`chunk_stream`). Results come back
in chunk order, so any reduction of them in that order (integer tallies, float
sums) is the same on one process, on a process pool of any size, or on a Ray
cluster: any split of the work gives the same totals.

A *job* is a callable ``job(rounds, stream) -> result``: it plays ``rounds``
rounds (or samples) from ``stream`` (a :class:`numpy.random.SeedSequence`).
Local worker processes are forked and inherit the job (nothing is pickled but
the chunk list and the results); Ray pickles it, so a Ray job is small data.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")
Job = Callable[[int, np.random.SeedSequence], Any]
"""``job(rounds, stream)``: the work of one chunk."""
Seed = int | Sequence[int] | np.random.SeedSequence
BACKENDS = ("local", "ray")
MAX_ROUNDS = 10**13
"""Ceiling for open-ended runs (a precision target without a round count)."""


def chunk_sizes(rounds: int | None, chunk: int) -> Iterator[int]:
    """Chunk sizes of ``rounds`` (full chunks, then the rest); endless up to MAX_ROUNDS when None."""
    if rounds is not None and rounds < 1:
        raise ValueError("rounds must be a positive integer")
    if chunk < 1:
        raise ValueError("chunk must be a positive integer")
    full, rest = divmod(MAX_ROUNDS if rounds is None else rounds, chunk)
    yield from itertools.repeat(chunk, full)
    if rest:
        yield rest


def seed_sequence(seed: Seed) -> np.random.SeedSequence:
    """The root of a run's streams (a SeedSequence is taken as it is)."""
    return seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)


def chunk_stream(root: Seed, index: int) -> np.random.SeedSequence:
    """Child ``index`` of ``root``: equal to ``root.spawn(n)[index]`` on a root that spawned nothing yet,
    but computed without spawning (``root`` is left unchanged, and no chunk needs the others)."""
    root = seed_sequence(root)
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, index), pool_size=root.pool_size)


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


Batch = list[tuple[int, int]]
"""Consecutive ``(chunk index, rounds)`` pairs sent to one worker at a time."""


def run_batch(job: Job, root: np.random.SeedSequence, batch: Batch) -> list[tuple[int, Any]]:
    """Play a batch of chunks (top level: Ray runs it remotely)."""
    return [(i, job(n, chunk_stream(root, i))) for i, n in batch]


class _Inline:
    """Batches run in this process, one at a time."""

    capacity = 1

    def __init__(self, job: Job, root: np.random.SeedSequence) -> None:
        self.job, self.root = job, root
        self.ready: list[list[tuple[int, Any]]] = []

    def submit(self, batch: Batch) -> None:
        self.ready.append(run_batch(self.job, self.root, batch))

    def wait(self) -> list[list[tuple[int, Any]]]:
        out, self.ready = self.ready, []
        return out

    def pending(self) -> int:
        return len(self.ready)

    def close(self, cancel: bool) -> None:
        pass


class _Inherited:
    """The job of a forked worker process, handed over once at the fork (never pickled)."""

    job: Job | None = None
    root: np.random.SeedSequence | None = None

    @classmethod
    def adopt(cls, job: Job, root: np.random.SeedSequence) -> None:
        cls.job, cls.root = job, root

    @classmethod
    def run(cls, batch: Batch) -> list[tuple[int, Any]]:
        return run_batch(cls.job, cls.root, batch)


def warm_up(job: Job) -> None:
    """Play one round of ``job`` here and discard it, so its numba kernels are compiled in this process
    before a pool forks: every worker inherits them compiled, where it would otherwise compile them
    itself (all at once, on a cold cache) or load them from numba's cache, once per worker and pool."""
    job(1, np.random.SeedSequence(0))  # its result is thrown away: no run's totals depend on it


class _ForkPool:
    """Worker processes on this machine, forked: each inherits the job through the pool's initializer
    (it only ever lives in the workers; this process's :class:`_Inherited` stays empty)."""

    def __init__(self, job: Job, root: np.random.SeedSequence, workers: int) -> None:
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                        initializer=_Inherited.adopt, initargs=(job, root))
        self.futures: set[Future] = set()
        self.capacity = 2 * workers

    def submit(self, batch: Batch) -> None:
        self.futures.add(self.pool.submit(_Inherited.run, batch))

    def wait(self) -> list[list[tuple[int, Any]]]:
        done, self.futures = wait(self.futures, return_when=FIRST_COMPLETED)
        return [f.result() for f in done]

    def pending(self) -> int:
        return len(self.futures)

    def close(self, cancel: bool) -> None:
        self.pool.shutdown(wait=not cancel, cancel_futures=cancel)


def start_ray(address: str | None, workers: int | None) -> bool:
    """Connect to the Ray cluster at ``address`` (None: start a local Ray of ``workers`` CPUs, default all)
    unless Ray is already up; True when it was started here (the caller shuts it down)."""
    import ray

    if ray.is_initialized():
        return False
    init: dict[str, Any] = {"address": address, "include_dashboard": False, "log_to_driver": False,
                            "configure_logging": False}
    if address is None and workers:
        init["num_cpus"] = workers
    ray.init(**{k: v for k, v in init.items() if v is not None})
    return True


class _Ray:
    """Ray tasks on a cluster (``address``) or on a local Ray instance started here."""

    def __init__(self, job: Job, root: np.random.SeedSequence, workers: int | None, address: str | None) -> None:
        import ray

        self.ray = ray
        self.started_here = start_ray(address, workers)
        self.remote = ray.remote(run_batch)
        self.job, self.root = job, root
        self.capacity = 2 * max(int(ray.cluster_resources().get("CPU", 1)), 1)
        self.refs: list = []

    def submit(self, batch: Batch) -> None:
        self.refs.append(self.remote.remote(self.job, self.root, batch))

    def wait(self) -> list[list[tuple[int, Any]]]:
        done, self.refs = self.ray.wait(self.refs, num_returns=1)
        return self.ray.get(done)

    def pending(self) -> int:
        return len(self.refs)

    def close(self, cancel: bool) -> None:
        if cancel:
            for ref in self.refs:
                self.ray.cancel(ref, force=True)
        if self.started_here:
            self.ray.shutdown()


class ChunkRun:
    """A run of ``job`` over chunks: iterate it for ``(index, result)`` in chunk order.

    ``workers`` is what the run actually uses (local: at most the number of chunks; Ray: half the
    cluster's task slots). Closing the iterator early (``contextlib.closing`` around a loop that
    breaks, or Ctrl-C) cancels the chunks not yet started."""

    def __init__(self, job: Job, sizes: Iterable[int], seed: Seed, workers: int | None = None,
                 backend: str = "local", address: str | None = None, batch: int | None = None,
                 chunks: int | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
        if workers is not None and workers < 1:
            raise ValueError("workers must be at least 1")
        self._job, self._root, self._address = job, seed_sequence(seed), address
        self._sizes = enumerate(sizes)
        self.backend = backend
        if backend == "ray":
            self.workers = 0  # known once the cluster answers (when the iteration starts)
            self._batch = batch or 4  # several chunks per task keep many nodes busy with little overhead
        else:
            self.workers = min(workers or default_workers(), chunks) if chunks else workers or default_workers()
            self._batch = batch or 1
        self._requested_workers = workers

    def _start(self) -> Any:
        if self.backend == "ray":
            runner = _Ray(self._job, self._root, self._requested_workers, self._address)
            self.workers = runner.capacity // 2
            return runner
        if self.workers == 1:
            return _Inline(self._job, self._root)
        warm_up(self._job)
        return _ForkPool(self._job, self._root, self.workers)

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        runner, waiting, next_index = self._start(), {}, 0
        exhausted = finished = False
        try:
            while True:
                while not exhausted and runner.pending() < runner.capacity:
                    work = list(itertools.islice(self._sizes, self._batch))
                    if not work:
                        exhausted = True
                        break
                    runner.submit(work)
                if runner.pending() == 0:
                    break
                for results in runner.wait():
                    waiting.update(results)
                while next_index in waiting:  # absorbed in chunk order: a contiguous prefix
                    yield next_index, waiting.pop(next_index)
                    next_index += 1
            finished = True
        finally:
            runner.close(cancel=not finished)


def run_chunks(job: Job, sizes: Iterable[int], seed: Seed, workers: int | None = None,
               **options: Any) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` of every chunk, in chunk order (see :class:`ChunkRun` for the options)."""
    sizes = list(sizes)
    return iter(ChunkRun(job, sizes, seed, workers, chunks=len(sizes), **options))
