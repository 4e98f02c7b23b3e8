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
import sys
import tomllib
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from reelforge.core.draws import DrawSource, RecordedDraws, RecordingDraws
from reelforge.core.stats import Accumulator
from reelforge.game.texts import DEFAULT_LANGUAGE, ENGLISH, Words


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


def paytable_problem(table: Any) -> str | None:
    """What is wrong with a help paytable's shape (None: nothing): ``title``, ``tier_label`` and ``note``
    text, ``tiers`` a non-empty list of text, ``rows`` of ``{"art": [symbol keys], "name", "pays_x": [one
    exact multiple of the total bet, as text, per tier]}`` or ``{"art", "name", "text"}``."""
    if not isinstance(table, dict):
        return "must be a table"
    rows = table.get("rows")
    if not isinstance(rows, list) or not rows:
        return "needs 'rows', a non-empty list"
    for key in ("title", "tier_label", "note"):
        if not isinstance(table.get(key), str):
            return f"needs '{key}' as text"
    tiers = table.get("tiers")
    if not isinstance(tiers, list) or not tiers or not all(isinstance(t, str) for t in tiers):
        return "needs 'tiers', a non-empty list of text (e.g. ['3', '4', '5'])"
    for i, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not isinstance(row.get("name"), str) or not row["name"]:
            return f"row {i} needs a 'name'"
        art = row.get("art")
        if not isinstance(art, list) or not art or not all(isinstance(a, str) for a in art):
            return f"row {i} ({row['name']}) needs 'art', a non-empty list of symbol keys"
        pays = row.get("pays_x")
        if pays is None:
            if not isinstance(row.get("text"), str):
                return f"row {i} ({row['name']}) needs 'pays_x' (one per tier) or 'text'"
            continue
        if not isinstance(pays, list) or len(pays) != len(tiers):
            return f"row {i} ({row['name']}) needs 'pays_x' with one pay per tier ({len(tiers)})"
        for p in pays:
            if not _fraction_text(p):
                return f"row {i} ({row['name']}) has a pay that is not an exact multiple of the bet as text: {p!r}"
    return None


def _fraction_text(value: Any) -> bool:
    """An exact number written as text (``"3/20"``, ``"2.5"``)."""
    try:
        return isinstance(value, str) and Fraction(value) >= 0
    except ValueError:
        return False


VOLATILITY_WORDS = ("Low", "Medium", "Medium-high", "High", "Extreme")
"""The one volatility scale of every game's help, lobby tile and help page: 1 to 5 bolts, each with its
word. A game states its level on the project's 1-10 scale of the round win's SD
(:func:`reelforge.core.stats.volatility_level`, GAMES.md); two levels make a bolt."""


def volatility_bolts(level: int) -> int:
    """Bolts (1-5) for a level on the project's 1-10 volatility scale."""
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
        raise TypeError(f"a volatility level is an int from 1 to 10 (the project's SD scale), got {level!r}")
    return (level + 1) // 2


