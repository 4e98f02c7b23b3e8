"""Forge of Gems fast kernel (numba): the rules of :mod:`.rules` on flat arrays.

Same board encoding (cell code = symbol * 4 + copies, ``EMPTY`` = -1, board
``[column, row]``), same draw order, same gravity (survivors keep their order
and fall; done in place here, branch-free, on three cells). Weighted draws
index expanded tables (one entry per unit of weight), which picks the same
entry as the reference's cumulative search. A paid round is one round function
(:func:`play_round`) over one tables object, run by the harness loop
(:func:`reelforge.game.loop.kernel_loop`); nothing is allocated per round: the
board, forge reel and scratch buffers are the tables' scratch fields
(:data:`SCRATCH`, fresh copies per simulation).

Speed (profile in docs/performance.md): draws step PCG64 in the kernel (:func:`reelforge.mechanics.rng.draw_pcg`, the
same stream as ``Generator.random()``); a board is evaluated from per-reel copy counts packed 4 bits per symbol in one
int64, and a symbol is only looked at when reels 1-3 all show it or a WILD (one AND of presence masks rejects most
boards); the spin and the free spins are inlined into the round, and the round into the harness loop over borrowed
tables, so no array is reference-counted per round (the same round under numba's reference counting ran at half the
speed: 7,100 against 14,000 rounds per million raw draws); zero-win rounds are tallied once per chunk.

Why its own ways and not the mechanics library's :func:`~reelforge.mechanics.pays.ways_wins`: the library's would not
pay the same rounds, for it pays ways made only of WILDs, which these rules do not (of 10^6 boards of build 96.2 with
one column turned WILD, as the Vertical WILD does, 84 pay differently); on the first boards, where both pay the same,
it costs 218 CPU ns a board against 28 ns here, 7.8x (the window and copies decoded from the cell codes;
``bench/library_kernels.py``, one run).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.game.buildfile import kernel_tables
from reelforge.game.contract import RulesError
from reelforge.game.loop import NO_PAYS, kernel_loop, record, round_function
from reelforge.games.forge_of_gems.build import (
    COPY_LIMITS,
    F_HSPLIT,
    F_HWILD,
    F_MULT,
    F_SCATTER,
    F_VSPLIT,
    F_VWILD,
    GEMBOX_REWARDS,
    MAX_WAYS,
    N_PAY,
    REELS,
    ROWS,
    SCATTER,
    WILD,
    Build,
)
from reelforge.mechanics.rng import draw_pcg
from reelforge.mechanics.tumble import EMPTY

N_NORMAL = N_PAY + 2
MIN_LENGTH = 3

MIN_WAYS = 3**REELS
WAYS_EDGES = np.array([MIN_WAYS + 1] + [MIN_WAYS * 2**k for k in range(1, 8)], dtype=np.int64)
"""Lower edges of the first-board ways bins after ``[243]``: 244, 486, 972 ... 31104 (doubling, a log
scale: ways = 243 x the product of the reels' copies / 3); the last bin runs to MAX_WAYS (36,288)."""
N_WAYS_BINS = WAYS_EDGES.shape[0] + 1


def ways_bin_labels() -> list[str]:
    """``243``, ``244-485``, ``486-971`` ... ``31104-36288``."""
    lows = [MIN_WAYS, *(int(e) for e in WAYS_EDGES)]
    highs = [MIN_WAYS, *(int(e) - 1 for e in WAYS_EDGES[1:]), MAX_WAYS]
    return [str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in zip(lows, highs, strict=True)]


# Counter layout (names in :data:`COUNTERS`).
COUNTERS = (
    "gembox_s3", "gembox_s4", "gembox_s5",
    "reward_s3_prize20", "reward_s3_fs8", "reward_s3_fs10",
    "reward_s4_prize30", "reward_s4_fs10", "reward_s4_fs15",
    "reward_s5_prize40_fs10", "reward_s5_fs15", "reward_s5_fs20",
    "free_spin_triggers", "free_spins_played", "cap_hits",
    "paid_spin_hits", "paid_spin_cascades", "multiplier_landings",
    *(f"ways_{lab}" for lab in ways_bin_labels()),
    *(f"ways_peak_{lab}" for lab in ways_bin_labels()),
    *(f"ways_peak_win_{lab}" for lab in ways_bin_labels()),
    "triggers",
)
"""``triggers`` counts GEMBOX awards (the feature; the summary's feature rate). Ways histograms
(bins of :data:`WAYS_EDGES`), one count per paid spin: ``ways_*`` the ways of its first board,
``ways_peak_*`` the most ways of any board it evaluated (the first and each board after a
cascade: Splitters raise the ways as the spin goes on); ``ways_peak_win_*`` the paid-spin wins
(units) of the spins in each peak bin, so the paid-spin RTP splits by peak ways."""
K_GEMBOX = 0
K_REWARD = 3
K_TRIGGERS, K_FS_PLAYED, K_CAP, K_PAID_HITS, K_PAID_CASCADES, K_MULT = 12, 13, 14, 15, 16, 17
K_WAYS = 18
K_WAYS_PEAK = K_WAYS + N_WAYS_BINS
K_WAYS_PEAK_WIN = K_WAYS_PEAK + N_WAYS_BINS
K_FEATURE = K_WAYS_PEAK_WIN + N_WAYS_BINS

# Spin result slots.
(R_MULT, R_SCAT, R_CAPPED, R_WAYS, R_CASC, R_MULT_LANDINGS, R_FIRST_SCAT, R_PEAK_WAYS, R_PAYS, R_REFILL_FIRST,
 R_REFILL_OTHER, R_FORGE_SCAT_LANDINGS, R_FORGE_DRAWS, R_FORGE_SCAT_DRAWS) = range(14)
N_RES = 14
"""``R_PAYS``: the spin's wins as if the multiplier were 1 throughout (the estimator splits a free spin's win
into multiplier x pays + the rest). The draws a spin made, for importance sampling's likelihood ratio:
cells refilled on reel 1 and on reels 2-5 (``R_REFILL_*``, after the first board's 15), FORGE REEL SCATTERs
that landed, FORGE REEL draws and the SCATTERs among them."""


class Tables(NamedTuple):
    """A build flattened for the kernel, with the scratch a round works in (board to res: the harness
    gives each simulation fresh copies, :data:`SCRATCH`)."""

    cell_code: np.ndarray      # [5, max_total] cell code per unit of weight
    cell_total: np.ndarray     # [5]
    forge_base: np.ndarray     # expanded forge ids
    forge_free: np.ndarray
    targets: np.ndarray        # expanded paying symbol ids
    gembox: np.ndarray         # [3, max_total] expanded reward index, classes 3, 4, 5
    gembox_total: np.ndarray   # [3]
    prize_units: np.ndarray    # [3, 3]
    spins: np.ndarray          # [3, 3]
    paytable: np.ndarray       # [N_PAY, 6] units per way
    limits: np.ndarray         # [5]
    cap_units: int
    board: np.ndarray          # [5, 3] cell codes
    forge: np.ndarray          # [5] the FORGE REEL
    packs: np.ndarray          # [5] packed copy counts
    remove: np.ndarray         # [5] removal masks
    land: np.ndarray           # [5, 4] landings of a cascade
    res: np.ndarray            # [8] a spin's results (R_*)


SCRATCH = ("board", "forge", "packs", "remove", "land", "res")
"""The fields of :class:`Tables` a round writes."""


def tables(build: Build) -> Tables:
    """The kernel tables of ``build``, made once per build object (the one kernel-table cache)."""
    return kernel_tables(build, make_tables)


def make_tables(build: Build) -> Tables:
    """``build`` flattened for the kernel (rules version 1 refused: only the reference engine plays it)."""
    if build.rules != "2":
        raise RulesError(f"forge-of-gems build {build.identity.label} plays rules version {build.rules} (fresh "
                         "cells may land split), which only the reference engine plays: it is kept to replay and "
                         "finish the rounds played with it; simulate a current version")
    totals = np.array([c.total for c in build.cells], dtype=np.int64)
    cell_code = np.zeros((REELS, int(totals.max())), dtype=np.int64)
    for r, c in enumerate(build.cells):
        cell_code[r, : c.total] = c.expanded() * 4 + 1  # symbols land single
    g_tot = np.array([build.gembox[k].total for k in (3, 4, 5)], dtype=np.int64)
    gembox = np.zeros((3, int(g_tot.max())), dtype=np.int64)
    for i, k in enumerate((3, 4, 5)):
        e = build.gembox[k].expanded()
        gembox[i, : len(e)] = e
    prize = np.array([[p * build.unit for p, _ in GEMBOX_REWARDS[k]] for k in (3, 4, 5)], dtype=np.int64)
    spins = np.array([[s for _, s in GEMBOX_REWARDS[k]] for k in (3, 4, 5)], dtype=np.int64)
    t = Tables(cell_code=cell_code, cell_total=totals, forge_base=build.forge_base.expanded(),
               forge_free=build.forge_free.expanded(), targets=build.targets.expanded(), gembox=gembox,
               gembox_total=g_tot, prize_units=prize, spins=spins,
               paytable=np.array(build.paytable, dtype=np.int64), limits=np.array(COPY_LIMITS, dtype=np.int64),
               cap_units=build.cap_units, board=np.full((REELS, ROWS), EMPTY, dtype=np.int64),
               forge=np.zeros(REELS, dtype=np.int64), packs=np.zeros(REELS, dtype=np.int64),
               remove=np.zeros(REELS, dtype=np.int64), land=np.zeros((REELS, 4), dtype=np.int64),
               res=np.zeros(N_RES, dtype=np.int64))
    return t


PAY_MASK = (1 << N_PAY) - 1
WILD_BIT = 1 << WILD
NIBBLE = 4
"""Bits per symbol in a reel's packed copy counts (a reel holds at most 9 copies)."""


@njit(cache=True, inline="always")
def _col_copies(board, c):
    return (board[c, 0] & 3) + (board[c, 1] & 3) + (board[c, 2] & 3)


@njit(cache=True, inline="always")
def _draw_cell(st, cell_code, cell_total, c):
    """A fresh single cell for reel ``c`` (it always fits the reel's copy limit)."""
    return cell_code[c, draw_pcg(st, cell_total[c])]


@njit(cache=True, inline="always")
def _ways_bin(ways):
    """Bin of a board's ways on :data:`WAYS_EDGES` (0: exactly 243)."""
    b = 0
    for e in WAYS_EDGES:
        b += np.int64(ways >= e)
    return b


@njit(cache=True, inline="always")
def _gain(board, limits, c, r):
    cell = board[c, r]
    if (cell & 3) >= 3:
        return
    if _col_copies(board, c) >= limits[c]:
        return
    board[c, r] = cell + 1


PAY_LENGTHS = REELS - MIN_LENGTH + 1
"""A way win's lengths (3-5 reels): a per-pay key is symbol x PAY_LENGTHS + length - 3 (paid spin; free spins next)."""


@njit(cache=True, inline="always")
def _evaluate(board, paytable, multiplier, packs, remove, rec, offset, paid_with):
    """The units every paying symbol's longest way win adds on ``board`` (0: no win); ``remove[c]``
    gets the symbol bits whose cells reel ``c`` loses (the winners and WILD on their reels). Each win times
    ``paid_with`` is recorded at ``rec[offset + key]`` (``NO_PAYS``, the plain kernel's: nothing recorded)."""
    allowed = PAY_MASK
    for c in range(REELS):
        pk = 0
        present = 0
        for r in range(ROWS):
            x = board[c, r]
            sym = x >> 2
            pk += (x & 3) << (NIBBLE * sym)
            present |= 1 << sym
        packs[c] = pk
        remove[c] = 0
        if c < MIN_LENGTH and not present & WILD_BIT:
            allowed &= present  # a symbol reaches 3 reels only if each shows it or a WILD
    if allowed == 0:
        return 0
    amount = 0
    for s in range(N_PAY):
        if not (allowed >> s) & 1:
            continue
        ways = 1
        wild_ways = 1
        k = 0
        for c in range(REELS):
            w = (packs[c] >> (NIBBLE * WILD)) & 15
            m = ((packs[c] >> (NIBBLE * s)) & 15) + w
            if m == 0:
                break
            ways *= m
            wild_ways *= w
            k += 1
        if ways > wild_ways:  # k >= 3 here; ways made only of WILDs do not count
            pay = paytable[s, k]
            if pay > 0:
                amount += pay * (ways - wild_ways) * multiplier
                record(rec, offset + s * PAY_LENGTHS + k - MIN_LENGTH, pay * (ways - wild_ways) * paid_with)
                for c in range(k):
                    remove[c] |= (1 << s) | WILD_BIT
    return amount


@njit(cache=True, inline="always")
def _first_board(st, cell_code, cell_total, forge_tab, board, forge, fresh) -> bool:
    """A spin's first draws: the 15 cells (unless not ``fresh``: the board is given), then the 5 FORGE REEL
    positions; whether a Multiplier shows."""
    if fresh:
        for c in range(REELS):
            for r in range(ROWS):
                board[c, r] = _draw_cell(st, cell_code, cell_total, c)
    has_mult = False
    for c in range(REELS):
        forge[c] = forge_tab[draw_pcg(st, forge_tab.shape[0])]
        has_mult |= forge[c] == F_MULT
    return has_mult


@njit(cache=True, inline="always")
def _spin(st, cell_code, cell_total, forge_tab, targets, paytable, limits, cap_units,
          free, multiplier, total_before, board, forge, packs, remove, land, res, fresh):
    """One spin and its cascades; returns the units it adds (capped). Fills ``res``. Not ``fresh``: the spin
    starts from the cells already on ``board`` (the estimator's repeated continuations of one first board)."""
    return _spin_recorded(st, cell_code, cell_total, forge_tab, targets, paytable, limits, cap_units, free, multiplier,
                          total_before, board, forge, packs, remove, land, res, fresh, NO_PAYS, 0)


@njit(cache=True, inline="always")
def _spin_recorded(st, cell_code, cell_total, forge_tab, targets, paytable, limits, cap_units,
                   free, multiplier, total_before, board, forge, packs, remove, land, res, fresh, rec, offset):
    """:func:`_spin`, each way win recorded at ``rec[offset + key]`` (before the cap, which is its own row)."""
    has_mult = _first_board(st, cell_code, cell_total, forge_tab, board, forge, fresh)
    nf = forge_tab.shape[0]
    forge_scat_draws = 0
    for c in range(REELS):
        forge_scat_draws += np.int64(forge[c] == F_SCATTER)
    if free and not has_mult:
        forge[draw_pcg(st, REELS)] = F_MULT
    ways_first = 1
    first_scat = 0
    for c in range(REELS):
        ways_first *= _col_copies(board, c)
        for r in range(ROWS):
            first_scat += np.int64((board[c, r] >> 2) == SCATTER)
    peak_ways = ways_first
    nt = targets.shape[0]
    win = 0
    cascades = 0
    mult_landings = 0
    capped = 0
    pays = 0
    refill_first = 0
    refill_other = 0
    forge_scat_landings = 0
    forge_draws = REELS
    while True:
        pay = _evaluate(board, paytable, 1, packs, remove, rec, offset, multiplier)
        if pay == 0:
            break
        amount = pay * multiplier
        pays += pay
        if total_before + win + amount >= cap_units:
            win = cap_units - total_before
            capped = 1
            break
        win += amount
        cascades += 1
        n_land = 0
        for c in range(REELS):
            rm = remove[c]
            if rm == 0:
                continue
            write = ROWS - 1
            for r in range(ROWS - 1, -1, -1):  # survivors fall, keeping their order
                x = board[c, r]
                board[c, write] = x
                write -= 1 - ((rm >> (x >> 2)) & 1)
            if write >= 0:
                for r in range(write + 1):
                    board[c, r] = EMPTY
                land[n_land, 0] = c
                land[n_land, 1] = write
                land[n_land, 2] = forge[c]
                land[n_land, 3] = -1
                n_land += 1
        for i in range(n_land):
            c = land[i, 0]
            if land[i, 2] == F_SCATTER:
                board[c, land[i, 1]] = SCATTER * 4 + 1
                forge_scat_landings += 1
            else:
                t = targets[draw_pcg(st, nt)]
                land[i, 3] = t
                board[c, land[i, 1]] = t * 4 + 1
        for i in range(n_land):  # the other empty cells: above the landing cell, top to bottom
            c = land[i, 0]
            if c == 0:
                refill_first += land[i, 1]
            else:
                refill_other += land[i, 1]
            for r in range(land[i, 1]):
                board[c, r] = _draw_cell(st, cell_code, cell_total, c)
        for i in range(n_land):
            c = land[i, 0]
            r = land[i, 1]
            f = land[i, 2]
            t = land[i, 3]
            if f == F_VWILD:
                for rr in range(ROWS):
                    x = board[c, rr]
                    if (x >> 2) != SCATTER:
                        board[c, rr] = WILD * 4 + (x & 3)
            elif f == F_HWILD:
                for cc in range(REELS):
                    x = board[cc, r]
                    sym = x >> 2
                    if (cc == c or sym == t) and sym != SCATTER:
                        board[cc, r] = WILD * 4 + (x & 3)
            elif f == F_VSPLIT:
                for rr in range(ROWS):
                    if (board[c, rr] >> 2) == t:
                        _gain(board, limits, c, rr)
            elif f == F_HSPLIT:
                x = board[c, r]
                if (x >> 2) != SCATTER:
                    board[c, r] = WILD * 4 + (x & 3)
                for cc in range(REELS):
                    if (board[cc, r] >> 2) != SCATTER:
                        _gain(board, limits, cc, r)
            elif f == F_MULT:
                multiplier += 1
                mult_landings += 1
        for i in range(n_land):
            f = forge_tab[draw_pcg(st, nf)]
            forge[land[i, 0]] = f
            forge_scat_draws += np.int64(f == F_SCATTER)
        forge_draws += n_land
        ways_now = 1
        for c in range(REELS):
            ways_now *= _col_copies(board, c)
        if ways_now > peak_ways:
            peak_ways = ways_now
    scat = 0
    for c in range(REELS):
        for r in range(ROWS):
            scat += np.int64((board[c, r] >> 2) == SCATTER)
    res[R_MULT] = multiplier
    res[R_SCAT] = scat
    res[R_CAPPED] = capped
    res[R_WAYS] = ways_first
    res[R_CASC] = cascades
    res[R_MULT_LANDINGS] = mult_landings
    res[R_FIRST_SCAT] = first_scat
    res[R_PEAK_WAYS] = peak_ways
    res[R_PAYS] = pays
    res[R_REFILL_FIRST] = refill_first
    res[R_REFILL_OTHER] = refill_other
    res[R_FORGE_SCAT_LANDINGS] = forge_scat_landings
    res[R_FORGE_DRAWS] = forge_draws
    res[R_FORGE_SCAT_DRAWS] = forge_scat_draws
    return win


@njit(cache=True, inline="always")
def _free_spins(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units,
                n_spins, total_before, board, forge, packs, remove, land, res, counters, rec):
    """Play a free-spin feature of ``n_spins``; returns its units (capped with the round); way wins in ``rec``."""
    mult = 1
    total = 0
    for _ in range(n_spins):
        counters[K_FS_PLAYED] += 1
        w = _spin_recorded(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units,
                           True, mult, total_before + total, board, forge, packs, remove, land, res, True, rec,
                           N_PAY * PAY_LENGTHS)
        total += w
        mult = res[R_MULT]
        counters[K_MULT] += res[R_MULT_LANDINGS]
        if res[R_CAPPED]:
            break
    return total


@njit(cache=True)
def _workspace():
    """The per-worker buffers a spin works in (made once per kernel call, reused every round):
    board, forge reel, packed counts, removal masks, landings, spin results."""
    return (np.empty((REELS, ROWS), dtype=np.int64), np.empty(REELS, dtype=np.int64),
            np.zeros(REELS, dtype=np.int64), np.zeros(REELS, dtype=np.int64),
            np.zeros((REELS, 4), dtype=np.int64), np.zeros(N_RES, dtype=np.int64))


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """One paid round (the harness's round function): the paid spin and its cascades, then, on 3+
    scatters, the GEMBOX draw, its prize and its free spins. Parts: paid spin, GEMBOX prize, free
    spins (each capped with the round at ``cap``)."""
    play_paid_round(st, t, cap, parts, counters, NO_PAYS)


GEMBOX_KEYS = 2 * N_PAY * PAY_LENGTHS
"""The per-pay keys of the GEMBOX prizes (one per scatter class 3, 4, 5+), after the way wins'."""


@njit(cache=True, inline="always")
def play_paid_round(st, t, cap, parts, counters, rec):
    """:func:`play_round`'s round, way wins and GEMBOX prizes recorded in ``rec`` before the cap (:mod:`.pay_kernel`)."""
    res = t.res
    base = _spin_recorded(st, t.cell_code, t.cell_total, t.forge_base, t.targets, t.paytable, t.limits, cap,
                          False, 1, 0, t.board, t.forge, t.packs, t.remove, t.land, res, True, rec, 0)
    parts[0] = base
    counters[K_MULT] += res[R_MULT_LANDINGS]
    counters[K_PAID_CASCADES] += res[R_CASC]
    counters[K_WAYS + _ways_bin(res[R_WAYS])] += 1
    pb = _ways_bin(res[R_PEAK_WAYS])
    counters[K_WAYS_PEAK + pb] += 1
    if base > 0:
        counters[K_PAID_HITS] += 1
        counters[K_WAYS_PEAK_WIN + pb] += base
    if res[R_CAPPED]:
        counters[K_CAP] += 1
    elif res[R_SCAT] >= 3:
        k = res[R_SCAT] - 3
        if k > 2:
            k = 2
        counters[K_GEMBOX + k] += 1
        counters[K_FEATURE] += 1
        j = t.gembox[k, draw_pcg(st, t.gembox_total[k])]
        counters[K_REWARD + 3 * k + j] += 1
        prize = t.prize_units[k, j]
        record(rec, GEMBOX_KEYS + k, prize)
        if base + prize >= cap:
            parts[1] = cap - base
            counters[K_CAP] += 1
        else:
            parts[1] = prize
            n = t.spins[k, j]
            if n > 0:
                counters[K_TRIGGERS] += 1
                total = base + prize
                f_won = _free_spins(st, t.cell_code, t.cell_total, t.forge_free, t.targets, t.paytable, t.limits,
                                    cap, n, total, t.board, t.forge, t.packs, t.remove, t.land, res, counters, rec)
                parts[2] = f_won
                if total + f_won >= cap:
                    counters[K_CAP] += 1


LOOP = kernel_loop(play_round)
