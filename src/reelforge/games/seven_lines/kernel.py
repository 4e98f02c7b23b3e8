"""Seven Lines fast path: :mod:`.rules` over the build's tables, drawing in the same order."""

from numba import njit

from reelforge.game.loop import kernel_loop, round_function
from reelforge.mechanics.features import add_spins, by_count, capped, spins_for
from reelforge.mechanics.pays import line_wins
from reelforge.mechanics.reels import count_symbol, spin_reels

from .build import LINES, STAR, WILD


@njit(cache=True, inline="always")
def spin(t, total, left, played, cap):
    """The spin shown in ``t.window`` (line wins into ``t.out``), in a round that has won ``total``
    with ``left`` free spins (0: the paid spin) after ``played``: (added win, free spins left,
    played, free spins awarded, line wins, Stars). The rules and the kernel both call it."""
    n = line_wins(t.window, LINES, t.pays, WILD, False, t.out)
    stars = count_symbol(t.window, STAR)
    added, reached = capped(total, (t.out[:n, 3].sum() + by_count(stars, t.star_pays)) * (t.multiplier if left else 1), cap)
    award = 0 if reached else spins_for(stars, t.awards)
    played += left > 0
    return added, 0 if reached else add_spins(left - (left > 0), played, award, t.limit), played, award, n, stars


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """parts: paid spin, free spins; counters: triggers, retriggers, free spins played."""
    total = left = played = 0
    while True:
        spin_reels(st, t.codes, t.lens, t.stops, 3, t.window)
        added, after, played, award, _, _ = spin(t, total, left, played, cap)
        part = 1 if left > 0 else 0        # the paid spin, or a free spin
        parts[part] += added
        counters[part] += award > 0
        total, left = total + added, after
        if left == 0:
            break
    counters[2] += played


LOOP = kernel_loop(play_round)
