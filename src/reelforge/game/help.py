"""What a game's help says: :class:`GameHelp` (``GET /games/{game}/help``), its paytable's shape
and the one volatility scale of every game."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any

from reelforge.game.results import jsonable
from reelforge.game.texts import DEFAULT_LANGUAGE


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
    rtp_proof: dict[str, Any] = field(default_factory=dict)
    """How :attr:`rtp` is known (:meth:`reelforge.game.rtp_proof.RtpProof.to_json`): ``method`` exact, certified (with
    its 99% ``interval`` and the package it came from) or declared."""
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



def paytable_rows(pays: dict[str, list[int]], unit: int, art: int = 1) -> list[dict[str, Any]]:
    """Paytable rows ``{"art", "name", "pays_x"}`` from pays in win units (``unit`` per total bet) by
    symbol name, the symbol drawn ``art`` times."""
    return [{"art": [name] * art, "name": name, "pays_x": [str(Fraction(p, unit)) for p in row]}
            for name, row in pays.items()]
