"""Checks of the rounds a game plays: kernel against reference, replay, win units and cap, refusals."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.conformance.context import (
    DEPTH_SEED,
    UNDECLARED_ACTION,
    UNKNOWN_MODE,
    Context,
    context_of,
    is_integer,
)
from reelforge.core.draws import DrawSource, RecordingDraws, SeededDraws
from reelforge.core.stats import MAX_CAP_UNITS
from reelforge.game.contract import Build, Game, RulesError
from reelforge.game.results import RoundResult, StepResult


def _round_units(ctx: Context, build: Build, mode: str, seed: int, i: int, result: RoundResult) -> int:
    units = Fraction(result.total_win) * ctx.game.win_unit(build)
    if units.denominator != 1:
        raise ctx.fail(f"the round won {result.total_win}x total bet, not a whole number of win units "
                       f"(win_unit {ctx.game.win_unit(build)})", build, mode, seed, i)
    return int(units)


def check_kernel_matches_reference(game: Game | Context) -> None:
    """kernel_round_wins and play_round, fed the same seeded stream, give identical rounds for
    every build, mode and seed."""
    ctx = context_of(game)
    g = ctx.game
    for build in ctx.builds():
        for mode in ctx.modes(build):
            won = 0
            for seed in ctx.seeds:
                reference = ctx.reference(build, mode, seed)
                kernel = np.asarray(g.kernel_round_wins(build, ctx.rounds, seed, mode))
                if kernel.shape != (ctx.rounds,) or not np.issubdtype(kernel.dtype, np.integer):
                    raise ctx.fail(f"kernel_round_wins must give {ctx.rounds} integer win units, got shape "
                                   f"{kernel.shape} of {kernel.dtype}", build, mode, seed)
                for i, result in enumerate(reference):
                    units = _round_units(ctx, build, mode, seed, i, result)
                    if int(kernel[i]) != units:
                        steps = ", ".join(s.kind for s in result.steps)
                        raise ctx.fail(f"kernel and reference engine differ first here: kernel {int(kernel[i])} "
                                       f"win units, reference {units} ({result.total_win}x total bet; steps: "
                                       f"{steps})", build, mode, seed, i)
                    won += units > 0
            if not won:
                raise ctx.fail(f"no round of {ctx.rounds * len(ctx.seeds)} won anything: the comparison proves "
                               "little (use more rounds)", build, mode)


def check_kernel_matches_reference_in_depth(game: Game | Context) -> None:
    """The same comparison on many more rounds, streamed (nothing kept): ``depth_rounds`` paid
    rounds per build (a tenth of it in other modes), each build on its own seed, so rare paths
    (long features, the cap) are compared too."""
    ctx = context_of(game)
    g = ctx.game
    for index, build in enumerate(ctx.builds()):
        for mode in ctx.modes(build):
            n = ctx.depth_rounds if mode == "paid" else max(1, ctx.depth_rounds // 10)
            seed = DEPTH_SEED + index
            kernel = np.asarray(g.kernel_round_wins(build, n, seed, mode))
            draws = SeededDraws(seed)
            won = longest = 0
            for i in range(n):
                result = g.play_round(build, draws, mode)
                units = _round_units(ctx, build, mode, seed, i, result)
                if int(kernel[i]) != units:
                    raise ctx.fail(f"kernel and reference engine differ first here: kernel {int(kernel[i])} win "
                                   f"units, reference {units} ({result.total_win}x total bet; "
                                   f"{len(result.steps)} steps)", build, mode, seed, i)
                won += units > 0
                longest = max(longest, len(result.steps))
            if not won or (mode == "paid" and longest < 2 and n >= 10_000):
                raise ctx.fail(f"{n:,} rounds compared but {'none won' if not won else 'no round had a second step'}:"
                               " the comparison proves little (use more rounds)", build, mode, seed)


def _json_copy(ctx: Context, value: Any, what: str, build: Build, mode: str, seed: int, i: int) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise ctx.fail(f"{what} is not JSON-able: {exc}", build, mode, seed, i) from exc


def _play_with_actions(ctx: Context, build: Build, mode: str, draws: DrawSource,
                       offer: str) -> tuple[RoundResult, list[str | None], DrawSource]:
    """One round step by step, offering ``offer`` to every step (on a copy of the stream, so a
    refusal costs nothing) and playing it without an action where refused; the state each step
    is given comes back from JSON, as the server stores it. Returns the round, the action each
    step took, and the stream to go on with (the copy, where a step took the action)."""
    g = ctx.game
    recorder = RecordingDraws(draws)
    state = g.start_round(build, mode)
    steps: list[StepResult] = []
    per_step: list[list[int]] = []
    actions: list[str | None] = []
    while True:
        before = copy.deepcopy(state)
        step = None
        action = None
        trial = copy.deepcopy(recorder)
        try:
            step, recorder, action = g.play_step(build, state, trial, offer), trial, offer
        except RulesError:
            step = None
        if step is None:
            step = g.play_step(build, state, recorder)
        if state != before:
            raise ctx.fail("play_step changed the state it was given (it must return a new one)", build, mode)
        steps.append(step)
        per_step.append(recorder.take())
        actions.append(action)
        if step.finished:
            return RoundResult(mode=mode, steps=steps, draws=per_step), actions, recorder.inner
        state = json.loads(json.dumps(step.state))


def _same_steps(ctx: Context, build: Build, mode: str, seed: int, i: int, played: RoundResult,
                replayed: RoundResult) -> None:
    if len(replayed.steps) != len(played.steps):
        raise ctx.fail(f"replay gave {len(replayed.steps)} steps, the round had {len(played.steps)}",
                       build, mode, seed, i)
    for k, (a, b) in enumerate(zip(played.steps, replayed.steps)):
        for name in ("kind", "events", "win", "total_win", "finished", "next_step", "state"):
            if getattr(a, name) != getattr(b, name):
                raise ctx.fail(f"replay differs at step {k + 1} ({a.kind}) in {name}: played "
                               f"{getattr(a, name)!r}, replayed {getattr(b, name)!r}", build, mode, seed, i)
        _json_copy(ctx, a.events, f"step {k + 1}'s events", build, mode, seed, i)
        if _json_copy(ctx, a.state, f"step {k + 1}'s state", build, mode, seed, i) != a.state:
            raise ctx.fail(f"step {k + 1}'s state does not survive JSON unchanged", build, mode, seed, i)


def check_replay_reproduces_rounds(game: Game | Context) -> None:
    """Replaying a round from its recorded per-step draws and actions reproduces every step's
    events, wins and state exactly: the first ``replay_rounds`` rounds of play_round, and, for
    each declared step action, rounds played offering it to every step (the first
    ``replay_rounds`` and every one of ``rounds`` where a step took it)."""
    ctx = context_of(game)
    g = ctx.game
    seed = ctx.seeds[0]
    for build in ctx.builds():
        for mode in ctx.modes(build):
            for i, played in enumerate(ctx.reference(build, mode, seed)[: ctx.replay_rounds]):
                try:
                    replayed = g.replay(build, mode, played.draws)
                except Exception as exc:
                    raise ctx.fail(f"replay raised {exc!r}", build, mode, seed, i) from exc
                _same_steps(ctx, build, mode, seed, i, played, replayed)
            for offer in g.step_actions:
                draws: DrawSource = SeededDraws(seed)
                for i in range(ctx.rounds):
                    played, actions, draws = _play_with_actions(ctx, build, mode, draws, offer)
                    if i >= ctx.replay_rounds and offer not in actions:
                        continue  # past the first rounds, only those where a step took the action
                    try:
                        replayed = g.replay(build, mode, played.draws, actions)
                    except Exception as exc:
                        raise ctx.fail(f"replay with actions {actions} raised {exc!r}", build, mode, seed, i) from exc
                    _same_steps(ctx, build, mode, seed, i, played, replayed)


def check_wins_whole_units_within_cap(game: Game | Context) -> None:
    """Every step's win and the round win are exact Fractions, whole numbers of win units,
    never negative, adding up, and never above the cap; the kernel's wins too; the cap in win units
    stays within what the kernels' exact tallies hold (:data:`reelforge.core.stats.MAX_CAP_UNITS`)."""
    ctx = context_of(game)
    g = ctx.game
    for build in ctx.builds():
        unit = g.win_unit(build)
        if not is_integer(unit) or unit < 1:
            raise ctx.fail(f"win_unit must be a positive integer, got {unit!r}", build)
        cap_units = g.max_win_x * unit
        if cap_units >= MAX_CAP_UNITS:
            raise ctx.fail(f"the cap {g.max_win_x}x at {unit} win units per bet is {cap_units} units: the kernels' exact "
                           f"power sums hold at most {MAX_CAP_UNITS - 1} (use a coarser win unit or a lower cap)", build)
        for mode in ctx.modes(build):
            for seed in ctx.seeds:
                for i, result in enumerate(ctx.reference(build, mode, seed)):
                    total = Fraction(0)
                    for k, step in enumerate(result.steps):
                        for name in ("win", "total_win"):
                            value = getattr(step, name)
                            if not isinstance(value, Fraction):
                                raise ctx.fail(f"step {k + 1}'s {name} must be a Fraction, got {value!r}",
                                               build, mode, seed, i)
                            if (value * unit).denominator != 1:
                                raise ctx.fail(f"step {k + 1}'s {name} {value}x total bet is not a whole number "
                                               f"of win units (win_unit {unit})", build, mode, seed, i)
                        total += step.win
                        if step.win < 0 or step.total_win != total:
                            raise ctx.fail(f"step {k + 1} wins {step.win}x but the round total goes to "
                                           f"{step.total_win}x (the steps' wins add up to {total}x)",
                                           build, mode, seed, i)
                        if step.total_win > g.max_win_x:
                            raise ctx.fail(f"the round win {step.total_win}x passes the cap {g.max_win_x}x",
                                           build, mode, seed, i)
                wins = np.asarray(g.kernel_round_wins(build, ctx.kernel_rounds, seed, mode))
                bad = np.nonzero((wins < 0) | (wins > cap_units))[0]
                if bad.size:
                    raise ctx.fail(f"the kernel's round win {int(wins[bad[0]])} units is outside 0..{cap_units} "
                                   "(the cap)", build, mode, seed, int(bad[0]))
            acc = g.new_accumulator(build, mode)
            if (acc.unit, acc.cap_units) != (unit, cap_units):
                raise ctx.fail(f"the accumulator counts {acc.unit} units per bet with a cap of {acc.cap_units}; "
                               f"win_unit and max_win_x give {unit} and {cap_units}", build, mode)


