"""The game contract: everything the server, the CLI, the reports and the tools know
about a game. A new game is a package under ``reelforge.games`` with a :class:`Game`
subclass and one line in :mod:`reelforge.games.registry`; :func:`reelforge.conformance.check_game`
checks that it keeps the contract (CONTRIBUTING.md walks through adding one).

A round is a step machine over JSON-able state:

    state = game.start_round(build, mode)            # no draws yet
    step = game.play_step(build, state, draws)        # the paid spin
    while not step.finished:
        step = game.play_step(build, step.state, draws)   # re-spin, free spin, GEMBOX...

Wins are exact multiples of the total bet (:class:`fractions.Fraction`).
Events are JSON-able dicts; exact amounts inside events are strings of
fractions (``"3/20"``) in fields ending in ``_x`` (multiples of total bet).

One meaning and one type per field, in every game:

* an RTP is a fraction of the stake (``Fraction(481, 500)``, written ``"481/500"`` in JSON),
  never a percentage; ``rtp_percent`` is the same figure for people (``"96.20"``);
* an amount ``*_x`` is an exact multiple of the total bet (Fraction, a string in JSON);
* ``game`` is the registry id (``gemstones-gold``), ``game_id`` the publisher's reference id;
* figures only one game has live under ``extra``, never beside the common ones.
"""

from __future__ import annotations

import copy
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from reelforge.core.draws import DrawSource, RecordedDraws, RecordingDraws
from reelforge.core.stats import Accumulator
from reelforge.game.help import VOLATILITY_WORDS, GameHelp, volatility_bolts
from reelforge.game.registration import IdByDefault, RegisteredId
from reelforge.game.reporting import Reporting, RulesDocument
from reelforge.game.results import (
    ExactFigures,
    MaxWin,
    RoundResult,
    StepResult,
    StratifiedEstimate,
    TuneResult,
    x_text,
)
from reelforge.game.rtp_proof import beside_game, load_records, rtp_proof
from reelforge.game.texts import DEFAULT_LANGUAGE, ENGLISH, Words

if TYPE_CHECKING:
    from reelforge.game.rtp_estimators import RtpEstimator


class RulesError(Exception):
    """A request the rules cannot honour (wrong state, unknown action, bad mode)."""


class BuildError(ValueError):
    """A build file is missing or invalid; the message says what and where."""


UNPUBLISHED = "unpublished"
"""The version of a build that is not a published file (made in memory, or a file without ``version``)."""


@dataclass(frozen=True)
class BuildIdentity:
    """Which maths a build is: a published build never changes, so game + name + version name one
    content, and :attr:`content_hash` proves it (a changed build is a new version beside the old one).
    Every round stores its build's name, version and hash; replay and verify load that version."""

    game: str
    name: str
    """The build's name (``96.2``): what is offered; several versions may share it."""
    version: str
    """The version of the build's contents (``2.0``), or :data:`UNPUBLISHED`."""
    rules: str
    """The rules version the build is played with (the reference engine plays every one shipped)."""
    content_hash: str
    """SHA-256 (hex) of the build's canonical data and its rules version (not of the file's text:
    comments and layout do not count)."""

    @property
    def label(self) -> str:
        """Name and version for people (``96.2 v2.0``; ``96.2 (unpublished)`` for a build without one)."""
        return f"{self.name} (unpublished)" if self.version == UNPUBLISHED else f"{self.name} v{self.version}"


@runtime_checkable
class Build(Protocol):
    """What every game's build (math model) offers beside its own data."""

    name: str
    """The build's name, its file stem (``96.2``)."""
    identity: BuildIdentity
    """Game, name, version, rules version and content hash (set when the build is loaded or parsed)."""
    rtp: Fraction
    """The nominal RTP the build is made for, as a fraction of the stake (``Fraction(481, 500)``)."""
    feature_buy_price_x: Fraction | None
    """The Feature Buy price in multiples of total bet, or None where the build sells none."""


