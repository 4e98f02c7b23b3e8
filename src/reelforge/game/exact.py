"""Exact figures of enumerable games: the one entry point (:func:`exact_figures`) and the figures of a
round's exact win distribution (:func:`figures_of`).

A game declares it is enumerable with ``capabilities.exact`` and implements :meth:`Game.exact`, most
games through the generic evaluator: every outcome of a spin counted
(:mod:`reelforge.mechanics.enumeration`), composed with the feature's Markov chain
(:mod:`reelforge.mechanics.exact_features`); :func:`figures_of` turns the resulting distribution into
:class:`ExactFigures`. Every figure is a Fraction; none comes from a sample.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from reelforge.game.contract import Build, Game
from reelforge.game.results import ExactFigures
from reelforge.mechanics.exact_features import WinDistribution

VOLATILITY_INDEX_Z = 1.645
"""The volatility index is this many SDs of a round's win (the usual 90% confidence convention)."""


class NotEnumerable(ValueError):
    """The game has no exact mathematics (it is not enumerable): the message says so in one line."""


def figures_of(dist: WinDistribution, unit: int, split: tuple[str, str] = ("paid_spins", "feature"),
               extra: dict[str, Any] | None = None) -> ExactFigures:
    """The exact figures of a paid round (stake 1 bet) whose win has distribution ``dist`` in win units
    (``unit`` per bet): the RTP split into the paid spin and what the feature adds."""
    total = dist.total
    first = second = 0
    for w, v in dist.weights.items():
        first += w * v
        second += w * w * v
    rtp = Fraction(first, total * unit)
    paid = Fraction(dist.paid_mean_units[0], dist.paid_mean_units[1] * unit)
    top = max(dist.weights)
    return ExactFigures(
        rtp=rtp, rtp_split={split[0]: paid, split[1]: rtp - paid},
        hit_rate=1 - Fraction(dist.weights.get(0, 0), total), feature_rate=Fraction(dist.feature_weight, total),
        variance=Fraction(second, total * unit * unit) - rtp * rtp,
        # the largest reachable win: an int where it is a whole multiple of the bet (as every cap is)
        max_win_x=top // unit if top % unit == 0 else Fraction(top, unit),  # type: ignore[arg-type]
        max_win_probability=Fraction(dist.weights[top], total),
        outcomes={Fraction(w, unit): Fraction(v, total) for w, v in sorted(dist.weights.items())},
        extra=dict(extra or {}))


_CACHE: dict[tuple[str, str, str], ExactFigures] = {}


def once_per_build(exact: Callable[[Any, Any], ExactFigures]) -> Callable[[Any, Any], ExactFigures]:
    """A game's :meth:`Game.exact` computed once per build content in a process (an enumeration takes
    seconds; the summary, the reports, the help and the checks all ask for it)."""
    @functools.wraps(exact)
    def cached(game: Any, build: Any) -> ExactFigures:
        ident = build.identity
        key = (game.id, ident.name, ident.content_hash)
        if key not in _CACHE:
            _CACHE[key] = exact(game, build)
        return _CACHE[key]
    return cached


def exact_figures(game: Game, build: Build) -> ExactFigures:
    """The build's exact figures (RTP and its split, hit rate, feature frequency, variance, the largest
    reachable win and its probability, every outcome); raises :class:`NotEnumerable` for a game that is
    not enumerable (one that does not declare ``capabilities.exact``)."""
    if not game.capabilities.exact:
        raise NotEnumerable(f"{game.id} is not enumerable: it has no exact mathematics (its figures are simulated; "
                            f"see `reelforge summary {game.id}`)")
    return game.exact(build)


def figures_json(game: Game, build: Build, ex: ExactFigures) -> dict[str, Any]:
    """Every exact figure as ``{"exact": "p/q", "value": float}`` (``reelforge exact --json``), the
    distribution as ``[{"win_x", "probability"}]`` in the same form."""
    sd = math.sqrt(ex.variance)

    def both(v: Fraction) -> dict[str, Any]:
        return {"exact": str(v), "value": float(v)}

    return {
        "game": game.id, "title": game.title, "build": build.name, "build_version": build.identity.version,
        "build_hash": build.identity.content_hash, "method": "exact",
        "rtp": both(ex.rtp), "rtp_percent": f"{float(ex.rtp) * 100:.6f}",
        "rtp_split": {k: both(v) for k, v in ex.rtp_split.items()},
        "hit_rate": both(ex.hit_rate), "feature_name": game.feature_name, "feature_rate": both(ex.feature_rate),
        "feature_frequency_one_in": float(1 / ex.feature_rate) if ex.feature_rate else None,
        "variance": both(ex.variance), "sd": sd, "volatility_index": VOLATILITY_INDEX_Z * sd,
        "volatility_index_z": VOLATILITY_INDEX_Z,
        "max_win_x": both(Fraction(ex.max_win_x)),
        "max_win_probability": both(ex.max_win_probability),
        "max_win_one_in": float(1 / ex.max_win_probability) if ex.max_win_probability else None,
        "outcomes": len(ex.outcomes),
        "distribution": [{"win_x": both(w), "probability": both(p)} for w, p in sorted(ex.outcomes.items())],
    }
