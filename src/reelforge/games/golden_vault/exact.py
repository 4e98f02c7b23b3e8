"""Golden Vault exactly: the paid spin's 15 independent cells convolved by what they show (gems pay by
count anywhere; the coins' number decides the feature, their values are what it starts with), composed
with Hold and Respin as its Markov chain over (coins held, respins left)."""

from fractions import Fraction
from math import lcm
from typing import Any

from flint import fmpz_poly

from reelforge.game.exact import figures_of
from reelforge.game.results import ExactFigures
from reelforge.mechanics.enumeration import anywhere_cells
from reelforge.mechanics.exact_features import hold_and_respin_ends, hold_and_respin_feature, poly, round_distribution

from .build import GEMS, UNIT

CELLS = 15


def _by_value(values: list[int], weights: list[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for v, w in zip(values, weights, strict=True):
        out[v] = out.get(v, 0) + w
    return out


def exact_distribution(b, cap: int) -> ExactFigures:
    """The build's exact figures, the round capped at ``cap`` win units."""
    base_coins = _by_value(b.coin_values, b.base["coins"])
    coin_weight = sum(base_coins.values())
    spin = anywhere_cells(CELLS, {"blank": b.base["blank"], **b.base["gems"], "coin": coin_weight},
                          {g: b.pays[g] for g in GEMS}, 5, "coin")
    paid: dict[int, dict[int, int]] = {}
    for (win, coins), w in spin.items():
        paid.setdefault(coins, {})[win] = paid.setdefault(coins, {}).get(win, 0) + w
    respin = hold_and_respin_feature(CELLS, b.respins, b.respin["blank"], _by_value(b.coin_values, b.respin["coins"]),
                                     b.grand_x * UNIT, cap)
    start = poly(base_coins)
    # what the feature pays from n coins: their values (each a base coin) plus what lands, as probabilities
    features = {n: (start ** n) * respin[n] / coin_weight ** n for n in paid if n >= b.trigger}
    scale = lcm(*(int(f.denom()) for f in features.values()))
    dist = round_distribution({n: poly(w) for n, w in paid.items()},
                              {n: fmpz_poly((f * scale).numer()) for n, f in features.items()}, scale, 1, cap)
    return figures_of(dist, UNIT, ("paid_spins", "hold_and_respin"))


def coins_by_value(b) -> dict[str, Any]:
    """Hold and Respin split by coin value, exactly: per paid round, the expected coins of each value a feature
    pays (held from the paid spin and landed in respins) and the chance of a full board (the Grand); the chance,
    per feature, that it ends holding each number of coins.

    A coin's value never changes what happens next (only coin or blank does), so each coin's value is an
    independent draw by its weights: the expected coins of a value are the expected coins held (and landed)
    times that value's share of the paid-spin (respin) coin weights. The count of coins follows the chain over
    (coins held, respins left) of :func:`reelforge.mechanics.exact_features.hold_and_respin_ends`."""
    coin_weight = sum(b.base["coins"])
    spin = anywhere_cells(CELLS, {"blank": b.base["blank"], **b.base["gems"], "coin": coin_weight},
                          {g: b.pays[g] for g in GEMS}, 5, "coin")
    weight = sum(spin.values())
    start: dict[int, Fraction] = {}  # coins held at the trigger -> probability per paid round
    for (_, coins), w in spin.items():
        if coins >= b.trigger:
            start[coins] = start.get(coins, Fraction(0)) + Fraction(w, weight)
    ends = hold_and_respin_ends(CELLS, b.respins, b.respin["blank"], sum(b.respin["coins"]))
    trigger = sum(start.values(), Fraction(0))
    final: dict[int, Fraction] = {}
    for held, q in start.items():
        for n, r in ends[held].items():
            final[n] = final.get(n, Fraction(0)) + q * r
    held_coins = sum((n * q for n, q in start.items()), Fraction(0))
    landed = sum((n * q for n, q in final.items()), Fraction(0)) - held_coins
    base_share = {v: Fraction(w, coin_weight) for v, w in _by_value(b.coin_values, b.base["coins"]).items()}
    respin_total = sum(b.respin["coins"])
    respin_share = {v: Fraction(w, respin_total) for v, w in _by_value(b.coin_values, b.respin["coins"]).items()}
    per_value = {v: (held_coins * base_share.get(v, Fraction(0)), landed * respin_share.get(v, Fraction(0)))
                 for v in sorted(set(b.coin_values))}
    return {"trigger": trigger, "per_value": per_value, "full_board": final.get(CELLS, Fraction(0)),
            "final_coins": {n: q / trigger for n, q in sorted(final.items())}}
