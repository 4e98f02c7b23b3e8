"""math-sdk's sample lines game, fast path: :mod:`.rules` over the build's tables, drawing in the same
order (a spin's five stops, reel 1 to 5; in free spins then one multiplier per Wild on the board,
reel by reel, top to bottom)."""

from numba import njit

from reelforge.game.loop import kernel_loop, round_function
from reelforge.mechanics.features import capped, spins_for
from reelforge.mechanics.pays import line_wins
from reelforge.mechanics.reels import count_symbol, pick_weighted, window_from_stops
from reelforge.mechanics.rng import draw_pcg

from .build import BASE, FREE, ROWS, SCATTER, WILD


@njit(cache=True, inline="always")
def draw_spin(st, t, reel_set, free):
    """A spin's stops on ``reel_set`` into ``t.stops`` and ``t.window``; in free spins each Wild's
    multiplier (by the build's weights) into ``t.mults`` (0 elsewhere: base Wilds multiply by 1)."""
    for r in range(5):
        t.stops[r] = draw_pcg(st, t.lens[reel_set, r])
    window_from_stops(t.codes[reel_set], t.lens[reel_set], t.stops, ROWS, t.window)
    for r in range(5):
        for row in range(ROWS):
            m = 0
            if free and t.window[r, row] == WILD:
                m = t.mult_values[pick_weighted(t.mult_cum, draw_pcg(st, t.mult_cum[-1]))]
            t.mults[r, row] = m


@njit(cache=True, inline="always")
def spin(t, total, cap):
    """The spin shown in ``t.window`` with ``t.mults``: line wins into ``t.out`` as rows ``(line, symbol,
    count, pay, multiplier)``, each line's pay times the sum of the Wild multipliers on its winning cells
    (1 where none). Returns (win units added under the cap, cap reached, line wins, scatters)."""
    n = line_wins(t.window, t.lines, t.pays, WILD, False, t.out)
    win = 0
    for i in range(n):
        line, count = t.out[i, 0], t.out[i, 2]
        mult = 0
        for r in range(count):
            mult += t.mults[r, t.lines[line, r]]
        mult = max(mult, 1)
        t.out[i, 3] *= mult
        t.out[i, 4] = mult
        win += t.out[i, 3]
    added, reached = capped(total, win, cap)
    return added, reached, n, count_symbol(t.window, SCATTER)


@njit(cache=True, inline="always")
def awarded(t, free, scatters, reached):
    """Free spins the spin's scatters award (none once the cap is reached)."""
    if reached:
        return 0
    return spins_for(scatters, t.free_awards if free else t.base_awards)


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """parts: paid spin, free spins; counters: triggers, retriggers, free spins played."""
    draw_spin(st, t, BASE, False)
    added, reached, _, scatters = spin(t, 0, cap)
    parts[0] = added
    total = added
    left = awarded(t, False, scatters, reached)
    counters[0] += left > 0
    while left > 0:
        draw_spin(st, t, FREE, True)
        added, reached, _, scatters = spin(t, total, cap)
        parts[1] += added
        total += added
        more = awarded(t, True, scatters, reached)
        counters[1] += more > 0
        counters[2] += 1
        left = 0 if reached else left - 1 + more


LOOP = kernel_loop(play_round)
