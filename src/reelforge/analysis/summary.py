"""The Game Rules Summary: every statistic GAMES.md asks of a build, as one dict.

Two sources: the exact mathematics where a game has it (``method: exact``),
or a simulation's :class:`~reelforge.stats.Accumulator` (``method: simulation``).
The dict is the ``--json`` contract of ``reelforge summary`` / ``simulate``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from reelforge.game import Build, Game, jsonable
from reelforge.stats import (
    BUCKET_EDGES_X,
    BUCKET_LABELS,
    N_BUCKETS,
    Z99,
    Accumulator,
    bucket_bounds,
    bucket_index,
    clopper_pearson,
    rule_of_three,
    volatility_level,
    volatility_levels,
    wilson_ci,
)


def one_in_ci99(ci: list[float] | tuple[float, float] | None) -> list[float | None] | None:
    """The "1 in N" interval of a rate interval ``[lo, hi]`` (``[1/hi, 1/lo]``; None for an open end)."""
    if not ci:
        return None
    lo, hi = ci
    return [1 / hi if hi else None, 1 / lo if lo else None]


def max_win_statement(count: int, n: int, cap_x: int) -> str:
    """The max-win probability in words, with its count and sample."""
    if count == 0:
        return (f"{cap_x:,}x not observed in {n:,} rounds, below 3/N = {rule_of_three(n):.3g} at 95% "
                f"(rule of three)")
    lo, hi = clopper_pearson(count, n)
    return (f"{cap_x:,}x observed {count:,} times in {n:,} rounds: {count / n:.3g} (1 in {n / count:,.0f}), "
            f"99% exact binomial interval [{lo:.3g}, {hi:.3g}]")


def _identity(game: Game, build: Build, method: str, mode: str) -> dict[str, Any]:
    stakes = game.reference_stakes
    return {
        "game": game.id, "title": game.title, "game_id": game.reference_id,
        "published_id": game.published_id, "feature_name": game.feature_name, "version": game.version,
        "build": build.name, "mode": mode, "method": method,
        "reference_stakes": list(stakes),
        "max_win_x": game.max_win_x,
        "max_exposure": game.max_win_x * stakes[1],
    }


def exact_summary(game: Game, build: Build) -> dict[str, Any]:
    """Summary from the game's exact mathematics (games declaring ``capabilities.exact``)."""
    if not game.capabilities.exact:
        raise ValueError(f"{game.id} has no exact mathematics; use a simulation")
    ex = game.exact(build)
    sd = math.sqrt(float(ex.variance))
    cap = Fraction(game.max_win_x)
    probs = [Fraction(0)] * N_BUCKETS
    for win, p in ex.outcomes.items():
        probs[bucket_index(win, BUCKET_EDGES_X, cap)] += p
    out = _identity(game, build, "exact", "paid")
    out.update({
        "rounds": None,
        "sample": {"kind": "exact", "description": "exact rational mathematics: no sample, no interval"},
        # exact figures carry no interval (the key stays for tools that read it)
        "rtp": float(ex.rtp), "rtp_exact": str(ex.rtp), "rtp_ci99": None,
        "house_edge": float(1 - ex.rtp),
        "rtp_split": {k: float(v) for k, v in ex.rtp_split.items()},
        "rtp_split_exact": {k: str(v) for k, v in ex.rtp_split.items()},
        "hit_rate": float(ex.hit_rate), "hit_rate_exact": str(ex.hit_rate),
        "feature_rate": float(ex.feature_rate), "feature_rate_exact": str(ex.feature_rate),
        "feature_frequency_one_in": float(1 / ex.feature_rate) if ex.feature_rate else None,
        "sd": sd, "variance_exact": str(ex.variance), "volatility_level": volatility_level(sd),
        "max_win_probability": float(ex.max_win_probability),
        "max_win_probability_exact": str(ex.max_win_probability),
        "max_win_one_in": float(1 / ex.max_win_probability) if ex.max_win_probability else None,
        "distribution": [
            {"bucket": label, "from": lo, "to": hi, "probability": float(p), "probability_exact": str(p)}
            for label, (lo, hi), p in zip(BUCKET_LABELS, bucket_bounds(cap), probs)
        ],
        "extra": jsonable(ex.extra, float),
    })
    # every figure here is exact, the game's own (under extra) included
    out["exact_figures"] = ["rtp", "rtp_split", "hit_rate", "feature_rate", "sd", "volatility_level",
                            "max_win_probability", "distribution", "extra"]
    return out


