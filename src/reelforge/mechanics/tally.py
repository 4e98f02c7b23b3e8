"""Numba helper that streams one round's win into a chunk tally.

Layout of ``totals`` is :mod:`reelforge.stats` (``T_ROUNDS`` ... ``T_MAX_COUNT``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def tally_round(totals: np.ndarray, hist: np.ndarray, edges: np.ndarray, cap_units: int, win: int) -> None:
    """Add one round's total win (win units) to ``totals`` and ``hist``."""
    totals[0] += 1
    if win > 0:
        totals[1] += 1
        totals[2] += win
        totals[3] += win * win
        if win >= cap_units:
            b = hist.shape[0] - 1
        else:
            b = 1
            for e in edges:
                if win >= e:
                    b += 1
        hist[b] += 1
        if win > totals[4]:
            totals[4] = win
            totals[5] = 1
        elif win == totals[4]:
            totals[5] += 1
    else:
        hist[0] += 1
