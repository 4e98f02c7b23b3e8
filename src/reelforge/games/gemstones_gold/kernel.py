"""Gemstones Gold numba kernel: the rules of :mod:`.rules` for simulation.

Same draws in the same order as the reference engine (see its docstring), so
fed the same seed both play identical rounds (tests/games/gemstones_gold).
The rules' numbers (scatters that trigger, spins awarded, blockers, the winning
count) come from the build module, the one source rules.py reads too, and reach
the compiled code as the :data:`RULES` array (a numba global would be frozen into
the on-disk cache).

Speed (profile in docs/performance.md): draws step PCG64 in the
kernel (:func:`reelforge.mechanics.rng.draw_pcg`); the first evaluation of a spin
adds six per-stop packed counts (``packed[reel, stop]``, 7 bits per symbol) so the
~65% of spins without a win never build a board, and the counts stay packed in one
int64 through the cascades, updated as cells explode and drop in (no recount);
lanes and multiplier values are drawn in the reference order but mapped to lanes
and values only when the spin won. The round is one round function, :func:`play_round`,
over one :class:`Tables` (the build's arrays, the rules' numbers and the round's
scratch buffers), run by the harness's chunk loop (:data:`LOOP`,
:func:`reelforge.game.loop.kernel_loop`: tables borrowed, the round inlined, statistics
streamed into a :class:`reelforge.core.stats.Tally`); every function the round calls is
inlined, the feature included (:func:`play_free_spins`). Against the former hand-written
chunk loops (``reelforge bench gemstones-gold --mode M``, rounds per 1e6 raw draws,
median of 3 runs each): paid 20,274 against 8,692, buy 1,648 against 913.

Why its own evaluator and not the mechanics library's (the reference rules use the library:
:func:`~reelforge.mechanics.pays.anywhere_wins`, :func:`~reelforge.mechanics.cascade.clear_and_fall`,
:func:`~reelforge.mechanics.cascade.refill_from_strips`): played through those functions, the same 10^6
spins of build 96.71 pay the same, at 519 CPU ns a spin against 71 ns here, 7.3x slower
(``bench/library_kernels.py``, one run); the packed counts never build the board of a spin without a
win, and ``clear_and_fall`` allocates, which a round function may not.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.core.stats import Tally, bucket_edges_units
from reelforge.game.loop import NO_PAYS, kernel_loop, record, round_function
from reelforge.games.gemstones_gold.build import (
    BASE_BLOCKERS,
    BASE_LANES,
    COINS_PER_BET,
    FREE_BLOCKERS,
    FREE_SPINS_AWARD,
    FREE_SPINS_PER_EXTRA_SCATTER,
    MIN_COUNT,
    N_PAYING,
    REELS,
    RETRIGGER_SCATTERS,
    RETRIGGER_SPINS,
    ROWS,
    SCATTER,
    TIER_FROM,
    TRIGGER_SCATTERS,
    VALUE_MAX,
    Build,
)
from reelforge.mechanics.features import capped
from reelforge.mechanics.rng import draw, draw_pcg, pcg_state, store_pcg_state

COMPONENTS = ("paid_spins", "free_spins")

MULT_EDGES = np.array([3, 4, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000], dtype=np.int64)
"""Upper edges of the multiplier-sum bins: [2], [3], [4], [5,10), [10,20) ... [2000,5000), [5000,inf).
Exact for the single small values that dominate, 1-2-5 steps (log scale) above."""
N_MULT_BINS = MULT_EDGES.shape[0] + 1
N_PAID_SUM_BINS = int(np.searchsorted(MULT_EDGES, 3 * VALUE_MAX, side="right")) + 1
"""A paid spin reveals at most 3 values of at most VALUE_MAX (1,500: bins up to [1000,2000))."""


def mult_bin_labels(n: int = N_MULT_BINS) -> list[str]:
    """Labels of the first ``n`` multiplier-sum bins (``2``, ``3``, ``4``, ``5-9`` ... ``5000+``)."""
    lows = [2, *(int(e) for e in MULT_EDGES)]
    out = []
    for i in range(n):
        lo = lows[i]
        hi = lows[i + 1] - 1 if i + 1 < len(lows) else None
        out.append(str(lo) if hi == lo else (f"{lo}-{hi}" if hi is not None else f"{lo}+"))
    return out


COUNTERS = (("triggers", "trigger_hits", "cap_hits", "free_spins_played", "retriggers", "paid_multiplied",
             "feature_m_total")
            + tuple(f"paid_sum_{lab}" for lab in mult_bin_labels(N_PAID_SUM_BINS))
            + ("feature_m_0",) + tuple(f"feature_m_{lab}" for lab in mult_bin_labels()))
C_TRIG, C_TRIG_HIT, C_CAP, C_FS, C_RETRIG, C_PMULT, C_MTOT = range(7)
C_PSUM = 7
C_FM = C_PSUM + N_PAID_SUM_BINS

N_TIERS = len(TIER_FROM)
N_PAY_KEYS = N_PAYING * N_TIERS
"""Pays of the per-pay kernel: one key per paying symbol and count tier (symbol x N_TIERS + tier)."""
KEY_BITS = 8
KEY_MASK = (1 << KEY_BITS) - 1
KEYS_PER_REPLAY = 2 * N_TIERS
"""Keys one replay of a spin's cascades counts: two symbols' tiers, an 8-bit field each (a spin would need
256 wins of one symbol in one tier to overflow one; :func:`.pay_kernel.play_round_by_pay` checks every round adds up)."""

FIELD = 7
"""Bits per symbol in packed counts (a board holds at most 36 of a symbol)."""
PAYING_ADD = sum((64 - MIN_COUNT) << (FIELD * s) for s in range(N_PAYING))
"""Added to packed counts: a paying field reaches bit 6 (64) exactly when its count is MIN_COUNT or more."""
PAYING_HIGH = sum(64 << (FIELD * s) for s in range(N_PAYING))

(R_TRIGGER, R_AWARD, R_PER_EXTRA, R_RETRIGGER, R_RETRIGGER_SPINS, R_LANES, R_BASE_BLOCKERS,
 R_FREE_BLOCKERS, R_ADD, R_HIGH) = range(10)


def rules_table(trigger_scatters: int = TRIGGER_SCATTERS, award: int = FREE_SPINS_AWARD,
                per_extra_scatter: int = FREE_SPINS_PER_EXTRA_SCATTER, retrigger_scatters: int = RETRIGGER_SCATTERS,
                retrigger_spins: int = RETRIGGER_SPINS, base_lanes: int = BASE_LANES,
                base_blockers: int = BASE_BLOCKERS, free_blockers: int = FREE_BLOCKERS,
                min_count: int = MIN_COUNT) -> np.ndarray:
    """The rules' numbers as the kernels read them (``R_*`` order); the defaults are the build
    module's, the one source rules.py reads too."""
    if not 1 <= min_count <= 36 or not 0 <= base_lanes <= REELS:
        raise ValueError("min_count must be in 1..36 and base_lanes in 0..6")
    add = sum((64 - min_count) << (FIELD * s) for s in range(N_PAYING))
    return np.array([trigger_scatters, award, per_extra_scatter, retrigger_scatters, retrigger_spins, base_lanes,
                     base_blockers, free_blockers, add, PAYING_HIGH], dtype=np.int64)


