"""``check_game(game)``: one conformance suite every game must pass, in the spirit of
scikit-learn's ``check_estimator``.

Each check is a function of its own (``check_kernel_matches_reference(game)`` runs one), named
in :data:`CHECKS`, and raises :class:`ConformanceError` whose message names the game, the build,
the mode and, where rounds are compared, the first round that differs. :func:`check_game` runs
them all and reports every failure at once. The checks share the reference rounds they play
through a :class:`Context`, so the whole suite plays each build's rounds once.

What is checked (the contract is :mod:`reelforge.game`):

* every build loads and keeps the :class:`~reelforge.game.Build` protocol; an unknown build name
  raises :class:`~reelforge.game.BuildError` naming the valid ones;
* help is a :class:`~reelforge.game.GameHelp` with every field present and of its type;
* declared capabilities match behaviour (exact figures consistent and near a simulation; the
  Feature Buy present exactly when declared; undeclared methods raise NotImplementedError);
* the kernel and the reference engine give identical rounds on the same seeded stream, for
  every build and every mode;
* replaying recorded rounds (per-step draws and actions) reproduces every step exactly;
* every win is a whole number of win units and the cap holds;
* a finished round refuses another step, an undeclared step action and an unknown mode are
  refused, and nothing is drawn for a refused step;
* a simulated chunk's totals are those of the kernel's rounds, and simulation totals do not
  depend on the number of worker processes.
"""

from __future__ import annotations

import copy
import json
import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.draws import RecordingDraws, SeededDraws
from reelforge.game import (
    Build,
    BuildError,
    Capabilities,
    ExactFigures,
    Game,
    GameHelp,
    RoundResult,
    RulesError,
    StepResult,
)
from reelforge.games.registry import GAME_ID_PATTERN, UnknownGame, get_game
from reelforge.stats import bucket_edges_units, bucket_of

SIGMAS = 6
"""How far (in standard errors) a simulation may sit from an exact figure before a check fails:
wide enough that a correct game fails about once in 5e8 builds, on fixed seeds."""

ROUNDS = 1000
"""Reference rounds per build, mode and seed (Gemstones Gold's bought features, the slowest, take
about 2 ms each here)."""
SEEDS = (14, 2026)
REPLAY_ROUNDS = 100
KERNEL_ROUNDS = 20_000

UNDECLARED_ACTION = "no-such-action"
UNKNOWN_MODE = "no-such-mode"


class ConformanceError(AssertionError):
    """A game breaks the contract; the message says where (game, build, mode, round) and what."""


