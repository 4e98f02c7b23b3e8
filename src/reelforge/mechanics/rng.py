"""Draws inside numba kernels, bit-identical to :class:`reelforge.draws.SeededDraws`.

A kernel receives a ``numpy.random.Generator`` and calls :func:`draw`; each
call takes ``rng.random()`` (one 64-bit output of the bit generator), keeps
its top 32 bits and maps them to ``[0, n)`` with Lemire's unbiased method.
``SeededDraws`` reads the same 64-bit outputs with ``random_raw`` and does the
same arithmetic, so the reference engine and the kernel, fed the same seed,
see the same integers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_TWO32_F = 4294967296.0
_TWO32 = 4294967296
_MASK32 = 0xFFFFFFFF


@njit(cache=True, inline="always")
def draw(rng: np.random.Generator, n: int) -> int:
    """A uniform integer in ``[0, n)`` (``1 <= n < 2**31``)."""
    while True:
        x = np.int64(rng.random() * _TWO32_F)
        m = x * n
        low = m & _MASK32
        if low >= n:
            return m >> 32
        if low >= (_TWO32 - n) % n:
            return m >> 32


@njit(cache=True)
def draw_many(rng: np.random.Generator, n: int, count: int) -> np.ndarray:
    """``count`` draws in ``[0, n)``: used by tests to compare with SeededDraws."""
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = draw(rng, n)
    return out


@njit(cache=True)
def fill_random(rng: np.random.Generator, buf: np.ndarray, repeats: int) -> float:
    """Fill ``buf`` with float64 draws ``repeats`` times (raw-rate benchmark)."""
    acc = 0.0
    for _ in range(repeats):
        for i in range(buf.shape[0]):
            buf[i] = rng.random()
        acc += buf[0]
    return acc
