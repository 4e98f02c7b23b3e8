"""Checks of the figures a game publishes about a build: its RTP, its volatility, its maximum win and the win
distribution's top bucket, each held to the game itself (exact figures, a derived bound and a
constructed round, or a simulation sized to decide)."""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

from reelforge.conformance.context import (
    RTP_PILOT_ROUNDS,
    RTP_TOLERANCE_EXACT,
    RTP_TOLERANCE_SIMULATED,
    Context,
    context_of,
)
from reelforge.core.stats import volatility_level, volatility_levels
from reelforge.core.tuning import rounds_for
from reelforge.game.contract import Build, Game
from reelforge.game.help import VOLATILITY_WORDS, volatility_bolts
from reelforge.game.results import TECHNICAL_LIMIT, MaxWin
from reelforge.game.volatility_proof import proven_volatility


def _pp(x: Fraction | float) -> str:
    return f"{float(x) * 100:.4f} pp"


def _percent(x: Fraction | float) -> str:
    return f"{float(x) * 100:.4f}%"


def rtp_rounds_needed(sd: float, tolerance: Fraction) -> int:
    """Paid rounds whose 99% interval is half the ``tolerance`` wide on each side for a round-win SD of
    ``sd``: then a build on its declared RTP passes (it would have to sit 5.2 standard errors out to fail)
    and one off by 1.5 tolerances or more fails with 99% certainty."""
    return rounds_for(sd, float(tolerance) / 2)


LOOK_GROWTH = 4
"""Each look of the RTP check's simulation has this many times the rounds of the one before."""


def check_rtp_declared(game: Game | Context) -> None:
    """Each build's declared ``rtp`` is what it pays: within :data:`RTP_TOLERANCE_EXACT` of the exact RTP where
    the game declares exact figures; else within :data:`RTP_TOLERANCE_SIMULATED` of a paid simulation
    (:func:`_held_to_a_simulation`) sized from the build's SD to decide at 99% (:func:`rtp_rounds_needed`), at most
    ``rtp_rounds`` rounds: a build whose interval leaves the tolerance fails at the first look that shows it; one
    the budget cannot decide fails as undecided, saying the figure it reached and the rounds a decision needs."""
    ctx = context_of(game)
    for build in ctx.builds():
        exact = ctx.exact(build)
        if exact is not None:
            tolerance = ctx.rtp_tolerance or RTP_TOLERANCE_EXACT
            if abs(exact.rtp - build.rtp) > tolerance:
                raise ctx.fail(f"the declared rtp {_percent(build.rtp)} is {_pp(exact.rtp - build.rtp)} from the "
                               f"exact RTP {_percent(exact.rtp)} ({exact.rtp}); the tolerance is {_pp(tolerance)}",
                               build)
            continue
        _held_to_a_simulation(ctx, build, ctx.rtp_tolerance or RTP_TOLERANCE_SIMULATED)


def _held_to_a_simulation(ctx: Context, build: Build, tolerance: Fraction) -> None:
    """A sequential test of the declared RTP on paid rounds: a pilot (:data:`RTP_PILOT_ROUNDS`), then looks
    :data:`LOOK_GROWTH` times larger, until the rounds the SD so far needs to decide within ``tolerance`` at 99%
    (its interval half the tolerance wide on each side) or the budget ``ctx.rtp_rounds``. At every look the build
    fails if its interval (99% over all the looks: Bonferroni) lies wholly outside the declared RTP +- the tolerance;
    at the needed size it fails if it is more than the tolerance away; at the budget, short of that, it passes
    only if its interval lies wholly inside, else it is undecided (a failure naming the rounds needed), as soon as
    a look shows that the whole budget's interval would still be wider than the tolerance."""
    g = ctx.game
    declared, tol = float(build.rtp), float(tolerance)
    seed = ctx.seeds[-1] + 1
    acc = g.simulate_chunk(build, min(RTP_PILOT_ROUNDS, ctx.rtp_rounds), seed, "paid")
    looks = 1 + max(0, math.ceil(math.log(max(1.0, ctx.rtp_rounds / acc.rounds), LOOK_GROWTH)))
    z = NormalDist().inv_cdf(1 - 0.01 / (2 * looks))
    chunk = 0

    def interval(zz: float) -> tuple[float, str]:   # 99% over every look
        half = zz * acc.sd / math.sqrt(acc.rounds)
        return half, (f"a simulation of {acc.rounds:,} rounds pays {_percent(acc.rtp)} (99% interval "
                      f"[{_percent(acc.rtp - half)}, {_percent(acc.rtp + half)}])")

    while True:
        needed = rtp_rounds_needed(acc.sd, tolerance)
        half, text = interval(z)
        if abs(acc.rtp - declared) - half > tol:
            raise ctx.fail(f"the declared rtp {_percent(build.rtp)} is {_pp(acc.rtp - declared)} from what {text}: "
                           f"more than the {_pp(tolerance)} it may differ", build, "paid", seed)
        if acc.rounds >= min(needed, ctx.rtp_rounds):
            break
        if half * math.sqrt(acc.rounds / ctx.rtp_rounds) > tol:
            break       # even the whole budget could not show the RTP inside the tolerance: undecided now
        more = min((LOOK_GROWTH - 1) * acc.rounds, min(needed, ctx.rtp_rounds) - acc.rounds)
        chunk += 1
        acc.merge_in(g.simulate_chunk(build, more, seed + chunk, "paid"))
    half, text = interval(z)
    if acc.rounds >= needed:
        if abs(acc.rtp - declared) > tol:
            raise ctx.fail(f"the declared rtp {_percent(build.rtp)} is {_pp(acc.rtp - declared)} from what {text}: "
                           f"more than the {_pp(tolerance)} it may differ", build, "paid", seed)
        return
    if abs(acc.rtp - declared) + half <= tol:
        return
    reach = "" if acc.rounds == ctx.rtp_rounds else \
        f" (all {ctx.rtp_rounds:,} would resolve only {_pp(half * math.sqrt(acc.rounds / ctx.rtp_rounds))})"
    raise ctx.fail(f"undecided: the declared rtp {_percent(build.rtp)} cannot be held to {_pp(tolerance)} within "
                   f"the budget: {text}; deciding at 99% needs {needed:,} rounds (SD {acc.sd:.3g}x), more than the "
                   f"{ctx.rtp_rounds:,} allowed{reach} (bench/check_games.py --rtp-rounds {needed})", build, "paid",
                   seed)


