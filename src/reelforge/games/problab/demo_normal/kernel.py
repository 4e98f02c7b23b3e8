"""demo_normal fast path: the rules of :mod:`.rules` over integer arrays, drawing in the same
order (five stops per spin, the paid spin then each free round).

A reel's window and scatters are looked up by its stop, and a line's pay by the five symbols it
crosses (:func:`tables`), so a spin is five draws and, per line, five loads and one lookup: no
branch on the symbols, no allocation."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.game.loop import kernel_loop
from reelforge.mechanics.pays import line_scan
from reelforge.mechanics.rng import draw_pcg

from .build import NormalBuild
from .rules import TRIGGER

BASE, FREE = 0, 1


class Tables(NamedTuple):
    window: np.ndarray      # [mode, reel, stop]: the reel's window there, 16 bits a row (see tables)
    scatters: np.ndarray    # [mode, reel, stop]: scatters in that reel's window
    lens: np.ndarray        # [mode, reel]: strip lengths
    head_class: np.ndarray  # [mode, head index]: the class of a line's first three symbols
    line_pay: np.ndarray    # [mode, class, tail index]: what the line pays
    line_shifts: np.ndarray  # [line]: per reel (a byte each) the shift that brings the line's row's field down
    free_rounds: int
    trigger: int


HEAD = 3
"""Reels in a line's head (its tail is the rest)."""
FIELD = 16
"""Bits per row in a packed window (a digit times its place value, below k^3)."""
MASK = (1 << FIELD) - 1


@njit(cache=True)
def line_pay(cells, pays, wild):
    """What one line showing ``cells`` (one symbol per reel) pays: the mechanics' :func:`line_scan`
    on a one-row window."""
    window = cells.reshape(cells.shape[0], 1)
    out = np.zeros((1, 5), dtype=np.int64)
    k = line_scan(window, np.zeros((1, cells.shape[0]), dtype=np.int64), pays, wild, out, 0, 0)
    return out[0, 3] if k else 0


@njit(cache=True)
def _all_line_pays(pays, wild, digits, reels):
    """:func:`line_pay` of every line of the symbols ``digits`` (entry ``sum(d_r k^(reels-1-r))``)."""
    k = digits.shape[0]
    out = np.zeros(k ** reels, dtype=np.int64)
    cells = np.empty(reels, dtype=np.int64)
    for index in range(k ** reels):
        rest = index
        for r in range(reels - 1, -1, -1):
            cells[r] = digits[rest % k]
            rest //= k
        out[index] = line_pay(cells, pays, wild)
    return out


def _line_tables(pays: np.ndarray, wild: int, digits: np.ndarray, reels: int) -> tuple[np.ndarray, np.ndarray]:
    """A line's pay in two small lookups: the symbols are numbered 0..k-1 (their digits); the first
    three digits pick a class (heads whose every tail pays alike share one), the class and the last
    two digits the pay. Both tables fit the L1 cache; the pays are :func:`line_pay`'s, all k^5 of them."""
    k = len(digits)
    full = _all_line_pays(pays, wild, digits, reels).reshape(k ** HEAD, k ** (reels - HEAD))
    classes, head_class = np.unique(full, axis=0, return_inverse=True)
    return head_class.reshape(-1).astype(np.int64), classes