@dataclass(frozen=True)
class GameHelp:
    """The help a game shows for one build (``GET /games/{game}/help``). Made by
    :meth:`Game.make_help`, which fills the identity fields the same way in every game; the
    constructor refuses a field of the wrong type or meaning (an RTP in percent, rules as one string)."""

    game: str
    """Registry id (``gemstones-gold``)."""
    title: str
    game_id: str
    """The game's reference id (:attr:`Game.reference_id`: ``622``), as in the reports."""
    version: str
    """The game's version (its rules and presentation)."""
    build: str
    rtp: Fraction
    """The build's RTP as a fraction of the stake (``Fraction(481, 500)``), never a percentage."""
    volatility: str
    """In words, the word of :attr:`volatility_bolts` on the one scale (``High``)."""
    max_win_x: int
    rules: tuple[str, ...]
    """The rules text, one paragraph per entry."""
    paytable: dict[str, Any]
    """The paytable as people read it, the same shape in every game: ``title``, ``tiers``,
    ``tier_label``, ``note`` and ``rows`` of ``{"art", "name", "pays_x"}`` (one exact multiple of the
    total bet per tier, as a string) or ``{"art", "name", "text"}``; ``page["paytable"]`` is the same."""
    symbol_names: dict[str, str]
    """Symbol key -> name in words."""
    page: dict[str, Any]
    """The help page as the client draws it: ``paytable``, ``features``, ``sections``."""
    feature_buy_price_x: Fraction | None = None
    """The Feature Buy price (x total bet), or None where the game or build sells none."""
    published_id: str | None = None
    """The game id its publisher gives (:attr:`Game.published_id`), or None where it gives none."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What only this game has (ladder, multiplier values, bet sizes...)."""
    build_version: str = ""
    """The version of the build's contents (``2.0``): name and version identify the maths."""
    build_hash: str = ""
    """The build's content hash (:attr:`BuildIdentity.content_hash`)."""
    volatility_bolts: int = 0
    """1 to 5 on the one scale (:data:`VOLATILITY_WORDS`)."""
    max_win: dict[str, Any] = field(default_factory=dict)
    """The largest win a round can reach and how it is known (:meth:`MaxWin.to_json`: ``x``, ``method``, ``text``,
    ``probability`` where exact), from :meth:`Game.published_max_win`."""
    language: str = DEFAULT_LANGUAGE
    """The language of the help's texts (ISO 639-1); names of the game and its symbols stay as the game keeps them."""

    def __post_init__(self) -> None:
        if not 1 <= self.volatility_bolts <= 5 or self.volatility != VOLATILITY_WORDS[self.volatility_bolts - 1]:
            raise TypeError(f"{self.game} help: volatility must be 1-5 bolts with its word from VOLATILITY_WORDS, "
                            f"got {self.volatility_bolts!r} {self.volatility!r}")
        if not isinstance(self.rtp, Fraction) or not 0 < self.rtp <= 1:
            raise TypeError(f"{self.game} help: rtp must be a Fraction of the stake in (0, 1], got {self.rtp!r}")
        if not isinstance(self.rules, tuple) or not all(isinstance(p, str) for p in self.rules):
            raise TypeError(f"{self.game} help: rules must be a tuple of paragraphs (str)")
        if not isinstance(self.max_win_x, int) or isinstance(self.max_win_x, bool):
            raise TypeError(f"{self.game} help: max_win_x must be an int, got {self.max_win_x!r}")
        if self.feature_buy_price_x is not None and not isinstance(self.feature_buy_price_x, Fraction):
            raise TypeError(f"{self.game} help: feature_buy_price_x must be a Fraction or None")
        problem = paytable_problem(self.paytable)
        if problem:
            raise TypeError(f"{self.game} help: the paytable {problem} (see GameHelp.paytable)")

    @property
    def rtp_percent(self) -> str:
        """The RTP for people, in percent with two decimals (``96.20``)."""
        return f"{float(self.rtp) * 100:.2f}"

    def to_json(self) -> dict[str, Any]:
        """The help as JSON: Fractions as exact strings (``rtp``: ``"481/500"``), plus ``rtp_percent``."""
        out = {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}
        out["rtp_percent"] = self.rtp_percent
        return out


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
        x = _x_text(self.x)
        how = {"exact": "exact (every outcome enumerated)", "constructed round": "reached by a constructed round",
               "bound": "an upper bound from the rules (not shown reachable)"}[self.method]
        odds = f", probability {float(self.probability):.4g} per round" if self.probability else ""
        return f"{x}x the total bet, {how}{odds}"

    def player_words(self, words: Words = ENGLISH) -> str:
        """The help's sentence: the maximum win, and how often where that is known exactly (in ``words``' language)."""
        x = words.number(self.x if self.x.denominator == 1 else Fraction(f"{float(self.x):.6g}"))
        if self.probability:
            return words("The maximum win of a round is {x}x the total bet, reached on average once in {rounds} "
                         "rounds; reaching it ends the round.", x=x, rounds=_rounds_text(1 / self.probability, words))
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


SOURCE_RULES = "rules text"
SOURCE_PROVIDER = "provider's published figure"
SOURCE_OURS = "our decision"
SOURCE_DESIGN = "design document"
DESIGN_DOCUMENT = "design document GAMES.md"
"""The supplier's specification of the games: their figures beyond the rules, the tolerances."""
"""Where a certification target comes from (a certificate names it beside each target): the published rules, a
design document the supplier declares (its name and section in :attr:`CertificationTarget.document`)."""


@dataclass(frozen=True)
class CertificationTarget:
    """A figure a certification package measures against a target (``reelforge certify``'s table)."""

    figure: str
    """The figure in words (``RTP from paid spins``)."""
    key: str
    """The summary's key of the figure, dotted for a part (``rtp_split.paid_spins``)."""
    target: float
    tolerance: float | None
    """Half-width of the band around :attr:`target` (None for a level or a reachability)."""
    source: str
    """:data:`SOURCE_RULES`, :data:`SOURCE_PROVIDER` or :data:`SOURCE_OURS`."""
    unit: str = "%"
    note: str = ""
    kind: str = "interval"
    """``interval`` (the whole 99% interval inside the band), ``point`` (the figure inside it), ``equal`` or
    ``at_least`` (a volatility level), ``reachable`` (the maximum win observed)."""
    document: str = ""
    """The document the target is cited from and its section (``rules document 003_adbee4d6998569b0.txt, the
    statistics table``): every target cites one."""