def check_volatility_declared(game: Game | Context) -> None:
    """Each build's volatility in its help (bolts on the one scale: :func:`~reelforge.game.help.volatility_bolts`,
    each bolt two levels of the SD scale) is the one its round-win SD proves: the exact SD's where the game declares
    exact figures; else the one bolt that every level the SD's 99% interval spans on a paid simulation
    (:data:`RTP_PILOT_ROUNDS` rounds) falls in; where that interval reaches two bolts (an SD near a bolt's edge), the
    level recorded for the build (:mod:`reelforge.game.volatility_proof`: a larger run's interval inside one level),
    which the simulation must not refute. A help without a proof fails as undecided, saying what would decide it."""
    ctx = context_of(game)
    g = ctx.game
    for build in ctx.builds():
        shown = g.help(build).volatility_bolts
        exact = ctx.exact(build)
        if exact is not None:
            sd = math.sqrt(float(exact.variance))
            levels, source = [volatility_level(sd)], f"the exact SD {sd:.4g}x"
        else:
            seed = ctx.seeds[-1] + 2
            acc = g.simulate_chunk(build, min(RTP_PILOT_ROUNDS, ctx.rtp_rounds), seed, "paid")
            lo, hi = acc.sd_ci99()
            levels = volatility_levels(lo, hi)
            source = f"a simulation of {acc.rounds:,} rounds: SD {acc.sd:.4g}x, 99% interval [{lo:.4g}, {hi:.4g}]"
        allowed = sorted({volatility_bolts(level) for level in levels})
        if shown not in allowed:
            said = " or ".join(f"{VOLATILITY_WORDS[b - 1]} ({b} of 5)" for b in allowed)
            raise ctx.fail(f"the help's volatility is {VOLATILITY_WORDS[shown - 1]} ({shown} of 5) but {source} gives "
                           f"level{'s' * (len(levels) > 1)} {'-'.join(map(str, sorted({levels[0], levels[-1]})))} of "
                           f"10: {said}", build)
        if len(allowed) > 1:
            try:
                proven = volatility_bolts(proven_volatility(g, build))
            except ValueError as exc:
                raise ctx.fail(f"undecided: the help's volatility {VOLATILITY_WORDS[shown - 1]} ({shown} of 5) is not "
                               f"proven: {source} reaches {' and '.join(map(str, allowed))} bolts, and {exc}",
                               build) from exc
            if proven != shown:
                raise ctx.fail(f"the help's volatility is {VOLATILITY_WORDS[shown - 1]} ({shown} of 5) but the "
                               f"recorded SD proves {VOLATILITY_WORDS[proven - 1]} ({proven} of 5)", build)


def _max_win(ctx: Context, build: Build) -> MaxWin:
    try:
        found = ctx.max_win(build)
    except Exception as exc:
        raise ctx.fail(f"max_win() raised {exc!r}", build) from exc
    if not isinstance(found, MaxWin):
        raise ctx.fail(f"max_win() must return a MaxWin, got {type(found).__name__}", build)
    return found


