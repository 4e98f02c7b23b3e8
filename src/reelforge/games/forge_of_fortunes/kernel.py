"""Forge of Fortunes fast path: one round function over the build's tables, looped and tallied by the
harness (:mod:`reelforge.harness`).

Consumes draws in the order documented in :mod:`.rules` (reel 1, 2, 3 per spin) on the same strip
codes (:func:`.build.tables`), so fed the same seed it plays the same rounds as the reference engine.
A reel shows one row, the symbol at its stop: the kernel reads it from the strip where the rules call
:func:`reelforge.mechanics.reels.window_from_stops` (a scratch window written and read back each spin
costs this 3-draw round about a fifth of its speed).
"""

from __future__ import annotations

from numba import njit

from reelforge.games.forge_of_fortunes.build import C, G, S
from reelforge.harness import kernel_loop
from reelforge.mechanics.rng import draw_pcg


@njit(cache=True, inline="always")
def _forge(st, t):
    """Forging Re-Spins from runner 0: (end runner, re-spins)."""
    top = t.ladder_units.shape[0] - 1
    r = 0
    spins = 0
    while True:
        k = t.runner_set[r]
        a = t.feature[k, 0, draw_pcg(st, t.feature_len[k, 0])]
        b = t.feature[k, 1, draw_pcg(st, t.feature_len[k, 1])]
        c = t.feature[k, 2, draw_pcg(st, t.feature_len[k, 2])]
        spins += 1
        if a == S or b == S or c == S:
            return r, spins
        if a == G and b == G and c == G:
            r += 1
            if r == top:
                return r, spins
        elif c == C and not t.safe[r]:
            r -= 1


@njit(cache=True)
def play_round(st, t, mode, cap, parts, counters):
    """parts: paid spin, feature; counters: triggers, re-spins, then one per end runner."""
    s1 = t.base[0, draw_pcg(st, t.base_len[0])]
    s2 = t.base[1, draw_pcg(st, t.base_len[1])]
    s3 = t.base[2, draw_pcg(st, t.base_len[2])]
    if s1 != G or s2 != G:
        return
    if s3 != G:
        parts[0] = t.two_units
        return
    r, spins = _forge(st, t)
    parts[1] = t.ladder_units[r]
    counters[0] += 1
    counters[1] += spins
    counters[2 + r] += 1


LOOP = kernel_loop(play_round)
