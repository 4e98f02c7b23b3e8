"""Canyon Ways fast path: :mod:`.rules`' rounds on the board's counts per reel (:mod:`reelforge.mechanics.counts`)."""

from reelforge.game.loop import kernel_loop, round_function
from reelforge.mechanics.counts import spin_tables_counted, symbol_count, tumble_tables_counted
from reelforge.mechanics.features import capped

from .build import SUN, WILD


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """parts: paid spin, free spins; counters: triggers, winning tumbles, free spins played."""
    total, multiplier, free, left = 0, 1, 0, 1      # left: spins to play, the paid spin first
    while left > 0:
        left, counters[2] = left - 1, counters[2] + free
        spin_tables_counted(st, t)
        n, win = tumble_tables_counted(t, WILD)
        while n:
            added, reached = capped(total, win * multiplier, cap)
            parts[free], total, counters[1] = parts[free] + added, total + added, counters[1] + 1
            if reached:
                return
            multiplier += free
            n, win = tumble_tables_counted(t, WILD)
        if free == 0 and symbol_count(t.counts, SUN) >= t.trigger:
            left, counters[0] = t.free_spins, counters[0] + 1
        free = 1


LOOP = kernel_loop(play_round)