def check_max_win_reachable(game: Game | Context) -> None:
    """Each build's stated maximum win (:meth:`~reelforge.game.contract.Game.cap_x`) is what its largest round
    wins, shown exactly (the exact distribution) or by a constructed round (:meth:`max_win_round`, replayed) that
    reaches it, with no round above it; a stated maximum above what the rules allow cannot load. A game whose
    cap is a :data:`TECHNICAL_LIMIT` only has to hold it."""
    ctx = context_of(game)
    g = ctx.game
    for build in ctx.builds():
        stated = Fraction(g.cap_x(build))
        found = _max_win(ctx, build)
        if found.x > stated:
            raise ctx.fail(f"a round wins {found.x}x, above the stated maximum {stated}x ({found.text})", build)
        recorded = g.recorded_exact(build)
        if recorded is not None:
            exact = ctx.exact(build)
            if exact is None:
                raise ctx.fail(f"exact figures are recorded in {g.EXACT_RECORD} but the game has none", build)
            held = {"rtp": exact.rtp, "max_win_x": found.x, "max_win_probability": exact.max_win_probability}
            wrong = [f"{k} {recorded[k]} (exact {v})" for k, v in held.items() if recorded[k] != v]
            if wrong:
                raise ctx.fail(f"the exact figures recorded in {g.EXACT_RECORD} (shown in the lobby and the help) are "
                               f"not the build's: {'; '.join(wrong)}", build)
        if g.max_win_source == TECHNICAL_LIMIT:
            continue
        if found.x < stated:
            raise ctx.fail(f"the stated maximum win {stated}x cannot be reached: the largest reachable win is "
                           f"{found.x}x ({found.text})", build)
        if not found.reachable:
            raise ctx.fail(f"the stated maximum win {stated}x is not shown reachable ({found.text}): declare exact "
                           "figures or give a round that reaches it (max_win_round)", build)
        if found.round_draws is not None:
            played = g.replay(build, found.mode, [list(d) for d in found.round_draws])
            over = [k + 1 for k, step in enumerate(played.steps) if step.total_win > stated]
            if over or not played.steps[-1].finished:
                raise ctx.fail(f"the constructed round {'passes the cap at step ' + str(over[0]) if over else 'is not finished'}",
                               build, found.mode)


def check_top_bucket_is_the_cap(game: Game | Context) -> None:
    """The win distribution a report publishes ends in the stated maximum win's own bucket, which holds exactly
    the rounds at the cap: the exact distribution's probability of the cap (its ``max_win_probability``, above
    zero: the cap is reached), or, in a simulation, the kernel's rounds at the cap; the tally's cap is the stated
    one, and the summary labels its top bucket with it."""
    from reelforge.analysis.summary import simulation_summary

    ctx = context_of(game)
    g = ctx.game
    for build in ctx.builds():
        stated = Fraction(g.cap_x(build))
        found = _max_win(ctx, build)
        if g.max_win_source != TECHNICAL_LIMIT and found.x != stated:
            raise ctx.fail(f"the win distribution's top bucket is the cap {stated}x, which no round reaches (the "
                           f"largest win is {found.x}x: {found.text})", build)
        exact = ctx.exact(build)
        if exact is not None:
            top = sum((p for w, p in exact.outcomes.items() if Fraction(w) >= stated), Fraction(0))
            # the cap's probability where a round reaches it; none where the cap is a technical limit above them
            want = exact.max_win_probability if found.x == stated else Fraction(0)
            if top != want or (found.x == stated and top == 0):
                raise ctx.fail(f"the exact distribution's top bucket ({stated}x) has probability {top}, the exact "
                               f"probability of the largest win {found.x}x is {exact.max_win_probability}", build)
        wins = [int(w) for w in g.kernel_round_wins(build, ctx.kernel_rounds, ctx.seeds[0], "paid")]
        acc = g.simulate_chunk(build, ctx.kernel_rounds, ctx.seeds[0], "paid")
        summary = simulation_summary(g, build, acc, "paid", ctx.seeds[0])
        last = summary["distribution"][-1]
        at_cap = sum(w == stated * acc.unit for w in wins)
        if Fraction(acc.cap_units, acc.unit) != stated or (last["from"], last["to"]) != (float(stated),) * 2 \
                or summary["max_win_x"] != stated:
            raise ctx.fail(f"the published distribution's top bucket is {last['from']:g}x to {last['to']:g}x under a "
                           f"maximum win of {summary['max_win_x']}x, the tally's cap {Fraction(acc.cap_units, acc.unit)}x; "
                           f"the stated maximum is {stated}x", build, "paid", ctx.seeds[0])
        if last["count"] != at_cap:
            raise ctx.fail(f"the distribution's top bucket ({stated}x) counts {last['count']} rounds; "
                           f"{at_cap} of the kernel's {len(wins):,} rounds won the cap", build, "paid", ctx.seeds[0])
