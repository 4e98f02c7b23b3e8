"""Golden Vault fast path: :mod:`.rules` over the build's tables, drawing in the same order."""

from __future__ import annotations

from reelforge.game.loop import kernel_loop, round_function
from reelforge.mechanics.features import capped
from reelforge.mechanics.holdspin import board_full, collect, empty_cells, land_coins, respins_after
from reelforge.mechanics.pays import anywhere_wins
from reelforge.mechanics.reels import window_from_weights
from reelforge.mechanics.rng import draw_pcg


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """parts: paid spin, Hold and Respin; counters: triggers, respins, full boards."""
    for i in range(15):
        t.draws[i] = draw_pcg(st, t.base_cum[0, -1])
    window_from_weights(t.base_cum, t.draws, t.window)
    win = 0
    for i in range(anywhere_wins(t.window, t.pays, t.out)):
        win += t.out[i, 2]
    paid, reached = capped(0, win, cap)
    parts[0] = paid
    coins = 0
    for r in range(5):
        for row in range(3):
            t.values[r, row] = t.base_values[t.window[r, row]]
            coins += t.values[r, row] > 0
    if coins < t.trigger or reached:
        return
    counters[0] += 1
    left = t.respins
    while True:
        for i in range(empty_cells(t.values)):
            t.draws[i] = draw_pcg(st, t.respin_cum[-1])
        left = respins_after(left, land_coins(t.values, t.respin_cum, t.respin_values, t.draws), t.respins)
        counters[1] += 1
        full = board_full(t.values)
        if full or left == 0:
            counters[2] += full
            parts[1] = capped(paid, collect(t.values) + (t.grand if full else 0), cap)[0]
            return


LOOP = kernel_loop(play_round)
