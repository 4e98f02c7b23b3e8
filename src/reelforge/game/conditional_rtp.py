"""The RTP by conditional Monte Carlo, for a game whose feature starts in one fixed state: paid rounds and
features simulated apart, combined exactly, the cap included (:mod:`reelforge.game.feature_split` simulates them).

A round wins ``W = min(P + T F, C)``: ``P`` its paid spin's win, ``T`` whether the paid spin triggered the
feature, ``F`` the feature's (uncapped) win, ``C`` the cap, all in win units. ``F`` is independent of the paid
spin (the feature always starts in the same state and draws afresh), so given the paid spin

    E[W | P, T] = P + T h(P),   h(p) = E[min(F, C - p)]   (``P`` alone where ``T = 0``).

The estimate averages that over ``n`` paid rounds with ``h`` from ``m`` features simulated apart, more of them
than the paid rounds trigger (the feature carries most of the variance):

    RTP = (1/n) sum_i [B_i + T_i h_m(P_i)],   h_m(p) = (1/m) sum_j min(F_j, C - p),

``B_i`` the round's win without its feature (its paid spin). It is unbiased: ``h_m(p)`` is for every fixed
``p``, and the features are independent of the paid rounds. The cap is exact, not a bound: ``min(F_j, C - p)``
is the feature's win a round reaching the cap keeps. Everything it needs is kept as exact integer sums and two
histograms in win units: the paid spins of the triggering rounds, and the features' wins (each at most ``C``:
``min(F, C - p) = min(min(F, C), C - p)``).

Its variance is that of a two-sample mean over all pairs ``(round i, feature j)`` of ``k = B_i + T_i min(F_j,
C - P_i)`` (``k`` is the round's win ``W`` had it drawn feature ``j``):

    Var = s1 / n + s2 / m + (Var W - s1 - s2) / (n m),

``s1 = Var(B + T h(P))`` (the paid rounds' part), ``s2 = Var(g(F))``, ``g(f) = E[T min(f, C - P)]`` (the
features' part), each estimated by its plug-in value; the 99% interval is normal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reelforge.core.stats import Z99


@dataclass
class PaidRounds:
    """Sums over ``rounds`` paid rounds (their features left out): ``B`` and ``B^2`` summed, the rounds that won,
    triggered, or reached the cap without the feature, each component's win outside the feature, and
    ``triggered[p]``: the triggering rounds by their paid spin's win ``p`` (win units, ``0..C``)."""

    rounds: int = 0
    win: int = 0
    win_squares: int = 0
    hits: int = 0
    capped: int = 0
    components: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    triggered: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def triggers(self) -> int:
        return int(self.triggered.sum())


@dataclass
class Features:
    """``wins[f]``: features by their win ``min(F, C)`` (win units, ``0..C``)."""

    wins: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def count(self) -> int:
        return int(self.wins.sum())


def expected_min(counts: np.ndarray, power: int = 1) -> np.ndarray:
    """``out[c] = sum_x counts[x] min(x, c)^power`` for every ``c`` in ``0..len(counts)-1`` (``counts[x]``: how
    many of the values are ``x``): the un-normalised moments of a value stopped at ``c``."""
    x = np.arange(counts.shape[0], dtype=np.float64)
    weights = counts.astype(np.float64)
    below = np.cumsum(weights * x**power)             # values at most c count as themselves
    above = weights.sum() - np.cumsum(weights)         # values above c count as c
    return below + above * x**power


@dataclass(frozen=True)
class ConditionalRtp:
    """The estimate (in win units per paid round; divide by the stake's units for the RTP)."""

    mean: float
    variance: float
    """The variance of :attr:`mean` (not of a round)."""
    round_variance: float
    """The variance of one round's win ``W`` (its SD squared)."""
    paid_variance: float
    """``s1``: the variance of a paid round's value ``B + T h(P)`` (the paid rounds' part, times ``n``)."""
    feature_variance: float
    """``s2``: the variance of a feature's value ``g(F)`` (the features' part, times ``m``)."""
    feature_mean: float
    """The feature's part of :attr:`mean`: ``(1/n) sum_i T_i h_m(P_i)``."""
    cap_probability: float
    """P(W = C)."""

    @property
    def half_width(self) -> float:
        """The 99% half-width of :attr:`mean`."""
        return Z99 * math.sqrt(max(self.variance, 0.0))

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "variance": self.variance, "round_variance": self.round_variance,
                "paid_variance": self.paid_variance, "feature_variance": self.feature_variance,
                "feature_mean": self.feature_mean, "cap_probability": self.cap_probability}


def conditional_rtp(paid: PaidRounds, features: Features) -> ConditionalRtp:
    """The estimate of the module docstring from the paid rounds' and the features' sums (cap ``C`` =
    ``len(features.wins) - 1``); ValueError where there are too few of either to estimate a variance."""
    n, m = paid.rounds, features.count
    if n < 2 or m < 2:
        raise ValueError(f"the conditional estimate needs at least two paid rounds and two features "
                         f"(got {n:,} and {m:,})")
    cap = features.wins.shape[0] - 1
    if paid.triggered.shape[0] != cap + 1:
        raise ValueError("the paid rounds and the features were tallied with different caps")
    p = np.arange(cap + 1, dtype=np.float64)
    trig = paid.triggered.astype(np.float64)
    room = cap - p                                     # C - p, what a feature may add to a paid spin won p
    first, second = expected_min(features.wins), expected_min(features.wins, 2)
    h = first[cap - np.arange(cap + 1)] / m            # h_m(p) = E min(F, C - p)
    h2 = second[cap - np.arange(cap + 1)] / m          # E min(F, C - p)^2
    feature_sum = float(trig @ h)
    mean = (paid.win + feature_sum) / n
    # s1: the paid rounds' values B_i + T_i h_m(P_i) (B_i = P_i where T_i = 1)
    x_squares = paid.win_squares + float(trig @ (2 * p * h + h * h))
    s1 = max(x_squares / n - mean * mean, 0.0) * n / (n - 1)
    # s2: g(f) = (1/n) sum_i T_i min(f, C - P_i), a feature's value to the estimate
    g = expected_min(trig[::-1]) / n                   # trig[::-1][c]: the triggering rounds with C - P_i = c
    fw = features.wins.astype(np.float64)
    g_mean = float(fw @ g) / m
    s2 = max(float(fw @ (g * g)) / m - g_mean * g_mean, 0.0) * m / (m - 1)
    # E[W^2]: rounds without the feature as B^2, the triggering ones as E (P + min(F, C - P))^2
    w_squares = paid.win_squares + float(trig @ (2 * p * h + h2))
    round_variance = max(w_squares / n - mean * mean, 0.0) * n / (n - 1)
    variance = s1 / n + s2 / m + max(round_variance - s1 - s2, 0.0) / (n * m)
    reach = (m - np.concatenate(([0], np.cumsum(features.wins)[:-1]))) / m   # P(min(F, C) >= c)
    cap_probability = (paid.capped + float(trig @ reach[room.astype(np.int64)])) / n
    return ConditionalRtp(mean, variance, round_variance, s1, s2, feature_sum / n, cap_probability)
