"""What the reports, PAR sheet and certificate say of one game beyond what they say of every game
(:class:`Reporting`), and what a certification measures against (:class:`CertificationTarget`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from reelforge.game.contract import Build, Game


SOURCE_RULES = "rules text"
SOURCE_PROVIDER = "provider's published figure"
SOURCE_OURS = "our decision"
SOURCE_DESIGN = "design document"
"""Where a certification target comes from (a certificate names it beside each target): the published rules, a
design document the supplier declares (its name and section in :attr:`CertificationTarget.document`)."""
DESIGN_DOCUMENT = "design document GAMES.md"
"""The supplier's specification of the games: their figures beyond the rules, the tolerances."""


@dataclass(frozen=True)
class RulesDocument:
    """A game's published rules document: how to find it and the SHA-256 of the text the game implements."""

    reference: str
    sha256: str


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
    """``interval`` (passes when the whole 99% interval lies inside the band; an exact figure when the value
    does), ``equal`` or ``at_least`` (a volatility level), ``reachable`` (the maximum win observed)."""
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

    def exact_sections(self, build: Build, summary: dict[str, Any]) -> list[dict[str, Any]]:
        """The PAR sheet's further exact tables of an exact summary, after its exact pays (a feature split by what
        it pays, its outcome distribution); none by default."""
        return []

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

    def stratified_details(self, build: Build, sample: Any) -> dict[str, Any]:
        """Figures of a stratified sample that its estimate leaves out (the intervals of :meth:`feature_breakdown`'s
        cells), added to the summary's ``extra`` by a certification package; none by default."""
        return {}

    def feature_breakdown(self, build: Build, summary: dict[str, Any]) -> dict[str, Any]:
        """Each feature award's frequency, mean win and share of RTP (``{"title", "columns", "rows",
        "formats", "note"}``), or ``{}``."""
        return {}