RULES = rules_table()
"""The shipped rules (every build shares them)."""


def _nth_lane_table() -> np.ndarray:
    """``[free-lane mask, j]``: the j-th free lane in ascending order (the reference's ``list.pop(j)``)."""
    t = np.zeros((1 << REELS, REELS), dtype=np.int64)
    for mask in range(1 << REELS):
        for j, lane in enumerate(r for r in range(REELS) if mask >> r & 1):
            t[mask, j] = lane
    return t


NTH_FREE_LANE = _nth_lane_table()


@njit(cache=True, inline="always")
def cascades(strips, lens, packed, pay, add, high_bits, stops, board, q, above) -> tuple[int, int]:
    """Play one spin's cascades from ``stops``: ``(W, scatters)``, the unmultiplied win in coins
    and the scatters on the final board; ``q[c]`` receives the number of winning cascades with a
    winning cell in column ``c`` (what removes blockers, one per cascade). ``above`` (int64[6])
    holds the refill pointers. ``add`` / ``high_bits``: :data:`PAYING_ADD` / :data:`PAYING_HIGH`.
    """
    tally = 0
    for r in range(REELS):
        q[r] = 0
        tally += packed[r, stops[r]]
    high = (tally + add) & high_bits
    if high == 0:
        return 0, (tally >> (FIELD * SCATTER)) & 127
    for r in range(REELS):
        n = lens[r]
        st = stops[r]
        if st + ROWS <= n:
            for k in range(ROWS):
                board[r, k] = strips[r, st + k]
        else:
            for k in range(ROWS):
                p = st + k
                board[r, k] = strips[r, p if p < n else p - n]
        above[r] = st - 1 if st > 0 else n - 1
    total = 0
    while high != 0:
        wmask = 0
        for s in range(N_PAYING):
            if (high >> (FIELD * s + 6)) & 1:
                wmask |= 1 << s
                total += pay[s, (tally >> (FIELD * s)) & 127]
                tally &= ~(127 << (FIELD * s))  # every cell of a winning symbol explodes
        for r in range(REELS):
            # survivors fall to the bottom in order; the cells above refill up the strip
            write = ROWS - 1
            for k in range(ROWS - 1, -1, -1):
                v = board[r, k]
                board[r, write] = v
                write -= 1 - ((wmask >> v) & 1)  # branch-free: a winning cell is a coin toss
            if write >= 0:
                q[r] += 1
                p = above[r]
                n = lens[r]
                for row in range(write, -1, -1):
                    v = strips[r, p]
                    board[r, row] = v
                    tally += 1 << (FIELD * v)
                    p = p - 1 if p > 0 else n - 1
                above[r] = p
        high = (tally + add) & high_bits
    return total, (tally >> (FIELD * SCATTER)) & 127