@dataclass
class Context:
    """A game and the sizes of its checks, with the rounds already played (shared by the checks).

    ``rounds`` reference rounds are played per build, mode and seed and compared with the
    kernel; the first ``replay_rounds`` of the first seed are replayed; ``kernel_rounds`` rounds
    are tallied by the kernel for the simulation checks (in four chunks when compared across
    worker counts).
    """

    game: Game
    rounds: int = ROUNDS
    seeds: tuple[int, ...] = SEEDS
    replay_rounds: int = REPLAY_ROUNDS
    kernel_rounds: int = KERNEL_ROUNDS
    _builds: dict[str, Build] = field(default_factory=dict, repr=False)
    _played: dict[tuple[str, str, int], list[RoundResult]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.rounds < 1 or self.replay_rounds < 1 or self.kernel_rounds < 4 or not self.seeds:
            raise ValueError("rounds and replay_rounds must be positive, kernel_rounds at least 4, seeds not empty")
        self.seeds = tuple(self.seeds)

    def build(self, name: str) -> Build:
        if name not in self._builds:
            self._builds[name] = self.game.load_build(name)
        return self._builds[name]

    def builds(self) -> list[Build]:
        return [self.build(n) for n in self.game.build_names()]

    def modes(self, build: Build) -> list[str]:
        """The game's modes this build offers (``buy`` only where the build sets a price)."""
        return [m for m in self.game.modes if m != "buy" or build.feature_buy_price_x is not None]

    def reference(self, build: Build, mode: str, seed: int) -> list[RoundResult]:
        """``rounds`` rounds of ``play_round`` on one seeded stream, one after the other."""
        key = (build.name, mode, seed)
        if key not in self._played:
            draws = SeededDraws(seed)
            played = []
            for i in range(self.rounds):
                try:
                    played.append(self.game.play_round(build, draws, mode))
                except Exception as exc:
                    raise self.fail(f"play_round raised {exc!r}", build, mode, seed, i) from exc
            self._played[key] = played
        return self._played[key]

    def fail(self, what: str, build: Build | None = None, mode: str | None = None, seed: int | None = None,
             round_index: int | None = None) -> ConformanceError:
        """A ConformanceError saying where: game, build, mode, seed, round (counted from 1)."""
        where = [self.game.id]
        if build is not None:
            where.append(f"build {build.name}")
        if mode is not None:
            where.append(f"mode {mode}")
        if seed is not None:
            where.append(f"seed {seed}")
        if round_index is not None:
            where.append(f"round {round_index + 1}")
        return ConformanceError(f"{', '.join(where)}: {what}")


def _context(game: Game | Context) -> Context:
    return game if isinstance(game, Context) else Context(game)


def _is_int(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


# -- declarations ---------------------------------------------------------------------------

def check_declarations_typed(game: Game | Context) -> None:
    """The class attributes of the contract are declared and of their types: ids, title,
    version, cap, modes (``paid`` first), step actions, reference stakes."""
    ctx = _context(game)
    g = ctx.game
    if not isinstance(getattr(g, "id", None), str) or not GAME_ID_PATTERN.fullmatch(g.id):
        raise ctx.fail(f"id {getattr(g, 'id', None)!r} must be lower-case words joined by hyphens (a URL segment)")
    for name in ("title", "reference_id", "version", "feature_name"):
        value = getattr(g, name, None)
        if not isinstance(value, str) or not value.strip():
            raise ctx.fail(f"{name} must be a non-empty string, got {value!r}")
    if g.published_id is not None and not (isinstance(g.published_id, str) and g.published_id):
        raise ctx.fail(f"published_id must be a non-empty string or None, got {g.published_id!r}")
    if not _is_int(g.max_win_x) or g.max_win_x < 1:
        raise ctx.fail(f"max_win_x must be a positive integer (x total bet), got {g.max_win_x!r}")
    if not isinstance(g.modes, tuple) or not g.modes or g.modes[0] != "paid" or len(set(g.modes)) != len(g.modes):
        raise ctx.fail(f"modes must be a tuple of distinct modes starting with 'paid', got {g.modes!r}")
    if not isinstance(g.step_actions, tuple) or not all(isinstance(a, str) and a for a in g.step_actions):
        raise ctx.fail(f"step_actions must be a tuple of action names, got {g.step_actions!r}")
    stakes = g.reference_stakes
    if not (isinstance(stakes, tuple) and len(stakes) == 2 and all(isinstance(v, int | float) for v in stakes)
            and 0 < stakes[0] <= stakes[1]):
        raise ctx.fail(f"reference_stakes must be (smallest, largest) positive total bets, got {stakes!r}")


# -- builds ---------------------------------------------------------------------------------

def check_builds_load(game: Game | Context) -> None:
    """Every build loads and keeps the Build protocol; an unknown name raises BuildError naming
    the valid builds."""
    ctx = _context(game)
    g = ctx.game
    names = g.build_names()
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ctx.fail(f"build_names() must be a non-empty list of names, got {names!r}")
    if g.default_build() not in names:
        raise ctx.fail(f"default build {g.default_build()!r} is not among the builds {names}")
    for name in names:
        try:
            build = ctx.build(name)
        except Exception as exc:
            raise ctx.fail(f"build {name} does not load: {exc!r}") from exc
        if not isinstance(build, Build):
            raise ctx.fail(f"build {name} lacks the Build protocol's name, rtp and feature_buy_price_x")
        if build.name != name:
            raise ctx.fail(f"build loaded as {name!r} calls itself {build.name!r}")
        if not isinstance(build.rtp, Fraction) or not 0 < build.rtp < 1:
            raise ctx.fail(f"rtp must be a Fraction of the stake between 0 and 1 (never a percentage), "
                           f"got {build.rtp!r}", build)
        price = build.feature_buy_price_x
        if price is not None and not (isinstance(price, Fraction | int) and price > 0):
            raise ctx.fail(f"feature_buy_price_x must be None or a positive Fraction, got {price!r}", build)
    unknown = "no-such-build"
    try:
        g.load_build(unknown)
    except BuildError as exc:
        missing = [n for n in names if n not in str(exc)]
        if missing:
            raise ctx.fail(f"the error for an unknown build does not name the valid builds {missing}: {exc}") from exc
    except Exception as exc:
        raise ctx.fail(f"an unknown build must raise BuildError, got {exc!r}") from exc
    else:
        raise ctx.fail(f"load_build({unknown!r}) returned a build instead of raising BuildError")


# -- help -----------------------------------------------------------------------------------

def _check_type(ctx: Context, build: Build, where: str, value: Any, kind: type | tuple[type, ...]) -> None:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ctx.fail(f"help {where} must be {kind}, got {value!r}", build)


def check_help_typed(game: Game | Context) -> None:
    """help(build) is a GameHelp with every field present, of its type and true to the game."""
    ctx = _context(game)
    g = ctx.game
    for build in ctx.builds():
        h = g.help(build)
        if not isinstance(h, GameHelp):
            raise ctx.fail(f"help() must return a GameHelp, got {type(h).__name__}", build)
        expected = {"game": g.id, "title": g.title, "game_id": g.published_id, "version": g.version,
                    "build": build.name, "rtp": build.rtp, "max_win_x": g.max_win_x,
                    "feature_buy_price_x": g.feature_buy_price_x(build)}
        for key, want in expected.items():
            if getattr(h, key) != want or type(getattr(h, key)) is not type(want):
                raise ctx.fail(f"help {key} is {getattr(h, key)!r}, the game says {want!r}", build)
        _check_type(ctx, build, "volatility", h.volatility, str)
        if not h.volatility:
            raise ctx.fail("help volatility is empty (give it in words, e.g. 'High')", build)
        _check_type(ctx, build, "rules", h.rules, tuple)
        if not h.rules or not all(isinstance(p, str) and p.strip() for p in h.rules):
            raise ctx.fail("help rules must be non-empty paragraphs of text", build)
        if h.paytable is None or h.paytable == {} or h.paytable == []:
            raise ctx.fail("help paytable is empty", build)
        _check_type(ctx, build, "symbol_names", h.symbol_names, dict)
        if not all(isinstance(k, str) and isinstance(v, str) and v for k, v in h.symbol_names.items()):
            raise ctx.fail("help symbol_names must map symbol keys to names in words", build)
        _check_type(ctx, build, "page", h.page, dict)
        missing = [k for k in ("paytable", "features", "sections") if k not in h.page]
        if missing:
            raise ctx.fail(f"help page lacks {missing}", build)
        _check_type(ctx, build, "extra", h.extra, dict)
        try:
            text = json.dumps(h.to_json())
        except (TypeError, ValueError) as exc:
            raise ctx.fail(f"help to_json() is not JSON: {exc}", build) from exc
        if json.loads(text)["rtp"] != str(build.rtp):
            raise ctx.fail("help to_json() must write the rtp as an exact fraction string", build)


# -- capabilities ---------------------------------------------------------------------------

def _declared_as_implemented(ctx: Context, name: str, method: str, call: Callable[[], Any]) -> None:
    """A capability is declared exactly when its method is the game's own; an undeclared one
    must raise NotImplementedError. (Implementations are not run here: a stratified estimate or
    a tune can take minutes.)"""
    declared = getattr(ctx.game.capabilities, name)
    implemented = getattr(type(ctx.game), method) is not getattr(Game, method)
    if declared and not implemented:
        raise ctx.fail(f"capabilities.{name} is declared but the game does not implement {method}()")
    if implemented and not declared:
        raise ctx.fail(f"{method}() is implemented but capabilities.{name} is False: declare it or leave it out")
    if not declared:
        try:
            call()
        except NotImplementedError:
            return
        except Exception as exc:
            raise ctx.fail(f"{method}() is not declared, so it must raise NotImplementedError, got {exc!r}") from exc
        raise ctx.fail(f"{method}() answers but capabilities.{name} is False: declare it or leave it out")


def _check_exact(ctx: Context, build: Build) -> None:
    g = ctx.game
    ex = g.exact(build)
    if not isinstance(ex, ExactFigures):
        raise ctx.fail(f"exact() must return ExactFigures, got {type(ex).__name__}", build)
    for f in fields(ExactFigures):
        value = getattr(ex, f.name)
        if f.name in ("rtp", "hit_rate", "feature_rate", "variance", "max_win_probability") \
                and not isinstance(value, Fraction):
            raise ctx.fail(f"exact {f.name} must be a Fraction, got {value!r}", build)
    probabilities = ex.outcomes
    if sum(probabilities.values()) != 1 or any(p < 0 for p in probabilities.values()):
        raise ctx.fail("exact outcomes' probabilities must be non-negative and add up to 1", build)
    unit = g.win_unit(build)
    for win in probabilities:
        if (Fraction(win) * unit).denominator != 1 or not 0 <= win <= g.max_win_x:
            raise ctx.fail(f"exact outcome {win}x is not a whole number of win units within the cap", build)
    mean = sum(Fraction(w) * p for w, p in probabilities.items())
    rtp = mean / g.stake_x(build)
    identities = {
        "rtp (the outcomes' mean win per stake)": (ex.rtp, rtp),
        "the sum of rtp_split": (sum(ex.rtp_split.values(), Fraction(0)), ex.rtp),
        "hit_rate (the outcomes' probability of a win)": (ex.hit_rate, sum(p for w, p in probabilities.items() if w)),
        "variance (of the outcomes)": (ex.variance, sum(Fraction(w) ** 2 * p for w, p in probabilities.items())
                                       - mean ** 2),
        "max_win_probability": (ex.max_win_probability, probabilities.get(Fraction(ex.max_win_x), Fraction(0))),
    }
    for what, (got, want) in identities.items():
        if got != want:
            raise ctx.fail(f"exact figures disagree with themselves: {what} is {got}, the outcomes give {want}", build)
    acc = g.simulate_chunk(build, ctx.kernel_rounds, ctx.seeds[0], "paid")
    se = math.sqrt(float(ex.variance) / acc.rounds)
    if abs(acc.rtp - float(ex.rtp)) > SIGMAS * se:
        raise ctx.fail(f"exact rtp {float(ex.rtp):.6f} is {abs(acc.rtp - float(ex.rtp)) / se:.1f} standard errors "
                       f"from a simulation of {acc.rounds} rounds ({acc.rtp:.6f})", build, "paid", ctx.seeds[0])
    p = float(ex.hit_rate)
    se_hit = math.sqrt(max(p * (1 - p), 1e-300) / acc.rounds)
    if abs(acc.hit_rate - p) > SIGMAS * se_hit:
        raise ctx.fail(f"exact hit rate {p:.6f} is {abs(acc.hit_rate - p) / se_hit:.1f} standard errors from a "
                       f"simulation of {acc.rounds} rounds ({acc.hit_rate:.6f})", build, "paid", ctx.seeds[0])


def check_capabilities_match_behaviour(game: Game | Context) -> None:
    """Declared capabilities match the implementation (callers never sniff; this check does, to
    hold the declaration to it): what is declared works, what is not raises NotImplementedError;
    the Feature Buy is the mode ``buy``, declared exactly when offered, at the build's price."""
    ctx = _context(game)
    g = ctx.game
    caps = g.capabilities
    if not isinstance(caps, Capabilities):
        raise ctx.fail(f"capabilities must be a Capabilities, got {caps!r}")
    builds = ctx.builds()
    build = builds[0]
    if caps.feature_buy != ("buy" in g.modes):
        raise ctx.fail(f"capabilities.feature_buy is {caps.feature_buy} but the modes are {g.modes}: "
                       "the Feature Buy is the round mode 'buy'")
    _declared_as_implemented(ctx, "exact", "exact", lambda: g.exact(build))
    _declared_as_implemented(ctx, "stratified", "stratified", lambda: g.stratified(build, 1000, ctx.seeds[0]))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tuned.toml"
        # an unknown target: a tuner must refuse it before any work, naming it
        _declared_as_implemented(ctx, "tunable", "tune",
                                 lambda: g.tune(build.name, {"no_such_target": 0.5}, out=str(out)))
        if caps.tunable:
            try:
                g.tune(build.name, {"no_such_target": 0.5}, out=str(out))
            except ValueError as exc:
                if "no_such_target" not in str(exc):
                    raise ctx.fail(f"tune() must name an unknown target in its error, got: {exc}") from exc
            else:
                raise ctx.fail("tune() accepted an unknown target 'no_such_target'")
            if out.exists():
                raise ctx.fail("tune() wrote a build file although its targets were refused")
    if caps.exact:
        for b in builds:
            _check_exact(ctx, b)
    priced = [b for b in builds if g.feature_buy_price_x(b) is not None]
    if caps.feature_buy and not priced:
        raise ctx.fail("capabilities.feature_buy is declared but no build sets a feature_buy_price_x")
    for b in builds:
        price = g.feature_buy_price_x(b)
        if price is None:
            try:
                g.stake_x(b, "buy")
            except RulesError:
                continue
            raise ctx.fail("a round of mode 'buy' has a stake although the build sells no Feature Buy", b)
        unit = g.win_unit(b)
        if g.stake_x(b, "buy") != price or g.new_accumulator(b, "buy").stake_units != price * unit:
            raise ctx.fail(f"a bought round must cost the price {price}x: stake_x gives {g.stake_x(b, 'buy')}, "
                           f"the accumulator {Fraction(g.new_accumulator(b, 'buy').stake_units, unit)}", b, "buy")


# -- rounds ---------------------------------------------------------------------------------

def _round_units(ctx: Context, build: Build, mode: str, seed: int, i: int, result: RoundResult) -> int:
    units = Fraction(result.total_win) * ctx.game.win_unit(build)
    if units.denominator != 1:
        raise ctx.fail(f"the round won {result.total_win}x total bet, not a whole number of win units "
                       f"(win_unit {ctx.game.win_unit(build)})", build, mode, seed, i)
    return int(units)


def check_kernel_matches_reference(game: Game | Context) -> None:
    """kernel_round_wins and play_round, fed the same seeded stream, give identical rounds for
    every build, mode and seed."""
    ctx = _context(game)
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


def _json_copy(ctx: Context, value: Any, what: str, build: Build, mode: str, seed: int, i: int) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise ctx.fail(f"{what} is not JSON-able: {exc}", build, mode, seed, i) from exc


def _play_with_actions(ctx: Context, build: Build, mode: str, draws: SeededDraws,
                       offer: str | None) -> tuple[RoundResult, list[str | None]]:
    """One round step by step, offering ``offer`` to every step (on a copy of the stream, so a
    refusal costs nothing) and playing it without an action where refused; the state each step
    is given comes back from JSON, as the server stores it."""
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
        if offer is not None:
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
            return RoundResult(mode=mode, steps=steps, draws=per_step), actions
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
    ctx = _context(game)
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
                draws = SeededDraws(seed)
                for i in range(ctx.rounds):
                    played, actions = _play_with_actions(ctx, build, mode, draws, offer)
                    if i >= ctx.replay_rounds and offer not in actions:
                        continue  # past the first rounds, only those where a step took the action
                    try:
                        replayed = g.replay(build, mode, played.draws, actions)
                    except Exception as exc:
                        raise ctx.fail(f"replay with actions {actions} raised {exc!r}", build, mode, seed, i) from exc
                    _same_steps(ctx, build, mode, seed, i, played, replayed)


def check_wins_whole_units_within_cap(game: Game | Context) -> None:
    """Every step's win and the round win are exact Fractions, whole numbers of win units,
    never negative, adding up, and never above the cap; the kernel's wins too."""
    ctx = _context(game)
    g = ctx.game
    for build in ctx.builds():
        unit = g.win_unit(build)
        if not _is_int(unit) or unit < 1:
            raise ctx.fail(f"win_unit must be a positive integer, got {unit!r}", build)
        cap_units = g.max_win_x * unit
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
    refused with RulesError, and a refused step draws nothing and leaves the state as it was."""
    ctx = _context(game)
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


# -- simulation -----------------------------------------------------------------------------

def check_simulation_matches_kernel_rounds(game: Game | Context) -> None:
    """A chunk simulated from a seed holds exactly the totals of the kernel's rounds from it."""
    ctx = _context(game)
    g = ctx.game
    seed = ctx.seeds[0]
    for build in ctx.builds():
        for mode in ctx.modes(build):
            wins = [int(w) for w in g.kernel_round_wins(build, ctx.kernel_rounds, seed, mode)]
            acc = g.simulate_chunk(build, ctx.kernel_rounds, seed, mode)
            hist = [0] * len(acc.hist)
            edges = bucket_edges_units(acc.unit)
            for w in wins:
                hist[bucket_of(w, edges, acc.cap_units)] += 1
            top = max(wins)
            expected = {"rounds": len(wins), "hits": sum(w > 0 for w in wins), "win": sum(wins),
                        "win_sq": sum(w * w for w in wins), "win_cube": sum(w ** 3 for w in wins),
                        "win_quad": sum(w ** 4 for w in wins), "max_win": top,
                        "max_count": wins.count(top) if top else 0, "hist": hist}
            for name, want in expected.items():
                if getattr(acc, name) != want:
                    raise ctx.fail(f"simulate_chunk's {name} is {getattr(acc, name)}, the kernel's "
                                   f"{len(wins)} rounds give {want}", build, mode, seed)
            if sum(acc.components) != acc.win:
                raise ctx.fail(f"the components add up to {sum(acc.components)} units, the win is {acc.win}",
                               build, mode, seed)


def check_simulation_independent_of_workers(game: Game | Context) -> None:
    """``simulate`` gives identical totals on one worker and on two (the game must be registered)."""
    from reelforge.analysis.simulate import simulate

    ctx = _context(game)
    g = ctx.game
    try:
        registered = get_game(g.id)
    except UnknownGame as exc:
        raise ctx.fail("the game is not registered (reelforge.games.registry.register), so simulate "
                       "cannot find it") from exc
    if type(registered) is not type(g):
        raise ctx.fail(f"the registry gives {type(registered).__name__} for {g.id!r}, not {type(g).__name__}")
    build = ctx.build(g.default_build())
    chunk = ctx.kernel_rounds // 4
    for mode in ctx.modes(build):
        runs = {workers: simulate(g.id, build.name, 4 * chunk, ctx.seeds[0], workers, mode, chunk=chunk)
                for workers in (1, 2)}
        one, two = (runs[w].accumulator for w in (1, 2))
        if one.rounds != 4 * chunk or runs[2].workers != 2:
            raise ctx.fail(f"simulate played {one.rounds} rounds on {runs[2].workers} workers; {4 * chunk} rounds "
                           "on 2 were asked", build, mode)
        if one.key() != two.key():
            diff = [f.name for f in fields(one) if getattr(one, f.name) != getattr(two, f.name)]
            raise ctx.fail(f"simulation totals depend on the worker count: 1 and 2 workers differ in {diff}",
                           build, mode, ctx.seeds[0])


CHECKS: dict[str, Callable[[Game | Context], None]] = {
    "declarations_typed": check_declarations_typed,
    "builds_load": check_builds_load,
    "help_typed": check_help_typed,
    "capabilities_match_behaviour": check_capabilities_match_behaviour,
    "kernel_matches_reference": check_kernel_matches_reference,
    "replay_reproduces_rounds": check_replay_reproduces_rounds,
    "wins_whole_units_within_cap": check_wins_whole_units_within_cap,
    "refuses_bad_steps": check_refuses_bad_steps,
    "simulation_matches_kernel_rounds": check_simulation_matches_kernel_rounds,
    "simulation_independent_of_workers": check_simulation_independent_of_workers,
}
"""Every check by name, in the order :func:`check_game` runs them."""


def check_game(game: Game, *, rounds: int = ROUNDS, seeds: tuple[int, ...] = SEEDS, replay_rounds: int = REPLAY_ROUNDS,
               kernel_rounds: int = KERNEL_ROUNDS, checks: list[str] | None = None) -> list[str]:
    """Run every check (or those named in ``checks``) on ``game``; return the names that passed.

    Raises :class:`ConformanceError` listing every failing check and its message.
    """
    unknown = sorted(set(checks or ()) - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; checks: {', '.join(CHECKS)}")
    ctx = Context(game, rounds=rounds, seeds=tuple(seeds), replay_rounds=replay_rounds, kernel_rounds=kernel_rounds)
    failures = []
    for name in checks or CHECKS:
        try:
            CHECKS[name](ctx)
        except Exception as exc:  # every failure is reported, a crash as much as a broken promise
            failures.append(f"{name}: {exc}" if isinstance(exc, ConformanceError) else f"{name}: crashed: {exc!r}")
    if failures:
        raise ConformanceError(f"{game.id} fails {len(failures)} check(s):\n" + "\n".join(failures))
    return list(checks or CHECKS)
