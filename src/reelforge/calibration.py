"""Small helpers shared by the games' calibrations (``games/<g>/design.py``).

Simulated RTP estimates with honest intervals: an estimate is a sum of
independent parts, each a mean with its variance; parts combine by adding
means and variances. Samples are simulated in seeded chunks on all cores
(:func:`map_chunks`), reproducible for any number of workers. Knobs are tuned by
the generic tuner (:mod:`reelforge.tuning`).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from reelforge.stats import Z99


@dataclass(frozen=True)
class Estimate:
    """A simulated quantity: its value and the variance of that value."""

    value: float
    var: float = 0.0

    def __add__(self, other: "Estimate") -> "Estimate":
        """Sum of two estimates from independent samples."""
        return Estimate(self.value + other.value, self.var + other.var)

    @property
    def sd(self) -> float:
        return math.sqrt(max(self.var, 0.0))

    @property
    def half_width99(self) -> float:
        return Z99 * self.sd

    def ci99(self, extra: float = 0.0) -> tuple[float, float]:
        """99% interval, widened by ``extra`` on both sides (a deterministic bound)."""
        h = self.half_width99 + extra
        return (self.value - h, self.value + h)


def mean_estimate(total: float, total_sq: float, n: int) -> Estimate:
    """Sample mean of ``n`` values from their sum and sum of squares."""
    if n < 2:
        raise ValueError("need at least two samples")
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / (n - 1)
    return Estimate(mean, var / n)


# -- chunked, parallel sample sums ---------------------------------------------------------

OutSpec = tuple[tuple[int, ...], type]
"""Shape and dtype of one output array a chunk kernel accumulates into."""

_JOB: tuple | None = None  # set before the fork: workers inherit it instead of unpickling arrays


def _run_chunk(i: int) -> list[np.ndarray]:
    fn, seeds, sizes, args, outs_spec = _JOB
    outs = [np.zeros(shape, dtype=dtype) for shape, dtype in outs_spec]
    fn(np.random.Generator(np.random.PCG64(seeds[i])), sizes[i], *args, *outs)
    return outs


def map_chunks(fn: Callable, n: int, seed: int | Sequence[int] | np.random.SeedSequence, args: tuple,
               outs_spec: Sequence[OutSpec], chunk: int, workers: int | None = None,
               label: str = "", log: bool = False) -> Iterator[list[np.ndarray]]:
    """Run ``fn(rng, size, *args, *outs)`` over ``n`` samples in chunks; yield each chunk's outputs in order.

    Chunk ``i`` draws from child ``i`` of ``seed`` (``SeedSequence.spawn``), so the chunks, and any
    reduction of them in order, do not depend on the number of worker processes (fork pool; one
    worker runs in process)."""
    global _JOB
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    k = max(1, math.ceil(n / chunk))
    sizes = [min(chunk, n - i * chunk) for i in range(k)]
    _JOB = (fn, ss.spawn(k), sizes, args, [(tuple(s), d) for s, d in outs_spec])
    workers = min(workers or os.cpu_count() or 1, k)
    start, done = time.time(), 0
    try:
        if workers == 1:
            results: Iterator[list[np.ndarray]] = map(_run_chunk, range(k))
            pool = None
        else:
            pool = multiprocessing.get_context("fork").Pool(workers)
            results = pool.imap(_run_chunk, range(k))
        for i, outs in enumerate(results):
            done += sizes[i]
            if log:
                print(f"  {label} {done:,}/{n:,} ({time.time() - start:.0f} s)", file=sys.stderr)
            yield outs
    finally:
        _JOB = None
        if workers > 1:
            pool.terminate()


def chunked_sums(fn: Callable, n: int, seed: int | Sequence[int] | np.random.SeedSequence, args: tuple,
                 outs_spec: Sequence[OutSpec], chunk: int, workers: int | None = None,
                 label: str = "", log: bool = False) -> list[np.ndarray]:
    """:func:`map_chunks` reduced by summing every output (in chunk order: reproducible)."""
    totals = [np.zeros(shape, dtype=dtype) for shape, dtype in outs_spec]
    for outs in map_chunks(fn, n, seed, args, outs_spec, chunk, workers, label, log):
        for t, o in zip(totals, outs, strict=True):
            t += o
    return totals