@njit(cache=True, inline="always")
def spin_core(strips, lens, packed, pay, stops, board, q, counts, work) -> tuple[int, int]:
    """:func:`cascades` with the shipped winning count, for the design module's samplers:
    ``work`` (int64[12], from :func:`make_bufs`) holds the refill pointers; ``counts`` is unused."""
    return cascades(strips, lens, packed, pay, PAYING_ADD, PAYING_HIGH, stops, board, q, work)


@njit(cache=True, inline="always")
def mult_bin(s) -> int:
    """Bin of a multiplier sum ``s >= 2`` on :data:`MULT_EDGES`."""
    i = 0
    while i < MULT_EDGES.shape[0] and s >= MULT_EDGES[i]:
        i += 1
    return i


@njit(cache=True, inline="always")
def value_of(x, values, cum) -> int:
    """The value a draw ``x`` in ``[0, cum[-1])`` picks: the first ``i`` with ``x < cum[i]``
    (counted without branches: the first few values hold most of the weight)."""
    i = 0
    for j in range(cum.shape[0] - 1):
        i += np.int64(x >= cum[j])
    return values[i]


@njit(cache=True, inline="always")
def weighted(rng, values, cum) -> int:
    """One weighted value drawn from a numpy Generator (the design module's samplers)."""
    return value_of(draw(rng, cum[cum.shape[0] - 1]), values, cum)


