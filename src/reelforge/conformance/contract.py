"""Checks of what a game declares: class attributes, builds, help, capabilities."""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable
from dataclasses import fields
from fractions import Fraction
from pathlib import Path
from typing import Any

from reelforge.conformance.context import SIGMAS, Context, context_of, is_integer
from reelforge.game.contract import Build, BuildError, Capabilities, Game, RulesError
from reelforge.game.help import GameHelp
from reelforge.game.results import ExactFigures
from reelforge.games.registry import GAME_ID_PATTERN

NAME_TOLERANCE = Fraction(1, 10_000)
"""How far a build's rtp may lie from the RTP its name reads as: 0.01 pp (issue 34: a build tuned on exact
figures states its exact RTP, within this of its name)."""

# -- declarations ---------------------------------------------------------------------------

def check_declarations_typed(game: Game | Context) -> None:
    """The class attributes of the contract are declared and of their types: ids, title,
    version, cap, modes (``paid`` first), step actions, reference stakes; the feature counter is
    one of the accumulator's counters."""
    ctx = context_of(game)
    g = ctx.game
    if not isinstance(getattr(g, "id", None), str) or not GAME_ID_PATTERN.fullmatch(g.id):
        raise ctx.fail(f"id {getattr(g, 'id', None)!r} must be lower-case words joined by hyphens (a URL segment)")
    for name in ("title", "reference_id", "version", "feature_name"):
        value = getattr(g, name, None)
        if not isinstance(value, str) or not value.strip():
            raise ctx.fail(f"{name} must be a non-empty string, got {value!r}")
    if g.published_id is not None and not (isinstance(g.published_id, str) and g.published_id):
        raise ctx.fail(f"published_id must be a non-empty string or None, got {g.published_id!r}")
    if not is_integer(g.max_win_x) or g.max_win_x < 1:
        raise ctx.fail(f"max_win_x must be a positive integer (x total bet), got {g.max_win_x!r}")
    if not isinstance(g.modes, tuple) or not g.modes or g.modes[0] != "paid" or len(set(g.modes)) != len(g.modes):
        raise ctx.fail(f"modes must be a tuple of distinct modes starting with 'paid', got {g.modes!r}")
    if not isinstance(g.step_actions, tuple) or not all(isinstance(a, str) and a for a in g.step_actions):
        raise ctx.fail(f"step_actions must be a tuple of action names, got {g.step_actions!r}")
    counter = g.feature_counter
    if counter is not None:
        build = g.load_build(g.default_build())
        names = g.new_accumulator(build).counter_names
        if not isinstance(counter, str) or counter not in names:
            raise ctx.fail(f"feature_counter {counter!r} must be one of the accumulator's counters {list(names)} "
                           "(the summary's feature rate reads it), or None")
    stakes = g.reference_stakes
    if not (isinstance(stakes, tuple) and len(stakes) == 2 and all(isinstance(v, int | float) for v in stakes)
            and 0 < stakes[0] <= stakes[1]):
        raise ctx.fail(f"reference_stakes must be (smallest, largest) positive total bets, got {stakes!r}")


# -- builds ---------------------------------------------------------------------------------

def check_builds_load(game: Game | Context) -> None:
    """Every build loads and keeps the Build protocol; a build named by a number is named for its RTP
    in percent (``96.2`` has rtp 0.962); an unknown name raises BuildError naming the valid builds."""
    ctx = context_of(game)
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
        try:
            percent = Fraction(name)
        except ValueError:
            percent = None
        # the rtp is the name's, or the exact RTP a build tuned on exact figures states, within 0.01 pp of it
        if percent is not None and abs(percent / 100 - build.rtp) > NAME_TOLERANCE:
            raise ctx.fail(f"the build's name {name!r} reads as an RTP of {float(percent)}% but its rtp is "
                           f"{build.rtp} ({float(build.rtp) * 100:g}%): a build named by a number is named for its "
                           "RTP in percent (within 0.01 pp)", build)
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

def _check_type(ctx: Context, build: Build, where: str, value: Any, kind: type) -> None:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ctx.fail(f"help {where} must be a {kind.__name__}, got {value!r}", build)


def check_help_typed(game: Game | Context) -> None:
    """help(build) is a GameHelp with every field present, of its type and true to the game."""
    ctx = context_of(game)
    g = ctx.game
    for build in ctx.builds():
        h = g.help(build)
        if not isinstance(h, GameHelp):
            raise ctx.fail(f"help() must return a GameHelp, got {type(h).__name__}", build)
        expected = {"game": g.id, "title": g.title, "game_id": g.reference_id, "published_id": g.published_id, "version": g.version,
                    "build": build.name, "rtp": g.proven_rtp(build), "max_win_x": g.cap_x(build),
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
        if json.loads(text)["rtp"] != str(g.proven_rtp(build)):
            raise ctx.fail("help to_json() must write the rtp as an exact fraction string", build)
        _check_help_language(ctx, build, h)


def _check_help_language(ctx: Context, build: Build, english: GameHelp) -> None:
    """help(build, lang) takes the player's language: the same figures, its texts in that language (or in English
    where the game has no translation, saying so in ``language``), never an error for one it does not know."""
    for lang in ("de", "xx"):
        try:
            h = ctx.game.help(build, lang)
        except TypeError as exc:
            raise ctx.fail(f"help(build, lang) must take the player's language (ISO 639-1), got {exc}", build) from exc
        if not isinstance(h, GameHelp) or h.language not in (lang, "en") or (lang == "xx" and h.language != "en"):
            raise ctx.fail(f"help(build, {lang!r}) must say its language ({lang!r}, or 'en' where untranslated), "
                           f"got {getattr(h, 'language', None)!r}", build)
        if lang == "xx" and h.to_json() != english.to_json():
            raise ctx.fail("help in a language the game does not know must be the English help", build)
        if h.rtp != english.rtp or h.max_win_x != english.max_win_x or h.build_hash != english.build_hash:
            raise ctx.fail(f"help(build, {lang!r}) changes the figures (rtp, max_win_x and the build stay)", build)


# -- capabilities ---------------------------------------------------------------------------

def _declared_as_implemented(ctx: Context, name: str, method: str, call: Callable[[], Any]) -> None:
    """A capability is declared exactly when its method is the game's own; an undeclared one
    must raise NotImplementedError. (A declared stratified estimate or tune is not run here: either
    can take minutes.)"""
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
    acc = g.simulate_chunk(build, ctx.exact_rounds, ctx.seeds[0], "paid")
    se = math.sqrt(float(ex.variance) / acc.rounds) or 1e-300   # a game that always pays the same
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
    ctx = context_of(game)
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
