"""One generic tuner for every game: integer hill-climbing over a build's
declared free parameters toward target figures.

A game opts in by declaring ``capabilities.tunable`` and implementing
:meth:`reelforge.game.contract.Game.tune` (``reelforge tune GAME --build B``), which
builds a :class:`TuningSpace` in the game's design module (a ``tuning_space``
function in ``games/<game>/design.py``) and climbs it with :func:`climb` or
:func:`staged_climb`. A space holds the free integer parameters (symbol counts,
weights, mean values) with bounds, a function that turns parameter values into
a build, and how to measure a candidate: exactly (games with exact maths) or on
one simulated sample with *common random numbers* (every candidate is measured
on the same sample, so differences between candidates are not drowned by noise).

The search is deterministic: best single move while one improves, else the
best pair of moves, stopping when neither improves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

Values = dict[str, int]
Metrics = dict[str, float]


@dataclass(frozen=True)
class Param:
    """One free integer parameter of a build."""

    name: str
    low: int
    high: int


@dataclass
class TuningSpace:
    """What a game exposes to the tuner."""

    params: list[Param]
    start: Values
    make_build: Callable[[Values], Any]
    measure: Callable[[Any], Metrics]
    """Figures of a candidate build (exact, or simulated from one fixed seed)."""
    tolerances: dict[str, float]
    """Scale of each target figure: an error this size costs 1."""
    valid: Callable[[Values], bool] = lambda v: True
    bands: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Hard ranges (e.g. an SD band for a volatility level): leaving one costs a lot."""


def score(metrics: Metrics, targets: dict[str, float], space: TuningSpace) -> float:
    """Sum of squared scaled errors, plus a steep penalty outside any band."""
    total = 0.0
    for name, target in targets.items():
        value = metrics[name]
        if name.startswith("p_") and value > 0 and target > 0:
            err = math.log(value / target)  # probabilities of rare events: relative error
        else:
            err = value - target
        total += (err / space.tolerances.get(name, 1e-3)) ** 2
    for name, (lo, hi) in space.bands.items():
        v = metrics[name]
        if v < lo or v > hi:
            total += 1e6 * (1 + min(abs(v - lo), abs(v - hi))) ** 2
    return total


def _moves(values: Values, space: TuningSpace, step: int = 1) -> Iterator[Values]:
    for p in space.params:
        for d in (-step, step):
            v = values[p.name] + d
            if p.low <= v <= p.high:
                n = dict(values)
                n[p.name] = v
                if space.valid(n):
                    yield n


def climb(space: TuningSpace, targets: dict[str, float], start: Values | None = None,
          max_rounds: int = 2000, objective: Callable[[Metrics], float] | None = None,
          steps: Sequence[int] = (1,)) -> Values:
    """Integer hill-climb from ``start`` (default ``space.start``) toward ``targets``.

    ``steps``: move sizes, coarse to fine (a pattern search for wide parameters such as
    weights out of a million); the climb runs to a standstill at each size in turn."""
    cache: dict[tuple, float] = {}

    def cost(v: Values) -> float:
        key = tuple(sorted(v.items()))
        if key not in cache:
            m = space.measure(space.make_build(v))
            cache[key] = objective(m) if objective else score(m, targets, space)
        return cache[key]

    current = dict(start or space.start)
    best = cost(current)
    for step in steps:
        for _ in range(max_rounds):
            singles = list(_moves(current, space, step))
            if not singles:
                break
            costs = [cost(n) for n in singles]
            i = int(np.argmin(costs))
            if costs[i] < best:
                best, current = costs[i], singles[i]
                continue
            improved = False
            for j in np.argsort(costs, kind="stable"):  # ties in a fixed order on every machine
                for n2 in _moves(singles[j], space, step):
                    c2 = cost(n2)
                    if c2 < best:
                        best, current, improved = c2, n2, True
            if not improved:
                break
    return current


def pattern_steps(width: int) -> tuple[int, ...]:
    """Powers of two from about a quarter of ``width`` down to 1: coarse-to-fine move sizes."""
    top = max(1, width // 4).bit_length() - 1
    return tuple(1 << k for k in range(top, -1, -1))


def staged_climb(space: TuningSpace, targets: dict[str, float], key: str, scales: tuple[float, ...],
                 start: Values | None = None) -> Values:
    """Climb several times, tightening the tolerance of ``key`` (e.g. RTP) each stage."""
    values = dict(start or space.start)
    for s in scales:
        staged = TuningSpace(space.params, values, space.make_build, space.measure,
                             {**space.tolerances, key: s}, space.valid, space.bands)
        values = climb(staged, targets, values)
    return values


def rtp_target(targets: dict[str, Any], name: str) -> Fraction:
    """The RTP a tune aims at: ``targets["rtp"]``, else the build's name read as a percentage
    (``96.2`` -> 0.962); refused unless strictly between 0 and 1."""
    if "rtp" in targets:
        rtp = Fraction(str(targets["rtp"]))
    else:
        try:
            rtp = Fraction(name) / 100
        except ValueError:
            raise ValueError(f"give --target rtp=... (build name {name!r} is not a percentage)") from None
    if not 0 < rtp < 1:
        raise ValueError(f"rtp target must be between 0 and 1, got {float(rtp)}")
    return rtp
