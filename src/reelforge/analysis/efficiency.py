"""Estimator efficiency: an RTP estimate's 99% half-width against the CPU seconds it took.

efficiency = 1 / (half_width^2 x CPU seconds), half-width as a fraction of the stake: the inverse of
the CPU time a 99% half-width of 1 would take, so the ratio of two estimators' efficiencies is the
ratio of the CPU time they need for any one precision (the half-width shrinks as 1/sqrt(rounds)).
CPU seconds are the process's and all its reaped workers' (user + system, ``getrusage``): the cost
that does not depend on how loaded the machine is or how many cores it has.
"""

from __future__ import annotations

import resource
import time
from typing import Any

from reelforge.game.contract import Build, Game
from reelforge.game.rtp_estimators import RtpEstimate, RtpEstimator

ESTIMATORS = ("plain", "best")


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its finished (reaped) child processes."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def efficiency(half_width: float, cpu: float) -> float | None:
    """1 / (half_width^2 x cpu); None where the half-width is 0 (an exact figure: no simulation needed)."""
    if half_width <= 0:
        return None
    return 1.0 / (half_width * half_width * max(cpu, 1e-9))


class PlainRtp(RtpEstimator):
    """Plain simulation: whole rounds with the fast kernel, the RTP and its normal 99% interval."""

    key = "plain"
    description = "plain simulation of whole rounds"

    def run(self, rounds: int, seed: int, workers: int | None = None) -> RtpEstimate:
        from reelforge.analysis.simulate import simulate

        acc = simulate(self.game, self.build, rounds=rounds, seed=seed, workers=workers).accumulator
        lo, hi = acc.rtp_ci99()
        return RtpEstimate(self.key, acc.rtp, max(acc.rtp - lo, hi - acc.rtp), acc.rounds)


def estimator(game: Game, build: Build, which: str) -> RtpEstimator:
    """``plain`` or ``best`` (the game's :meth:`~reelforge.game.contract.Game.best_estimator`, plain where it
    has none); ValueError naming the choices otherwise."""
    if which not in ESTIMATORS:
        raise ValueError(f"unknown estimator {which!r}; estimators: {', '.join(ESTIMATORS)}")
    best = game.best_estimator(build) if which == "best" else None
    return best or PlainRtp(game, build)


def measure(game: Game, build: Build, which: str, rounds: int, seed: int, workers: int | None = None) -> dict[str, Any]:
    """Run an estimator and report its estimate, its CPU and wall seconds and its efficiency (JSON-able)."""
    est = estimator(game, build, which)
    est.warm_up()  # one-time kernel compilation is no part of an estimator's cost
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    got = est.run(rounds, seed, workers)
    cpu, wall = cpu_seconds() - cpu0, time.perf_counter() - wall0
    return {"game": game.id, "build": build.name, "estimator": which, "method": got.estimator,
            "description": est.description, "exact": est.exact, "rtp": got.rtp, "rtp_ci99": list(got.ci99),
            "half_width": got.half_width, "half_width_pp": got.half_width * 100, "rounds": got.rounds,
            "feature_rounds": got.feature_rounds, "seed": seed, "cpu_seconds": cpu, "wall_seconds": wall,
            "efficiency": efficiency(got.half_width, cpu), "extra": got.extra}
