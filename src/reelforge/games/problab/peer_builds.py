"""The build format both of problab's demo games share, converted once from the peer's published YAML
(``bench/peers/problab_builds.py``; Apache-2.0, its LICENSE and NOTICE beside the files).

Both keep the peer's own numbering: a strip is a list of symbol codes (the index in ``symbols``),
a paytable row is the pay for a count of 1, 2, 3... of the symbol (the peer's ``pay_table``,
indexed by count - 1), in the peer's bet units: a round stakes ``bet_unit`` units (40 in
demo_normal, 30 in demo_cascade) and pays whole units. A symbol's kind is the first letter of its
name, as the peer reads it: ``W`` wild, ``C`` scatter, ``H``/``L`` paying, ``Z`` blank.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.game.buildschema import RTP, Array, At, Field, Integer, Table, Text, fraction_text

SYMBOL_KINDS = {"W": "wild", "C": "scatter", "H": "high", "L": "low", "Z": "blank"}


@dataclass(frozen=True)
class Mode:
    """One of the peer's game modes (base game, free game): its reels and its paytable."""

    reels: tuple[tuple[int, ...], ...]
    """The strips the screen is drawn from (the peer's reel set 0), one per reel, top stop first."""
    pays: tuple[tuple[int, ...], ...]
    """``pays[symbol][count - 1]``: units for ``count`` of ``symbol`` (a line's run or a cluster's size)."""
    fill_reels: tuple[tuple[int, ...], ...] = ()
    """demo_cascade: the strips that refill cleared cells (the peer's reel set 1, weight 0)."""

    def pays_by_count(self) -> np.ndarray:
        """The paytable as ``int64[symbol, count]`` with a zero column for count 0 (the mechanics'
        layout: ``pays[s, n]`` is what ``n`` of ``s`` pay)."""
        table = np.zeros((len(self.pays), len(self.pays[0]) + 1), dtype=np.int64)
        table[:, 1:] = self.pays
        return table


@dataclass(frozen=True, kw_only=True)
class PeerBuild:
    """What a build of either demo game holds: the peer's bet unit and declared cap, its symbols and rows,
    the free rounds, the base and free modes; each game's build adds its own keys."""

    name: str
    rtp: Fraction
    bet_unit: int
    max_win_limit: int
    """The peer's declared ``max_win_limit`` (units): its engine never applies it (see the games' docs)."""
    symbols: tuple[str, ...]
    rows: int
    free_rounds: int
    base: Mode
    free: Mode
    feature_buy_price_x: Fraction | None = None

    def code(self, kind: str) -> int:
        """The code of the build's first symbol of ``kind`` (:func:`symbol_code`)."""
        return symbol_code(self.symbols, kind)


def symbol_code(symbols: tuple[str, ...], kind: str) -> int:
    """The code of the first symbol of ``kind`` (``wild``, ``scatter``), -1 if the game has none."""
    return next((i for i, s in enumerate(symbols) if SYMBOL_KINDS[s[0]] == kind), -1)


def strip_arrays(strips: tuple[tuple[int, ...], ...]) -> tuple[np.ndarray, np.ndarray]:
    """Strips of codes as ``(codes[reel, stop], lengths[reel])`` (rows padded with zeros)."""
    codes = np.zeros((len(strips), max(map(len, strips))), dtype=np.int64)
    for r, strip in enumerate(strips):
        codes[r, : len(strip)] = strip
    return codes, np.array([len(s) for s in strips], dtype=np.int64)


def symbol_word(symbol: str) -> str:
    """A symbol's name in words (``H2`` -> ``High 2``, ``W1`` -> ``Wild``)."""
    kind = SYMBOL_KINDS[symbol[0]]
    return {"wild": "Wild", "scatter": "Scatter", "blank": "Blank"}.get(kind, f"{kind.title()} {symbol[1:]}")


CODES = Array(Integer(low=0), min_length=1, noun="symbol codes")
STRIPS = Array(CODES, min_length=1, noun="strips", multiline=True)
PAYS = Array(Array(Integer(low=0), min_length=1, noun="pays"), min_length=1, noun="paytable rows", multiline=True)


def mode_schema(fill: bool) -> Table:
    fields = [Field("reels", STRIPS), Field("pays", PAYS)]
    if fill:
        fields.insert(1, Field("fill_reels", STRIPS))
    return Table(tuple(fields))


COMMON_FIELDS = (
    Field("game", Text()),
    Field("name", Text()),
    Field("rtp", RTP),
    Field("bet_unit", Integer(low=1), note="units a round stakes (the peer's bet_units[0])"),
    Field("max_win_limit", Integer(low=1), note="declared by the peer, never applied by its engine"),
    Field("symbols", Array(Text(min_length=2), min_length=2, noun="symbols")),
    Field("rows", Integer(low=1)),
)


def mode_from_data(d: dict[str, Any], symbols: int, reels: int, at: At) -> Mode:
    for key in ("reels", "fill_reels"):
        strips = d.get(key, [])
        if key == "reels" and len(strips) != reels or key == "fill_reels" and strips and len(strips) != reels:
            raise (at / key).error(f"must hold one strip per reel ({reels}), found {len(strips)}")
        for r, strip in enumerate(strips):
            if max(strip) >= symbols:
                raise (at / key / (r + 1)).error(f"has a code {max(strip)} beyond the {symbols} symbols")
    if len(d["pays"]) != symbols or len({len(row) for row in d["pays"]}) != 1:
        raise (at / "pays").error(f"must hold one row per symbol ({symbols}), all of one length")
    return Mode(tuple(map(tuple, d["reels"])), tuple(map(tuple, d["pays"])), tuple(map(tuple, d.get("fill_reels", []))))


def check_symbols(symbols: list[str], at: At) -> tuple[str, ...]:
    for s in symbols:
        if s[0] not in SYMBOL_KINDS:
            raise (at / "symbols").error(f"{s!r} is not a peer symbol name (first letter one of {''.join(SYMBOL_KINDS)})")
    return tuple(symbols)


def common_from_data(d: dict[str, Any], name: str, at: At) -> dict[str, Any]:
    """The :class:`PeerBuild` keys of checked data ``d``, its modes checked against its symbols and reels."""
    symbols = check_symbols(d["symbols"], at)
    reels = len(d["base"]["reels"])
    return {"name": name, "rtp": d["rtp"], "bet_unit": d["bet_unit"], "max_win_limit": d["max_win_limit"],
            "symbols": symbols, "rows": d["rows"], "free_rounds": d["free_rounds"],
            "base": mode_from_data(d["base"], len(symbols), reels, at / "base"),
            "free": mode_from_data(d["free"], len(symbols), reels, at / "free")}


def mode_data(m: Mode) -> dict[str, Any]:
    out: dict[str, Any] = {"reels": [list(s) for s in m.reels]}
    if m.fill_reels:
        out["fill_reels"] = [list(s) for s in m.fill_reels]
    out["pays"] = [list(row) for row in m.pays]
    return out


def common_data(game: str, b: PeerBuild) -> dict[str, Any]:
    return {"game": game, "name": b.name, "rtp": fraction_text(b.rtp), "bet_unit": b.bet_unit,
            "max_win_limit": b.max_win_limit, "symbols": list(b.symbols), "rows": b.rows}
