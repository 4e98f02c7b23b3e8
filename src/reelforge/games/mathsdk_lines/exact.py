"""Exact figures of the sample's paid spin: its line win and its Scatter count, as fractions.

A reel's stop is uniform, so every row of a reel shows each symbol with its share of the strip, and the
reels are independent: a line's expected win is the sum over every five symbols it can cross of their
probability times what :func:`reelforge.mechanics.pays.line_scan` pays them, the same for all 20 lines.
The Scatters of a reel's window are counted stop by stop (at most one a window on these strips)."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.mechanics.pays import line_scan

from .build import BASE, ROWS, SCATTER, TENTHS, WILD, tables


def symbol_shares(build: Any, reel_set: int = BASE) -> list[dict[int, Fraction]]:
    t = tables(build)
    out = []
    for r in range(5):
        n = int(t.lens[reel_set, r])
        counts = Counter(int(c) for c in t.codes[reel_set, r, :n])
        out.append({c: Fraction(k, n) for c, k in counts.items()})
    return out


def line_expectation(build: Any) -> Fraction:
    """A line's expected win on the paid spin, in win units (tenths of the bet)."""
    t = tables(build)
    shares = symbol_shares(build)
    window = np.zeros((5, 1), np.int64)
    one_line = np.zeros((1, 5), np.int64)
    out = np.zeros((1, 5), np.int64)
    total = Fraction(0)
    for cells in itertools.product(*[sorted(s) for s in shares]):
        window[:, 0] = cells
        if line_scan(window, one_line, t.pays, WILD, out, 0, 0):
            p = Fraction(1)
            for r, c in enumerate(cells):
                p *= shares[r][c]
            total += p * int(out[0, 3])
    return total


def scatter_distribution(build: Any) -> dict[int, Fraction]:
    """The probability of each Scatter count on the paid spin's window."""
    t = tables(build)
    dist = {0: Fraction(1)}
    for r in range(5):
        n = int(t.lens[BASE, r])
        strip = t.codes[BASE, r, :n]
        per = Counter(sum(int(strip[(s + row) % n]) == SCATTER for row in range(ROWS)) for s in range(n))
        new: dict[int, Fraction] = {}
        for k, p in dist.items():
            for j, m in per.items():
                new[k + j] = new.get(k + j, Fraction(0)) + p * Fraction(m, n)
        dist = new
    return dict(sorted(dist.items()))


def paid_spin_figures(build: Any) -> dict[str, Fraction]:
    """The paid spin's expected line win (multiples of the bet) and its trigger probability."""
    lines = len(build.lines)
    dist = scatter_distribution(build)
    trigger = min(int(k) for k in build.base_awards)
    return {"line_win_x": lines * line_expectation(build) / TENTHS,
            "trigger": sum((p for k, p in dist.items() if k >= trigger), Fraction(0)),
            **{f"scatters_{k}": p for k, p in dist.items()}}

