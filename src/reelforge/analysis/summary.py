"""The Game Rules Summary: every statistic GAMES.md asks of a build, as one dict.

Two sources: the exact mathematics where a game has it (``method: exact``),
or a simulation's :class:`~reelforge.stats.Accumulator` (``method: simulation``).
The dict is the ``--json`` contract of ``reelforge summary`` / ``simulate``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from reelforge.game import Game
from reelforge.stats import (
    BUCKET_EDGES_X,
    BUCKET_LABELS,
    N_BUCKETS,
    Accumulator,
    volatility_level,
    wilson_ci,
)

REFERENCE_MAX_STAKE = 100
REFERENCE_MIN_STAKE = 0.10


def _identity(game: Game, build: Any, method: str, mode: str) -> dict[str, Any]:
    stakes = getattr(game, "reference_stakes", (REFERENCE_MIN_STAKE, REFERENCE_MAX_STAKE))
    return {
        "game": game.id, "title": game.title, "game_id": game.reference_id, "version": game.version,
        "build": build.name, "mode": mode, "method": method,
        "reference_stakes": list(stakes),
        "max_win_x": game.max_win_x,
        "max_exposure": game.max_win_x * stakes[1],
    }


def _bucket_index(win: Fraction, cap: Fraction) -> int:
    if win == 0:
        return 0
    if win >= cap:
        return N_BUCKETS - 1
    return 1 + sum(1 for e in BUCKET_EDGES_X if win >= e)


def _bucket_bounds(cap: float) -> list[tuple[float, float]]:
    inner = [0.0, *map(float, BUCKET_EDGES_X), cap]
    return [(0.0, 0.0)] + [(inner[i], inner[i + 1]) for i in range(len(inner) - 1)] + [(cap, cap)]


def exact_summary(game: Game, build: Any) -> dict[str, Any]:
    """Summary from the game's exact mathematics (raises if the game has none)."""
    ex = game.exact(build)
    if ex is None:
        raise ValueError(f"{game.id} has no exact mathematics; use a simulation")
    rtp: Fraction = ex["rtp"]
    sd = math.sqrt(float(ex["variance"]))
    cap = Fraction(game.max_win_x)
    probs = [Fraction(0)] * N_BUCKETS
    for win, p in ex["outcomes"].items():
        probs[_bucket_index(win, cap)] += p
    out = _identity(game, build, "exact", "paid")
    out.update({
        "rounds": None,
        "rtp": float(rtp), "rtp_exact": str(rtp), "rtp_ci99": [float(rtp), float(rtp)],
        "house_edge": float(1 - rtp),
        "rtp_split": {k: float(v) for k, v in ex["rtp_split"].items()},
        "hit_rate": float(ex["hit_rate"]), "hit_rate_exact": str(ex["hit_rate"]),
        "feature_rate": float(ex["feature_rate"]), "feature_rate_exact": str(ex["feature_rate"]),
        "feature_frequency_one_in": float(1 / ex["feature_rate"]) if ex["feature_rate"] else None,
        "sd": sd, "volatility_level": volatility_level(sd),
        "max_win_probability": float(ex["max_win_probability"]),
        "max_win_probability_exact": str(ex["max_win_probability"]),
        "max_win_one_in": float(1 / ex["max_win_probability"]) if ex["max_win_probability"] else None,
        "distribution": [
            {"bucket": label, "from": lo, "to": hi, "probability": float(p), "probability_exact": str(p)}
            for label, (lo, hi), p in zip(BUCKET_LABELS, _bucket_bounds(float(cap)), probs)
        ],
    })
    out.update(ex.get("extra", {}))
    return out


def simulation_summary(game: Game, build: Any, acc: Accumulator, mode: str = "paid",
                       seed: int | None = None, seconds: float | None = None,
                       interrupted: bool = False) -> dict[str, Any]:
    """Summary from simulated rounds, every estimate with its 99% interval."""
    lo, hi = acc.rtp_ci99()
    sd = acc.sd
    out = _identity(game, build, "simulation", mode)
    triggers = acc.counter("triggers") if "triggers" in acc.counter_names else None
    cap_units = acc.cap_units
    max_prob = (acc.max_count / acc.rounds) if acc.max_win >= cap_units and acc.rounds else 0.0
    out.update({
        "rounds": acc.rounds, "seed": seed, "seconds": seconds, "interrupted": interrupted,
        "stake_x": acc.stake_units / acc.unit,
        "rtp": acc.rtp, "rtp_ci99": [lo, hi], "rtp_ci99_half_width_pp": (hi - lo) / 2 * 100,
        "house_edge": 1 - acc.rtp,
        "rtp_split": acc.component_rtp(),
        "hit_rate": acc.hit_rate, "hit_rate_ci99": list(wilson_ci(acc.hits, acc.rounds)),
        "feature_rate": (triggers / acc.rounds) if triggers is not None and acc.rounds else None,
        "feature_rate_ci99": list(wilson_ci(triggers, acc.rounds)) if triggers is not None else None,
        "feature_frequency_one_in": (acc.rounds / triggers) if triggers else None,
        "sd": sd, "volatility_level": volatility_level(sd) if not math.isnan(sd) else None,
        "max_win_observed_x": acc.max_win / acc.unit, "max_win_observed_count": acc.max_count,
        "max_win_probability": max_prob,
        "max_win_count": acc.max_count if acc.max_win >= cap_units else 0,
        "distribution": [
            {"bucket": d["bucket"], "from": d["from"], "to": d["to"], "probability": d["probability"],
             "count": d["count"]} for d in acc.distribution()
        ],
    })
    out.update(game.extra_summary(build, acc))
    return out


def stratified_summary(game: Game, build: Any, rounds: int, seed: int) -> dict[str, Any]:
    """Summary from the game's stratified estimate (see :meth:`Game.stratified`)."""
    est = game.stratified(build, rounds, seed)
    if est is None:
        raise ValueError(f"{game.id} has no stratified estimate; use a plain simulation")
    out = _identity(game, build, "stratified", "paid")
    out.update({"seed": seed, "distribution": [], "house_edge": 1 - est["rtp"]})
    out.update(est)
    lo, hi = est["rtp_ci99"]
    out["rtp_ci99_half_width_pp"] = (hi - lo) / 2 * 100
    out["volatility_level"] = volatility_level(est["sd"])
    rate = est.get("feature_rate")
    out["feature_frequency_one_in"] = 1 / rate if rate else None
    return out
