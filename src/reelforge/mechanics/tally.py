"""Numba helper that streams one round's win into a chunk tally.

Layout of ``totals`` is :mod:`reelforge.core.stats` (``T_ROUNDS`` ... ``T_W4_HI``). The sums of the
third and fourth powers are exact in two int64 limbs (value = hi * 2^62 + lo), which holds for
round wins below 2^20 units (:data:`reelforge.core.stats.MAX_CAP_UNITS`: wins never pass the cap).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from reelforge.core.stats import bucket_index

LIMB_BITS = 62
LIMB_MASK = (1 << LIMB_BITS) - 1
HALF_BITS = 31
HALF_MASK = (1 << HALF_BITS) - 1


@njit(cache=True, inline="always")
def _add_limbs(totals: np.ndarray, lo: int, value: int) -> None:
    """totals[lo] += value (value < 2^62), carrying into totals[lo + 1]."""
    s = totals[lo] + value
    if s > LIMB_MASK:
        totals[lo + 1] += s >> LIMB_BITS
        s &= LIMB_MASK
    totals[lo] = s


_bucket_index = njit(cache=True, inline="always")(bucket_index)
"""The project's one bucket definition (:func:`reelforge.core.stats.bucket_index`), compiled for kernels."""


@njit(cache=True, inline="always")
def tally_win(totals: np.ndarray, hist: np.ndarray, edges: np.ndarray, cap_units: int, win: int) -> None:
    """Add one winning round (``win > 0`` units) to ``totals`` and ``hist``, all but the round count.

    Kernels that tally only their winning rounds this way add the rounds and the zero-win
    bucket once at the end with :func:`close_tally` (most rounds then cost no memory write).
    """
    totals[1] += 1
    totals[2] += win
    q = win * win
    totals[3] += q
    _add_limbs(totals, 6, win * q)
    # win^4 = q^2 with q = qh 2^31 + ql: qh^2 2^62 + 2 qh ql 2^31 + ql^2, each part below a limb
    qh = q >> HALF_BITS
    ql = q & HALF_MASK
    t = 2 * qh * ql
    totals[9] += qh * qh + (t >> HALF_BITS)
    _add_limbs(totals, 8, (t & HALF_MASK) << HALF_BITS)
    _add_limbs(totals, 8, ql * ql)
    hist[_bucket_index(win, edges, cap_units)] += 1
    if win > totals[4]:
        totals[4] = win
        totals[5] = 1
    elif win == totals[4]:
        totals[5] += 1


@njit(cache=True, inline="always")
def close_tally(totals: np.ndarray, hist: np.ndarray, rounds: int, hits_before: int) -> None:
    """After ``rounds`` rounds whose wins went through :func:`tally_win` (``totals[1]`` was
    ``hits_before`` when they started): count the rounds and the zero-win ones."""
    totals[0] += rounds
    hist[0] += rounds - (totals[1] - hits_before)


@njit(cache=True, inline="always")
def tally_round(totals: np.ndarray, hist: np.ndarray, edges: np.ndarray, cap_units: int, win: int) -> None:
    """Add one round's total win (win units) to ``totals`` and ``hist``."""
    totals[0] += 1
    if win > 0:
        tally_win(totals, hist, edges, cap_units, win)
    else:
        hist[0] += 1
