"""A figure's 99% interval from a run's independent pieces: the delete-a-piece jackknife.

A certification run is a sequence of pieces, each an independent seeded sample (:mod:`reelforge.analysis.certify`).
Where an estimator gives a figure no interval of its own (the round SD of a stratified estimate: its second moment
would need each stratum's fourth moment), the pieces give one: the figure is recomputed with each piece left out,
and the spread of those recomputations measures the figure's sampling error.

The pieces differ in size (the run grows them), so the jackknife is the weighted delete-a-group one (Busing,
Meijer and van der Leeden 1999, "Delete-m jackknife for unequal m", Statistics and Computing 9): with ``g`` pieces of
``m_j`` rounds, ``n`` in all, ``h_j = n / m_j``, the full estimate ``T`` and ``T_j`` the estimate without piece j,

    pseudo-values    P_j = h_j T - (h_j - 1) T_j
    centre           T_J = g T - sum_j (1 - m_j / n) T_j
    variance         V   = (1/g) sum_j (P_j - T_J)^2 / (h_j - 1)

For a mean, ``P_j`` is piece j's own mean and each term of V estimates the mean's variance on its own, whatever the
piece's size, so V has about ``g - 1`` degrees of freedom: the interval is ``T +- t(0.995, g - 1) sqrt(V)`` (Student's
t, wider than the normal's 2.5758 for few pieces). Its coverage is measured in bench/interval_coverage.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

S = TypeVar("S")

MIN_PIECES = 3
"""Fewer pieces give no interval (two pieces: one degree of freedom, an interval too wide to judge anything by)."""
METHOD = "delete-a-piece jackknife over the run's independent pieces (weighted by piece size), Student's t"


def leave_one_out(pieces: Sequence[S], merge: Callable[[S, S], S]) -> list[S]:
    """Every piece's complement: entry j merges all pieces but piece j (prefix and suffix merges, about 3g merges
    in all rather than g^2)."""
    g = len(pieces)
    prefix: list[S | None] = [None]
    for p in pieces[:-1]:
        prefix.append(p if prefix[-1] is None else merge(prefix[-1], p))
    suffix: list[S | None] = [None]
    for p in reversed(pieces[1:]):
        suffix.append(p if suffix[-1] is None else merge(p, suffix[-1]))
    suffix.reverse()  # suffix[j]: the pieces after piece j
    out = []
    for j in range(g):
        before, after = prefix[j], suffix[j]
        if before is None or after is None:
            joined = before if after is None else after
        else:
            joined = merge(before, after)
        if joined is None:
            raise ValueError("a jackknife needs at least two pieces")
        out.append(joined)
    return out


def weighted_jackknife(full: float, without: Sequence[float], sizes: Sequence[int]) -> float:
    """The jackknife variance V of the module docstring: ``full`` the estimate of all pieces, ``without[j]`` the
    estimate without piece j, ``sizes[j]`` piece j's rounds."""
    g, n = len(sizes), float(sum(sizes))
    if g < 2 or len(without) != g or min(sizes) <= 0:
        raise ValueError("a jackknife needs at least two pieces, each with its rounds and its estimate without it")
    centre = g * full - sum((1 - m / n) * t for m, t in zip(sizes, without))
    total = 0.0
    for m, t in zip(sizes, without):
        h = n / m
        total += (h * full - (h - 1) * t - centre) ** 2 / (h - 1)
    return total / g


def t99(df: int) -> float:
    """Student's t quantile of a two-sided 99% interval with ``df`` degrees of freedom."""
    from scipy.stats import t

    return float(t.ppf(0.995, df))


def piece_interval(full: float, without: Sequence[float], sizes: Sequence[int]) -> dict[str, float | list[float]] | None:
    """``full``'s 99% interval from its delete-a-piece estimates: ``{"ci99", "se", "df"}``, or None with fewer than
    :data:`MIN_PIECES` pieces."""
    if len(sizes) < MIN_PIECES:
        return None
    se = math.sqrt(weighted_jackknife(full, without, sizes))
    df = len(sizes) - 1
    half = t99(df) * se
    return {"ci99": [full - half, full + half], "se": se, "df": df}


def statistic_interval(pieces: Sequence[S], sizes: Sequence[int], merge: Callable[[S, S], S],
                       statistic: Callable[[S], float], merged: S | None = None) -> dict | None:
    """The 99% interval of ``statistic`` of the merged ``pieces`` (``merged``, where already made):
    :func:`piece_interval` on the statistic of every piece's complement (:func:`leave_one_out`)."""
    if len(pieces) < MIN_PIECES:
        return None
    if merged is None:
        merged = pieces[0]
        for p in pieces[1:]:
            merged = merge(merged, p)
    return piece_interval(statistic(merged), [statistic(s) for s in leave_one_out(pieces, merge)], sizes)