def simulation_summary(game: Game, build: Build, acc: Accumulator, mode: str = "paid",
                       seed: int | None = None, seconds: float | None = None,
                       interrupted: bool = False) -> dict[str, Any]:
    """Summary from simulated rounds, every estimate with its 99% interval."""
    lo, hi = acc.rtp_ci99()
    sd = acc.sd
    sd_lo, sd_hi = acc.sd_ci99()
    n = acc.rounds
    out = _identity(game, build, "simulation", mode)
    triggers = acc.counter("triggers") if "triggers" in acc.counter_names else None
    cap_units = acc.cap_units
    cap_count = acc.max_count if acc.max_win >= cap_units else 0
    max_prob = cap_count / n if n else 0.0
    feature_ci = list(wilson_ci(triggers, n)) if triggers is not None else None
    out.update({
        "rounds": n, "seed": seed, "seconds": seconds, "interrupted": interrupted,
        "sample": {"kind": "simulation", "rounds": n, "seed": seed,
                   "description": f"{n:,} simulated rounds (fast kernel, seed {seed})"},
        "stake_x": acc.stake_units / acc.unit,
        "rtp": acc.rtp, "rtp_ci99": [lo, hi], "rtp_ci99_half_width_pp": (hi - lo) / 2 * 100,
        "house_edge": 1 - acc.rtp, "house_edge_ci99": [1 - hi, 1 - lo],
        "rtp_split": acc.component_rtp(),
        "rtp_split_ci99": {k: list(v) for k, v in acc.component_rtp_ci99().items()},
        "hit_rate": acc.hit_rate, "hit_rate_ci99": list(wilson_ci(acc.hits, n)),
        "feature_rate": (triggers / n) if triggers is not None and n else None,
        "feature_rate_ci99": feature_ci,
        "feature_frequency_one_in": (n / triggers) if triggers else None,
        "feature_frequency_one_in_ci99": one_in_ci99(feature_ci),
        "sd": sd, "sd_ci99": [sd_lo, sd_hi], "sd_interval_method": "delta method with the fourth moment",
        "volatility_level": volatility_level(sd) if not math.isnan(sd) else None,
        "volatility_levels_ci99": volatility_levels(sd_lo, sd_hi),
        "max_win_observed_x": acc.max_win / acc.unit, "max_win_observed_count": acc.max_count,
        "max_win_probability": max_prob,
        "max_win_count": cap_count,
        "max_win_probability_ci99": list(clopper_pearson(cap_count, n)) if n else None,
        "max_win_probability_upper_95": rule_of_three(n) if n and cap_count == 0 else None,
        "max_win_one_in": (n / cap_count) if cap_count else None,
        "max_win_statement": max_win_statement(cap_count, n, game.max_win_x) if n else None,
        "distribution": [
            {"bucket": d["bucket"], "from": d["from"], "to": d["to"], "probability": d["probability"],
             "count": d["count"], "ci99": list(clopper_pearson(d["count"], n)) if n else None}
            for d in acc.distribution()
        ],
    })
    out["extra"] = game.extra_summary(build, acc)
    return out


FEATURE_BUY_SHARE = 20
"""A paid-mode summary also simulates Feature Buy rounds: one per this many paid rounds (at least 10,000)."""


def add_feature_buy(game: Game, build: Build, s: dict[str, Any], seed: int, workers: int | None) -> None:
    """A paid-mode summary of a game with Feature Buy also simulates bought rounds (the split's buy part):
    one per :data:`FEATURE_BUY_SHARE` paid rounds, at least 10,000, seed ``seed + 1``."""
    if "buy" not in game.modes or s.get("mode", "paid") != "paid" or s.get("feature_buy"):
        return
    from reelforge.analysis.simulate import simulate

    rounds = max(10_000, (s.get("rounds") or 10_000_000) // FEATURE_BUY_SHARE)
    acc = simulate(game.id, build.name, rounds, seed + 1, workers, "buy").accumulator
    s["feature_buy"] = {"price_x": str(game.feature_buy_price_x(build)), "rtp": acc.rtp,
                        "rtp_ci99": list(acc.rtp_ci99()), "features": acc.rounds, "seed": seed + 1}


def stratified_summary(game: Game, build: Build, rounds: int, seed: int) -> dict[str, Any]:
    """Summary from the game's stratified estimate (games declaring ``capabilities.stratified``)."""
    if not game.capabilities.stratified:
        raise ValueError(f"{game.id} has no stratified estimate; use a plain simulation")
    est = game.stratified(build, rounds, seed)
    out = _identity(game, build, "stratified", "paid")
    figures = est.to_json()
    extra = figures.pop("extra")
    lo, hi = est.rtp_ci99
    out.update(figures)
    out.update({
        "seed": seed, "distribution": [],
        "sample": {"kind": "stratified", "rounds": est.rounds, "seed": seed,
                   "description": f"stratified estimate: {est.rounds:,} paid spins + {est.feature_rounds:,} "
                                  f"features simulated apart (seed {seed})"},
        "rtp_ci99_half_width_pp": (hi - lo) / 2 * 100,
        "house_edge": 1 - est.rtp, "house_edge_ci99": [1 - hi, 1 - lo],
        "volatility_level": volatility_level(est.sd),
        "feature_frequency_one_in": 1 / est.feature_rate if est.feature_rate else None,
        "feature_frequency_one_in_ci99": one_in_ci99(est.feature_rate_ci99),
        "extra": extra,
    })
    return out


GROWTH_MARGIN = 1.15
"""Rounds are sized 15% above the 1/sqrt(n) prediction so one run usually lands inside the target."""
MAX_GROWTH_RUNS = 5


def _half_width_pp(s: dict[str, Any]) -> float:
    lo, hi = s["rtp_ci99"]
    return (hi - lo) / 2 * 100


def plain_rounds_per_second(game: Game, build: Build, seconds: float = 0.3) -> float:
    """The plain kernel's rounds/s on one core, from a short timed run (after loading the kernel)."""
    import time

    import numpy as np

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
    import time

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
    :attr:`~reelforge.game.Game.stratified_pilot_rounds`) gives its half-width h and time t; the
    stratified run needs about ``pilot_rounds (h/P)^2`` paid spins, so about ``t (h/P)^2``
    seconds (the pilot's fixed costs, such as exact board probabilities, and, where the pilot is
    a single chunk, its serial run while larger stratified runs spread their chunks over the
    cores, make this an overestimate: the choice leans to the plain simulation).
    The plain simulation needs ``(z99 sd / P)^2`` rounds, with the round SD from the pilot
    (a short plain run misses the rare big feature wins that make up most of the SD), at the
    kernel's measured rate times ``workers``.
    Returns ``{"used", "reason", "pilot", "predicted_seconds", "pilot_summary"}``;
    ``pilot_summary`` is the pilot's own estimate (reusable when it already meets the target)."""
    import time

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
