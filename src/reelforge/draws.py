"""Draw sources: every random decision is a uniform integer in ``[0, n)``.

Three sources share one small interface (:class:`DrawSource`):

* :class:`SecureDraws`  - the OS CSPRNG (``secrets``), for live play;
* :class:`SeededDraws`  - a numpy bit generator, for simulation, reproducible
  by seed and bit-identical to the numba kernels (see :func:`lemire_map`);
* :class:`RecordedDraws` - replays a stored list of draws (audit, verify).

:class:`RecordingDraws` wraps any source and keeps the values it produced, so
a round's draws can be stored and replayed.

Mapping raw bits to ``[0, n)`` is unbiased: a 32-bit raw value ``x`` becomes
``(x * n) >> 32`` with Lemire's rejection step, which discards the few raw
values that would make some results more likely than others. The seeded
source takes its 32 raw bits as the top 32 bits of each 64-bit output of the
bit generator, which is exactly ``floor(rng.random() * 2**32)``: the numba
kernels call ``rng.random()`` and get the same integers (see
:func:`reelforge.mechanics.rng.draw`).
"""

from __future__ import annotations

import secrets
from typing import Protocol, runtime_checkable

import numpy as np

MAX_N = 2**31 - 1
"""Largest range a draw may ask for (keeps the kernels' arithmetic in int64)."""

_TWO32 = 1 << 32
_BUFFER = 4096


class DrawError(Exception):
    """A draw could not be made (bad range, exhausted or invalid record)."""


class DrawsExhausted(DrawError):
    """A recorded list of draws ran out before the round finished."""


class DrawOutOfRange(DrawError):
    """A recorded draw does not fit the range the rules asked for."""


@runtime_checkable
class DrawSource(Protocol):
    """Anything that gives uniform integers in ``[0, n)``."""

    def draw(self, n: int) -> int:
        """Return a uniform integer in ``[0, n)``."""
        ...


def _check_n(n: int) -> None:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise DrawError(f"draw range must be an integer, got {n!r}")
    if n < 1 or n > MAX_N:
        raise DrawError(f"draw range must be in [1, {MAX_N}], got {n}")


def lemire_map(x32: int, n: int) -> tuple[int, bool]:
    """Map a raw 32-bit value to ``[0, n)``; return ``(value, accepted)``.

    When ``accepted`` is False the raw value must be discarded and a new one
    drawn (this happens with probability below ``n / 2**32``).
    """
    m = x32 * n
    low = m & 0xFFFFFFFF
    if low < n:
        threshold = (_TWO32 - n) % n
        if low < threshold:
            return 0, False
    return m >> 32, True


class SeededDraws:
    """Reproducible draws from a numpy bit generator (PCG64 by default).

    ``seed`` is an int, a :class:`numpy.random.SeedSequence` or a
    :class:`numpy.random.Generator`. Raw 64-bit outputs are consumed one per
    32-bit draw, in exactly the order ``Generator.random()`` would use them.
    """

    def __init__(self, seed: int | np.random.SeedSequence | np.random.Generator) -> None:
        if isinstance(seed, np.random.Generator):
            self.generator = seed
        else:
            self.generator = np.random.Generator(np.random.PCG64(seed))
        self._buffer = np.empty(0, dtype=np.uint64)
        self._pos = 0

    def raw32(self) -> int:
        """The next raw 32-bit value (top half of the next 64-bit output)."""
        if self._pos >= len(self._buffer):
            self._buffer = self.generator.bit_generator.random_raw(_BUFFER) >> np.uint64(32)
            self._pos = 0
        value = int(self._buffer[self._pos])
        self._pos += 1
        return value

    def draw(self, n: int) -> int:
        _check_n(n)
        while True:
            value, ok = lemire_map(self.raw32(), n)
            if ok:
                return value


class SecureDraws:
    """Draws from the operating system's CSPRNG, for live play."""

    def draw(self, n: int) -> int:
        _check_n(n)
        while True:
            value, ok = lemire_map(secrets.randbits(32), n)
            if ok:
                return value


class RecordedDraws:
    """Replays a stored list of draws, checking each against its range."""

    def __init__(self, values: list[int]) -> None:
        self.values = [int(v) for v in values]
        self.position = 0

    def draw(self, n: int) -> int:
        _check_n(n)
        if self.position >= len(self.values):
            raise DrawsExhausted(
                f"recorded draws exhausted: the round asked for draw #{self.position + 1} "
                f"(range {n}) but only {len(self.values)} were recorded"
            )
        value = self.values[self.position]
        if not 0 <= value < n:
            raise DrawOutOfRange(
                f"recorded draw #{self.position + 1} is {value}, outside the range [0, {n}) "
                "the rules asked for"
            )
        self.position += 1
        return value

    @property
    def remaining(self) -> int:
        """How many recorded draws have not been used yet."""
        return len(self.values) - self.position


class RecordingDraws:
    """Wraps a source and keeps every value it returned (a round's record)."""

    def __init__(self, inner: DrawSource) -> None:
        self.inner = inner
        self.values: list[int] = []

    def draw(self, n: int) -> int:
        value = self.inner.draw(n)
        self.values.append(value)
        return value

    def take(self) -> list[int]:
        """Return the values recorded so far and start a new record."""
        values, self.values = self.values, []
        return values
