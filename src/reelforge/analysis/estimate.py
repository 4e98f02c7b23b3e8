"""Which estimator a summary uses, and the simulated figures of a run.

The policy of ``reelforge summary`` (and of the reports made from it), in order:

1. ``stratified`` requested: the game's stratified estimate (paid rounds only), of ``rounds`` paid
   spins (default 10^8), or grown until the 99% half-width meets ``precision_pp``;
2. no rounds, no precision, paid rounds and a game with exact mathematics (and ``plain`` not asked):
   the exact figures;
3. a precision target on paid rounds of a game with a stratified estimator, run locally with no
   report: a stratified pilot prices both estimators (:func:`choose_estimator`:
   the stratified run's time from the pilot's half-width, the plain run's from the round SD and the
   kernel's measured rate x workers) and the one predicted sooner runs; a report needs the plain
   simulation's distribution and convergence, and a cluster runs plain simulations only;
4. otherwise a plain simulation (``rounds``, default 10^7, or until ``precision_pp``).

Every simulated or stratified summary says which was used and why under ``estimator``. The command
line's flags appear in the reasons and errors by name (``--stratified``, ``--out``, ...): they are
what the user typed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np

from reelforge.analysis.simulate import BACKENDS, SimulationResult, default_workers, new_seed, simulate
from reelforge.analysis.summary import stratified_summary
from reelforge.core.stats import Z99
from reelforge.game.contract import Build, Game

PLAIN_ROUNDS = 10_000_000
"""Rounds of a plain simulated summary when neither rounds nor a precision is given."""
STRATIFIED_ROUNDS = 100_000_000
"""Paid spins of a stratified summary when neither rounds nor a precision is given."""
STRATIFIED_SEED = 2026
"""Seed of a stratified summary when none is given (reproducible by default)."""

ProgressFactory = Callable[[int | None], AbstractContextManager]
"""``factory(total_rounds)``: a context manager yielding a progress callback (or None)."""


# -- pricing a precision target ------------------------------------------------------------------------
GROWTH_MARGIN = 1.15
"""Rounds are sized 15% above the 1/sqrt(n) prediction so one run usually lands inside the target."""
MAX_GROWTH_RUNS = 5


def _half_width_pp(s: dict[str, Any]) -> float:
    lo, hi = s["rtp_ci99"]
    return (hi - lo) / 2 * 100


def plain_rounds_per_second(game: Game, build: Build, seconds: float = 0.3) -> float:
    """The plain kernel's rounds/s on one core, from a short timed run (after loading the kernel)."""
    game.simulate_chunk(build, 1000, np.random.SeedSequence(1))
    n, spent, t0 = 4096, 0, time.perf_counter()
    while True:
        game.simulate_chunk(build, n, np.random.SeedSequence(n))
        spent += n
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return spent / dt
        n *= 2


