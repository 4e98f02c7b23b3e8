"""Gemstones Gold's per-pay kernel: :func:`.kernel.play_round`'s rounds (the same draws and round wins) with each
win split by pay, symbol and count tier, paid spin and free spins apart, and the cap's reduction, for the PAR
sheet's per-pay tables (:func:`reelforge.game.parsheet.kernel_pay_sample`). A spin's cascades draw nothing, so
each winning spin's are replayed with key-counting pay tables (:func:`.kernel.add_pays`); the plain kernel's own
rounds are untouched."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reelforge.game.loop import kernel_loop, round_function
from reelforge.games.gemstones_gold.build import MIN_COUNT, N_PAYING, SYMBOL_NAMES, Build, tier_of
from reelforge.games.gemstones_gold.kernel import (
    KEY_BITS,
    KEYS_PER_REPLAY,
    N_PAY_KEYS,
    N_TIERS,
    R_AWARD,
    SCRATCH,
    Tables,
    add_pays,
    feature_spins,
    paid_spin,
    play_free_spins,
    tables,
)


def pay_key_tables() -> np.ndarray:
    """``[replay, symbol, count]``: what a win of ``count`` of ``symbol`` adds in each replay of
    :func:`add_pays`: 1 in its key's field in the replay that counts its symbol, else nothing."""
    keys = np.zeros((N_PAY_KEYS // KEYS_PER_REPLAY, N_PAYING, 37), dtype=np.int64)
    for sym in range(N_PAYING):
        for cnt in range(MIN_COUNT, 37):
            key = sym * N_TIERS + tier_of(cnt)
            keys[key // KEYS_PER_REPLAY, sym, cnt] = 1 << (KEY_BITS * (key % KEYS_PER_REPLAY))
    return keys


PayTables = NamedTuple("PayTables", [*((f, np.ndarray) for f in Tables._fields),
                                     ("keys", np.ndarray), ("coins", np.ndarray), ("rec", np.ndarray)])
PayTables.__doc__ = """:class:`.kernel.Tables` with the per-pay kernel's key tables (:func:`pay_key_tables`), each
key's coins and the round's pays per key (paid spin, then free spins)."""


PAY_SCRATCH = (*SCRATCH, "rec")


def pay_tables(build: Build) -> PayTables:
    """The per-pay kernel's tables of ``build`` (the shipped rules)."""
    pay = build.arrays["pay"]
    coins = np.array([pay[sym, next(c for c in range(37) if tier_of(c) == t)] for sym in range(N_PAYING)
                      for t in range(N_TIERS)], dtype=np.int64)
    return PayTables(*tables(build), pay_key_tables(), coins, np.zeros(2 * N_PAY_KEYS, dtype=np.int64))


@round_function
def play_round_by_pay(st, t, mode, cap, parts, counters):
    """:func:`play_round`, the same draws and round wins, with the round's win split by pay (on
    :func:`pay_tables`): parts: each key's win in the paid spin (symbol x N_TIERS + tier), then in free spins,
    then the cap's reduction (zero or less), adding up to the round's win; counters: the rounds each key pays in,
    the capped rounds, and the rounds whose keys paid less than the round (none: the replays add up)."""
    n = N_PAY_KEYS
    rec = t.rec
    for k in range(2 * n):
        rec[k] = 0
    total = 0
    if mode == 1:
        total = play_free_spins(st, t.strips, t.lens, t.packed, t.pay, t.values, t.free_cum, t.rules, t.stops,
                                t.board, t.q, t.above, t.xs, t.rules[R_AWARD], 0, cap, t.fout, t.keys, t.coins, rec)
    else:
        p, sc, s = paid_spin(st, t.strips, t.lens, t.packed, t.pay, t.values, t.base_cum, t.rules, t.stops, t.board,
                             t.q, t.above, t.picks, t.xs)
        if p > 0:
            add_pays(t.strips, t.lens, t.packed, t.rules, t.stops, t.board, t.q, t.above, t.keys, t.coins,
                     s if s > 0 else 1, rec, 0)
        if p >= cap:
            total = cap
        else:
            total = p
            spins = feature_spins(t.rules, sc)
            if spins:
                total += play_free_spins(st, t.strips, t.lens, t.packed, t.pay, t.values, t.free_cum, t.rules,
                                         t.stops, t.board, t.q, t.above, t.xs, spins, p, cap, t.fout, t.keys,
                                         t.coins, rec)
    paid = 0
    for k in range(2 * n):
        parts[k] = rec[k]
        paid += rec[k]
        if rec[k] > 0:
            counters[k] += 1
    parts[2 * n] = total - paid
    if total < paid:
        counters[2 * n] += 1
    elif total > paid:
        counters[2 * n + 1] += 1


LOOP_BY_PAY = kernel_loop(play_round_by_pay)
"""The harness's chunk loop around :func:`play_round_by_pay` (the PAR sheet's per-pay run)."""
PAY_COMPONENTS = tuple(f"{sym}|{t + 1}|{part}" for part in ("paid spin", "free spins") for sym in SYMBOL_NAMES[:N_PAYING]
                       for t in range(N_TIERS)) + ("cap|reduction",)
"""The per-pay kernel's parts: ``symbol|tier|part`` (tier 1 = 8-9 ... 4 = 15+; the reference engine's keys,
:func:`.reporting.attribute`) and the cap's reduction."""
PAY_COUNTERS = tuple(f"hits {c}" for c in PAY_COMPONENTS[:-1]) + ("capped rounds", "rounds whose pays fell short")
