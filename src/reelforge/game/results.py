"""What a game's rounds and mathematics produce: a step and a round (:class:`StepResult`,
:class:`RoundResult`), exact and stratified figures, the maximum win and a tuning's outcome, each
JSON-able (:func:`jsonable`) with exact Fractions as strings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

from reelforge.game.texts import ENGLISH, Words


def jsonable(value: Any, fraction: Callable[[Fraction], Any] = str) -> Any:
    """Contract values as JSON: Fractions through ``fraction`` (default: exact strings, ``"3/20"``;
    ``float`` for plain numbers), tuples as lists, dict keys as strings, nested alike."""
    if isinstance(value, Fraction):
        return fraction(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v, fraction) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, fraction) for v in value]
    return value


@dataclass(frozen=True)
class ExactFigures:
    """A build's figures computed exactly (every probability a Fraction)."""

    rtp: Fraction
    rtp_split: dict[str, Fraction]
    """RTP per part of the round (``paid_spins``, ``feature``...), adding up to :attr:`rtp`."""
    hit_rate: Fraction
    feature_rate: Fraction
    """Probability per paid round of the game's feature (:attr:`Game.feature_name`)."""
    variance: Fraction
    """Variance of the round win in (x total bet)^2."""
    max_win_x: int
    max_win_probability: Fraction
    outcomes: dict[Fraction, Fraction]
    """Round win (x total bet) -> probability, over every outcome."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What only this game's exact mathematics gives (the summary puts it under ``extra``)."""

    def __post_init__(self) -> None:
        named = {"rtp": self.rtp, "hit_rate": self.hit_rate, "feature_rate": self.feature_rate,
                 "variance": self.variance, "max_win_probability": self.max_win_probability,
                 **{f"rtp_split[{k!r}]": v for k, v in self.rtp_split.items()}}
        for name, value in named.items():
            if not isinstance(value, Fraction):
                raise TypeError(f"exact figures: {name} must be a Fraction, got {value!r}")
        if sum(self.rtp_split.values()) != self.rtp:
            raise ValueError(f"exact figures: the RTP split adds up to {sum(self.rtp_split.values())}, not {self.rtp}")


TECHNICAL_LIMIT = "technical limit"
"""A :attr:`Game.max_win_source` where the cap is no promise to players (a benchmark game whose peer applies
none): the cap must hold, but need not be shown reachable."""

MAX_WIN_METHODS = ("exact", "constructed round", "bound")
"""How a build's largest reachable win is known: from its exact distribution; from an upper bound by the
rules that a scripted round reaches (so it is the maximum exactly); or only as an upper bound."""


@dataclass(frozen=True)
class MaxWin:
    """The largest win a round of a build can reach (x total bet), and how that is known
    (:meth:`Game.max_win`). Never a declared figure: derived from the rules and the build's data."""

    x: Fraction
    method: str
    """One of :data:`MAX_WIN_METHODS`."""
    text: str
    """How it was found, in words a mathematician reads (what bounds it, which round reaches it)."""
    probability: Fraction | None = None
    """Its probability per paid round where the game is enumerated exactly; None otherwise."""
    mode: str = "paid"
    """The mode of the constructed round (``buy`` where a bought feature reaches it)."""
    round_draws: tuple[tuple[int, ...], ...] | None = None
    """The constructed round's draws, per step (replayed with :meth:`Game.replay`)."""

    def __post_init__(self) -> None:
        if self.method not in MAX_WIN_METHODS:
            raise ValueError(f"max win method must be one of {MAX_WIN_METHODS}, got {self.method!r}")
        if not isinstance(self.x, Fraction) or self.x <= 0:
            raise TypeError(f"max win must be a positive Fraction (x total bet), got {self.x!r}")

    @property
    def reachable(self) -> bool:
        """Shown reachable (exactly, or by a constructed round), not only bounded."""
        return self.method != "bound"

    def words(self) -> str:
        """``2,600x the total bet, reached by a constructed round`` and alike, for reports."""
        x = x_text(self.x)
        how = {"exact": "exact (every outcome enumerated)", "constructed round": "reached by a constructed round",
               "bound": "an upper bound from the rules (not shown reachable)"}[self.method]
        odds = f", probability {float(self.probability):.4g} per round" if self.probability else ""
        return f"{x}x the total bet, {how}{odds}"

    def player_words(self, words: Words = ENGLISH) -> str:
        """The help's sentence: the maximum win, and how often where that is known exactly (in ``words``' language)."""
        x = words.number(self.x if self.x.denominator == 1 else Fraction(f"{float(self.x):.6g}"))
        if self.probability:
            return words("The maximum win of a round is {x}x the total bet, reached on average once in {rounds} "
                         "rounds; reaching it ends the round.", x=x, rounds=rounds_text(1 / self.probability, words))
        return words("The maximum win of a round is {x}x the total bet; reaching it ends the round.", x=x)

    def to_json(self) -> dict[str, Any]:
        """As JSON: ``x`` and ``probability`` exact strings, ``reachable``, the draws as lists."""
        out = jsonable(asdict(self))
        out["reachable"] = self.reachable
        return out