def stratified_to_precision(game: Game, build: Build, precision_pp: float, seed: int, rounds: int,
                            max_rounds: int | None = None,
                            first: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Stratified estimates of growing size until the 99% RTP half-width is at most ``precision_pp``.

    Starts at ``rounds`` paid spins (or from ``first``, an estimate already made at ``rounds``);
    each next size is the last one times (half-width / target)^2 with a margin, as the interval
    shrinks like 1/sqrt(n) (the feature stratum grows with the paid one). Stops at
    ``max_rounds`` paid spins or after :data:`MAX_GROWTH_RUNS` runs. Returns the last estimate
    and the runs made ``[{"rounds", "half_width_pp", "seconds"}]``."""
    runs: list[dict[str, Any]] = []
    s = first
    n = rounds
    while True:
        if s is None:
            t0 = time.perf_counter()
            s = stratified_summary(game, build, n, seed)
            runs.append({"rounds": n, "half_width_pp": float(_half_width_pp(s)), "seconds": time.perf_counter() - t0})
        h = _half_width_pp(s)
        if h <= precision_pp or len(runs) >= MAX_GROWTH_RUNS or (max_rounds is not None and n >= max_rounds):
            return s, runs
        grow = max((h / precision_pp) ** 2 * GROWTH_MARGIN, 1.25)
        n = int(math.ceil(n * grow))
        if max_rounds is not None:
            n = min(n, max_rounds)
        s = None


def choose_estimator(game: Game, build: Build, precision_pp: float, seed: int, workers: int,
                     pilot_rounds: int | None = None) -> dict[str, Any]:
    """Which estimator reaches a 99% RTP half-width of ``precision_pp`` sooner (wall time).

    A stratified pilot of ``pilot_rounds`` paid spins (default: the game's
    :attr:`~reelforge.game.contract.Game.stratified_pilot_rounds`) gives its half-width h and time t; the
    stratified run needs about ``pilot_rounds (h/P)^2`` paid spins, so about ``t (h/P)^2``
    seconds (the pilot's fixed costs, such as exact board probabilities, and, where the pilot is
    a single chunk, its serial run while larger stratified runs spread their chunks over the
    cores, make this an overestimate: the choice leans to the plain simulation).
    The plain simulation needs ``(z99 sd / P)^2`` rounds, with the round SD from the pilot
    (a short plain run misses the rare big feature wins that make up most of the SD), at the
    kernel's measured rate times ``workers``.
    Returns ``{"used", "reason", "pilot", "predicted_seconds", "pilot_summary"}``;
    ``pilot_summary`` is the pilot's own estimate (reusable when it already meets the target)."""
    pilot_rounds = pilot_rounds or game.stratified_pilot_rounds
    t0 = time.perf_counter()
    pilot = stratified_summary(game, build, pilot_rounds, seed)
    t_pilot = time.perf_counter() - t0
    h = float(_half_width_pp(pilot))
    strat_rounds = pilot_rounds if h <= precision_pp else int(math.ceil(pilot_rounds * (h / precision_pp) ** 2))
    t_strat = 0.0 if h <= precision_pp else t_pilot * strat_rounds / pilot_rounds
    sd = pilot["sd"]
    plain_rounds = int(math.ceil((Z99 * sd * 100 / precision_pp) ** 2))
    rate = plain_rounds_per_second(game, build)
    t_plain = plain_rounds / (rate * workers)
    used = "stratified" if t_strat <= t_plain else "plain"
    sd_note = " (a lower bound of the round SD, so the plain figure is optimistic)" if pilot.get("sd_is_lower_bound") \
        else ""
    if h <= precision_pp:
        why = (f"the stratified pilot ({pilot_rounds:,} paid spins, {t_pilot:.1f} s) already has a 99% half-width "
               f"of {h:.4f} pp <= {precision_pp} pp; a plain simulation would need about {plain_rounds:,} rounds "
               f"(~{t_plain:,.0f} s on {workers} worker(s))")
    else:
        why = (f"predicted time to a 99% half-width of {precision_pp} pp: stratified ~{t_strat:,.1f} s "
               f"(~{strat_rounds:,} paid spins; pilot {pilot_rounds:,} paid spins gave {h:.4f} pp in {t_pilot:.1f} s) "
               f"vs plain ~{t_plain:,.1f} s (~{plain_rounds:,} rounds at {rate:,.0f} rounds/s/core x {workers} "
               f"worker(s), round SD {sd:.3f}x bet from the pilot{sd_note})")
    return {
        "used": used,
        "reason": f"{used} is predicted sooner: {why}",
        "requested_precision_pp": precision_pp,
        "predicted_seconds": {"stratified": t_strat, "plain": t_plain},
        "pilot": {"paid_spins": pilot_rounds, "seconds": t_pilot, "rtp_ci99_half_width_pp": h,
                  "round_sd_x": sd, "stratified_paid_spins_needed": strat_rounds,
                  "plain_rounds_needed": plain_rounds, "plain_rounds_per_second_per_core": rate,
                  "workers": workers},
        "pilot_summary": pilot,
    }


# -- the policy -------------------------------------------------------------------------------------
class EstimateError(ValueError):
    """A request the policy refuses (conflicting choices, an estimator the game lacks, no cluster)."""


@dataclass(frozen=True)
class SummaryRequest:
    """What the user asked of a summary."""

    rounds: int | None = None
    precision_pp: float | None = None
    seed: int | None = None
    workers: int | None = None
    mode: str = "paid"
    stratified: bool = False
    plain: bool = False
    report: bool = False
    backend: str = "local"
    address: str | None = None


@dataclass
class Estimate:
    """A summary with what a report needs beside it."""

    summary: dict[str, Any]
    checkpoints: list | None = None
    """The plain simulation's RTP after each chunk (None for exact and stratified summaries)."""
    seed: int | None = None
    """The seed the run was asked with (or drew, when the estimator choice needed one)."""


def check_request(game: Game, request: SummaryRequest) -> None:
    """Refuse combinations that cannot be honoured, before anything runs."""
    if request.stratified and request.plain:
        raise EstimateError("--stratified and --plain exclude each other: pick one estimator (or neither, to let "
                            "--precision choose)")
    if request.stratified:
        if request.mode != "paid":
            raise EstimateError(f"--stratified estimates paid rounds; it has no --mode {request.mode}")
        if request.report:
            raise EstimateError("--stratified gives no win distribution or RTP convergence for a report; drop --out "
                                "or --stratified")
        if request.backend != "local" or request.address is not None:
            raise EstimateError("--stratified runs in this process; --backend and --address are for plain "
                                "simulations")
        if not game.capabilities.stratified:
            raise EstimateError(f"{game.id} has no stratified estimate; use a plain simulation (drop --stratified)")


def simulated_summary(game: Game, build: Build, rounds: int | None, seed: int | None, workers: int | None,
                      mode: str = "paid", precision_pp: float | None = None, backend: str = "local",
                      address: str | None = None,
                      progress: ProgressFactory | None = None) -> tuple[dict[str, Any], SimulationResult]:
    """A plain simulation's summary, with its workers, back end, rate and, where the game has exact
    mathematics, whether the exact RTP lies inside the simulated interval."""
    from reelforge.analysis.summary import simulation_summary

    if backend not in BACKENDS:
        raise EstimateError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise EstimateError("--address needs --backend ray")
    with (progress or (lambda _: nullcontext(None)))(rounds) as update:
        try:
            res = simulate(game, build, rounds=rounds, seed=seed, workers=workers, mode=mode,
                           progress=update, precision_pp=precision_pp, backend=backend, address=address)
        except ConnectionError as exc:
            raise EstimateError(f"cannot reach the Ray cluster: {exc}") from exc
    s = simulation_summary(game, build, res.accumulator, mode, res.seed, res.seconds, res.interrupted)
    s.update({"workers": res.workers, "backend": res.backend, "precision_pp": res.precision_pp,
              "rounds_per_second": res.accumulator.rounds / res.seconds if res.seconds else None})
    if mode == "paid" and game.capabilities.exact:
        rtp = game.exact(build).rtp
        lo, hi = s["rtp_ci99"]
        s["exact_rtp"] = float(rtp)
        s["exact_rtp_inside_ci99"] = bool(lo <= rtp <= hi)
    return s, res


def _stratified(game: Game, build: Build, request: SummaryRequest) -> dict[str, Any]:
    n, p = request.rounds, request.precision_pp
    seed = STRATIFIED_SEED if request.seed is None else request.seed
    try:
        if p is None:
            s = stratified_summary(game, build, n or STRATIFIED_ROUNDS, seed)
            s["estimator"] = {"used": "stratified", "reason": "requested with --stratified"}
            return s
        start = min(game.stratified_pilot_rounds, n) if n else game.stratified_pilot_rounds
        s, runs = stratified_to_precision(game, build, p, seed, start, max_rounds=n)
    except ValueError as exc:
        raise EstimateError(str(exc)) from exc
    s["estimator"] = {"used": "stratified", "reason": "requested with --stratified; paid spins grown until "
                      "the 99% half-width met --precision", "requested_precision_pp": p,
                      "precision_reached": bool(s["rtp_ci99_half_width_pp"] <= p), "runs": runs}
    return s


def _choice_without_pilot(game: Game, request: SummaryRequest) -> dict[str, Any] | None:
    """The plain estimator's reason where the pilot cannot run; None where it should."""
    if request.report:
        return {"used": "plain", "reason": "the report (--out) needs the full-round simulation's win "
                "distribution, RTP convergence and feature counters, which the stratified estimate lacks"}
    if request.backend != "local":
        return {"used": "plain", "reason": f"--backend {request.backend}: the cluster runs the plain simulation "
                "(the stratified estimate runs in this process)"}
    return None


def _plain_reason(game: Game, request: SummaryRequest) -> str:
    if request.plain:
        return "requested with --plain"
    if request.precision_pp is None:
        return "no --precision: a plain simulation of the requested rounds"
    if request.mode == "paid" and not game.capabilities.stratified:
        return "the game has no stratified estimator"
    return f"--mode {request.mode}: the stratified estimate covers paid rounds only"


def estimate(game: Game, build: Build, request: SummaryRequest, progress: ProgressFactory | None = None) -> Estimate:
    """The summary the policy of the module docstring gives for ``request``."""
    from reelforge.analysis.summary import add_feature_buy, exact_summary

    check_request(game, request)
    if request.stratified:
        return Estimate(_stratified(game, build, request), seed=request.seed)
    n, p, seed, mode = request.rounds, request.precision_pp, request.seed, request.mode
    if n is None and p is None and mode == "paid" and game.capabilities.exact and not request.plain:
        return Estimate(exact_summary(game, build), seed=seed)
    choice: dict[str, Any] | None = None
    if p is not None and not request.plain and mode == "paid" and game.capabilities.stratified:
        choice = _choice_without_pilot(game, request)
        if choice is None:
            seed = new_seed() if seed is None else seed
            choice = choose_estimator(game, build, p, seed, request.workers or default_workers(),
                                      min(game.stratified_pilot_rounds, n) if n else None)
            pilot = choice.pop("pilot_summary")
            if choice["used"] == "stratified":
                spins = choice["pilot"]["paid_spins"]
                s, runs = stratified_to_precision(game, build, p, seed, spins, max_rounds=n, first=pilot)
                choice["runs"] = [{"rounds": spins, "half_width_pp": choice["pilot"]["rtp_ci99_half_width_pp"],
                                   "seconds": choice["pilot"]["seconds"]}, *runs]
                choice["precision_reached"] = bool(s["rtp_ci99_half_width_pp"] <= p)
                s["estimator"] = choice
                return Estimate(s, seed=seed)
    s, res = simulated_summary(game, build, n if (n or p) else PLAIN_ROUNDS, seed, request.workers, mode, p,
                               request.backend, request.address, progress)
    if request.backend == "local":
        add_feature_buy(game, build, s, s["seed"], request.workers)  # the split's Feature Buy part, where there is one
    if choice is None:
        choice = {"used": "plain", "reason": _plain_reason(game, request)}
    if p is not None:
        choice["requested_precision_pp"] = p
        choice["precision_reached"] = bool(s["rtp_ci99_half_width_pp"] <= p)
    s["estimator"] = choice
    return Estimate(s, res.checkpoints, seed)
