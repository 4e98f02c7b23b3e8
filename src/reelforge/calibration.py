"""Small helpers shared by the games' calibrations (``games/<g>/design.py``).

Simulated RTP estimates with honest intervals: an estimate is a sum of
independent parts, each a mean with its variance; parts combine by adding
means and variances. A monotone knob is solved by bisection.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from reelforge.stats import Z99


@dataclass(frozen=True)
class Estimate:
    """A simulated quantity: its value and the variance of that value."""

    value: float
    var: float = 0.0

    def __add__(self, other: "Estimate") -> "Estimate":
        """Sum of two estimates from independent samples."""
        return Estimate(self.value + other.value, self.var + other.var)

    @property
    def sd(self) -> float:
        return math.sqrt(max(self.var, 0.0))

    @property
    def half_width99(self) -> float:
        return Z99 * self.sd

    def ci99(self, extra: float = 0.0) -> tuple[float, float]:
        """99% interval, widened by ``extra`` on both sides (a deterministic bound)."""
        h = self.half_width99 + extra
        return (self.value - h, self.value + h)


def mean_estimate(total: float, total_sq: float, n: int) -> Estimate:
    """Sample mean of ``n`` values from their sum and sum of squares."""
    if n < 2:
        raise ValueError("need at least two samples")
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / (n - 1)
    return Estimate(mean, var / n)


def bisect_int(f: Callable[[int], float], lo: int, hi: int, target: float) -> int:
    """The integer ``x`` in ``[lo, hi]`` whose ``f(x)`` (monotone) is closest to ``target``."""
    increasing = f(hi) >= f(lo)
    a, b = lo, hi
    while b - a > 1:
        m = (a + b) // 2
        if (f(m) < target) == increasing:
            a = m
        else:
            b = m
    return a if abs(f(a) - target) <= abs(f(b) - target) else b