class Reporting:
    """What the reports, PAR sheet and certificate say of one game beyond what they say of every game.
    A game names its subclass in :attr:`Game.reporting` and overrides only what is special; every
    default here is the generic answer (the generic PAR sheet from the win events, no further rows)."""

    component_words: ClassVar[dict[str, str]] = {}
    """RTP component key -> its words in the reports (``gembox``: ``GEMBOX (prizes and free spins)``),
    where the key with spaces for underscores does not say it."""
    hit_split_words: ClassVar[dict[str, str]] = {}
    """Hit-rate split key (the summary's ``extra["hit_rate_split"]``) -> its words in the reports."""
    bet_ladder_cents: ClassVar[tuple[int, ...]] = ()
    """The total bets (cents) of the game's published bet structure: a certificate gives the RTP at each."""
    par_sheet_of_purchases: ClassVar[bool] = False
    """The game's :meth:`par_sheet` reads a Feature Buy summary (``mode`` buy) as bought features, one purchase
    each (a Feature Buy package then has its own PAR sheet)."""
    parameter_units: ClassVar[dict[str, str]] = {}
    """A build file's key path (or the path's first part) -> its unit and meaning in words (``pays``: ``coins per
    line for 3, 4, 5 of a kind``): the generic PAR sheet gives every build parameter with it."""

    def ordered_strips(self, build: Build) -> list[dict[str, Any]]:
        """The build's reel strips in stop order (``{"title", "strips", "codes", "note"}`` per strip set; strips
        as lists of symbol names), for games whose reels are strips; none by default."""
        return []

    def exact_pays(self, build: Build, summary: dict[str, Any]) -> list[tuple[str, str, Fraction, Fraction]] | None:
        """Every pay's exact share of an exact summary's RTP, ``(pay, part, expected wins per paid round, RTP
        contribution)`` with the cap's reduction as part ``cap`` so the rows add up to the RTP; None where the game
        gives none (its PAR sheet's pays then come from the reference sample)."""
        return None

    def rule_sources(self, build: Build) -> list[list[str]]:
        """Each rule the game plays, in words, with the document and section it comes from (``[rule, document,
        section]``): the PAR sheet's reference from every rule to its source; none by default."""
        return []

    def paylines(self, build: Build) -> list[list[int]]:
        """The paylines, each as the row (0 top) it crosses on each reel; none by default."""
        return []

    def __init__(self, game: Game) -> None:
        self.game = game

    def par_sheet(self, build: Build, summary: dict[str, Any], rounds: int, seed: int) -> dict[str, Any] | None:
        """The game's own PAR sheet (see :mod:`reelforge.game.parsheet`), or None for the generic one built from
        its win events (:func:`reelforge.analysis.par_events.event_par_sheet`)."""
        return None

    def figure_rows(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        """Rows (figure, value, 99% interval or ``exact``) for the figures only this game's summary has
        (under ``extra``), after the common ones."""
        return []

    def glossary(self, summary: dict[str, Any]) -> list[tuple[str, str]]:
        """(term, definition) for each of :meth:`figure_rows`' figures."""
        return []

    def certification_targets(self, build: Build) -> list[CertificationTarget]:
        """What a certification package of a paid build is measured against (its sources named): by default
        the game's ``targets.toml`` (:mod:`reelforge.game.targets`), none where it keeps none."""
        from reelforge.game.targets import data_targets

        return data_targets(self.game, build)

    def game_cycle(self, build: Build) -> dict[str, Any]:
        """``{"enumerable", "combinations", "lengths", "text"}``: the game cycle where it can be enumerated,
        or why not."""
        if self.game.capabilities.exact:
            return {"enumerable": True, "combinations": None, "lengths": None,
                    "text": "Enumerated: every outcome of a round is counted exactly (`reelforge exact`): each spin "
                            "over every stop or cell combination, the feature as its Markov chain; no sample."}
        return {"enumerable": False, "combinations": None, "lengths": None,
                "text": "Not enumerated: the game states no finite cycle of equally likely outcomes for a round."}

    def feature_breakdown(self, build: Build, summary: dict[str, Any]) -> dict[str, Any]:
        """Each feature award's frequency, mean win and share of RTP (``{"title", "columns", "rows",
        "formats", "note"}``), or ``{}``."""
        return {}


_EXACT_RECORDS: dict[Path, dict[str, Any]] = {}
"""Each game's recorded exact figures (:meth:`Game.recorded_exact`), read once."""
_PUBLISHED_MAX_WIN: dict[tuple[str, str], MaxWin] = {}
"""Each build's :meth:`Game.published_max_win` by game and content hash (a build's content never changes)."""


def _rounds_text(n: Fraction, words: Words = ENGLISH) -> str:
    """A number of rounds for people: ``100,848``, or ``4.46 × 10⁴³`` past a billion (as the lobby writes it), with
    the digits in ``words``' locale."""
    whole = round(n)
    if whole < 10 ** 9:
        return words.number(whole)
    digits = str(whole)
    power = "".join("⁰¹²³⁴⁵⁶⁷⁸⁹"[int(c)] for c in str(len(digits) - 1))
    return f"{words.number(Fraction(int(digits[:3]), 100))} × 10{power}"


def _x_text(x: Fraction) -> str:
    """A multiple of the bet for people: ``2,600`` or ``12.5``."""
    x = Fraction(x)
    return f"{int(x):,}" if x.denominator == 1 else f"{float(x):,.6g}"


class Game(ABC):
    """Base class every game implements."""

    id: ClassVar[str]
    """Registry id (``gemstones-gold``)."""
    title: ClassVar[str]
    reference_id: ClassVar[str]
    """Our reference id for the game (reports' ``game_id``)."""
    published_id: ClassVar[str | None] = None
    """The game id its publisher gives (what reports and ``reelforge games`` show), or None."""
    feature_name: ClassVar[str] = "feature"
    """What ``feature_rate`` counts, in words (e.g. ``Free Spins``)."""
    feature_counter: ClassVar[str | None] = "triggers"
    """The accumulator counter (one of :meth:`new_accumulator`'s ``counter_names``) that counts the rounds
    with the feature: the summary's ``feature_rate``; None where the game reports its features otherwise."""
    version: ClassVar[str]
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
                             f"reached: no round can win more than {_x_text(bound[0])}x ({bound[1]})")

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
        return GameHelp(
            game=self.id, title=self.title, game_id=self.reference_id, published_id=self.published_id,
            version=self.version, build=build.name, rtp=self.proven_rtp(build) if rtp is None else Fraction(rtp),
            volatility=VOLATILITY_WORDS[bolts - 1], volatility_bolts=bolts, max_win_x=self.cap_x(build),
            rules=tuple(rules), paytable=page["paytable"],
            symbol_names=dict(symbol_names), page=page, feature_buy_price_x=self.feature_buy_price_x(build),
            extra=dict(extra or {}), build_version=build.identity.version, build_hash=build.identity.content_hash,
            max_win=self.published_max_win(build).to_json(), language=words.lang)

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
        return Path(sys.modules[type(self).__module__].__file__ or ".").parent / self.EXACT_RECORD

    def recorded_exact(self, build: Build) -> dict[str, Fraction] | None:
        """The exact ``rtp``, ``max_win_x`` and ``max_win_probability`` recorded for this build's content (written by
        ``bench/exact_games.py --record`` from ``reelforge exact``), or None: what the lobby, the help and ``reelforge
        games`` show of a game whose enumeration takes seconds. check_game's ``max_win_reachable`` holds every
        record to :meth:`exact`."""
        path = self.exact_record_path()
        if path not in _EXACT_RECORDS:
            _EXACT_RECORDS[path] = tomllib.loads(path.read_text()) if path.exists() else {}
        entry = _EXACT_RECORDS[path].get(build.identity.content_hash)
        return None if entry is None else {k: Fraction(entry[k]) for k in ("rtp", "max_win_x", "max_win_probability")}

    def proven_rtp(self, build: Build) -> Fraction:
        """The RTP the help and the lobby show: the exact RTP where the game is enumerable (computed where
        :attr:`quick_exact`, else :meth:`recorded_exact` for this build's content), else the build's declared RTP
        (held to a simulation by check_game's ``rtp_declared``; its certification run is the decision)."""
        if self.capabilities.exact:
            if self.quick_exact:
                return self.exact(build).rtp
            recorded = self.recorded_exact(build)
            if recorded is not None:
                return recorded["rtp"]
        return Fraction(build.rtp)

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
                          f"({'the cap' if top == stated else f'below the {_x_text(stated)}x cap'})",
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
            how += f"; the constructed round wins only {_x_text(won)}x"
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
                    top, "exact", f"the largest outcome of the exact distribution ({'the cap' if top == stated else f'below the {_x_text(stated)}x cap'}; "
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

    tune_options: ClassVar[tuple[str, ...]] = ()
    """The generic tuner's options :meth:`tune` also takes (``tolerances``, ``max_rounds``, ``version``: see
    :class:`reelforge.game.harness.DataTuning`); a game with its own design tuner takes none of them."""

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
