"""Forge of Fortunes fast path: the harness's chunk loop over the build's tables
(:class:`reelforge.game.harness.KernelGame` runs it: seeds, tallies, each round's win, the mode checks).

Consumes draws in the order documented in :mod:`.rules` (reel 1, 2, 3 per spin) on the same strip
codes (:func:`.build.tables`), so fed the same seed it plays the same rounds as the reference engine.
A reel shows one row, the symbol at its stop: the kernel reads it from the strip where the rules call
:func:`reelforge.mechanics.reels.window_from_stops` (a scratch window written and read back each spin
costs this 3-draw round about a fifth of its speed).
"""

from __future__ import annotations

from numba import njit

from reelforge.games.forge_of_fortunes.build import C, G, S
from reelforge.mechanics.rng import draw_pcg
from reelforge.mechanics.tally import close_tally, tally_win


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
def loop(st, t, n, mode, cap, edges, wins, totals, components, hist, counters):
    """The harness loop (:func:`reelforge.game.loop.kernel_loop`'s contract: ``n`` paid rounds into the
    tally, each round's win into ``wins`` where it has ``n`` slots), written out for this game.

    Why not a round function in the harness loop: this round is three draws and a comparison, and
    the harness's per-round work (the parts, their sum) costs it 9% (61 against 66 M rounds/s per
    core, measured with ``reelforge bench``); here the paid spin stays in registers and the
    two-of-a-kind wins, all equal, are added to their component once per chunk.
    Parts: paid spin, feature; counters: triggers, re-spins, then one per end runner."""
    base, base_len = t.base, t.base_len
    l0, l1, l2 = base_len[0], base_len[1], base_len[2]
    two_units = t.two_units
    keep = wins.shape[0] > 0
    hits_before = totals[1]
    two_wins = 0
    for i in range(n):
        s1 = base[0, draw_pcg(st, l0)]
        s2 = base[1, draw_pcg(st, l1)]
        s3 = base[2, draw_pcg(st, l2)]
        win = 0
        if s1 == G and s2 == G:
            if s3 == G:
                r, spins = _forge(st, t)
                win = t.ladder_units[r]
                components[1] += win
                components[3] += win * win
                counters[0] += 1
                counters[1] += spins
                counters[2 + r] += 1
            else:
                win = two_units
                two_wins += 1
            tally_win(totals, hist, edges, cap, win)
        if keep:
            wins[i] = win
    components[0] += two_wins * two_units
    components[2] += two_wins * two_units * two_units
    close_tally(totals, hist, n, hits_before)