@dataclass(frozen=True)
class StratifiedEstimate:
    """A stratified estimate: paid spins and features simulated apart, combined, each figure with
    its 99% interval (None where the estimator gives none; the report says so)."""

    rounds: int
    """Paid spins simulated."""
    feature_rounds: int
    """Features simulated apart."""
    seed: int
    rtp: float
    rtp_ci99: tuple[float, float]
    rtp_split: dict[str, float]
    rtp_split_ci99: dict[str, tuple[float, float] | None]
    feature_rate: float
    feature_rate_ci99: tuple[float, float] | None
    sd: float
    sd_is_lower_bound: bool = False
    hit_rate: float | None = None
    hit_rate_ci99: tuple[float, float] | None = None
    max_win_probability: float | None = None
    feature_buy: dict[str, Any] | None = None
    """The Feature Buy's RTP from the feature stratum, for games with one: ``{"price_x", "rtp",
    "rtp_ci99", "features"}`` (the summary's ``feature_buy``)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What only this game's estimator gives (the summary puts it under ``extra``)."""

    def to_json(self) -> dict[str, Any]:
        """The estimate as JSON (intervals as lists)."""
        return jsonable(asdict(self))


@dataclass(frozen=True)
class TuneResult:
    """What :meth:`Game.tune` made: the file written and the figures the tuner measured."""

    game: str
    build: str
    file: str
    method: str
    """How the figures were found, in words (``exact``, ``simulation (common random numbers)``)."""
    figures: dict[str, Any]
    """The tuned build's figures (exact, or on the tuning sample with ``figures_ci99``)."""
    figures_ci99: dict[str, Any] | None = None
    log: tuple[str, ...] = ()
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return jsonable(asdict(self))


@dataclass
class StepResult:
    """One player-visible step of a round."""

    kind: str
    """``paid_spin``, ``respin``, ``free_spin``, ``gembox``..."""
    events: list[dict[str, Any]]
    win: Fraction
    """What this step added to the round win (x total bet, after the cap)."""
    total_win: Fraction
    """Round win so far (x total bet, capped)."""
    finished: bool
    next_step: str | None
    """Kind of the next step while unfinished (``respin``, ``free_spin``, ``gembox``)."""
    state: dict[str, Any]
    """JSON-able state after this step (what the server persists)."""


@dataclass
class RoundResult:
    """A whole round played by :meth:`Game.play_round`."""

    mode: str
    steps: list[StepResult]
    draws: list[list[int]] = field(default_factory=list)
    """Draws consumed by each step (when played through a recorder)."""

    @property
    def total_win(self) -> Fraction:
        return self.steps[-1].total_win if self.steps else Fraction(0)


def rounds_text(n: Fraction, words: Words = ENGLISH) -> str:
    """A number of rounds for people: ``100,848``, or ``4.46 × 10⁴³`` past a billion (as the lobby writes it), with
    the digits in ``words``' locale."""
    whole = round(n)
    if whole < 10 ** 9:
        return words.number(whole)
    digits = str(whole)
    power = "".join("⁰¹²³⁴⁵⁶⁷⁸⁹"[int(c)] for c in str(len(digits) - 1))
    return f"{words.number(Fraction(int(digits[:3]), 100))} × 10{power}"


def x_text(x: Fraction) -> str:
    """A multiple of the bet for people: ``2,600`` or ``12.5``."""
    x = Fraction(x)
    return f"{int(x):,}" if x.denominator == 1 else f"{float(x):,.6g}"


def step_in_units(kind: str, events: list[dict[str, Any]], added: int, total: int, unit: int, next_step: str | None,
                  state: dict[str, Any]) -> StepResult:
    """A reference step whose win ``added`` and round ``total`` are in win units (``unit`` per total
    bet); the round is finished when no ``next_step`` is left."""
    return StepResult(kind, events, Fraction(added, unit), Fraction(total, unit), next_step is None, next_step, state)