@njit(cache=True, inline="always")
def paid_draws(st, lens, base_cum, rules, stops, picks, xs) -> None:
    """The paid spin's draws in the reference order: reel stops, lane picks, value draws."""
    for r in range(REELS):
        stops[r] = draw_pcg(st, lens[r])
    lanes = rules[R_LANES]
    for i in range(lanes):  # distinct lanes: the i-th draw picks among the REELS - i still free
        picks[i] = draw_pcg(st, REELS - i)
    total_weight = base_cum[base_cum.shape[0] - 1]
    for i in range(lanes):
        xs[i] = draw_pcg(st, total_weight)


@njit(cache=True, inline="always")
def paid_spin(st, strips, lens, packed, pay, values, base_cum, rules, stops, board, q, above, picks, xs):
    """The paid spin: ``(win coins, scatters, multiplier sum)`` (win before the round cap)."""
    paid_draws(st, lens, base_cum, rules, stops, picks, xs)
    lanes = rules[R_LANES]
    w, sc = cascades(strips, lens, packed, pay, rules[R_ADD], rules[R_HIGH], stops, board, q, above)
    s = 0
    if w > 0:  # lanes and values only matter when the spin won
        free = (1 << REELS) - 1
        blockers = rules[R_BASE_BLOCKERS]
        for i in range(lanes):
            lane = NTH_FREE_LANE[free, picks[i]]
            free &= ~(1 << lane)
            if q[lane] >= blockers:
                s += value_of(xs[i], values, base_cum)
    if s > 0:
        return w * s, sc, s
    return w, sc, 0


NO_KEYS = np.zeros((0, N_PAYING, 37), dtype=np.int64)
"""What the plain kernel hands :func:`play_free_spins` for the per-pay kernel's keys (its coins and pays: the
harness's :data:`~reelforge.game.loop.NO_PAYS`): empty globals, so read-only constants to numba; their records are
no-ops (:func:`~reelforge.game.loop.record`): the plain kernel compiles to what it was before the per-pay kernel."""


@njit(cache=True, inline="always")
def add_pays(strips, lens, packed, rules, stops, board, q, above, keys, coins, mult, rec, offset) -> None:
    """Add the pays of the spin at ``stops`` (its cascades replayed: they draw nothing) to ``rec[offset + key]``,
    each times ``mult``; ``key`` = symbol x :data:`N_TIERS` + tier. Each replay pays by the key tables ``keys``
    (:func:`.pay_kernel.pay_key_tables`): a win of a key adds 1 to its own :data:`KEY_BITS`-bit field, so one replay counts
    the wins of :data:`KEYS_PER_REPLAY` keys."""
    for g in range(keys.shape[0]):
        packed_wins, _ = cascades(strips, lens, packed, keys[g], rules[R_ADD], rules[R_HIGH], stops, board, q, above)
        for f in range(KEYS_PER_REPLAY):
            n = (packed_wins >> (KEY_BITS * f)) & KEY_MASK
            if n:
                key = g * KEYS_PER_REPLAY + f
                record(rec, offset + key, n * coins[key] * mult)


@njit(cache=True, inline="always")
def play_free_spins(st, strips, lens, packed, pay, values, free_cum, rules, stops, board, q, above, xs,
                    spins, start_units, cap, out, keys, coins, rec):
    """Play a feature of ``spins`` free spins; the round already holds ``start_units``.

    Returns the units the feature adds (capped) and fills ``out`` with
    ``[spins played, retriggers, cap reached, final total multiplier M]``. Where ``rec`` has slots (the
    per-pay kernel, :func:`play_round_by_pay`), each spin's pays are added to its free-spin keys (:func:`add_pays`).
    """
    m = 0
    total = start_units
    played = 0
    retrig = 0
    reached = False
    left = spins
    total_weight = free_cum[free_cum.shape[0] - 1]
    blockers = rules[R_FREE_BLOCKERS]
    while left > 0:
        for r in range(REELS):
            stops[r] = draw_pcg(st, lens[r])
        for r in range(REELS):
            xs[r] = draw_pcg(st, total_weight)
        w, sc = cascades(strips, lens, packed, pay, rules[R_ADD], rules[R_HIGH], stops, board, q, above)
        s = 0
        if w > 0:
            for r in range(REELS):
                if q[r] >= blockers:
                    s += value_of(xs[r], values, free_cum)
        if s > 0:
            m += s
            win = w * m
        else:
            win = w
        if rec.shape[0] > 0 and w > 0:
            add_pays(strips, lens, packed, rules, stops, board, q, above, keys, coins, m if s > 0 else 1, rec,
                     N_PAY_KEYS)
        played += 1
        left -= 1
        if sc >= rules[R_RETRIGGER]:
            left += rules[R_RETRIGGER_SPINS]
            retrig += 1
        added, reached = capped(total, win, cap)
        total += added
        if reached:
            break
    out[0] = played
    out[1] = retrig
    out[2] = reached
    out[3] = m
    return total - start_units


