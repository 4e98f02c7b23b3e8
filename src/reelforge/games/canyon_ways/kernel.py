"""Canyon Ways fast path: :mod:`.rules` over the build's tables, drawing in the same order."""

from numba import njit

from reelforge.game.loop import kernel_loop, round_function
from reelforge.mechanics.cascade import tumble_ways
from reelforge.mechanics.features import capped
from reelforge.mechanics.reels import count_symbol, spin_by_heights

from .build import SUN, WILD


@njit(cache=True, inline="always")
def tumble(t):
    """One tumble of ``t.board`` (the rules call it too): (ways paid, their coins before the multiplier)."""
    return tumble_ways(t.board, t.heights, t.stops, t.codes, t.lens, t.pays, WILD, t.copies, t.masks, t.removed,
                       t.empties, t.out)


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """parts: paid spin, free spins; counters: triggers, winning tumbles, free spins played."""
    total, multiplier, free, left = 0, 1, 0, 1      # left: spins to play, the paid spin first
    while left > 0:
        left, counters[2] = left - 1, counters[2] + free
        spin_by_heights(st, t.codes, t.lens, t.height_cum, t.heights, t.stops, t.board)
        n, win = tumble(t)
        while n:
            added, reached = capped(total, win * multiplier, cap)
            parts[free], total, counters[1] = parts[free] + added, total + added, counters[1] + 1
            if reached:
                return
            multiplier += free
            n, win = tumble(t)
        if free == 0 and count_symbol(t.board, SUN) >= t.trigger:
            left, counters[0] = t.free_spins, counters[0] + 1
        free = 1


LOOP = kernel_loop(play_round)