def check_refuses_bad_steps(game: Game | Context) -> None:
    """A finished round refuses another step, an undeclared step action and an unknown mode are
    refused with RulesError, and a refused step draws nothing and leaves the state as it was; the
    kernel (``kernel_round_wins``, ``simulate_chunk``) refuses every mode not offered (an unknown
    one, ``buy`` where the game or build sells none) with RulesError too."""
    ctx = context_of(game)
    g = ctx.game
    seed = ctx.seeds[0]

    def refused(what: str, build: Build, mode: str, call: Callable[[RecordingDraws], Any]) -> None:
        draws = RecordingDraws(SeededDraws(seed))
        try:
            call(draws)
        except RulesError as exc:
            if not str(exc):
                raise ctx.fail(f"{what}: refused without a message", build, mode) from exc
        except Exception as exc:
            raise ctx.fail(f"{what} must raise RulesError, got {exc!r}", build, mode) from exc
        else:
            raise ctx.fail(f"{what} was accepted", build, mode)
        if draws.values:
            raise ctx.fail(f"{what} was refused after drawing {len(draws.values)} values", build, mode)

    for build in ctx.builds():
        refused(f"a round of mode {UNKNOWN_MODE!r}", build, UNKNOWN_MODE,
                lambda draws, b=build: g.start_round(b, UNKNOWN_MODE))
        offered = ctx.modes(build)
        for mode in dict.fromkeys((UNKNOWN_MODE, "buy", *g.modes)):
            if mode in offered:
                continue
            for what, call in (("kernel_round_wins", g.kernel_round_wins), ("simulate_chunk", g.simulate_chunk)):
                # the kernel must refuse a mode the game (or this build) does not offer, as the rules do
                try:
                    call(build, 10, seed, mode)
                except RulesError:
                    continue
                except Exception as exc:
                    raise ctx.fail(f"{what} of the mode {mode!r}, which is not offered, must raise RulesError, "
                                   f"got {exc!r}", build, mode) from exc
                raise ctx.fail(f"{what} played rounds of the mode {mode!r}, which is not offered "
                               f"(modes: {', '.join(offered)})", build, mode)
        for mode in ctx.modes(build):
            last = ctx.reference(build, mode, seed)[0].steps[-1]
            final = copy.deepcopy(last.state)
            refused("another step of a finished round", build, mode,
                    lambda draws, b=build, s=last.state: g.play_step(b, s, draws))
            if last.state != final:
                raise ctx.fail("refusing a step changed the finished round's state", build, mode)
            fresh = g.start_round(build, mode)
            refused(f"the undeclared step action {UNDECLARED_ACTION!r}", build, mode,
                    lambda draws, b=build, s=fresh: g.play_step(b, s, draws, UNDECLARED_ACTION))