def free_spins(rng: np.random.Generator, strips: np.ndarray, lens: np.ndarray, packed: np.ndarray,
               pay: np.ndarray, values: np.ndarray, free_cum: np.ndarray, stops: np.ndarray, board: np.ndarray,
               q: np.ndarray, counts: np.ndarray, work: np.ndarray, vals: np.ndarray, spins: int,
               start_units: int, cap: int, out: np.ndarray) -> int:
    """:func:`play_free_spins` with the shipped rules, drawing from ``rng`` (which advances past the
    draws used), on :func:`make_bufs` buffers: for callers outside the kernels (tests, tools)."""
    st = pcg_state(rng)
    won = play_free_spins(st, strips, lens, packed, pay, values, free_cum, RULES, stops, board, q, work[:REELS],
                          vals, spins, start_units, cap, out, NO_KEYS, NO_PAYS, NO_PAYS)
    store_pcg_state(rng, st)
    return int(won)


@njit(cache=True)
def workspace():
    """Per-chunk buffers: stops, board, q, refill pointers, lane picks, value draws, feature results."""
    return (np.zeros(REELS, dtype=np.int64), np.zeros((REELS, ROWS), dtype=np.int8),
            np.zeros(REELS, dtype=np.int64), np.zeros(REELS, dtype=np.int64), np.zeros(REELS, dtype=np.int64),
            np.zeros(REELS, dtype=np.int64), np.zeros(4, dtype=np.int64))


@njit(cache=True, inline="always")
def feature_spins(rules, scatters) -> int:
    """Free spins a paid spin's final scatters award (0: no trigger)."""
    if scatters < rules[R_TRIGGER]:
        return 0
    return rules[R_AWARD] + rules[R_PER_EXTRA] * (scatters - rules[R_TRIGGER])


@njit(cache=True)
def make_bufs():
    """Buffers for :func:`spin_core` callers: stops, board, q, counts, work, lanes, vals, spare."""
    return (np.zeros(REELS, dtype=np.int64), np.zeros((REELS, ROWS), dtype=np.int8),
            np.zeros(REELS, dtype=np.int64), np.zeros(9, dtype=np.int64), np.zeros(2 * REELS, dtype=np.int64),
            np.zeros(REELS, dtype=np.int64), np.zeros(REELS, dtype=np.int64), np.zeros(4, dtype=np.int64))


@njit(cache=True, inline="always")
def _count_feature(counters, fout, won):
    counters[C_TRIG] += 1
    if won:
        counters[C_TRIG_HIT] += 1
    counters[C_FS] += fout[0]
    counters[C_RETRIG] += fout[1]
    if fout[2]:
        counters[C_CAP] += 1
    m = fout[3]
    counters[C_MTOT] += m
    counters[C_FM + (1 + mult_bin(m) if m > 0 else 0)] += 1


