"""RTP estimators a game offers besides plain simulation, behind one small interface.

``Game.best_estimator(build)`` returns the game's best unbiased RTP estimator for a build, an
:class:`RtpEstimator`: ``run(rounds, seed, workers)`` gives an :class:`RtpEstimate` (point and 99%
half-width). ``reelforge simulate --estimator best`` and ``reelforge certify`` use it, and the
efficiency table (:mod:`reelforge.analysis.efficiency`) compares it with plain simulation in CPU
seconds. The defaults: the exact RTP where the game is enumerable (:class:`ExactRtp`), the game's
stratified estimator where it has one (:class:`StratifiedRtp`); a game with a better one overrides
``best_estimator``. Plain simulation is not here: it lives in :mod:`reelforge.analysis.simulate`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reelforge.game.contract import Build, Game, StratifiedEstimate


@dataclass(frozen=True)
class RtpEstimate:
    """An unbiased RTP estimate with its 99% half-width (0 for the exact RTP)."""

    estimator: str
    """The estimator's key (``exact``, ``stratified``, ``plain`` or a game's own)."""
    rtp: float
    half_width: float
    rounds: int
    """Paid rounds (or paid spins) simulated; 0 for the exact RTP."""
    feature_rounds: int = 0
    """Features simulated apart from the paid spins (stratified estimators)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What only this estimator gives (its parts, their intervals)."""

    @property
    def ci99(self) -> tuple[float, float]:
        return (self.rtp - self.half_width, self.rtp + self.half_width)


class RtpEstimator(ABC):
    """One way to estimate a build's RTP: ``run(rounds, seed, workers)`` (the same numbers for any
    worker count: chunked seed streams)."""

    key: str = ""
    """Short name (``--estimator`` shows it)."""
    description: str = ""
    """What it does, in a mathematician's words (the certificate quotes it)."""
    exact: bool = False
    """True where the figure is exact (no interval, the round count is ignored)."""

    def __init__(self, game: Game, build: Build) -> None:
        self.game, self.build = game, build

    @abstractmethod
    def run(self, rounds: int, seed: int, workers: int | None = None) -> RtpEstimate:
        """Estimate the RTP from ``rounds`` paid rounds (spins) of simulation seeded by ``seed``."""

    def warm_up(self) -> None:
        """Compile (or load) the kernels :meth:`run` uses, so a measured run counts only its own work
        (default: a tiny run, thrown away)."""
        if not self.exact:
            self.run(1_000, 0, workers=1)


class ExactRtp(RtpEstimator):
    """The exact RTP of an enumerable game (no simulation)."""

    key = "exact"
    description = "the exact RTP, enumerated from the rules and the build's data"
    exact = True

    def run(self, rounds: int, seed: int, workers: int | None = None) -> RtpEstimate:
        return RtpEstimate(self.key, float(self.game.exact(self.build).rtp), 0.0, 0)


class StratifiedRtp(RtpEstimator):
    """The game's :class:`~reelforge.game.estimation.StratifiedEstimator` (paid spins and features
    simulated apart, combined with their probabilities)."""

    key = "stratified"

    @property
    def description(self) -> str:  # type: ignore[override]
        """The game's estimator's own words where it has them."""
        return getattr(self.game.stratified_estimator(), "description", "stratified: paid spins simulated alone, "
                       "features simulated apart, combined with their probabilities")

    def run(self, rounds: int, seed: int, workers: int | None = None) -> RtpEstimate:
        est = self.game.stratified_estimator().run(self.build, rounds, seed, workers=workers)
        return self.estimate_of(est)

    def warm_up(self) -> None:
        self.game.stratified_estimator().sample(self.build, 1_000, 100, 0, workers=1)

    def estimate_of(self, est: StratifiedEstimate) -> RtpEstimate:
        """A stratified estimate's RTP and 99% half-width."""
        lo, hi = est.rtp_ci99
        return RtpEstimate(self.key, est.rtp, max(est.rtp - lo, hi - est.rtp), est.rounds, est.feature_rounds,
                           {"rtp_split": est.rtp_split})
