"""``reelforge export stake``: a game's modes as a Stake Engine package (docs/STAKE.md).

Per mode: the game's outcomes observed by its kernel (:func:`.table.observe`), put on the 0.1x grid,
anchored to certified figures where given, reduced to the books asked, weighted; then each book played
again by the rules and written with its events, the table beside it, and ``index.json`` listing all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from reelforge.core.stats import BUCKET_LABELS
from reelforge.game.contract import Build, Game

from . import format as fmt
from .books import book
from .table import Key, TableError, anchor, cell, grid_shares, integer_weights, observe, on_grid, select, spread

STAKE_MODES = {"base": "paid", "bonus": "buy"}
"""Stake's mode names and the game modes they sell: the paid spin at cost 1, the Feature Buy at its price."""


@dataclass
class ModeExport:
    """What one mode's export made: the sample, the anchors, and the table's own figures."""

    name: str
    game_mode: str
    cost: Fraction
    sample: dict[str, Any]
    grid_rtp_added: float
    anchors: dict[str, float]
    books: int
    outcomes: int
    table: dict[str, Any] = field(default_factory=dict)
    exact: dict[str, Any] = field(default_factory=dict)
    """The game's exact figures where the table was anchored to them."""
    band_anchors: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "game_mode": self.game_mode, "cost": str(self.cost), "sample": self.sample,
                "grid_rtp_added": self.grid_rtp_added, "anchors": self.anchors, "band_anchors": self.band_anchors,
                "exact": self.exact, "books": self.books, "outcomes_on_grid": self.outcomes, "table": self.table}


def read_anchors(path: Path) -> dict[str, dict[str, float]]:
    """Certified figures per Stake mode from a JSON file ``{"base": {"rtp": ..., ...}, "bonus": {...}}``
    (keys other than the four figures, such as ``source``, are notes and skipped)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise TableError(f"--anchor {path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict) or not set(data) <= set(STAKE_MODES):
        raise TableError(f"--anchor {path}: an object keyed by mode ({', '.join(STAKE_MODES)})")
    out = {}
    for mode, figures in data.items():
        if not isinstance(figures, dict):
            raise TableError(f"--anchor {path}: {mode} must be an object of figures")
        out[mode] = {k: float(v) for k, v in figures.items()
                     if k in ("rtp", "hit_rate", "feature_rate", "max_win_rate")}
    return out


def exact_anchors(game: Game, build: Build, mass: dict[Key, Any], cap_payout: int) -> tuple[
        dict[str, float], dict[int, float], dict[str, Any]]:
    """The paid mode's anchors from the game's exact figures: RTP, feature frequency, each win band's
    probability on the grid and, where the sample reached the exact top win, its frequency; with what
    the exact figures are. A band no sampled round reached has its probability added to the nearest band
    one did (the RTP anchor keeps the mean)."""
    ex = game.exact(build)
    bands: dict[int, Fraction] = {}
    for win, p in ex.outcomes.items():
        for payout, share, _ in grid_shares(win * 100):
            b = cell((0, payout), cap_payout)[1]
            bands[b] = bands.get(b, Fraction(0)) + p * share
    reached = sorted({cell(k, cap_payout)[1] for k in mass})
    unreached = {b: p for b, p in bands.items() if b not in reached}
    for b, p in unreached.items():
        nearest = min(reached, key=lambda r: (abs(r - b), -r))
        bands[nearest] = bands.get(nearest, Fraction(0)) + p
        del bands[b]
    targets = {"rtp": float(ex.rtp), "feature_rate": float(ex.feature_rate)}
    top = Fraction(ex.max_win_x) * 100
    if top == max(p for _, p in mass):
        targets["max_win_rate"] = float(ex.max_win_probability)
    info = {"rtp": str(ex.rtp), "rtp_float": float(ex.rtp), "hit_rate": float(ex.hit_rate),
            "feature_rate": float(ex.feature_rate), "max_win_x": float(ex.max_win_x),
            "max_win_probability": float(ex.max_win_probability),
            "bands_unreached": {str(b): float(p) for b, p in unreached.items()},
            "max_win_in_table": "max_win_rate" in targets}
    return targets, {b: float(p) for b, p in bands.items()}, info


def table_feature_figures(weights: dict[Key, int], cap_payout: int) -> dict[str, float]:
    """The feature frequency and the cap's frequency of a table (its keys know which books trigger)."""
    total = sum(weights.values())
    return {"feature_rate": sum(w for (f, _), w in weights.items() if f) / total,
            "cap_rate": sum(w for (_, p), w in weights.items() if p == cap_payout) / total}


