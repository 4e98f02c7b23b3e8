"""Features as finite Markov chains over exact polynomials: a distribution of wins is a polynomial
whose coefficient of ``x**w`` is the (integer or rational) weight of winning ``w`` win units.

* :func:`free_spins_feature`: free spins with retriggers up to a limit; the state is (spins left,
  awards still possible). Every spin plays one more of the ``limit`` spins the feature can hold
  (spins played + left + still possible = the limit), so the chain runs level by level and every
  path's weight is over the same ``L ** limit`` (``L`` a spin's total weight).
* :func:`hold_and_respin_feature`: cells that keep their coins, respins reset by a new coin, a full
  board's grand prize; the state is (coins held, respins left), the chain over coin counts in exact
  fractions, the value the landed coins' polynomial power by how many landed.
* :func:`round_distribution`: the paid spin (split by what it triggers) composed with the feature,
  the round's win stopped at the cap (wins are never negative, so stopping a round at the cap and
  forfeiting the rest pays ``min(cap, total)``: the weight at and above the cap is lumped on it).

Polynomials are python-flint's ``fmpz_poly`` (exact integers) and ``fmpq_poly`` (exact rationals),
multiplied truncated below the cap (``mul_low``): nothing above the cap is kept but its weight.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from flint import fmpq, fmpq_poly, fmpz_poly


@dataclass(frozen=True)
class WinDistribution:
    """A round's win distribution: ``weights[win units] / total`` is its probability (every weight > 0)."""

    weights: dict[int, int]
    total: int
    paid_mean_units: tuple[int, int]
    """The paid spin's mean win in win units as ``(numerator, denominator)``: the RTP's paid-spin part."""
    feature_weight: int
    """Weight (over :attr:`total`) of the rounds that play the feature."""


def poly(weights: dict[int, int] | Sequence[int]) -> fmpz_poly:
    """An integer polynomial from ``{win: weight}`` or a coefficient list."""
    if isinstance(weights, dict):
        coeffs = [0] * (max(weights, default=-1) + 1)
        for w, v in weights.items():
            coeffs[w] += v
        return fmpz_poly(coeffs)
    return fmpz_poly([int(v) for v in weights])


def free_spins_feature(classes: Sequence[tuple[fmpz_poly, int]], limit: int, starts: Iterable[int],
                       below: int) -> dict[int, fmpz_poly]:
    """The total win of a free-spins feature from each award in ``starts``, as a polynomial of weights
    over ``L ** limit`` truncated to its first ``below`` coefficients.

    ``classes``: a free spin's outcomes split by what they award, ``(win polynomial, spins awarded)``
    each, the polynomials' weights adding up to ``L`` over all classes. An award is cut to what the
    ``limit`` leaves (spins played + left never exceed it); a feature whose spins award nothing has
    the limit of its start award (``limit`` = that award)."""
    starts = sorted(set(starts))
    total = sum((p for p, _ in classes), fmpz_poly(0))
    L = int(sum(total.coeffs()))
    memo: dict[tuple[int, int], fmpz_poly] = {}
    # reachable states (left, room), evaluated by level (left + room) upwards: a spin lowers it by one
    todo, seen = [(min(a, limit), limit - min(a, limit)) for a in starts], set()
    while todo:
        state = todo.pop()
        if state in seen or state[0] == 0:
            continue
        seen.add(state)
        left, room = state
        todo += [(left - 1 + min(a, room), room - min(a, room)) for _, a in classes]
    for left, room in sorted(seen, key=lambda s: (s[0] + s[1], s[0])):
        children: dict[tuple[int, int], fmpz_poly] = {}
        for p, a in classes:
            child = (left - 1 + min(a, room), room - min(a, room))
            children[child] = children.get(child, fmpz_poly(0)) + p
        value = fmpz_poly(0)
        for (cl, cr), p in children.items():
            after = memo[(cl, cr)] if cl else fmpz_poly([L ** cr])
            value += p.mul_low(after, below)
        memo[(left, room)] = value
    return {a: memo[(min(a, limit), limit - min(a, limit))] if a and limit else fmpz_poly([L ** limit])
            for a in starts}


