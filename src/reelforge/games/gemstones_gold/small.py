"""A small Gemstones Gold test build whose paid spin is enumerable: the proof that the estimator's
intervals are honest (:func:`exact_paid` against :func:`reelforge.games.gemstones_gold.stratified.paid_figures`).

With strips of nine stops there are 9^6 = 531,441 stop combinations; every one is played through the
kernel's cascades, and the paid spin's expected win (the multiplier reel integrated exactly, as the
estimator does per board) and the probability that the paid spin triggers the free spins (3+ scatters
on the final board) follow as exact fractions. The features are not enumerable (retriggers and the
persistent multiplier): their part of the estimator is plain simulation of whole features.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import comb

import numpy as np
from numba import njit

from reelforge.games.gemstones_gold import kernel
from reelforge.games.gemstones_gold.build import (
    BASE_BLOCKERS,
    BASE_LANES,
    COINS_PER_BET,
    REELS,
    TRIGGER_SCATTERS,
    Build,
)
from reelforge.games.gemstones_gold.sampling import board_arrays, build_from

SMALL_STRIPS = ("GEGPPPPXEGAE", "PESLLLLELGRG", "BBBPPPPXSSPG", "LRELLLLLSARG", "XASPPPPAASRE", "ESGLLLLLRBSB")
"""Nine stops a reel, stacked Pink and Blue Stones and a scatter on most reels: long cascade chains, lanes
revealed and triggers are common, so a few thousand boards exercise every part of the estimator."""
SMALL_BASE_WEIGHTS = (40, 20, 12, 8, 5, 4, 3, 2, 2, 1, 1, 1, 1)
SMALL_FREE_WEIGHTS = (30, 20, 15, 10, 8, 6, 4, 3, 2, 1, 1, 1, 1)


def small_build() -> Build:
    """The small test build (not a published build: it exists for the coverage proof)."""
    return build_from(list(SMALL_STRIPS), SMALL_BASE_WEIGHTS, SMALL_FREE_WEIGHTS, price="50", name="small-exact",
                      rtp="1")


@njit(cache=True)
def _enumerate(strips, lens, packed, pay, win_by_revealed, boards_by_revealed, final_scatters):
    """Every stop combination once: the unmultiplied win (coins) summed by the number of columns whose
    lane would be revealed, boards counted the same way, and boards counted by final scatters."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    total = 1
    for r in range(REELS):
        total *= lens[r]
    for index in range(total):
        rest = index
        for r in range(REELS):
            stops[r] = rest % lens[r]
            rest //= lens[r]
        w, sc = kernel.spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
        m = 0
        for r in range(REELS):
            if q[r] >= BASE_BLOCKERS:
                m += 1
        win_by_revealed[m] += w
        boards_by_revealed[m] += 1
        final_scatters[sc] += 1


def exact_paid(build: Build) -> dict[str, Fraction]:
    """The exact paid-spin RTP (x bet, before the round cap: the cap needs features) and the exact
    probability that the paid spin triggers the free spins, by enumerating every stop combination."""
    win = np.zeros(REELS + 1, dtype=np.int64)
    boards = np.zeros(REELS + 1, dtype=np.int64)
    scatters = np.zeros(37, dtype=np.int64)
    _enumerate(*board_arrays(build), win, boards, scatters)
    total = int(boards.sum())
    weights = build.base_weights
    mu = Fraction(sum(v * w for v, w in zip(build.values, weights, strict=True)), sum(weights))
    lanes = comb(REELS, BASE_LANES)
    paid = Fraction(0)
    for m in range(REELS + 1):
        # k of the 3 lanes fall on the m revealing columns (hypergeometric): nothing revealed pays W, else W x sum
        factor = sum(Fraction(comb(m, k) * comb(REELS - m, BASE_LANES - k), lanes) * (1 if k == 0 else k * mu)
                     for k in range(BASE_LANES + 1))
        paid += int(win[m]) * factor
    return {"paid_rtp": paid / (total * COINS_PER_BET),
            "trigger_rate": Fraction(int(scatters[TRIGGER_SCATTERS:].sum()), total)}



def paid_intervals(build: Build, boards: int) -> Callable[[int], dict[str, tuple[float, float]]]:
    """One run of the estimator's paid part on ``boards`` boards (importance-sampled stops, one worker): the 99%
    intervals of the paid-spin RTP and of the trigger rate (by name, as :func:`exact_paid` names them)."""
    from reelforge.core.stats import Z99
    from reelforge.games.gemstones_gold.board import initial_board_probabilities
    from reelforge.games.gemstones_gold.stratified import paid_figures, paid_sample

    initial = initial_board_probabilities(list(build.strips))

    def run(seed: int) -> dict[str, tuple[float, float]]:
        f = paid_figures(paid_sample(build, boards, seed, workers=1), boards, initial)
        hp, ht = Z99 * f["paid_var"] ** 0.5, Z99 * f["trigger_var"] ** 0.5
        return {"paid_rtp": (f["paid"] - hp, f["paid"] + hp), "trigger_rate": (f["trigger"] - ht, f["trigger"] + ht)}

    return run
