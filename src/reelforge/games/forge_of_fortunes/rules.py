"""Forge of Fortunes reference rules, step by step, with audit events.

Draw order (the kernel consumes draws in exactly this order):
every spin, paid or re-spin, draws one stop per reel: reel 1, reel 2, reel 3,
each uniform over its strip's length; each reel shows the symbol at its stop
(the kernel's strip codes, :func:`.build.tables`, read as :func:`reelforge.mechanics.reels.window_from_stops`
reads them for a one-row window).

Paid spin: ``GOLD GOLD GOLD`` triggers Forging Re-Spins on the first runner;
exactly two GOLD on reels 1-2 (reel 3 not GOLD) pays the two-of-a-kind award.
Each re-spin, in order: any SLAG ends the feature paying the current runner;
else GOLD GOLD GOLD advances (reaching the top ends it paying the top);
else COAL on reel 3 moves back one runner unless the runner is safe;
else nothing changes.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

from reelforge.core.draws import DrawSource
from reelforge.game.buildfile import kernel_tables
from reelforge.game.contract import RulesError
from reelforge.game.results import StepResult
from reelforge.games.forge_of_fortunes.build import ALPHABET, COAL, GOLD, SLAG, SYMBOL_NAMES, Build, tables

PAID, FEATURE, DONE = "paid", "feature", "done"


def new_state(build: Build, mode: str = "paid") -> dict[str, Any]:
    return {"phase": PAID, "runner": None, "respins": 0, "total_win_x": "0"}


class ReelCodes(NamedTuple):
    """The kernel's strip codes (:func:`.build.tables`) as lists, for the rules' one spin at a time: three
    reads of numpy arrays and a numba call cost a spin more than the spin itself, and on a busy server each
    request has to bring numpy's and numba's code back into the processor's caches (issue 33)."""

    base: list[list[int]]          # [reel][position]: symbol codes (an index of ALPHABET)
    base_len: list[int]            # [reel]: strip lengths
    feature: list[list[list[int]]]  # [strip set][reel][position]
    feature_len: list[list[int]]   # [strip set][reel]
    runner_set: list[int]          # [runner]: its strip set


def reel_codes(build: Build) -> ReelCodes:
    """``build``'s kernel tables (made once per build) as :class:`ReelCodes`."""
    t = kernel_tables(build, tables)
    return ReelCodes(t.base.tolist(), t.base_len.tolist(), t.feature.tolist(), t.feature_len.tolist(),
                     t.runner_set.tolist())


def spin_reels(codes: list[list[int]], lengths: list[int], draws: DrawSource) -> tuple[list[int], str]:
    """Draw one stop per reel of the strips ``codes`` (:class:`ReelCodes`); return the stops and the
    three symbols shown (each reel's symbol at its stop)."""
    stops = [draws.draw(n) for n in lengths]
    return stops, "".join([ALPHABET[strip[stop]] for strip, stop in zip(codes, stops, strict=True)])


def _reels_event(stops: list[int], symbols: str, strip_set: str) -> dict[str, Any]:
    return {"type": "reels", "strip_set": strip_set, "stops": stops,
            "symbols": [SYMBOL_NAMES[s] for s in symbols]}


def play_paid_spin(build: Build, draws: DrawSource) -> tuple[list[dict[str, Any]], Fraction, int | None]:
    """The paid spin: events, its win (x bet) and the starting runner if triggered."""
    t = kernel_tables(build, reel_codes)
    stops, symbols = spin_reels(t.base, t.base_len, draws)
    events = [_reels_event(stops, symbols, "base")]
    if symbols == GOLD * 3:
        events.append({"type": "trigger", "feature": "forging_respins", "runner": 0,
                       "runner_x": str(build.ladder[0])})
        return events, Fraction(0), 0
    if symbols[0] == GOLD and symbols[1] == GOLD:
        win = build.two_of_a_kind_x
        events.append({"type": "win", "combination": "two_of_a_kind", "symbol": "GOLD", "reels": [1, 2],
                       "coins": build.two_of_a_kind_coins, "win_x": str(win)})
        return events, win, None
    return events, Fraction(0), None


def play_respin(build: Build, runner: int, draws: DrawSource) -> tuple[list[dict[str, Any]], int, bool]:
    """One re-spin from ``runner``: events, the new runner, and whether the feature ended."""
    set_name = build.runner_sets[runner]
    t = kernel_tables(build, reel_codes)
    k = t.runner_set[runner]
    stops, symbols = spin_reels(t.feature[k], t.feature_len[k], draws)
    events = [_reels_event(stops, symbols, set_name)]
    ladder = build.ladder

    def move(kind: str, to: int) -> dict[str, Any]:
        return {"type": "ladder", "move": kind, "from": runner, "to": to,
                "from_x": str(ladder[runner]), "to_x": str(ladder[to])}

    if SLAG in symbols:
        events.append(move("slag_end", runner))
        return events, runner, True
    if symbols == GOLD * 3:
        new = runner + 1
        if new == build.top:
            events.append(move("top_reached", new))
            return events, new, True
        events.append(move("advance", new))
        return events, new, False
    if symbols[2] == COAL:
        if runner in build.safe:
            events.append(move("coal_safe", runner))
            return events, runner, False
        events.append(move("coal_back", runner - 1))
        return events, runner - 1, False
    events.append(move("nothing", runner))
    return events, runner, False


def play_step(build: Build, state: dict[str, Any], draws: DrawSource, cap: int | None = None) -> StepResult:
    """Play the next step of a round from ``state`` (not mutated). ``cap`` (win units) is the top
    runner's value: the ladder holds every win below it, so the rules need not cap."""
    phase = state.get("phase")
    if phase == PAID:
        events, win, runner = play_paid_spin(build, draws)
        if runner is None:
            events.append({"type": "round_end", "total_win_x": str(win)})
            return StepResult("paid_spin", events, win, win, True, None,
                              {"phase": DONE, "runner": None, "respins": 0, "total_win_x": str(win)})
        return StepResult("paid_spin", events, Fraction(0), Fraction(0), False, "respin",
                          {"phase": FEATURE, "runner": runner, "respins": 0, "total_win_x": "0"})
    if phase == FEATURE:
        runner = int(state["runner"])
        if not 0 <= runner < build.top:
            raise RulesError(f"invalid feature state: runner {runner}")
        events, runner, ended = play_respin(build, runner, draws)
        respins = int(state.get("respins", 0)) + 1
        if ended:
            win = Fraction(build.ladder[runner])
            events.append({"type": "award", "runner": runner, "win_x": str(win), "respins": respins})
            events.append({"type": "round_end", "total_win_x": str(win)})
            return StepResult("respin", events, win, win, True, None,
                              {"phase": DONE, "runner": runner, "respins": respins, "total_win_x": str(win)})
        return StepResult("respin", events, Fraction(0), Fraction(0), False, "respin",
                          {"phase": FEATURE, "runner": runner, "respins": respins, "total_win_x": "0"})
    raise RulesError("the round is finished; no step is left to play")
