"""Builds of problab's two demo games, converted once from the peer's published YAML
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
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.game.buildfile import BuildFiles, build_dir
from reelforge.game.buildschema import RTP, Array, At, Field, Integer, Table, Text, fraction_text

NORMAL_ID = "problab-demo-normal"
CASCADE_ID = "problab-demo-cascade"
BUILDS = build_dir(__file__)
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


@dataclass(frozen=True)
class NormalBuild:
    """demo_normal: 5x3, left-to-right lines from the line table, a wild, 3+ scatters award free rounds."""

    name: str
    rtp: Fraction
    bet_unit: int
    max_win_limit: int
    """The peer's declared ``max_win_limit`` (units): its engine never applies it (see the game's docs)."""
    symbols: tuple[str, ...]
    rows: int
    free_rounds: int
    lines: tuple[tuple[int, ...], ...]
    """``lines[line][reel]``: the row (0 at the top) the line crosses on each reel."""
    base: Mode
    free: Mode
    feature_buy_price_x: Fraction | None = None

    def code(self, kind: str) -> int:
        return symbol_code(self.symbols, kind)


@dataclass(frozen=True)
class CascadeBuild:
    """demo_cascade: 5x5 cluster pays with wilds, tumbles refilled from the fill reels, scatters."""

    name: str
    rtp: Fraction
    bet_unit: int
    max_win_limit: int
    symbols: tuple[str, ...]
    rows: int
    max_step: int
    """At most this many evaluations of the board per spin (the peer's ``max_step``)."""
    free_rounds: int
    scatter_pay: int
    """Units the scatters pay when they trigger (on the paid spin's final board)."""
    trigger: int
    """Scatters on the paid spin's final board that award the free rounds."""
    base: Mode
    free: Mode
    feature_buy_price_x: Fraction | None = None

    def code(self, kind: str) -> int:
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


_CODES = Array(Integer(low=0), min_length=1, noun="symbol codes")
_STRIPS = Array(_CODES, min_length=1, noun="strips", multiline=True)
_PAYS = Array(Array(Integer(low=0), min_length=1, noun="pays"), min_length=1, noun="paytable rows", multiline=True)


def _mode_schema(fill: bool) -> Table:
    fields = [Field("reels", _STRIPS), Field("pays", _PAYS)]
    if fill:
        fields.insert(1, Field("fill_reels", _STRIPS))
    return Table(tuple(fields))


_COMMON = (
    Field("game", Text()),
    Field("name", Text()),
    Field("rtp", RTP),
    Field("bet_unit", Integer(low=1), note="units a round stakes (the peer's bet_units[0])"),
    Field("max_win_limit", Integer(low=1), note="declared by the peer, never applied by its engine"),
    Field("symbols", Array(Text(min_length=2), min_length=2, noun="symbols")),
    Field("rows", Integer(low=1)),
)
NORMAL_SCHEMA = Table((*_COMMON, Field("free_rounds", Integer(low=1)),
                       Field("lines", Array(_CODES, min_length=1, noun="lines", multiline=True)),
                       Field("base", _mode_schema(False)), Field("free", _mode_schema(False))))
CASCADE_SCHEMA = Table((*_COMMON, Field("max_step", Integer(low=1)), Field("free_rounds", Integer(low=1)),
                        Field("scatter_pay", Integer(low=0)), Field("trigger", Integer(low=1)),
                        Field("base", _mode_schema(True)), Field("free", _mode_schema(True))))


def _mode(d: dict[str, Any], symbols: int, reels: int, at: At) -> Mode:
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


def _check_symbols(symbols: list[str], at: At) -> tuple[str, ...]:
    for s in symbols:
        if s[0] not in SYMBOL_KINDS:
            raise (at / "symbols").error(f"{s!r} is not a peer symbol name (first letter one of {''.join(SYMBOL_KINDS)})")
    return tuple(symbols)


def _normal_from_data(d: dict[str, Any], name: str, at: At) -> NormalBuild:
    symbols = _check_symbols(d["symbols"], at)
    for i, line in enumerate(d["lines"]):
        if len(line) != len(d["base"]["reels"]) or max(line) >= d["rows"]:
            raise (at / "lines" / (i + 1)).error("must give a row below 'rows' for every reel")
    reels = len(d["base"]["reels"])
    return NormalBuild(name=name, rtp=d["rtp"], bet_unit=d["bet_unit"], max_win_limit=d["max_win_limit"],
                       symbols=symbols, rows=d["rows"], free_rounds=d["free_rounds"],
                       lines=tuple(map(tuple, d["lines"])), base=_mode(d["base"], len(symbols), reels, at / "base"),
                       free=_mode(d["free"], len(symbols), reels, at / "free"))


def _cascade_from_data(d: dict[str, Any], name: str, at: At) -> CascadeBuild:
    symbols = _check_symbols(d["symbols"], at)
    reels = len(d["base"]["reels"])
    return CascadeBuild(name=name, rtp=d["rtp"], bet_unit=d["bet_unit"], max_win_limit=d["max_win_limit"],
                        symbols=symbols, rows=d["rows"], max_step=d["max_step"], free_rounds=d["free_rounds"],
                        scatter_pay=d["scatter_pay"], trigger=d["trigger"],
                        base=_mode(d["base"], len(symbols), reels, at / "base"),
                        free=_mode(d["free"], len(symbols), reels, at / "free"))


def _mode_data(m: Mode) -> dict[str, Any]:
    out: dict[str, Any] = {"reels": [list(s) for s in m.reels]}
    if m.fill_reels:
        out["fill_reels"] = [list(s) for s in m.fill_reels]
    out["pays"] = [list(row) for row in m.pays]
    return out


def _common_data(game: str, b: NormalBuild | CascadeBuild) -> dict[str, Any]:
    return {"game": game, "name": b.name, "rtp": fraction_text(b.rtp), "bet_unit": b.bet_unit,
            "max_win_limit": b.max_win_limit, "symbols": list(b.symbols), "rows": b.rows}


def _normal_to_data(b: NormalBuild) -> dict[str, Any]:
    return {**_common_data(NORMAL_ID, b), "free_rounds": b.free_rounds, "lines": [list(x) for x in b.lines],
            "base": _mode_data(b.base), "free": _mode_data(b.free)}


def _cascade_to_data(b: CascadeBuild) -> dict[str, Any]:
    return {**_common_data(CASCADE_ID, b), "max_step": b.max_step, "free_rounds": b.free_rounds,
            "scatter_pay": b.scatter_pay, "trigger": b.trigger, "base": _mode_data(b.base), "free": _mode_data(b.free)}


NORMAL_FILES = BuildFiles(NORMAL_ID, BUILDS / "demo_normal", NORMAL_SCHEMA, _normal_from_data, _normal_to_data)
CASCADE_FILES = BuildFiles(CASCADE_ID, BUILDS / "demo_cascade", CASCADE_SCHEMA, _cascade_from_data, _cascade_to_data)


def from_peer_yaml(path: Path, name: str, rtp: Fraction) -> NormalBuild | CascadeBuild:
    """A build from one of the peer's published game files (``game_0_demonormal.yaml`` or
    ``game_1_democascade.yaml``), refusing what the conversion would not keep (a weighted reel, a
    second screen-drawing reel set with a weight, a symbol layout that differs between modes)."""
    import yaml  # only the one-off conversion reads YAML

    y = yaml.safe_load(Path(path).read_text())
    at = At(str(path))
    modes = y["game_mode_settings"]
    if len(modes) != 2:
        raise at.error("expected two game modes (base, free)")
    out = []
    for i, m in enumerate(modes):
        sets = m["gen_screen_setting"]["reel_set_group"]
        if m["gen_screen_setting"]["gen_reel_type"] != "GenReelByReelIdx" or sets[0]["weight"] <= 0 \
                or any(s["weight"] for s in sets[1:]):
            raise (at / f"mode {i}").error("only reel set 0 may draw screens, by reel index")
        for s in sets:
            for r in s["reels"]:
                if any(w != 1 for w in r.get("weights", [1])):
                    raise (at / f"mode {i}").error("weighted reel stops are not converted")
        if m["symbol_setting"]["symbol_used"] != modes[0]["symbol_setting"]["symbol_used"]:
            raise (at / f"mode {i}").error("modes with different symbols are not converted")
        out.append({"reels": [r["symbols"] for r in sets[0]["reels"]], "pays": m["symbol_setting"]["pay_table"],
                    **({"fill_reels": [r["symbols"] for r in sets[1]["reels"]]} if len(sets) > 1 else {})})
    screen = modes[0]["screen_setting"]
    common = {"name": name, "rtp": fraction_text(rtp), "bet_unit": y["bet_units"][0],
              "max_win_limit": y["max_win_limit"], "symbols": modes[0]["symbol_setting"]["symbol_used"],
              "rows": screen["rows"]}
    fixed = y.get("fixed") or {}
    if y["logic_key"] == "demo_normal":
        data = {"game": NORMAL_ID, **common, "free_rounds": fixed["free_round"],
                "lines": modes[0]["hit_setting"]["line_table"], "base": out[0], "free": out[1]}
        return NORMAL_FILES.parse(data, name)
    if y["logic_key"] == "demo_cascade":
        data = {"game": CASCADE_ID, **common, "max_step": fixed["max_step"], "free_rounds": fixed["free_rounds"],
                "scatter_pay": fixed["scatter_pay"], "trigger": fixed["trigger"], "base": out[0], "free": out[1]}
        return CASCADE_FILES.parse(data, name)
    raise at.error(f"logic {y['logic_key']!r} is neither demo_normal nor demo_cascade")