def hold_and_respin_ends(cells: int, respins: int, blank: int, coin_weight: int) -> dict[int, dict[int, Fraction]]:
    """How many coins a hold-and-respin feature ends holding, by how many start it: ``{held: {coins at the end:
    chance}}``, exactly. The chain over (coins held, respins left) of :func:`hold_and_respin_feature`: each respin
    draws every empty cell alone, a coin with chance ``coin_weight / (blank + coin_weight)``; a landed coin resets
    the respins to ``respins``; no respin left or a full board ends it."""
    weight = blank + coin_weight
    ends: dict[tuple[int, int], dict[int, Fraction]] = {}  # (held, left): {coins at the end: chance}
    for held in range(cells, -1, -1):
        empty = cells - held
        for left in range(respins + 1):
            if held == cells or left == 0:
                ends[(held, left)] = {held: Fraction(1)}
                continue
            out: dict[int, Fraction] = defaultdict(Fraction)
            for k in range(empty + 1):  # k of the empty cells land a coin
                p = Fraction(comb(empty, k) * blank ** (empty - k) * coin_weight ** k, weight ** empty)
                for end, q in ends[(held + k, respins if k else left - 1)].items():
                    out[end] += p * q
            ends[(held, left)] = dict(out)
    return {held: ends[(held, respins)] for held in range(cells + 1)}


def hold_and_respin_feature(cells: int, respins: int, blank: int, coins: dict[int, int], grand: int,
                            below: int) -> dict[int, fmpq_poly]:
    """What a hold-and-respin feature adds to the coins it starts with, by how many coins start it:
    ``{held: polynomial of probabilities}`` over the value of the coins that land plus the ``grand``
    prize of a full board, truncated to its first ``below`` coefficients.

    Each respin draws every empty cell alone: blank (weight ``blank``) or a coin of value ``v``
    (weight ``coins[v]``); a landed coin resets the respins to ``respins``; the feature ends with no
    respin left or every one of the ``cells`` holding a coin.

    A landed coin's value never changes what happens next (only coin or blank does), so the chain runs on
    counts alone, in exact fractions: the chance of ending with each number of coins from (coins held,
    respins left). The value is then the ``n``-fold sum of a coin's value for the ``n`` coins that landed,
    plus the grand on a full board: one polynomial power per count, where a chain of polynomials multiplied
    them at every state (the same polynomials; Golden Vault 96.0: 12.8 -> 1.1 CPU s)."""
    coin_weight = sum(coins.values())
    ends = hold_and_respin_ends(cells, respins, blank, coin_weight)
    coin = fmpq_poly(list(poly(coins).coeffs()), coin_weight)  # one landed coin's value, as probabilities
    powers = [fmpq_poly([1])]
    for _ in range(cells):
        powers.append(powers[-1].mul_low(coin, below))
    full = fmpq_poly([0] * grand + [1]) if grand < below else fmpq_poly([0])
    values = {}
    for held in range(cells + 1):
        value = fmpq_poly([0])
        for end, q in ends[held].items():
            landed = powers[end - held] * fmpq(q.numerator, q.denominator)
            value += landed.mul_low(full, below) if end == cells else landed
        values[held] = value
    return values


def round_distribution(paid: dict[object, fmpz_poly], features: dict[object, fmpz_poly], scale: int,
                       multiplier: int, cap: int) -> WinDistribution:
    """A round's win distribution, stopped at ``cap`` win units: the paid spin's outcomes split by what
    they trigger (``paid[key]``: win polynomial, weights over ``W``; a key missing from ``features``
    plays no feature), each composed with the feature that key starts (``features[key]``: its win
    polynomial, weights over ``scale``, in units ``multiplier`` times smaller than the round's)."""
    W = sum(int(sum(p.coeffs())) for p in paid.values())
    low = fmpz_poly(0)
    mean = 0
    feature_weight = 0
    for key, p in paid.items():
        mean += sum(min(i, cap) * int(c) for i, c in enumerate(p.coeffs()))
        if key in features:
            feature_weight += int(sum(p.coeffs()))
            f = features[key].inflate(multiplier) if multiplier != 1 else features[key]
            low += p.mul_low(f, cap)
        else:
            low += (p * scale).truncate(cap)
    weights = {i: int(c) for i, c in enumerate(low.coeffs()) if c}
    total = W * scale
    at_cap = total - sum(weights.values())
    if at_cap:
        weights[cap] = at_cap
    return WinDistribution(weights, total, (mean, W), feature_weight * scale)
