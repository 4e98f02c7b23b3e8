"""Seven Lines exactly: every stop combination of the five reels counted once (the paid spin and a free
spin use the same reels), split by the Stars that decide the free spins; the free spins composed as
their Markov chain (retriggers up to the limit, wins multiplied); the round stopped at the cap."""

from reelforge.game.contract import ExactFigures
from reelforge.game.exact import figures_of
from reelforge.mechanics.enumeration import line_spin
from reelforge.mechanics.exact_features import free_spins_feature, poly, round_distribution

from .build import LINES, STAR, WILD, tables


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
