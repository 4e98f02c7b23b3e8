"""Draws inside numba kernels, bit-identical to :class:`reelforge.core.draws.SeededDraws`.

A kernel receives a ``numpy.random.Generator`` and calls :func:`draw`; each
call takes ``rng.random()`` (one 64-bit output of the bit generator), keeps
its top 32 bits and maps them to ``[0, n)`` with Lemire's unbiased method.
``SeededDraws`` reads the same 64-bit outputs with ``random_raw`` and does the
same arithmetic, so the reference engine and the kernel, fed the same seed,
see the same integers.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_TWO32_F = 4294967296.0
_TWO32 = 4294967296
_MASK32 = 0xFFFFFFFF


@njit(cache=True, inline="always")
def _lemire(x: int, n: int) -> tuple[int, bool]:
    """Lemire's map of 32 raw bits ``x`` to ``[0, n)``: ``(value, accepted)``."""
    m = x * n
    low = m & _MASK32
    # the modulo (a division) only runs in the rare low case
    return m >> 32, low >= n or low >= (_TWO32 - n) % n


@njit(cache=True, inline="always")
def draw(rng: np.random.Generator, n: int) -> int:
    """A uniform integer in ``[0, n)`` (``1 <= n < 2**31``)."""
    while True:
        value, ok = _lemire(np.int64(rng.random() * _TWO32_F), n)
        if ok:
            return value


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


# -- PCG64 inside the kernel ----------------------------------------------------------------
#
# ``rng.random()`` in a kernel is a call through the bit generator's function pointer and a
# float round trip per draw. The kernels instead step numpy's PCG64 themselves: the same
# 128-bit LCG and XSL-RR output (numpy's ``pcg64_next64``), on a state copied out of the
# Generator (:func:`pcg_state`) and copied back afterwards (:func:`store_pcg_state`), so the
# stream, and every draw, is bit-identical to ``Generator.random()`` and to SeededDraws.

PCG_MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
"""numpy's PCG64 multiplier (``PCG_DEFAULT_MULTIPLIER_128``)."""
_M64 = (1 << 64) - 1


@intrinsic
def _lcg128(typingctx, s_hi, s_lo, i_hi, i_lo):
    """``state * PCG_MULTIPLIER + inc`` modulo 2^128 on (hi, lo) uint64 halves, as one i128 in LLVM."""
    sig = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64, types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i128, i64 = ir.IntType(128), ir.IntType(64)
        shift = ir.Constant(i128, 64)

        def join(hi, lo):
            return builder.or_(builder.shl(builder.zext(hi, i128), shift), builder.zext(lo, i128))

        r = builder.add(builder.mul(join(args[0], args[1]), ir.Constant(i128, PCG_MULTIPLIER)),
                        join(args[2], args[3]))
        return context.make_tuple(builder, signature.return_type,
                                  [builder.trunc(builder.lshr(r, shift), i64), builder.trunc(r, i64)])

    return sig, codegen


def pcg_state(rng: np.random.Generator) -> np.ndarray:
    """The PCG64 state of ``rng`` as ``uint64[4]``: state high, state low, increment high, low."""
    if not isinstance(rng.bit_generator, np.random.PCG64):
        raise TypeError(f"kernels step PCG64, not {type(rng.bit_generator).__name__}")
    s = rng.bit_generator.state["state"]
    return np.array([s["state"] >> 64, s["state"] & _M64, s["inc"] >> 64, s["inc"] & _M64], dtype=np.uint64)


def store_pcg_state(rng: np.random.Generator, st: np.ndarray) -> None:
    """Put the state a kernel advanced back into ``rng``, so its next outputs follow the kernel's."""
    state = rng.bit_generator.state
    state["state"] = {"state": (int(st[0]) << 64) | int(st[1]), "inc": (int(st[2]) << 64) | int(st[3])}
    rng.bit_generator.state = state


@njit(cache=True, inline="always")
def step64(hi: int, lo: int, inc_hi: int, inc_lo: int) -> tuple[int, int, int]:
    """One PCG64 step on a state held in values (high and low halves of the state and the increment): the
    new state's halves and its 64-bit output (numpy's ``random_raw``)."""
    hi, lo = _lcg128(hi, lo, inc_hi, inc_lo)
    x = hi ^ lo
    rot = hi >> np.uint64(58)
    return hi, lo, (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))


@njit(cache=True, inline="always")
def next64(st: np.ndarray) -> int:
    """The next 64-bit output of the PCG64 state ``st`` (numpy's ``random_raw``), advancing it."""
    hi, lo, x = step64(st[0], st[1], st[2], st[3])
    st[0] = hi
    st[1] = lo
    return x


@njit(cache=True, inline="always")
def draw_pcg(st: np.ndarray, n: int) -> int:
    """:func:`draw` on a PCG64 state: a uniform integer in ``[0, n)``, the same value ``draw`` gives."""
    while True:
        value, ok = _lemire(np.int64(next64(st) >> np.uint64(32)), n)
        if ok:
            return value


@njit(cache=True, inline="always")
def draw_held(hi: int, lo: int, inc_hi: int, inc_lo: int, n: int) -> tuple[int, int, int]:
    """:func:`draw_pcg` on a state held in values (:func:`step64`): the state's new halves and the draw. A
    kernel drawing several values in a row holds the state so: stepped through the array, each draw waited
    for the last one's state to be written and read back (the array may be any other array the kernel writes)."""
    while True:
        hi, lo, x = step64(hi, lo, inc_hi, inc_lo)
        value, ok = _lemire(np.int64(x >> np.uint64(32)), n)
        if ok:
            return hi, lo, value


@njit(cache=True)
def draw_many_pcg(st: np.ndarray, n: int, count: int) -> np.ndarray:
    """``count`` :func:`draw_pcg` draws (tests compare them with SeededDraws)."""
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = draw_pcg(st, n)
    return out