class BuildSource(Protocol):
    """Where a game's builds come from (what :class:`reelforge.game.buildfile.BuildFiles` offers)."""

    def names(self) -> list[str]: ...

    def versions(self, name: str) -> list[str]: ...

    def load(self, name: str, version: str | None = None) -> Build: ...


@dataclass(frozen=True)
class Capabilities:
    """What a game offers beyond the step machine and plain simulation, declared (never sniffed)."""

    exact: bool = False
    """:meth:`Game.exact` gives the Game Rules Summary's figures exactly."""
    stratified: bool = False
    """:meth:`Game.stratified` gives a stratified estimate (rare features simulated apart)."""
    tunable: bool = False
    """:meth:`Game.tune` recalibrates a build to targets and writes its file."""
    feature_buy: bool = False
    """Rounds of mode ``buy`` (the Feature Buy) at :attr:`Build.feature_buy_price_x`."""



"""Each game's recorded exact figures (:meth:`Game.recorded_exact`), read once."""
_PUBLISHED_MAX_WIN: dict[tuple[str, str], MaxWin] = {}
"""Each build's :meth:`Game.published_max_win` by game and content hash (a build's content never changes)."""



class Game(ABC):
    """Base class every game implements."""

    id: ClassVar[str] = RegisteredId()  # type: ignore[assignment]
    """Registry id (``gemstones-gold``): a game in the package reads it from its folder's ``game.toml``
    (declared there once); a game kept elsewhere declares it here."""
    title: ClassVar[str]
    reference_id: ClassVar[str] = IdByDefault()  # type: ignore[assignment]
    """Our reference id for the game (reports' ``game_id``); by default its :attr:`id`."""
    published_id: ClassVar[str | None] = None
    """The game id its publisher gives (what reports and ``reelforge games`` show), or None."""
    feature_name: ClassVar[str] = "feature"
    """What ``feature_rate`` counts, in words (e.g. ``Free Spins``)."""
    feature_counter: ClassVar[str | None] = "triggers"
    """The accumulator counter (one of :meth:`new_accumulator`'s ``counter_names``) that counts the rounds
    with the feature: the summary's ``feature_rate``; None where the game reports its features otherwise."""
    version: ClassVar[str]
    """The game's version: its rules and presentation (a build's own version counts its maths' changes)."""
    provider: ClassVar[str] = "reelforge"
    """Who supplies the game for certification (the package's provider)."""
    rules_document: ClassVar[RulesDocument | None] = None
    """The published rules document the game implements (its reference and SHA-256), where it has one."""
    max_win_x: ClassVar[int]
    max_win_source: ClassVar[str] = "rules text"
    """Where :attr:`max_win_x` comes from: ``rules text``, or ``provider's published figure`` where the rules
    give no cap (reports name it)."""
    reference_stakes: ClassVar[tuple[float, float]] = (0.10, 100)
    """Smallest and largest total bet (money) the reports quote exposure at."""
    modes: ClassVar[tuple[str, ...]] = ("paid",)
    step_actions: ClassVar[tuple[str, ...]] = ()
    """Optional actions a step may carry (e.g. ``open`` for the GEMBOX); any other is refused."""
    capabilities: ClassVar[Capabilities] = Capabilities()
    presentation: ClassVar[str | None] = None
    """The browser client's genre renderer for a game without its own (``lines``: reels and paylines with
    free spins; ``hold_and_respin``: coins with their values that stick), sent in ``GET /games``; None
    draws the generic board."""
    reporting: ClassVar[type[Reporting]] = Reporting
    """What the reports say of the game beyond the generic (a :class:`Reporting` subclass in its folder)."""
    design_commands: ClassVar[str | None] = None
    """``"module:attribute"`` of the game's own design commands (a ``typer.Typer`` in its folder), mounted as
    ``reelforge design GAME ...`` beside the generic ``tune``; None: the generic ones alone."""
    build_files: ClassVar[BuildSource]
    """The game's build files (a :class:`reelforge.game.buildfile.BuildFiles`, declared in its build module)."""

    # -- builds -----------------------------------------------------------
    def build_names(self) -> list[str]:
        """Names of the shipped builds, best RTP first."""
        return self.build_files.names()

    def load_build(self, name: str, version: str | None = None) -> Build:
        """Load and validate a build by name, once (raises :class:`BuildError` naming the valid ones):
        its current version, or ``version`` (an older one stays loadable for the rounds played with it).
        A build whose stated maximum win is more than any round can reach is refused (:meth:`check_stated_max_win`)."""
        build = self.build_files.load(name, version)
        self.check_stated_max_win(build)
        return build

    def check_stated_max_win(self, build: Build) -> None:
        """Refuse, with one line naming the reachable value, a build whose stated maximum win
        (:meth:`cap_x`) is above :meth:`max_win_bound`: players and regulators read it as a promise."""
        bound = self.max_win_bound(build)
        if bound is not None and self.cap_x(build) > bound[0]:
            raise BuildError(f"{self.id} build {build.name}: the stated maximum win {self.cap_x(build):,}x cannot be "
                             f"reached: no round can win more than {x_text(bound[0])}x ({bound[1]})")

    def build_versions(self, name: str) -> list[str]:
        """Every published version of build ``name``, oldest first (the last is the current one)."""
        return self.build_files.versions(name)

    def default_build(self) -> str:
        return self.build_names()[0]

    def stake_x(self, build: Build, mode: str = "paid") -> Fraction:
        """What a round of ``mode`` costs, in multiples of total bet."""
        self.check_mode(mode)
        if mode == "paid":
            return Fraction(1)
        price = self.feature_buy_price_x(build)
        if price is None:
            raise RulesError(f"{self.id} build {build.name} has no feature buy")
        return price

    def default_bet_ladder(self, build: Build) -> tuple[int, ...]:
        """Total bets (minor units) that pay every win of ``build`` exactly: 1, 2, 5, 10 ... 1000 times the
        smallest such bet (the win unit, times what a bought round's price needs). What a demo server offers
        for a game its configuration does not list."""
        step = self.win_unit(build)
        for mode in self.modes:
            if mode != "buy" or self.feature_buy_price_x(build) is not None:
                q = Fraction(self.stake_x(build, mode)).denominator
                step = step * q // math.gcd(step, q)
        return tuple(step * k for k in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000))

    def feature_buy_price_x(self, build: Build) -> Fraction | None:
        """The build's Feature Buy price (x total bet), or None where the game or build sells none."""
        if not self.capabilities.feature_buy or build.feature_buy_price_x is None:
            return None
        return Fraction(build.feature_buy_price_x)

    def check_action(self, action: str | None) -> None:
        """Refuse a step action the game does not declare in :attr:`step_actions`."""
        if action is not None and action not in self.step_actions:
            allowed = ", ".join(self.step_actions) or "none"
            raise RulesError(f"{self.id} has no step action {action!r}; actions: {allowed}")

    def check_mode(self, mode: str) -> None:
        if mode not in self.modes:
            raise RulesError(f"{self.id} has no round mode {mode!r}; modes: {', '.join(self.modes)}")

    # -- the step machine ---------------------------------------------------
    @abstractmethod
    def start_round(self, build: Build, mode: str = "paid") -> dict[str, Any]:
        """Initial JSON-able state of a new round (draws nothing)."""

    @abstractmethod
    def play_step(self, build: Build, state: dict[str, Any], draws: DrawSource,
                  action: str | None = None) -> StepResult:
        """Play the next step. Must not mutate ``state``; raises RulesError on a finished round."""

    def play_round(self, build: Build, draws: DrawSource, mode: str = "paid") -> RoundResult:
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

    def replay(self, build: Build, mode: str, step_draws: list[list[int]],
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

    def with_win_positions(self, build: Build, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A step's ``events`` with ``positions`` (``[reel, row]`` cells, from 0, row 0 at the top) added
        to each win, for front ends that draw from events alone (Stake books, docs/STAKE.md). The
        stored events stay as the rules wrote them; a game without wins on cells returns them as they are."""
        return events

    # -- help -----------------------------------------------------------------
    @abstractmethod
    def help(self, build: Build, lang: str = DEFAULT_LANGUAGE) -> GameHelp:
        """Title, ids, version, active build and RTP, rules text, paytable, help page, max win
        (games build it with :meth:`make_help`), the texts in the language ``lang`` (ISO 639-1) where the
        ``games`` catalogs have them (:class:`reelforge.game.texts.Words`; an unknown language is English)."""

    def make_help(self, build: Build, *, volatility: int, rules: list[str] | tuple[str, ...],
                  page: dict[str, Any], symbol_names: dict[str, str], extra: dict[str, Any] | None = None,
                  rtp: Fraction | None = None, words: Words = ENGLISH) -> GameHelp:
        """A :class:`GameHelp` whose identity fields come from the class and the build, the same in
        every game: ``game`` the registry id, ``game_id`` the reference id, ``rtp`` the build's (or
        ``rtp``, a fraction of the stake), the paytable ``page["paytable"]``, the Feature Buy price
        :meth:`feature_buy_price_x`; ``volatility`` the game's level on the project's 1-10 SD scale, shown
        as bolts on the one scale (:data:`VOLATILITY_WORDS`); ``words`` the language the texts are written in."""
        bolts = volatility_bolts(volatility)
        proof = rtp_proof(self, build).to_json() if rtp is None else {"method": "declared", "rtp": str(Fraction(rtp))}
        return GameHelp(
            game=self.id, title=self.title, game_id=self.reference_id, published_id=self.published_id,
            version=self.version, build=build.name, rtp=Fraction(proof["rtp"]),
            volatility=VOLATILITY_WORDS[bolts - 1], volatility_bolts=bolts, max_win_x=self.cap_x(build),
            rules=tuple(rules), paytable=page["paytable"],
            symbol_names=dict(symbol_names), page=page, feature_buy_price_x=self.feature_buy_price_x(build),
            extra=dict(extra or {}), build_version=build.identity.version, build_hash=build.identity.content_hash,
            max_win=self.published_max_win(build).to_json(), language=words.lang,
            rtp_proof=proof)

    # -- mathematics ------------------------------------------------------------
    @abstractmethod
    def win_unit(self, build: Build) -> int:
        """Integer win units per total bet: every round win is a whole number of them."""

    @abstractmethod
    def new_accumulator(self, build: Build, mode: str = "paid") -> Accumulator:
        """An empty accumulator with this game's components and counters."""

    @abstractmethod
    def simulate_chunk(self, build: Build, rounds: int, seed: np.random.SeedSequence,
                       mode: str = "paid") -> Accumulator:
        """Simulate ``rounds`` rounds with the fast kernel from one seed."""

    @abstractmethod
    def kernel_round_wins(self, build: Build, rounds: int, seed: int | np.random.SeedSequence,
                          mode: str = "paid") -> np.ndarray:
        """Per-round wins (win units) from the fast kernel for ``rounds`` rounds of ``mode`` from one
        seed, drawn in the reference engine's order: :func:`reelforge.conformance.check_game` demands
        the same wins as :meth:`play_round` on the same stream."""

    def exact(self, build: Build) -> ExactFigures:
        """Exact Game Rules Summary figures (games declaring ``capabilities.exact``)."""
        raise NotImplementedError(f"{self.id} has no exact mathematics (capabilities.exact is False)")

    quick_exact: ClassVar[bool] = False
    """:meth:`exact` answers in well under a second (a chain, not an enumeration), so the lobby and the help may
    give the maximum win's exact probability (:meth:`published_max_win`)."""

    EXACT_RECORD = "exact_figures.toml"
    """The file beside a game's module recording the exact figures of its builds by content hash."""

    def exact_record_path(self) -> Path:
        """Where this game's recorded exact figures are (:meth:`recorded_exact`)."""
        return beside_game(self, self.EXACT_RECORD)

    def recorded_exact(self, build: Build) -> dict[str, Fraction] | None:
        """The exact ``rtp``, ``max_win_x`` and ``max_win_probability`` recorded for this build's content (written by
        ``bench/exact_games.py --record`` from ``reelforge exact``), or None: what the lobby, the help and ``reelforge
        games`` show of a game whose enumeration takes seconds. check_game's ``max_win_reachable`` holds every
        record to :meth:`exact`."""
        entry = load_records(self.exact_record_path()).get(build.identity.content_hash)
        return None if entry is None else {k: Fraction(entry[k]) for k in ("rtp", "max_win_x", "max_win_probability")}

    def proven_rtp(self, build: Build) -> Fraction:
        """The RTP the help and the lobby show: exact, certified or declared (:func:`reelforge.game.rtp_proof.rtp_proof`
        says which and how it is known)."""
        return rtp_proof(self, build).value

    def cap_x(self, build: Build) -> int:
        """The stated maximum win of a round of ``build`` (x total bet): :attr:`max_win_x`, where the rules stop
        a round (a game whose cap is build data overrides this)."""
        return self.max_win_x

    def max_win_bound(self, build: Build) -> tuple[Fraction, str] | None:
        """An upper bound on what a round of ``build`` can win before any cap, from the rules and the build's
        data, with how it is found in words (``15 coins x 100x + the 1,000x Grand + 100x of gems``); None where
        the rules give none below the cap. Cheap: :meth:`load_build` refuses a stated maximum above it."""
        return None

    def max_win_round(self, build: Build) -> tuple[str, list[list[int]]] | None:
        """A round that reaches the largest win (the cap, or :meth:`max_win_bound` where that is lower), from
        scripted draws: ``(mode, per-step draws)`` for :meth:`replay`; None where the game gives none (games
        with :meth:`exact` need none)."""
        return None

    def max_win(self, build: Build, exact: ExactFigures | None = None) -> MaxWin:
        """The largest win a round of ``build`` can reach, derived, never declared: the exact distribution's
        top outcome where ``exact`` is given; else the least of the cap and :meth:`max_win_bound` where
        :meth:`max_win_round` replays to it (then it is the maximum exactly); else that least value as a bound."""
        stated = Fraction(self.cap_x(build))
        if exact is not None:
            top = max(w for w, p in exact.outcomes.items() if p > 0)
            return MaxWin(Fraction(top), "exact", f"the largest outcome of the exact distribution "
                          f"({'the cap' if top == stated else f'below the {x_text(stated)}x cap'})",
                          probability=exact.outcomes[top])
        bound = self.max_win_bound(build)
        if bound is None or bound[0] > stated:
            limit, how = stated, "the cap: the rules stop a round there"
        else:
            limit, how = bound[0], f"no round can win more: {bound[1]}"
        made = self.max_win_round(build)
        if made is not None:
            mode, draws = made
            won = self.replay(build, mode, draws).total_win
            if won == limit:
                return MaxWin(limit, "constructed round", f"{how}; a {'bought' if mode == 'buy' else 'paid'} round of "
                              f"{len(draws)} step{'s' if len(draws) > 1 else ''} from scripted draws wins it", mode=mode,
                              round_draws=tuple(tuple(int(v) for v in d) for d in draws))
            how += f"; the constructed round wins only {x_text(won)}x"
        return MaxWin(limit, "bound", how)

    def published_max_win(self, build: Build) -> MaxWin:
        """What the lobby, the help and ``reelforge games`` show: :meth:`max_win`, with the exact distribution
        where it is quick (:attr:`quick_exact`), worked out once per build content."""
        key = (self.id, build.identity.content_hash)
        if key not in _PUBLISHED_MAX_WIN:
            quick = self.capabilities.exact and self.quick_exact
            recorded = self.recorded_exact(build) if self.capabilities.exact and not quick else None
            if recorded is not None:
                top, stated = recorded["max_win_x"], Fraction(self.cap_x(build))
                _PUBLISHED_MAX_WIN[key] = MaxWin(
                    top, "exact", f"the largest outcome of the exact distribution ({'the cap' if top == stated else f'below the {x_text(stated)}x cap'}; "
                    f"recorded for this build's content from `reelforge exact {self.id} --build {build.name}`)",
                    probability=recorded["max_win_probability"])
            else:
                _PUBLISHED_MAX_WIN[key] = self.max_win(build, self.exact(build) if quick else None)
        return _PUBLISHED_MAX_WIN[key]

    def extra_summary(self, build: Build, acc: Accumulator) -> dict[str, Any]:
        """Figures only this game has, from a simulation: the summary puts them under ``extra``."""
        return {}

    stratified_pilot_rounds: int = 1_000_000
    """Paid spins of the pilot that prices the stratified estimate for ``summary --precision``: the
    smallest budget at which every stratum grows in proportion to it (below, fixed floors such as
    a minimum feature count make the pilot's half-width unrepresentative of larger runs)."""

    def stratified(self, build: Build, rounds: int, seed: int) -> StratifiedEstimate:
        """A stratified estimate (games declaring ``capabilities.stratified``): ``rounds`` paid
        spins simulated alone, plus trigger rate x feature value, each with its interval, combined."""
        raise NotImplementedError(f"{self.id} has no stratified estimator (capabilities.stratified is False)")

    def stratified_estimator(self) -> Any:
        """The :class:`reelforge.game.estimation.StratifiedEstimator` behind :meth:`stratified` (games declaring
        ``capabilities.stratified``): a certification run simulates its samples piece by piece and merges them."""
        raise NotImplementedError(f"{self.id} has no stratified estimator (capabilities.stratified is False)")

    def best_estimator(self, build: Build) -> RtpEstimator | None:
        """The game's best unbiased RTP estimator for ``build`` (:mod:`reelforge.game.rtp_estimators`): the
        exact RTP where the game is enumerable, its stratified estimator where it has one, else None (plain
        simulation is the best there is). ``reelforge simulate --estimator best`` and ``certify`` use it; a
        game with a better estimator overrides this."""
        from reelforge.game.rtp_estimators import ExactRtp, StratifiedRtp

        if self.capabilities.exact:
            return ExactRtp(self, build)
        if self.capabilities.stratified:
            return StratifiedRtp(self, build)
        return None

    tune_options: ClassVar[tuple[str, ...]] = ()
    """The generic tuner's options :meth:`tune` also takes (``tolerances``, ``max_rounds``, ``version``: see
    :class:`reelforge.game.tuning.DataTuning`); a game with its own design tuner takes none of them."""

    def tune(self, name: str, targets: dict[str, float], out: str | None = None,
             sample: str | None = None) -> TuneResult:
        """Recalibrate build ``name`` to ``targets`` and write its file (``out``, default the shipped
        file) (games declaring ``capabilities.tunable``); ``sample`` keeps/reuses a tuning sample.
        Unknown targets or bad values raise ValueError naming them."""
        raise NotImplementedError(f"{self.id} cannot be tuned (capabilities.tunable is False)")

    def feature_picture(self, build: Build, summary: dict[str, Any]) -> dict[str, Any] | None:
        """The game's own report plot from a summary: ``{"title", "labels", "values", "xlabel",
        "ylabel", "log"?, "ci99"?, "series"?}``, or None. ``ci99`` (optional) gives each value's 99%
        interval ``[lo, hi]`` (drawn as error bars). ``series`` (optional) draws stacked panels instead,
        each ``{"name", "labels", "values", "ci99"?, "log"?, "ylabel"?}`` (for figures on different bins
        or denominators)."""
        return None

    def feature_pictures(self, build: Build, summary: dict[str, Any]) -> list[dict[str, Any]]:
        """Every game plot of the report (default: :meth:`feature_picture`, if any)."""
        pic = self.feature_picture(build, summary)
        return [pic] if pic else []

    def report(self) -> Reporting:
        """What the reports say of this game (its :attr:`reporting`, bound to it)."""
        return self.reporting(self)