def tables(build: NormalBuild) -> Tables:
    """Each reel's window and scatters by its stop, each line's pay by the symbols it crosses.

    A window is one int64: row ``i``'s 16 bits hold the digit of the symbol it shows times the digit's
    place value in the line's head (reels 1-3: k^2, k, 1) or tail (reels 4-5: k, 1); a line's shifts
    pick its row's field on each reel (one byte per reel), so a line is five shifts, two adds and two lookups."""
    modes = (build.base, build.free)
    reels = len(build.base.reels)
    symbols = sorted({c for m in modes for strip in m.reels for c in strip})
    k = len(symbols)
    if reels != 5 or k ** HEAD > 1 << FIELD or build.rows * FIELD > 64 or build.rows * FIELD > 255:
        raise ValueError(f"the demo_normal kernel plays 5 reels of up to 4 rows and 40 symbols, not {reels}, "
                         f"{build.rows}, {k}")
    digit = {c: i for i, c in enumerate(symbols)}
    width = max(len(s) for m in modes for s in m.reels)
    scatter = build.code("scatter")
    window = np.zeros((2, reels, width), dtype=np.int64)
    scatters = np.zeros((2, reels, width), dtype=np.int64)
    for m, mode in enumerate(modes):
        for r, strip in enumerate(mode.reels):
            n = len(strip)
            place = k ** (HEAD - 1 - r) if r < HEAD else k ** (reels - 1 - r)
            for stop in range(n):
                shown = [strip[(stop + row) % n] for row in range(build.rows)]
                window[m, r, stop] = sum((digit[c] * place) << (FIELD * row) for row, c in enumerate(shown))
                scatters[m, r, stop] = shown.count(scatter)
    digits = np.array(symbols, dtype=np.int64)
    parts = [_line_tables(m.pays_by_count(), build.code("wild"), digits, reels) for m in modes]
    n_classes = max(p.shape[0] for _, p in parts)
    line_pay = np.zeros((2, n_classes, k ** (reels - HEAD)), dtype=np.int64)
    for m, (_, p) in enumerate(parts):
        line_pay[m, : p.shape[0]] = p
    shifts = np.array([sum((FIELD * row) << (8 * r) for r, row in enumerate(line)) for line in build.lines],
                      dtype=np.int64)
    return Tables(window, scatters, np.array([[len(s) for s in m.reels] for m in modes], dtype=np.int64),
                  np.stack([h for h, _ in parts]), line_pay, shifts, build.free_rounds, TRIGGER)


@njit(cache=True, inline="always")
def _spin(st, t, m):
    """One spin of mode ``m``: (units won on the lines, scatters on the window)."""
    s0 = draw_pcg(st, t.lens[m, 0])
    s1 = draw_pcg(st, t.lens[m, 1])
    s2 = draw_pcg(st, t.lens[m, 2])
    s3 = draw_pcg(st, t.lens[m, 3])
    s4 = draw_pcg(st, t.lens[m, 4])
    sc, w = t.scatters, t.window
    scatters = sc[m, 0, s0] + sc[m, 1, s1] + sc[m, 2, s2] + sc[m, 3, s3] + sc[m, 4, s4]
    w0, w1, w2, w3, w4 = w[m, 0, s0], w[m, 1, s1], w[m, 2, s2], w[m, 3, s3], w[m, 4, s4]
    win = 0
    for line in range(t.line_shifts.shape[0]):
        sh = t.line_shifts[line]
        head = (((w0 >> (sh & 255)) & MASK) + ((w1 >> ((sh >> 8) & 255)) & MASK)
                + ((w2 >> ((sh >> 16) & 255)) & MASK))
        tail = ((w3 >> ((sh >> 24) & 255)) & MASK) + ((w4 >> ((sh >> 32) & 255)) & MASK)
        win += t.line_pay[m, t.head_class[m, head], tail]
    return win, scatters


@njit(cache=True)
def _free_rounds(st, t, paid, cap):
    """The free rounds' units (a call of its own: the paid round's hot loop stays small)."""
    free = 0
    for _ in range(t.free_rounds):
        win, _ = _spin(st, t, FREE)
        free = min(paid + free + win, cap) - paid
        if paid + free == cap:
            break
    return free


@njit(cache=True)
def play_round(st, t, mode, cap, parts, counters):
    """One paid round: parts[0] the paid spin's units, parts[1] the free rounds' (the cap never binds)."""
    paid, scatters = _spin(st, t, BASE)
    paid = min(paid, cap)
    free = 0
    if scatters >= t.trigger:
        counters[0] += 1
        if paid < cap:
            free = _free_rounds(st, t, paid, cap)
    parts[0] = paid
    parts[1] = free


LOOP = kernel_loop(play_round)
