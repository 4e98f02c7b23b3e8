"""Toy Line fast path: the rules of :mod:`.rules` over integer arrays, drawing in the same order."""

from __future__ import annotations

import numpy as np
from numba import njit

from reelforge.mechanics.rng import draw
from reelforge.mechanics.tally import tally_round

from .build import SYMBOLS, Build

STAR = SYMBOLS.index("S")


def tables(build: Build) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strips as symbol codes (one row per reel), their lengths, and the line pay per code."""
    width = max(len(s) for s in build.strips)
    reels = np.zeros((3, width), dtype=np.int64)
    for i, strip in enumerate(build.strips):
        reels[i, : len(strip)] = [SYMBOLS.index(ch) for ch in strip]
    lens = np.array([len(s) for s in build.strips], dtype=np.int64)
    return reels, lens, np.array([build.pays.get(ch, 0) for ch in SYMBOLS], dtype=np.int64)


@njit(cache=True, inline="always")
def _spin(rng, reels, lens, line_pay):
    """One spin: (line coins, whether every reel shows a Star)."""
    first = -1
    same = True
    stars = True
    for r in range(3):
        n = lens[r]
        stop = draw(rng, n)
        symbol = reels[r, stop]
        if r == 0:
            first = symbol
        same = same and symbol == first
        stars = stars and (reels[r, (stop - 1) % n] == STAR or symbol == STAR or reels[r, (stop + 1) % n] == STAR)
    return (line_pay[first] if same else 0), stars


@njit(cache=True)
def play(rng, n, reels, lens, line_pay, free_spins, multiplier, cap, edges, wins, totals, components, hist,
         counters):
    """Play ``n`` paid rounds into the tally buffers; ``wins`` (length n, or 0) gets each round's coins."""
    for i in range(n):
        paid, stars = _spin(rng, reels, lens, line_pay)
        paid = min(paid, cap)
        free = 0
        if stars:
            counters[0] += 1
        if stars and paid < cap:
            for _ in range(free_spins):
                coins, _ = _spin(rng, reels, lens, line_pay)
                free = min(paid + free + coins * multiplier, cap) - paid
                if paid + free == cap:
                    break
        components[0] += paid
        components[1] += free
        components[2] += paid * paid
        components[3] += free * free
        tally_round(totals, hist, edges, cap, paid + free)
        if wins.shape[0]:
            wins[i] = paid + free
