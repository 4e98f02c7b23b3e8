"""Draw sources: every random decision is a uniform integer in ``[0, n)``.

Three sources share one small interface (:class:`DrawSource`):

* :class:`SecureDraws`  - the OS CSPRNG (``secrets``), for live play;
* :class:`SeededDraws`  - a numpy bit generator, for simulation, reproducible
  by seed and bit-identical to the numba kernels (see :func:`lemire_map`);
* :class:`RecordedDraws` - replays a stored list of draws (audit, verify);
* :class:`FairDraws`    - provably fair live play: HMAC-SHA256 in counter mode
  keyed by a committed server seed, over the player's client seed and the
  round's nonce (docs/FAIRNESS.md), so anyone given the seeds recomputes them.

:class:`RecordingDraws` wraps any source and keeps the values it produced (and
the ranges asked for), so a round's draws can be stored and replayed.

Mapping raw bits to ``[0, n)`` is unbiased: a 32-bit raw value ``x`` becomes
``(x * n) >> 32`` with Lemire's rejection step, which discards the few raw
values that would make some results more likely than others. The seeded
source takes its 32 raw bits as the top 32 bits of each 64-bit output of the
bit generator, which is exactly ``floor(rng.random() * 2**32)``: the numba
kernels call ``rng.random()`` and get the same integers (see
:func:`reelforge.mechanics.rng.draw`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
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


class WordDraws:
    """A source of raw 32-bit words (:meth:`raw32`), each draw mapped from them by :func:`lemire_map`."""

    def raw32(self) -> int:  # pragma: no cover - defined by the sources
        raise NotImplementedError

    def draw(self, n: int) -> int:
        _check_n(n)
        while True:
            value, ok = lemire_map(self.raw32(), n)
            if ok:
                return value


class SeededDraws(WordDraws):
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
    """Wraps a source and keeps every value it returned (a round's record) and the range it was asked for."""

    def __init__(self, inner: DrawSource) -> None:
        self.inner = inner
        self.values: list[int] = []
        self.ranges: list[int] = []

    def draw(self, n: int) -> int:
        value = self.inner.draw(n)
        self.values.append(value)
        self.ranges.append(n)
        return value

    def take(self) -> list[int]:
        """Return the values recorded so far and start a new record (of values and ranges)."""
        values, self.values, self.ranges = self.values, [], []
        return values

    def take_with_ranges(self) -> tuple[list[int], list[int]]:
        """``(values, ranges)`` recorded so far, and start a new record."""
        ranges = self.ranges
        return self.take(), ranges


FAIR_ALGORITHM = "HMAC-SHA256 counter mode v1"
"""The name of :class:`FairDraws`'s construction, as rounds and the verifiers state it."""


class FairDraws(WordDraws):
    """Provably fair draws: HMAC-SHA256 in counter mode, keyed by the server seed.

    Block ``i`` of round ``nonce`` is ``HMAC-SHA256(key=server_seed, msg="<client_seed>:<nonce>:<i>")``
    (ASCII, decimal integers), ``i = 0, 1, 2, ...``; each 32-byte block gives eight raw 32-bit words,
    big-endian, used in order, and each word goes through :func:`lemire_map` exactly as the other
    sources' words do (a rejected word is skipped). ``server_seed`` is the 32 secret bytes (their
    SHA-256 is the commitment shown before any bet).

    What a draw costs does not depend on the seed: one HMAC (two SHA-256 compressions over fixed-size
    input, keyed once) per eight words, whatever the key's value; how many words a round uses depends
    on its outcomes only. The repr never shows the seed.
    """

    def __init__(self, server_seed: bytes, client_seed: str, nonce: int) -> None:
        if len(server_seed) != 32:
            raise DrawError("a server seed is 32 bytes")
        self._keyed = hmac.new(server_seed, digestmod=hashlib.sha256)  # keyed once; copied per block
        self._prefix = f"{client_seed}:{int(nonce)}:".encode("ascii")
        self.nonce = int(nonce)
        self.block = 0
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def __repr__(self) -> str:
        return f"FairDraws(nonce={self.nonce}, server seed hidden)"

    def _next_block(self) -> None:
        mac = self._keyed.copy()
        mac.update(self._prefix + str(self.block).encode("ascii"))
        self._words = struct.unpack(">8I", mac.digest())
        self.block += 1
        self._pos = 0

    def raw32(self) -> int:
        """The next raw 32-bit word of the stream."""
        if self._pos >= len(self._words):
            self._next_block()
        value = self._words[self._pos]
        self._pos += 1
        return value

    def draw(self, n: int) -> int:
        """:meth:`WordDraws.draw` with the words read and mapped in place (every provably fair round draws
        through it on the server: a method call, a function call and a tuple fewer a draw); the same words,
        accepted and rejected as :func:`lemire_map` does."""
        _check_n(n)
        while True:
            if self._pos >= len(self._words):
                self._next_block()
            m = self._words[self._pos] * n
            self._pos += 1
            low = m & 0xFFFFFFFF
            if low >= n or low >= (_TWO32 - n) % n:
                return m >> 32


def fair_draws(server_seed: bytes, client_seed: str, nonce: int, ranges: list[int]) -> list[int]:
    """The draws a round of ``nonce`` makes for the given ranges, in order (what a verifier recomputes)."""
    source = FairDraws(server_seed, client_seed, nonce)
    return [source.draw(n) for n in ranges]
