"""Canyon Ways fast path: :mod:`.rules` over the build's tables, drawing in the same order."""

from reelforge.game.loop import kernel_loop, round_function
from reelforge.mechanics.cascade import tumble_tables
from reelforge.mechanics.features import capped
from reelforge.mechanics.reels import count_symbol, spin_by_heights

from .build import SUN, WILD


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """parts: paid spin, free spins; counters: triggers, winning tumbles, free spins played."""
    total, multiplier, free, left = 0, 1, 0, 1      # left: spins to play, the paid spin first
    while left > 0:
        left, counters[2] = left - 1, counters[2] + free
        spin_by_heights(st, t.codes, t.lens, t.height_cum, t.heights, t.stops, t.board)
        n, win = tumble_tables(t, WILD)
        while n:
            added, reached = capped(total, win * multiplier, cap)
            parts[free], total, counters[1] = parts[free] + added, total + added, counters[1] + 1
            if reached:
                return
            multiplier += free
            n, win = tumble_tables(t, WILD)
        if free == 0 and count_symbol(t.board, SUN) >= t.trigger:
            left, counters[0] = t.free_spins, counters[0] + 1
        free = 1


LOOP = kernel_loop(play_round)
