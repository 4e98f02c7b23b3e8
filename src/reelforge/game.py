"""The common game interface: what the server, the CLI and the analysis tools
know about a game. A new game is a package under ``reelforge.games`` with a
:class:`Game` subclass and one line in :mod:`reelforge.games.registry`.

A round is a step machine over JSON-able state:

    state = game.start_round(build, mode)            # no draws yet
    step = game.play_step(build, state, draws)        # the paid spin
    while not step.finished:
        step = game.play_step(build, step.state, draws)   # re-spin, free spin, GEMBOX...

Wins are exact multiples of the total bet (:class:`fractions.Fraction`).
Events are JSON-able dicts; exact amounts inside events are strings of
fractions (``"3/20"``) in fields ending in ``_x`` (multiples of total bet).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.draws import DrawSource, RecordedDraws, RecordingDraws
from reelforge.stats import Accumulator


class RulesError(Exception):
    """A request the rules cannot honour (wrong state, unknown action, bad mode)."""


class BuildError(ValueError):
    """A build file is missing or invalid; the message says what and where."""


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


class Game(ABC):
    """Base class every game implements."""

    id: str
    title: str
    reference_id: str
    published_id: str | None
    """The game id its publisher gives (what reports and ``reelforge games`` show), or None."""
    feature_name: str = "feature"
    """What ``feature_rate`` counts, in words (e.g. ``Free Spins``)."""
    version: str
    max_win_x: int
    modes: tuple[str, ...] = ("paid",)
    step_actions: tuple[str, ...] = ()
    """Optional actions a step may carry (e.g. ``open`` for the GEMBOX)."""

    # -- builds -----------------------------------------------------------
    @abstractmethod
    def build_names(self) -> list[str]:
        """Names of the shipped builds, best RTP first."""

    @abstractmethod
    def load_build(self, name: str) -> Any:
        """Load and validate a build by name (raises :class:`BuildError`)."""

    def default_build(self) -> str:
        return self.build_names()[0]

    def stake_x(self, build: Any, mode: str = "paid") -> Fraction:
        """What a round of ``mode`` costs, in multiples of total bet."""
        self.check_mode(mode)
        if mode == "paid":
            return Fraction(1)
        price = getattr(build, "feature_buy_price_x", None)
        if price is None:
            raise RulesError(f"{self.id} build {build.name} has no feature buy")
        return Fraction(price)

    def feature_buy_price_x(self, build: Any) -> Fraction | None:
        price = getattr(build, "feature_buy_price_x", None)
        return None if price is None else Fraction(price)

    def check_mode(self, mode: str) -> None:
        if mode not in self.modes:
            raise RulesError(f"{self.id} has no round mode {mode!r}; modes: {', '.join(self.modes)}")

    # -- the step machine ---------------------------------------------------
    @abstractmethod
    def start_round(self, build: Any, mode: str = "paid") -> dict[str, Any]:
        """Initial JSON-able state of a new round (draws nothing)."""

    @abstractmethod
    def play_step(self, build: Any, state: dict[str, Any], draws: DrawSource,
                  action: str | None = None) -> StepResult:
        """Play the next step. Must not mutate ``state``; raises RulesError on a finished round."""

    def play_round(self, build: Any, draws: DrawSource, mode: str = "paid") -> RoundResult:
        """Play a whole round, recording the draws each step consumed."""
        recorder = RecordingDraws(draws)
        state = self.start_round(build, mode)
        steps: list[StepResult] = []
        per_step: list[list[int]] = []
        while True:
            step = self.play_step(build, state, recorder)
            steps.append(step)
            per_step.append(recorder.take())
            if step.finished:
                return RoundResult(mode=mode, steps=steps, draws=per_step)
            state = step.state

    def replay(self, build: Any, mode: str, step_draws: list[list[int]],
               actions: list[str | None] | None = None) -> RoundResult:
        """Replay a stored round from its per-step draws (audit)."""
        state = self.start_round(build, mode)
        steps: list[StepResult] = []
        for i, values in enumerate(step_draws):
            source = RecordedDraws(values)
            action = actions[i] if actions else None
            step = self.play_step(build, copy.deepcopy(state), source, action)
            if source.remaining:
                raise RulesError(f"step {i + 1} left {source.remaining} recorded draws unused")
            steps.append(step)
            state = step.state
            if step.finished and i != len(step_draws) - 1:
                raise RulesError(f"round finished after step {i + 1} but {len(step_draws)} steps were recorded")
        return RoundResult(mode=mode, steps=steps, draws=step_draws)

    # -- help -----------------------------------------------------------------
    @abstractmethod
    def help(self, build: Any) -> dict[str, Any]:
        """Title, game id, version, active build and RTP, rules text, paytable, max win."""

    # -- mathematics ------------------------------------------------------------
    @abstractmethod
    def win_unit(self, build: Any) -> int:
        """Integer win units per total bet: every round win is a whole number of them."""

    @abstractmethod
    def new_accumulator(self, build: Any, mode: str = "paid") -> Accumulator:
        """An empty accumulator with this game's components and counters."""

    @abstractmethod
    def simulate_chunk(self, build: Any, rounds: int, seed: np.random.SeedSequence,
                       mode: str = "paid") -> Accumulator:
        """Simulate ``rounds`` rounds with the fast kernel from one seed."""

    def kernel_round_wins(self, build: Any, rounds: int, seed: int | np.random.SeedSequence,
                          mode: str = "paid") -> np.ndarray:
        """Per-round wins (win units) from the kernel, for conformance tests."""
        raise NotImplementedError

    def exact(self, build: Any) -> dict[str, Any] | None:
        """Exact Game Rules Summary figures, or None where the game has none."""
        return None

    def extra_summary(self, build: Any, acc: Accumulator) -> dict[str, Any]:
        """Game-specific figures for the summary from a simulation."""
        return {}

    stratified_pilot_rounds: int = 1_000_000
    """Paid spins of the pilot that prices the stratified estimate for ``summary --precision``: the
    smallest budget at which every stratum grows in proportion to it (below, fixed floors such as
    a minimum feature count make the pilot's half-width unrepresentative of larger runs)."""

    def stratified(self, build: Any, rounds: int, seed: int) -> dict[str, Any] | None:
        """A stratified estimate for games with rare features (paid spins simulated alone,
        plus trigger rate x feature value, each with its own interval, combined), as summary
        fields (``rtp``, ``rtp_ci99``, ``rtp_split``, ``hit_rate``...), or None where the game
        has none. ``rounds`` is the paid-spin budget."""
        return None

    @property
    def has_stratified(self) -> bool:
        """Whether the game overrides :meth:`stratified` (has a stratified estimator)."""
        return type(self).stratified is not Game.stratified

    def feature_picture(self, build: Any, summary: dict[str, Any]) -> dict[str, Any] | None:
        """The game's own report plot from a summary: ``{"title", "labels", "values", "xlabel",
        "ylabel", "log"?, "ci99"?, "series"?}``, or None. ``ci99`` (optional) gives each value's 99%
        interval ``[lo, hi]`` (drawn as error bars). ``series`` (optional) draws stacked panels instead,
        each ``{"name", "labels", "values", "ci99"?, "log"?, "ylabel"?}`` (for figures on different bins
        or denominators)."""
        return None

    def feature_pictures(self, build: Any, summary: dict[str, Any]) -> list[dict[str, Any]]:
        """Every game plot of the report (default: :meth:`feature_picture`, if any)."""
        pic = self.feature_picture(build, summary)
        return [pic] if pic else []
