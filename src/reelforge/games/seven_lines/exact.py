"""Seven Lines exactly: every stop combination of the five reels counted once (the paid spin and a free
spin use the same reels), split by the Stars that decide the free spins; the free spins composed as
their Markov chain (retriggers up to the limit, wins multiplied); the round stopped at the cap."""

from fractions import Fraction
from functools import cache

import numpy as np

from reelforge.game.exact import figures_of
from reelforge.game.results import ExactFigures
from reelforge.mechanics.enumeration import line_spin
from reelforge.mechanics.exact_features import free_spins_feature, poly, round_distribution

from .build import COINS, LINES, STAR, WILD, tables


def exact_distribution(b, cap: int) -> ExactFigures:
    """The build's exact figures, the round capped at ``cap`` coins."""
    t = tables(b)
    weights = line_spin(t.codes, t.lens, 3, LINES, t.pays, WILD, STAR, t.star_pays, max_count=5)
    by_award: dict[int, dict[int, int]] = {}
    for stars in range(weights.shape[1]):
        award = int(t.awards[min(stars, len(t.awards) - 1)])
        column = by_award.setdefault(award, {})
        for win in weights[:, stars].nonzero()[0]:
            column[int(win)] = column.get(int(win), 0) + int(weights[win, stars])
    spins = {a: poly(w) for a, w in by_award.items()}
    starts = [a for a in spins if a]
    below = (cap - 1) // t.multiplier + 1        # free-spin wins at or above the cap all pay the cap
    features = free_spins_feature([(p, a) for a, p in spins.items()], t.limit, starts, below)
    dist = round_distribution(spins, features, int(t.lens.prod()) ** t.limit, t.multiplier, cap)
    return figures_of(dist, 10, ("paid_spins", "free_spins"))


def search_figures(b) -> dict[str, Fraction]:
    """The figures the tuner moves, exactly and without the win distribution (a fraction of a second, where the
    distribution takes seconds): the RTP by Wald's identity (a free spin plays the paid spin's reels, so it wins
    ``multiplier`` times the paid spin's mean; the expected number of free spins from the chain of (spins left,
    awards still possible)), the feature frequency, and the hit rate from the chain's probability that the free
    spins win nothing (the chain on polynomials cut to their constant term). The cap is left out of the RTP: it
    moves it by less than 1e-30 (the tuner writes the full exact RTP, cap included)."""
    t = tables(b)
    weights = line_spin(t.codes, t.lens, 3, LINES, t.pays, WILD, STAR, t.star_pays, max_count=5)
    total = int(weights.sum())
    wins = np.arange(weights.shape[0], dtype=object)
    by_award: dict[int, tuple[int, int, int]] = {}       # award -> (weight, weight of no win, coins won)
    for stars in range(weights.shape[1]):
        award = int(t.awards[min(stars, len(t.awards) - 1)])
        column = weights[:, stars].astype(object)
        w, zero, coins = by_award.get(award, (0, 0, 0))
        by_award[award] = (w + int(column.sum()), zero + int(column[0]), coins + int((wins * column).sum()))
    mean = Fraction(sum(c for _, _, c in by_award.values()), total)

    @cache
    def spins(left: int, room: int) -> Fraction:       # expected free spins played from (left, room)
        if left == 0:
            return Fraction(0)
        return 1 + sum((Fraction(w, total) * spins(left - 1 + min(a, room), room - min(a, room))
                        for a, (w, _, _) in by_award.items()), Fraction(0))

    starts = [a for a in by_award if a]
    played = sum((Fraction(by_award[a][0], total) * spins(min(a, t.limit), t.limit - min(a, t.limit)) for a in starts),
                 Fraction(0))
    classes = [(poly([z, w - z]), a) for a, (w, z, _) in by_award.items()]   # a free spin: no win, or some win
    nothing = free_spins_feature(classes, t.limit, starts, 1)
    scale = total ** t.limit
    no_win = Fraction(by_award.get(0, (0, 0, 0))[1], total) + sum(
        (Fraction(by_award[a][1] * int(nothing[a].coeffs()[0] if nothing[a].coeffs() else 0), total * scale)
         for a in starts), Fraction(0))
    return {"rtp": mean * (1 + played * t.multiplier) / COINS, "hit": 1 - no_win,
            "feature": Fraction(sum(by_award[a][0] for a in starts), total)}
