"""Toy Line reference rules, step by step, with audit events.

Every spin draws one stop per reel (reel 1, 2, 3); a reel shows the stop above, the stop and the
stop below. Three of a kind on the middle row pays its coins. A Star on every reel in the paid
spin awards the free spins, whose wins are multiplied. A round's win is capped at ``cap_coins``:
reaching it ends the round and forfeits the free spins left.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from reelforge.core.draws import DrawSource
from reelforge.game.contract import RulesError
from reelforge.game.results import StepResult

from .build import SYMBOL_WORDS, Build


def new_state(build: Build | None = None, mode: str = "paid") -> dict[str, Any]:
    return {"phase": "paid", "free_spins_left": 0, "total_coins": 0}


def play_step(build: Build, state: dict[str, Any], draws: DrawSource, cap_coins: int) -> StepResult:
    """The next spin of the round from ``state`` (not mutated)."""
    phase = state["phase"]
    if phase == "done":
        raise RulesError("the round is finished; no step is left to play")
    stops = [draws.draw(len(strip)) for strip in build.strips]
    window = [[strip[(stop + row - 1) % len(strip)] for row in range(3)] for strip, stop in zip(build.strips, stops)]
    # the window as columns (reels), top to bottom: what the browser's generic renderer draws
    events: list[dict[str, Any]] = [{"type": "reels", "stops": stops,
                                     "window": [[SYMBOL_WORDS[s] for s in reel] for reel in window]}]
    line = window[0][1]
    coins = build.pays.get(line, 0) if window[1][1] == window[2][1] == line else 0
    if phase == "free":
        coins *= build.free_spins_multiplier
    if coins:
        events.append({"type": "line_win", "symbol": SYMBOL_WORDS[line], "win_x": str(Fraction(coins, build.coins))})
    before = state["total_coins"]
    total = min(before + coins, cap_coins)
    left = state["free_spins_left"] - (phase == "free")
    if phase == "paid" and all("S" in reel for reel in window):
        left = build.free_spins
        events.append({"type": "free_spins_awarded", "spins": left})
    if total == cap_coins:
        events.append({"type": "cap", "cap_x": str(Fraction(cap_coins, build.coins))})
        left = 0
    finished = left == 0
    kind = "paid_spin" if phase == "paid" else "free_spin"
    return StepResult(kind, events, Fraction(total - before, build.coins), Fraction(total, build.coins), finished,
                      None if finished else "free_spin",
                      {"phase": "done" if finished else "free", "free_spins_left": left, "total_coins": total})
