"""demo_cascade reference rules (problab's ``demo/demo_logic/demo_1.go``), spin by spin, with events.

* A spin draws one stop per reel (reel 1 to 5) on the mode's strips (the window: the stop and the
  next ``rows - 1`` below it), then one refill position per reel on the mode's fill reels (drawn
  whether or not anything tumbles; the peer picks them right after the screen).
* The board is evaluated up to ``max_step`` (1000) times: every cluster of one paying symbol
  touching side by side, wilds joining (a wild may join clusters of several symbols; a cluster is
  grown from a symbol cell, never from a wild alone), pays ``pays[symbol][size - 1]`` (the size
  counts its wilds; sizes past the row's end pay its last entry; 5 is the smallest that pays
  here). No win ends the spin. Otherwise every cell of a paying cluster, wilds included, is
  cleared, each reel's survivors fall, and each reel's gaps fill upward from its refill
  position: the lowest gap takes the fill strip's symbol just above the position, the next the
  one above that, and the position moves with them for the next tumble (the peer's ``FillScreen``).
* On the paid spin's final board, ``trigger`` (3) or more scatters pay ``scatter_pay`` (300 units,
  10x the bet) and award the free rounds (10), played the same way on the free reels and free
  paytable; the free rounds never check scatters (no retrigger, no scatter pay).
* The peer declares ``max_win_limit`` (20,000x) but never applies it. The kernels' exact power sums
  need a cap, so a round here stops at :data:`CAP_X` x the bet, a win no simulation will meet.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.core.draws import DrawSource
from reelforge.game.contract import RulesError
from reelforge.game.results import StepResult
from reelforge.games.problab.peer_builds import Mode, strip_arrays, symbol_word
from reelforge.mechanics.cascade import clear_and_fall, refill_from_strips
from reelforge.mechanics.clusters import cluster_wins
from reelforge.mechanics.features import capped
from reelforge.mechanics.reels import count_symbol, window_from_stops

from .build import CascadeBuild

CAP_X = 34_000
"""The round cap in multiples of the bet: below the kernels' limit of 2^20 units (30 units a bet)."""


def new_state(build: CascadeBuild | None = None, mode: str = "paid") -> dict[str, Any]:
    return {"phase": "paid", "free_left": 0, "total_units": 0}


def tumble(build: CascadeBuild, mode: Mode, stops: list[int], fill_stops: list[int],
           events: list[dict[str, Any]] | None = None) -> tuple[np.ndarray, int]:
    """Play one spin from its drawn ``stops`` and ``fill_stops``: (the final board ``[reel, row]``,
    the units the clusters paid); the board after each tumble and each win go to ``events``."""
    codes, lens = strip_arrays(mode.reels)
    fill_codes, fill_lens = strip_arrays(mode.fill_reels)
    board = np.empty((len(mode.reels), build.rows), dtype=np.int64)
    window_from_stops(codes, lens, np.array(stops, dtype=np.int64), build.rows, board)
    tops = np.array(fill_stops, dtype=np.int64)
    pays = mode.pays_by_count()
    removed = np.zeros(board.shape, dtype=np.bool_)
    out = np.zeros((board.size, 3), dtype=np.int64)
    won = 0
    for _ in range(build.max_step):
        k = cluster_wins(board, pays, build.code("wild"), 1, removed, out)
        if k == 0:
            break
        step = int(out[:k, 2].sum())
        won += step
        empties = clear_and_fall(board, removed)
        refill_from_strips(board, empties, fill_codes, fill_lens, tops)
        if events is not None:
            events.append({"type": "cluster_wins", "win_x": str(Fraction(step, build.bet_unit)),
                           "clusters": [{"symbol": symbol_word(build.symbols[s]), "size": n,
                                         "win_x": str(Fraction(p, build.bet_unit))} for s, n, p in out[:k].tolist()]})
            events.append({"type": "tumble", "window": _words(build, board)})
    return board, won


def _words(build: CascadeBuild, board: np.ndarray) -> list[list[str]]:
    return [[symbol_word(build.symbols[c]) for c in reel] for reel in board]


def play_step(build: CascadeBuild, state: dict[str, Any], draws: DrawSource, cap_units: int) -> StepResult:
    """The next spin of the round from ``state`` (not mutated)."""
    phase = state["phase"]
    if phase == "done":
        raise RulesError("the round is finished; no step is left to play")
    mode = build.base if phase == "paid" else build.free
    stops = [draws.draw(len(strip)) for strip in mode.reels]
    fill_stops = [draws.draw(len(strip)) for strip in mode.fill_reels]
    codes, lens = strip_arrays(mode.reels)
    first = np.empty((len(mode.reels), build.rows), dtype=np.int64)
    window_from_stops(codes, lens, np.array(stops, dtype=np.int64), build.rows, first)
    events: list[dict[str, Any]] = [{"type": "reels", "stops": stops, "fill_stops": fill_stops,
                                     "window": _words(build, first)}]
    board, won = tumble(build, mode, stops, fill_stops, events)
    left = state["free_left"] - (phase == "free")
    if phase == "paid":
        scatters = int(count_symbol(board, build.code("scatter")))
        if scatters >= build.trigger:
            won += build.scatter_pay
            left = build.free_rounds
            events.append({"type": "scatter_win", "count": scatters,
                           "win_x": str(Fraction(build.scatter_pay, build.bet_unit))})
            events.append({"type": "free_spins_awarded", "spins": left})
    added, at_cap = capped(state["total_units"], won, cap_units)
    total = state["total_units"] + added
    if at_cap:
        events.append({"type": "cap", "cap_x": str(Fraction(cap_units, build.bet_unit))})
        left = 0
    finished = left == 0
    return StepResult("paid_spin" if phase == "paid" else "free_spin", events, Fraction(added, build.bet_unit),
                      Fraction(total, build.bet_unit), finished, None if finished else "free_spin",
                      {"phase": "done" if finished else "free", "free_left": left, "total_units": total})
