"""Books: a game's rounds played again by its reference rules from the states the kernel started them
from, as the event lists of docs/STAKE.md (each step's own events, win positions added by the game)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.core.draws import SeededDraws
from reelforge.game.contract import Build, Game
from reelforge.game.results import StepResult
from reelforge.mechanics.rng import store_pcg_state

from .table import Source, TableError


def replay(game: Game, build: Build, mode: str, state: np.ndarray) -> list[StepResult]:
    """The steps of the round whose draws start at PCG64 ``state`` (what the kernel played from it)."""
    rng = np.random.Generator(np.random.PCG64(0))
    store_pcg_state(rng, state)
    draws = SeededDraws(rng)
    round_state = game.start_round(build, mode)
    steps = []
    while True:
        step = game.play_step(build, round_state, draws)
        steps.append(step)
        round_state = step.state
        if step.finished:
            return steps


def book_events(game: Game, build: Build, steps: list[StepResult], payout: int, rounding: str) -> list[dict[str, Any]]:
    """The book's events: one ``step`` per step (the game's events, win positions added), then ``finalWin``."""
    events: list[dict[str, Any]] = []
    for n, step in enumerate(steps):
        events.append({"index": len(events), "type": "step", "step": n, "kind": step.kind,
                       "events": game.with_win_positions(build, step.events), "win_x": str(step.win),
                       "total_win_x": str(step.total_win)})
    events.append({"index": len(events), "type": "finalWin", "win_x": str(steps[-1].total_win),
                   "payoutMultiplier": payout, "rounding": rounding})
    return events


def book(game: Game, build: Build, mode: str, source: Source, state: np.ndarray, unit: int,
         payout: int) -> list[dict[str, Any]]:
    """The events of the book paying ``payout`` from the round of ``source`` (TableError where the rules,
    played from the kernel's state, do not end the round as the kernel did)."""
    steps = replay(game, build, mode, state)
    win = steps[-1].total_win
    if win != Fraction(source.units, unit):
        raise TableError(f"{game.id} {mode}: the rules played a round to {win}x where the kernel won "
                         f"{Fraction(source.units, unit)}x from the same state: rules and kernel disagree")
    return book_events(game, build, steps, payout, source.rounding)
