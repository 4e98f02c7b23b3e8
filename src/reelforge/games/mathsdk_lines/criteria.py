"""The sample's base-mode criteria (math-sdk's ``game_config.py`` distributions) that every Stake book of
:mod:`.books` is drawn under, and their tables for the numba writer."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .build import BASE, FREE, REEL_SETS, SCATTER, TENTHS, WCAP, tables


@dataclass(frozen=True)
class Criterion:
    name: str
    quota: float
    forced_scatters: dict[int, int] | None
    """Scatter counts a forced paid spin shows, by weight (None: the paid spin is not forced)."""
    free_sets: dict[int, int]
    """Free-spin reel sets by weight (FREE, WCAP)."""
    wild_multipliers: dict[int, int]
    """Free-game Wild multipliers by weight."""
    win: int | None
    """The win a kept book must pay, in win units (None: any win above nothing)."""


FREE_MULTS = {2: 60, 3: 80, 4: 50, 5: 20, 10: 15, 20: 10, 50: 5}
CRITERIA = (
    Criterion("wincap", 0.001, {4: 1, 5: 2}, {FREE: 1, WCAP: 5}, {2: 10, 3: 20, 4: 50, 5: 60, 10: 100, 20: 90, 50: 50},
              5000 * TENTHS),
    Criterion("freegame", 0.1, {3: 50, 4: 20, 5: 5}, {FREE: 1}, FREE_MULTS, None),
    Criterion("0", 0.4, None, {FREE: 1}, FREE_MULTS, 0),
    Criterion("basegame", 0.5, None, {FREE: 1}, FREE_MULTS, None),
)
"""The sample's base-mode distributions (``game_config.py``, ``bet_modes[0]``), in its order."""


class CriteriaTables(NamedTuple):
    forced: np.ndarray        # [criterion]: 1 where the paid spin is forced to trigger
    scatter_counts: np.ndarray  # [criterion, k]: forced scatter counts; scatter_cum their running weights
    scatter_cum: np.ndarray
    set_cum: np.ndarray       # [criterion, reel set]: running weights of the free-spin reel sets
    mult_values: np.ndarray   # [criterion, k]: Wild multipliers; mult_cum their running weights
    mult_cum: np.ndarray
    win: np.ndarray           # [criterion]: the win a kept book pays; -1 any win above nothing
    reel_weight: np.ndarray   # [reel]: the base strips' Scatter share, as integers over a common length
    scatter_stops: np.ndarray  # [reel, k]: the base strips' Scatter stops; scatter_n how many per reel
    scatter_n: np.ndarray
    name_bytes: np.ndarray    # the criteria's names, JSON-quoted, concatenated; name_off their offsets
    name_off: np.ndarray


def _running(weights: dict[int, int], width: int, keys: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    keys = keys if keys is not None else sorted(weights)
    values = np.zeros(width, np.int64)
    cum = np.zeros(width, np.int64)
    total = 0
    for i, k in enumerate(keys):
        total += weights.get(k, 0)
        values[i], cum[i] = k, total
    cum[len(keys):] = total     # padding entries are never picked (pick_weighted stops at the total)
    return values, cum


def criteria_tables(build: Any) -> CriteriaTables:
    t = tables(build)
    n = len(CRITERIA)
    width = max(len(c.wild_multipliers) for c in CRITERIA)
    sc_width = max(len(c.forced_scatters or {0: 1}) for c in CRITERIA)
    forced = np.array([c.forced_scatters is not None for c in CRITERIA], np.int64)
    scatter_counts, scatter_cum = (np.zeros((n, sc_width), np.int64) for _ in range(2))
    mult_values, mult_cum = (np.zeros((n, width), np.int64) for _ in range(2))
    set_cum = np.zeros((n, len(REEL_SETS)), np.int64)
    for i, c in enumerate(CRITERIA):
        scatter_counts[i], scatter_cum[i] = _running(c.forced_scatters or {0: 1}, sc_width)
        mult_values[i], mult_cum[i] = _running(c.wild_multipliers, width)
        set_cum[i] = _running(c.free_sets, len(REEL_SETS), list(range(len(REEL_SETS))))[1]
    lens = t.lens[BASE]
    common = math.lcm(*map(int, lens))
    strips = t.codes[BASE]
    stops = [np.flatnonzero(strips[r, : lens[r]] == SCATTER) for r in range(5)]
    scatter_stops = np.zeros((5, max(map(len, stops))), np.int64)
    for r, s in enumerate(stops):
        scatter_stops[r, : len(s)] = s
    names = [json.dumps(c.name).encode() for c in CRITERIA]
    return CriteriaTables(forced, scatter_counts, scatter_cum, set_cum, mult_values, mult_cum,
                          np.array([-1 if c.win is None else c.win for c in CRITERIA], np.int64),
                          np.array([len(s) * (common // int(lens[r])) for r, s in enumerate(stops)], np.int64),
                          scatter_stops, np.array([len(s) for s in stops], np.int64),
                          np.frombuffer(b"".join(names), np.uint8).copy(),
                          np.cumsum([0] + [len(x) for x in names]).astype(np.int64))
