"""demo_normal fast path: the rules of :mod:`.normal_rules` over integer arrays, drawing in the same
order (five stops per spin, the paid spin then each free round).

Each reel's window is looked up by its stop (``win[mode, reel, stop, row]``) and its scatters too,
so a spin is five draws, five lookups and fifteen short line scans with no allocation."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.harness import kernel_loop
from reelforge.mechanics.rng import draw_pcg

from .build import Mode, NormalBuild
from .normal_rules import TRIGGER

BASE, FREE = 0, 1


class Tables(NamedTuple):
    win: np.ndarray         # [mode, reel, stop, row]: the symbol a row shows when the reel stops there
    scatters: np.ndarray    # [mode, reel, stop]: scatters in that reel's window
    lens: np.ndarray        # [mode, reel]: strip lengths
    pays: np.ndarray        # [mode, symbol, count]
    paid: np.ndarray        # [mode, symbol]: the symbol's row pays something
    lines: np.ndarray       # [line, reel] -> row
    stops: np.ndarray       # scratch: this spin's stops
    wild: int
    free_rounds: int
    trigger: int


def _windows(mode: Mode, rows: int, scatter: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    win = np.zeros((len(mode.reels), width, rows), dtype=np.int64)
    sc = np.zeros((len(mode.reels), width), dtype=np.int64)
    for r, strip in enumerate(mode.reels):
        n = len(strip)
        for stop in range(n):
            cells = [strip[(stop + k) % n] for k in range(rows)]
            win[r, stop] = cells
            sc[r, stop] = cells.count(scatter)
    return win, sc


def tables(build: NormalBuild) -> Tables:
    modes = (build.base, build.free)
    width = max(len(s) for m in modes for s in m.reels)
    wins, scs = zip(*(_windows(m, build.rows, build.code("scatter"), width) for m in modes), strict=True)
    pays = np.stack([m.pays_by_count() for m in modes])
    return Tables(np.stack(wins), np.stack(scs), np.array([[len(s) for s in m.reels] for m in modes], dtype=np.int64),
                  pays, pays.max(axis=2) > 0, np.array(build.lines, dtype=np.int64), np.zeros(len(build.lines[0]), np.int64),
                  build.code("wild"), build.free_rounds, TRIGGER)


@njit(cache=True, inline="always")
def _line_pay(t, m, line):
    """The highest left-to-right win of ``line`` (the peer's ``CalcByLine``, as :func:`line_win`)."""
    reels = t.stops.shape[0]
    wild = t.wild
    w = 0
    while w < reels and t.win[m, w, t.stops[w], t.lines[line, w]] == wild:
        w += 1
    wild_pay = t.pays[m, wild, w]
    if w == reels:
        return wild_pay
    symbol = t.win[m, w, t.stops[w], t.lines[line, w]]
    if not t.paid[m, symbol]:
        return wild_pay
    n = w + 1
    while n < reels:
        c = t.win[m, n, t.stops[n], t.lines[line, n]]
        if c != symbol and c != wild:
            break
        n += 1
    return max(wild_pay, t.pays[m, symbol, n])


@njit(cache=True, inline="always")
def _spin(st, t, m):
    """One spin of mode ``m``: (units won on the lines, scatters on the window)."""
    scatters = 0
    for r in range(t.stops.shape[0]):
        stop = draw_pcg(st, t.lens[m, r])
        t.stops[r] = stop
        scatters += t.scatters[m, r, stop]
    win = 0
    for line in range(t.lines.shape[0]):
        win += _line_pay(t, m, line)
    return win, scatters


@njit(cache=True)
def play_round(st, t, mode, cap, parts, counters):
    """One paid round: parts[0] the paid spin's units, parts[1] the free rounds' (the cap never binds)."""
    paid, scatters = _spin(st, t, BASE)
    paid = min(paid, cap)
    free = 0
    if scatters >= t.trigger:
        counters[0] += 1
        for _ in range(t.free_rounds if paid < cap else 0):
            win, _ = _spin(st, t, FREE)
            free = min(paid + free + win, cap) - paid
            if paid + free == cap:
                break
    parts[0] = paid
    parts[1] = free


LOOP = kernel_loop(play_round)
