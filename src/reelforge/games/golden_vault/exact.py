"""Golden Vault exactly: the paid spin's 15 independent cells convolved by what they show (gems pay by
count anywhere; the coins' number decides the feature, their values are what it starts with), composed
with Hold and Respin as its Markov chain over (coins held, respins left)."""

from math import lcm

from flint import fmpz_poly

from reelforge.game.exact import figures_of
from reelforge.game.results import ExactFigures
from reelforge.mechanics.enumeration import anywhere_cells
from reelforge.mechanics.exact_features import hold_and_respin_feature, poly, round_distribution

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
