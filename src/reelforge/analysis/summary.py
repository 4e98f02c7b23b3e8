"""The Game Rules Summary: every statistic GAMES.md asks of a build, as one dict.

Two sources: the exact mathematics where a game has it (``method: exact``),
or a simulation's :class:`~reelforge.core.stats.Accumulator` (``method: simulation``).
The dict is the ``--json`` contract of ``reelforge summary`` / ``simulate``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from reelforge.core.stats import (
    BUCKET_EDGES_X,
    N_BUCKETS,
    Accumulator,
    bucket_index,
    buckets,
    clopper_pearson,
    never_observed_upper99,
    volatility_level,
    volatility_levels,
    wilson_ci,
)
from reelforge.game.contract import Build, Game
from reelforge.game.results import MaxWin, StratifiedEstimate, jsonable


def one_in_ci99(ci: list[float] | tuple[float, float] | None) -> list[float | None] | None:
    """The "1 in N" interval of a rate interval ``[lo, hi]`` (``[1/hi, 1/lo]``; None for an open end)."""
    if not ci:
        return None
    lo, hi = ci
    return [1 / hi if hi else None, 1 / lo if lo else None]


def max_win_statement(count: int, n: int, cap_x: int, mode: str = "paid") -> str:
    """The max-win probability in words, with its count and sample (rounds, or purchases in ``buy`` mode)."""
    what = "bought features" if mode == "buy" else "rounds"
    if count == 0:
        return (f"{cap_x:,}x not observed in {n:,} {what}, below -ln(0.01)/N = {never_observed_upper99(n):.3g} "
                f"at 99% (one-sided upper bound)")
    lo, hi = clopper_pearson(count, n)
    times = "once" if count == 1 else f"{count:,} times"
    return (f"{cap_x:,}x observed {times} in {n:,} {what}: {count / n:.3g} (1 in {n / count:,.0f}), "
            f"99% exact binomial interval [{lo:.3g}, {hi:.3g}]")


def _identity(game: Game, build: Build, method: str, mode: str, max_win: MaxWin | None = None) -> dict[str, Any]:
    """The summary's identity fields, with the maximum win as derived (``max_win``: how it is known, see
    :meth:`reelforge.game.contract.Game.max_win`; the published one unless given)."""
    stakes = game.reference_stakes
    cap = game.cap_x(build)
    found = max_win or game.published_max_win(build)
    return {
        "game": game.id, "title": game.title, "game_id": game.reference_id,
        "published_id": game.published_id, "feature_name": game.feature_name, "version": game.version,
        "build": build.name, "build_version": build.identity.version, "build_hash": build.identity.content_hash,
        "mode": mode, "method": method,
        "reference_stakes": list(stakes),
        "max_win_x": cap, "max_win_source": game.max_win_source,
        "max_win": found.to_json(), "max_win_words": found.words(),
        "max_exposure": cap * stakes[1],
    }


def exact_summary(game: Game, build: Build) -> dict[str, Any]:
    """Summary from the game's exact mathematics (games declaring ``capabilities.exact``)."""
    if not game.capabilities.exact:
        raise ValueError(f"{game.id} has no exact mathematics; use a simulation")
    ex = game.exact(build)
    sd = math.sqrt(float(ex.variance))
    cap = Fraction(game.cap_x(build))
    probs = [Fraction(0)] * N_BUCKETS
    for win, p in ex.outcomes.items():
        probs[bucket_index(win, BUCKET_EDGES_X, cap)] += p
    out = _identity(game, build, "exact", "paid", game.max_win(build, ex))
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
            {"bucket": label, "from": lo, "to": hi, "probability": float(probs[i]), "probability_exact": str(probs[i])}
            for i, label, lo, hi in buckets(cap)
        ],
        "extra": jsonable(ex.extra, float),
        # the same figures as exact rationals, every digit (strings "p/q"), e.g. each ladder runner's end probability
        "extra_exact": jsonable(ex.extra),
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
    triggers = acc.counter(game.feature_counter) if game.feature_counter in acc.counter_names else None
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
        "max_win_probability_upper_99": never_observed_upper99(n) if n and cap_count == 0 else None,
        "max_win_one_in": (n / cap_count) if cap_count else None,
        "max_win_statement": max_win_statement(cap_count, n, game.cap_x(build), mode) if n else None,
        "distribution": [
            {"bucket": d["bucket"], "from": d["from"], "to": d["to"], "probability": d["probability"],
             "count": d["count"], "ci99": list(clopper_pearson(d["count"], n)) if n else None}
            for d in acc.distribution()
        ],
    })
    if n and cap_count == 0:  # the cap never observed: its one interval is the one-sided 99% bound, everywhere
        bound = [0.0, never_observed_upper99(n)]
        out["max_win_probability_ci99"] = bound
        for d in out["distribution"]:
            if d["from"] == d["to"] == cap_units / acc.unit:
                d["ci99"] = bound
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
    acc = simulate(game, build, rounds, seed + 1, workers, "buy").accumulator
    s["feature_buy"] = {"price_x": str(game.feature_buy_price_x(build)), "rtp": acc.rtp,
                        "rtp_ci99": list(acc.rtp_ci99()), "features": acc.rounds, "seed": seed + 1}


def stratified_summary(game: Game, build: Build, rounds: int, seed: int) -> dict[str, Any]:
    """Summary from the game's stratified estimate (games declaring ``capabilities.stratified``)."""
    if not game.capabilities.stratified:
        raise ValueError(f"{game.id} has no stratified estimate; use a plain simulation")
    return stratified_summary_of(game, build, game.stratified(build, rounds, seed), seed)


def stratified_summary_of(game: Game, build: Build, est: StratifiedEstimate, seed: int | None) -> dict[str, Any]:
    """The summary of a stratified estimate already made (``seed``: the one the sample was drawn from)."""
    out = _identity(game, build, "stratified", "paid")
    figures = est.to_json()
    extra = figures.pop("extra")
    lo, hi = est.rtp_ci99
    out.update(figures)
    out.update({
        "seed": seed, "distribution": [],
        "sample": {"kind": "stratified", "rounds": est.rounds, "seed": seed,
                   "description": f"stratified estimate: {est.rounds:,} paid spins + {est.feature_rounds:,} "
                                  f"features simulated apart" + ("" if seed is None else f" (seed {seed})")},
        "rtp_ci99_half_width_pp": (hi - lo) / 2 * 100,
        "house_edge": 1 - est.rtp, "house_edge_ci99": [1 - hi, 1 - lo],
        "volatility_level": volatility_level(est.sd),
        "feature_frequency_one_in": 1 / est.feature_rate if est.feature_rate else None,
        "feature_frequency_one_in_ci99": one_in_ci99(est.feature_rate_ci99),
        "extra": extra,
    })
    if extra.get("cap_probability_ci99") is not None:  # the estimator's interval, beside the figure
        out["max_win_probability_ci99"] = extra["cap_probability_ci99"]
    return out
