"""Exact Forge of Fortunes mathematics in rational arithmetic.

The paid spin has three independent reels; the feature is an absorbing
Markov chain on the ladder runners. Expected visits to each runner come from
the fundamental matrix ``N = (I - Q)^-1`` (first row only: the feature always
starts on runner 0), solved exactly as a tridiagonal system in Fractions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from reelforge.games.forge_of_fortunes.build import COAL, GOLD, SLAG, Build, StripSet


@dataclass(frozen=True)
class SpinOdds:
    """Per re-spin outcome probabilities for one strip set (they sum to 1)."""

    slag: Fraction
    advance: Fraction
    coal: Fraction
    nothing: Fraction


def spin_odds(strips: StripSet) -> SpinOdds:
    """Outcome probabilities of one re-spin on ``strips``, in the rules' order."""
    no_slag = [1 - strips.probability(i, SLAG) for i in range(3)]
    slag = 1 - no_slag[0] * no_slag[1] * no_slag[2]
    advance = strips.probability(0, GOLD) * strips.probability(1, GOLD) * strips.probability(2, GOLD)
    coal = no_slag[0] * no_slag[1] * strips.probability(2, COAL)
    return SpinOdds(slag, advance, coal, 1 - slag - advance - coal)


@dataclass(frozen=True)
class FeatureMath:
    visits: tuple[Fraction, ...]
    """Expected re-spins played on each runner below the top."""
    end_probability: tuple[Fraction, ...]
    """Probability the feature ends on each runner (index top = reached the top)."""

    @property
    def expected_respins(self) -> Fraction:
        return sum(self.visits, Fraction(0))


def feature_math(build: Build) -> FeatureMath:
    """Expected visits and ending distribution of the re-spin ladder walk."""
    top = build.top
    odds = [spin_odds(build.feature_strips(r)) for r in range(top)]
    # (I - Q)^T v = e0 with Q[r][r+1] = advance, Q[r][r-1] = coal (unsafe), Q[r][r] = rest.
    # Row r of (I-Q)^T: -Q[r-1][r] v[r-1] + (1-Q[r][r]) v[r] - Q[r+1][r] v[r+1] = [r == 0].
    lower, diag, upper = [], [], []
    for r in range(top):
        back = odds[r].coal if (r not in build.safe and r > 0) else Fraction(0)
        stay = 1 - odds[r].slag - odds[r].advance - back
        diag.append(1 - stay)
        lower.append(-odds[r - 1].advance if r > 0 else Fraction(0))
        nxt = r + 1
        upper.append(-(odds[nxt].coal if (nxt < top and nxt not in build.safe) else Fraction(0)))
    rhs = [Fraction(1)] + [Fraction(0)] * (top - 1)
    visits = _solve_tridiagonal(lower, diag, upper, rhs)
    end = [visits[r] * odds[r].slag for r in range(top)] + [visits[top - 1] * odds[top - 1].advance]
    return FeatureMath(tuple(visits), tuple(end))


def _solve_tridiagonal(lower: list[Fraction], diag: list[Fraction], upper: list[Fraction],
                       rhs: list[Fraction]) -> list[Fraction]:
    """Thomas algorithm in exact arithmetic (row i: lower[i] x[i-1] + diag[i] x[i] + upper[i] x[i+1])."""
    n = len(diag)
    c = [Fraction(0)] * n
    d = [Fraction(0)] * n
    c[0] = upper[0] / diag[0]
    d[0] = rhs[0] / diag[0]
    for i in range(1, n):
        m = diag[i] - lower[i] * c[i - 1]
        c[i] = upper[i] / m if i < n - 1 else Fraction(0)
        d[i] = (rhs[i] - lower[i] * d[i - 1]) / m
    x = [Fraction(0)] * n
    x[-1] = d[-1]
    for i in range(n - 2, -1, -1):
        x[i] = d[i] - c[i] * x[i + 1]
    return x


@dataclass(frozen=True)
class ExactResult:
    """The whole round-win distribution and its statistics, exactly."""

    outcomes: dict[Fraction, Fraction]
    """Round win (x total bet) -> probability."""
    rtp_paid: Fraction
    rtp_feature: Fraction
    hit_rate: Fraction
    trigger: Fraction
    feature: FeatureMath
    max_win_x: Fraction

    @property
    def rtp(self) -> Fraction:
        return self.rtp_paid + self.rtp_feature

    @property
    def second_moment(self) -> Fraction:
        return sum((w * w * p for w, p in self.outcomes.items()), Fraction(0))

    @property
    def variance(self) -> Fraction:
        return self.second_moment - self.rtp * self.rtp

    @property
    def max_win_probability(self) -> Fraction:
        return self.outcomes.get(self.max_win_x, Fraction(0))


def exact(build: Build) -> ExactResult:
    """Exact distribution of one paid round's win."""
    p = [build.base.probability(i, GOLD) for i in range(3)]
    gold12 = p[0] * p[1]
    trigger = gold12 * p[2]
    two_kind = gold12 * (1 - p[2])
    fm = feature_math(build)
    outcomes: dict[Fraction, Fraction] = {}

    def add(win: Fraction, prob: Fraction) -> None:
        if prob:
            outcomes[win] = outcomes.get(win, Fraction(0)) + prob

    add(Fraction(0), 1 - gold12)
    add(build.two_of_a_kind_x, two_kind)
    for r, pe in enumerate(fm.end_probability):
        add(Fraction(build.ladder[r]), trigger * pe)
    rtp_paid = two_kind * build.two_of_a_kind_x
    rtp_feature = trigger * sum((Fraction(build.ladder[r]) * pe for r, pe in enumerate(fm.end_probability)),
                                Fraction(0))
    hit = sum((pr for w, pr in outcomes.items() if w > 0), Fraction(0))
    return ExactResult(outcomes, rtp_paid, rtp_feature, hit, trigger, fm, Fraction(build.ladder[-1]))