class Tables(NamedTuple):
    """A build flattened for :func:`play_round` (:func:`tables`): the build's arrays (see
    :func:`.build.flat_arrays`), the rules' numbers (:func:`rules_table`) and the round's scratch
    buffers (:data:`SCRATCH`, fresh per simulation)."""

    strips: np.ndarray
    lens: np.ndarray
    packed: np.ndarray
    pay: np.ndarray
    values: np.ndarray
    base_cum: np.ndarray
    free_cum: np.ndarray
    rules: np.ndarray
    stops: np.ndarray
    board: np.ndarray
    q: np.ndarray
    above: np.ndarray
    picks: np.ndarray
    xs: np.ndarray
    fout: np.ndarray


SCRATCH = ("stops", "board", "q", "above", "picks", "xs", "fout")
"""The fields of :class:`Tables` a round writes: stops, board, q, refill pointers, lane picks, value
draws, feature results."""


def tables(build: Build, rules: np.ndarray = RULES) -> Tables:
    """The build's :class:`Tables` under ``rules`` (default the shipped :data:`RULES`)."""
    a = build.arrays
    return Tables(a["strips"], a["lens"], a["packed"], a["pay"], a["values"], a["base_cum"], a["free_cum"], rules,
                  *workspace())


@round_function
def play_round(st, t, mode, cap, parts, counters):
    """One round of ``mode`` (0: paid, 1: bought feature). Parts: paid spin, free spins; counters:
    :data:`COUNTERS`."""
    if mode == 1:
        f = play_free_spins(st, t.strips, t.lens, t.packed, t.pay, t.values, t.free_cum, t.rules, t.stops, t.board,
                            t.q, t.above, t.xs, t.rules[R_AWARD], 0, cap, t.fout, NO_KEYS, NO_PAYS, NO_PAYS)
        parts[1] = f
        _count_feature(counters, t.fout, f > 0)
    else:
        p, sc, s = paid_spin(st, t.strips, t.lens, t.packed, t.pay, t.values, t.base_cum, t.rules, t.stops, t.board,
                             t.q, t.above, t.picks, t.xs)
        if p >= cap:
            parts[0] = cap
            counters[C_CAP] += 1
        else:
            parts[0] = p
            spins = feature_spins(t.rules, sc)
            if spins:
                f = play_free_spins(st, t.strips, t.lens, t.packed, t.pay, t.values, t.free_cum, t.rules, t.stops,
                                    t.board, t.q, t.above, t.xs, spins, p, cap, t.fout, NO_KEYS, NO_PAYS, NO_PAYS)
                parts[1] = f
                _count_feature(counters, t.fout, p + f > 0)
        if s > 0:
            counters[C_PMULT] += 1
            counters[C_PSUM + mult_bin(s)] += 1


LOOP = kernel_loop(play_round)
"""The harness's chunk loop around :func:`play_round` (what :class:`.game.GemstonesGold` runs)."""


def round_wins(st: np.ndarray, rounds: int, buy: bool, strips: np.ndarray, lens: np.ndarray, packed: np.ndarray,
               pay: np.ndarray, values: np.ndarray, base_cum: np.ndarray, free_cum: np.ndarray, rules: np.ndarray,
               cap: int) -> np.ndarray:
    """Per-round total wins (units) of :data:`LOOP` on these tables and ``rules`` from PCG64 state ``st``
    (advanced): for tests and tools that play other rule numbers than the shipped ones."""
    t = Tables(strips, lens, packed, pay, values, base_cum, free_cum, rules, *workspace())
    tally = Tally.empty(len(COMPONENTS), len(COUNTERS))
    wins = np.zeros(rounds, dtype=np.int64)
    LOOP(st, t, rounds, int(buy), cap, bucket_edges_units(COINS_PER_BET), wins, tally.totals, tally.components,
         tally.hist, tally.counters)
    return wins


def seed_state(seed: int | np.random.SeedSequence) -> np.ndarray:
    """The PCG64 state a kernel call starts from for ``seed`` (as ``Generator(PCG64(seed))``)."""
    return pcg_state(np.random.Generator(np.random.PCG64(seed)))
