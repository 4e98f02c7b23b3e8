"""Forge of Gems' per-pay kernel: :func:`.kernel.play_round`'s rounds (the same draws and round wins) with each win
split by pay: every way win by symbol and length (its multiplier included), paid spin and free spins apart, each
GEMBOX instant prize by scatter class, and the cap's reduction, for the PAR sheet's per-pay tables
(:func:`reelforge.game.parsheet.kernel_pay_sample`). The plain kernel shares the round (:func:`.kernel.play_paid_round`)
and records nothing: its rounds are untouched."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reelforge.game.loop import kernel_loop, round_function
from reelforge.games.forge_of_gems.build import GEMBOX_REWARDS, N_PAY, PAYING, Build
from reelforge.games.forge_of_gems.kernel import (
    COUNTERS,
    GEMBOX_KEYS,
    MIN_LENGTH,
    PAY_LENGTHS,
    REELS,
    SCRATCH,
    Tables,
    play_paid_round,
    tables,
)

N_KEYS = GEMBOX_KEYS + len(GEMBOX_REWARDS)
"""Way wins in the paid spin and in free spins (symbol x length), then the GEMBOX prizes by scatter class."""

PayTables = NamedTuple("PayTables", [*((f, np.ndarray) for f in Tables._fields),
                                     ("rec", np.ndarray), ("round_parts", np.ndarray), ("round_counters", np.ndarray)])
PayTables.__doc__ = """:class:`.kernel.Tables` with the per-pay kernel's scratch: the round's pays per key, and the plain
round's parts and counters (played, not kept: this kernel's parts and counters are per pay)."""

PAY_SCRATCH = (*SCRATCH, "rec", "round_parts", "round_counters")


def pay_tables(build: Build) -> PayTables:
    """The per-pay kernel's tables of ``build``."""
    return PayTables(*tables(build), np.zeros(N_KEYS, dtype=np.int64), np.zeros(3, dtype=np.int64),
                     np.zeros(len(COUNTERS), dtype=np.int64))


@round_function
def play_round_by_pay(st, t, mode, cap, parts, counters):
    """:func:`.kernel.play_round`, the same draws and round wins, with the round's win split by pay: parts: each
    key's units (uncapped), then the cap's reduction (zero or less), adding up to the round's win; counters: the
    rounds each key pays in, the capped rounds, and the rounds whose keys paid less than the round (none)."""
    rec = t.rec
    for k in range(N_KEYS):
        rec[k] = 0
    own = t.round_parts
    for k in range(3):
        own[k] = 0
    play_paid_round(st, t, cap, own, t.round_counters, rec)
    total = own[0] + own[1] + own[2]
    paid = 0
    for k in range(N_KEYS):
        parts[k] = rec[k]
        paid += rec[k]
        if rec[k] > 0:
            counters[k] += 1
    parts[N_KEYS] = total - paid
    if total < paid:
        counters[N_KEYS] += 1
    elif total > paid:
        counters[N_KEYS + 1] += 1


LOOP_BY_PAY = kernel_loop(play_round_by_pay)
"""The harness's chunk loop around :func:`play_round_by_pay` (the PAR sheet's per-pay run)."""
PAY_COMPONENTS = tuple(f"{sym}|{n}|{part}" for part in ("paid spin", "free spins") for sym in PAYING[:N_PAY]
                       for n in range(MIN_LENGTH, MIN_LENGTH + PAY_LENGTHS)) + \
    tuple(f"gembox|{k}|prize" for k in GEMBOX_REWARDS) + ("cap|reduction",)
"""The per-pay kernel's parts: ``symbol|length|part``, ``gembox|scatters|prize`` (the reference engine's keys,
:func:`.reporting.attribute`) and the cap's reduction."""
PAY_COUNTERS = tuple(f"hits {c}" for c in PAY_COMPONENTS[:-1]) + ("capped rounds", "rounds whose pays fell short")
assert len(PAY_COMPONENTS) == N_KEYS + 1 and MIN_LENGTH + PAY_LENGTHS - 1 == REELS
