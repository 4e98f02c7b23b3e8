"""Toy Line fast path: the rules of :mod:`.rules` over integer arrays, drawing in the same order.

One round function over one tables object; the harness loop (:mod:`reelforge.game.loop`) loops it,
tallies the rounds and writes each round's win."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.game.loop import kernel_loop, round_function
from reelforge.mechanics.reels import strip_codes
from reelforge.mechanics.rng import draw_pcg

from .build import SYMBOLS, Build

STAR = SYMBOLS.index("S")


class Tables(NamedTuple):
    reels: np.ndarray       # symbol codes, one row per reel
    lens: np.ndarray        # strip lengths
    line_pay: np.ndarray    # coins for three of a kind, per code
    free_spins: int
    multiplier: int


def tables(build: Build) -> Tables:
    reels, lens = strip_codes(build.strips, SYMBOLS)
    return Tables(reels, lens, np.array([build.pays.get(ch, 0) for ch in SYMBOLS], dtype=np.int64),
                  build.free_spins, build.free_spins_multiplier)


@njit(cache=True, inline="always")
def _spin(st, t):
    """One spin: (line coins, whether every reel shows a Star)."""
    first = -1
    same = True
    stars = True
    for r in range(3):
        n = t.lens[r]
        stop = draw_pcg(st, n)
        symbol = t.reels[r, stop]
        if r == 0:
            first = symbol
        same = same and symbol == first
        stars = stars and (t.reels[r, (stop - 1) % n] == STAR or symbol == STAR or t.reels[r, (stop + 1) % n] == STAR)
    return (t.line_pay[first] if same else 0), stars


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """One paid round: parts[0] the paid spin's coins, parts[1] the free spins', capped."""
    paid, stars = _spin(st, t)
    paid = min(paid, cap)
    free = 0
    if stars:
        counters[0] += 1
    if stars and paid < cap:
        for _ in range(t.free_spins):
            coins, _ = _spin(st, t)
            free = min(paid + free + coins * t.multiplier, cap) - paid
            if paid + free == cap:
                break
    parts[0] = paid
    parts[1] = free


LOOP = kernel_loop(play_round)
