"""demo_normal reference rules (problab's ``demo/demo_logic/demo_0.go``), step by step, with events.

* A spin draws one stop per reel (reel 1 to 5) on the mode's strips; a reel shows its stop and the
  next ``rows - 1`` stops below it (wrapping).
* Every line of the line table pays its highest left-to-right win (the peer's ``CalcByLine``): a run
  of wilds from reel 1 paid as wilds, or the first other symbol with the wilds before and inside its
  run substituting, whichever pays more (a tie goes to the symbol); the pay of a run of ``n`` is
  ``pays[symbol][n - 1]``. A scatter or a blank ends a run and pays nothing.
* More than two scatters anywhere on the paid spin award the free rounds (10), played on the free
  reels with the free paytable; free rounds never award more.
* The peer declares ``max_win_limit`` (10,000x) but never applies it: a round keeps every unit.
  ``cap_units`` here is the game's highest possible round win, so it never binds either.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.core.draws import DrawSource
from reelforge.game.contract import RulesError
from reelforge.game.results import StepResult
from reelforge.games.problab.peer_builds import Mode, strip_arrays, symbol_word
from reelforge.mechanics.features import capped
from reelforge.mechanics.pays import line_wins
from reelforge.mechanics.reels import count_symbol, window_from_stops

from .build import NormalBuild

TRIGGER = 3
"""Scatters that award the free rounds: the peer's code tests ``count > 2``."""


def new_state(build: NormalBuild | None = None, mode: str = "paid") -> dict[str, Any]:
    return {"phase": "paid", "free_left": 0, "total_units": 0}


def spin(build: NormalBuild, mode: Mode, stops: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """The window ``[reel, row]`` of ``stops``, its line wins (rows ``line, symbol, count, pay, _``)
    and its scatter count."""
    codes, lens = strip_arrays(mode.reels)
    window = np.empty((len(mode.reels), build.rows), dtype=np.int64)
    window_from_stops(codes, lens, np.array(stops, dtype=np.int64), build.rows, window)
    lines = np.array(build.lines, dtype=np.int64)
    out = np.zeros((len(build.lines), 5), dtype=np.int64)
    k = line_wins(window, lines, mode.pays_by_count(), build.code("wild"), False, out)
    return window, out[:k], int(count_symbol(window, build.code("scatter")))


def play_step(build: NormalBuild, state: dict[str, Any], draws: DrawSource, cap_units: int) -> StepResult:
    """The next spin of the round from ``state`` (not mutated)."""
    phase = state["phase"]
    if phase == "done":
        raise RulesError("the round is finished; no step is left to play")
    mode = build.base if phase == "paid" else build.free
    stops = [draws.draw(len(strip)) for strip in mode.reels]
    window, wins, scatters = spin(build, mode, stops)
    unit = build.bet_unit
    events: list[dict[str, Any]] = [{"type": "reels", "stops": stops,
                                     "window": [[symbol_word(build.symbols[c]) for c in reel] for reel in window]}]
    for line, symbol, count, pay, _ in wins.tolist():
        events.append({"type": "line_win", "line": line + 1, "symbol": symbol_word(build.symbols[symbol]),
                       "count": count, "win_x": str(Fraction(pay, unit))})
    added, at_cap = capped(state["total_units"], int(wins[:, 3].sum()), cap_units)
    total = state["total_units"] + added
    left = state["free_left"] - (phase == "free")
    if phase == "paid" and scatters >= TRIGGER:
        left = build.free_rounds
        events.append({"type": "free_spins_awarded", "spins": left, "scatters": scatters})
    if at_cap:
        events.append({"type": "cap", "cap_x": str(Fraction(cap_units, unit))})
        left = 0
    finished = left == 0
    return StepResult("paid_spin" if phase == "paid" else "free_spin", events, Fraction(added, unit),
                      Fraction(total, unit), finished, None if finished else "free_spin",
                      {"phase": "done" if finished else "free", "free_left": left, "total_units": total})
