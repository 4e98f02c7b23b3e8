"""Are the 99% intervals honest? Independent seeded runs of an estimator on a figure known exactly,
counting how often the interval covers it (bench/interval_coverage.py; a short version in the test suite).

An honest 99% interval covers the exact value in each run with probability 0.99 (near enough: the
intervals are normal approximations), so the count of covering runs is Binomial(runs, 0.99). The pass
mark is the least count an honest estimator falls short of only with probability ``alpha``
(:func:`min_covered`): 195 of 200 at alpha = 2%, 27 of 30 at 0.1%. Run ``i`` draws from seed
``first_seed + i``: every run is its own independent stream.
"""

from __future__ import annotations

import resource
from collections.abc import Callable
from dataclasses import asdict, dataclass
from math import comb
from typing import Any

LEVEL = 0.99
"""The intervals' confidence level."""


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(0, min(k, n) + 1))


def min_covered(runs: int, alpha: float, level: float = LEVEL) -> int:
    """The pass mark: the least k with P(fewer than k of ``runs`` honest ``level`` intervals cover) <= alpha."""
    k = 0
    while k < runs and binomial_cdf(k, runs, level) <= alpha:   # P(X <= k) <= alpha: k covering is still a fail
        k += 1
    return k


@dataclass(frozen=True)
class Coverage:
    """How often one estimator's interval covered one exact figure."""

    figure: str
    """What was estimated, in words (game, build, estimator, figure)."""
    exact: float
    runs: int
    size: str
    """Each run's size, in words (rounds, boards)."""
    covered: int
    pass_mark: int
    mean_half_width: float
    cpu_seconds: float
    """CPU seconds of all the runs (every figure of one run together)."""

    @property
    def passed(self) -> bool:
        return self.covered >= self.pass_mark

    @property
    def probability_at_most(self) -> float:
        """P(an honest 99% interval covers this few times or fewer): small means the intervals are too narrow."""
        return binomial_cdf(self.covered, self.runs, LEVEL)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed, "probability_at_most": self.probability_at_most}


Interval = tuple[float, float]


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its reaped workers."""
    return sum(t for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for t in (resource.getrusage(who).ru_utime, resource.getrusage(who).ru_stime))


def coverage(name: str, exact: dict[str, float], run: Callable[[int], dict[str, Interval]], runs: int,
             first_seed: int, size: str, pass_mark: int) -> list[Coverage]:
    """``run(seed)`` gives one run's 99% interval of each figure of ``exact`` (by name); ``runs`` runs
    from seeds ``first_seed``, ``first_seed + 1``, ...: one :class:`Coverage` per figure."""
    start = cpu_seconds()
    covered = dict.fromkeys(exact, 0)
    widths = dict.fromkeys(exact, 0.0)
    for i in range(runs):
        intervals = run(first_seed + i)
        for key, value in exact.items():
            lo, hi = intervals[key]
            covered[key] += int(lo <= value <= hi)
            widths[key] += float(hi - lo) / 2
    cpu = cpu_seconds() - start
    return [Coverage(f"{name}: {key}", value, runs, size, covered[key], pass_mark, widths[key] / runs, cpu)
            for key, value in exact.items()]


def plain_interval(game: Any, build: Any, rounds: int) -> Callable[[int], dict[str, Interval]]:
    """One run of plain simulation (``rounds`` paid rounds, one worker): its 99% RTP interval."""
    from reelforge.analysis.simulate import simulate

    def run(seed: int) -> dict[str, Interval]:
        return {"RTP": simulate(game, build, rounds=rounds, seed=seed, workers=1).accumulator.rtp_ci99()}

    return run


PIECE_UNITS = (1,) * 10 + (10, 20)
"""Piece sizes of a run in units, as certify grows them: ten pilot pieces, then pieces at most doubling what is
done (twelve pieces, 40 units)."""


def piece_seeds(seed: int) -> list[int]:
    """The seeds of a run's pieces, as certify draws them from the run's seed (its main stream)."""
    from reelforge.analysis.certify import piece_seed

    return [piece_seed(seed, "main", j) for j in range(len(PIECE_UNITS))]


def _merged(a: Any, b: Any) -> Any:
    """Two accumulators as one, neither changed."""
    import copy

    out = copy.deepcopy(a)
    out.merge_in(b)
    return out


def jackknife_sd_interval(game: Any, build: Any, unit: int) -> Callable[[int], dict[str, Interval]]:
    """One run of plain pieces sized as :data:`PIECE_UNITS` (``unit`` rounds a unit, one worker): the 99% interval of
    the round SD by the delete-a-piece jackknife, the same code as a stratified package's SD
    (:func:`reelforge.analysis.jackknife.statistic_interval`)."""
    import numpy as np

    from reelforge.analysis.jackknife import statistic_interval

    sizes = [u * unit for u in PIECE_UNITS]

    def run(seed: int) -> dict[str, Interval]:
        pieces = [game.simulate_chunk(build, n, np.random.SeedSequence(s)) for n, s in zip(sizes, piece_seeds(seed))]
        found = statistic_interval(pieces, sizes, _merged, lambda a: a.sd)
        return {"SD": (found["ci99"][0], found["ci99"][1])}

    return run