def export_mode(game: Game, build: Build, out: Path, name: str, rounds: int, seed: int, books: int | None,
                anchors: dict[str, float], log: Callable[[str], None] = lambda _: None,
                use_exact: bool = True) -> ModeExport:
    """One mode's table and books in ``out``; its figures (anchored to the game's exact figures where it has
    them, ``use_exact`` and no ``anchors`` given)."""
    mode = STAKE_MODES[name]
    cost = Fraction(game.stake_x(build, mode))
    log(f"{name}: observing {rounds:,} rounds of {game.id} {build.name} ({mode})")
    outcomes = observe(game, build, mode, rounds, seed)
    mass, source, added = on_grid(outcomes)
    cap_payout = game.cap_units(build) * 100 // outcomes.unit
    exact: dict[str, Any] = {}
    bands: dict[int, float] = {}
    if use_exact and not anchors and mode == "paid" and game.capabilities.exact:
        anchors, bands, exact = exact_anchors(game, build, mass, cap_payout)
        log(f"{name}: anchored to the exact figures (RTP {exact['rtp_float']:.8%})")
    probabilities: dict[Key, Any] = anchor(mass, cost, anchors, cap_payout, bands) if anchors else mass
    kept = select(probabilities, books, cap_payout)
    weights = integer_weights(spread(probabilities, kept, cap_payout))
    log(f"{name}: {len(mass):,} payouts on the grid, {len(kept):,} books; playing them by the rules")
    table_path, books_path = out / fmt.table_file(name), out / fmt.books_file(name)
    rows = []
    with fmt.BookWriter(books_path) as writer:
        for book_id, key in enumerate(kept, start=1):
            src = source[key]
            writer.add(book_id, key[1], book(game, build, mode, src, outcomes.states[src.feature, src.units],
                                             outcomes.unit, key[1]))
            rows.append((book_id, weights[key], key[1]))
    fmt.write_table(table_path, rows)
    figures = fmt.table_figures(name, float(cost), rows).to_json() | table_feature_figures(weights, cap_payout)
    bands_table: dict[str, float] = {}
    total = sum(weights.values())
    for key, w in weights.items():
        label = BUCKET_LABELS[cell(key, cap_payout)[1]]
        bands_table[label] = bands_table.get(label, 0.0) + w / total
    figures["bands"] = bands_table
    return ModeExport(name, mode, cost, outcomes.figures(cost), float(added), anchors, len(kept), len(mass), figures,
                      exact, {BUCKET_LABELS[b]: p for b, p in sorted(bands.items())})


def export_stake(game: Game, build: Build, out: Path, modes: list[str], rounds: dict[str, int], seed: int,
                 books: dict[str, int | None] | None = None, anchors: dict[str, dict[str, float]] | None = None,
                 log: Callable[[str], None] = lambda _: None, use_exact: bool = True) -> list[ModeExport]:
    """The package of ``modes`` (Stake names) in folder ``out``; each mode's figures."""
    unknown = [m for m in modes if m not in STAKE_MODES]
    if unknown:
        raise TableError(f"unknown mode(s) {unknown}; Stake modes: base (the paid spin), bonus (the Feature Buy)")
    missing = [m for m in modes if STAKE_MODES[m] not in game.modes]
    if missing:
        raise TableError(f"{game.id} has no {' or '.join(missing)} mode (its modes: "
                         f"{', '.join(n for n, g in STAKE_MODES.items() if g in game.modes)})")
    if not modes or len(set(modes)) != len(modes):
        raise TableError(f"--modes: each mode once, at least one, got {modes}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    done = [export_mode(game, build, out, m, rounds[m], seed + i, (books or {}).get(m), (anchors or {}).get(m, {}), log,
                        use_exact)
            for i, m in enumerate(modes)]
    fmt.write_index(out, [fmt.ModeFiles(m.name, float(m.cost), fmt.books_file(m.name), fmt.table_file(m.name))
                          for m in done])
    return done
