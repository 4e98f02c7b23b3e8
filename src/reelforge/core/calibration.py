"""Small helpers shared by the games' calibrations (``games/<g>/design.py``).

Simulated RTP estimates with honest intervals: an estimate is a sum of
independent parts, each a mean with its variance; parts combine by adding
means and variances. Samples are simulated in seeded chunks on all cores
(:func:`map_chunks`, on the project's one chunk runner :mod:`reelforge.core.chunks`), reproducible for
any number of workers. Knobs are tuned by
the generic tuner (:mod:`reelforge.core.tuning`).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass

import numpy as np

from reelforge.core.chunks import Seed, chunk_sizes, run_chunks
from reelforge.core.stats import Z99


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


@dataclass(frozen=True)
class KernelJob:
    """One chunk of samples: ``fn(rng, size, *args, *outs)`` into freshly zeroed ``outs``."""

    fn: Callable
    args: tuple
    outs_spec: tuple[OutSpec, ...]

    def __call__(self, size: int, stream: np.random.SeedSequence) -> list[np.ndarray]:
        outs = [np.zeros(shape, dtype=dtype) for shape, dtype in self.outs_spec]
        self.fn(np.random.Generator(np.random.PCG64(stream)), size, *self.args, *outs)
        return outs


def map_chunks(fn: Callable, n: int, seed: Seed, args: tuple, outs_spec: Sequence[OutSpec], chunk: int,
               workers: int | None = None, label: str = "", log: bool = False) -> Iterator[list[np.ndarray]]:
    """Run ``fn(rng, size, *args, *outs)`` over ``n`` samples in chunks; yield each chunk's outputs in order.

    The chunks are those of :mod:`reelforge.core.chunks`: chunk ``i`` draws from child ``i`` of ``seed``
    (``SeedSequence.spawn``), so the chunks, and any reduction of them in order, do not depend on the
    number of worker processes (fork pool; one worker runs in process)."""
    job = KernelJob(fn, tuple(args), tuple((tuple(s), d) for s, d in outs_spec))
    sizes = list(chunk_sizes(n, chunk)) if n else []
    if not sizes:
        return
    start, done = time.time(), 0
    with closing(run_chunks(job, sizes, seed, workers)) as results:
        for i, outs in results:
            done += sizes[i]
            if log:
                print(f"  {label} {done:,}/{n:,} ({time.time() - start:.0f} s)", file=sys.stderr)
            yield outs


def chunked_sums(fn: Callable, n: int, seed: Seed, args: tuple, outs_spec: Sequence[OutSpec], chunk: int,
                 workers: int | None = None, label: str = "", log: bool = False) -> list[np.ndarray]:
    """:func:`map_chunks` reduced by summing every output (in chunk order: reproducible)."""
    totals = [np.zeros(shape, dtype=dtype) for shape, dtype in outs_spec]
    for outs in map_chunks(fn, n, seed, args, outs_spec, chunk, workers, label, log):
        for t, o in zip(totals, outs, strict=True):
            t += o
    return totals
