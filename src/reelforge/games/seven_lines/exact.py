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

from .build import COINS, LINES, NAMES, STAR, SYMBOLS, WILD, tables


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


def _free_spins_played(t, weight_of_award: dict[int, int], total: int) -> Fraction:
    """Expected free spins a paid round plays (the chain of (spins left, awards still possible) up to the limit)."""

    @cache
    def spins(left: int, room: int) -> Fraction:       # expected free spins played from (left, room)
        if left == 0:
            return Fraction(0)
        return 1 + sum((Fraction(w, total) * spins(left - 1 + min(a, room), room - min(a, room))
                        for a, w in weight_of_award.items()), Fraction(0))

    return sum((Fraction(weight_of_award[a], total) * spins(min(a, t.limit), t.limit - min(a, t.limit))
                for a in weight_of_award if a), Fraction(0))


def exact_pays(b, rtp: Fraction | None = None) -> list[tuple[str, str, Fraction, Fraction]]:
    """Every pay's exact share of the RTP: ``(pay, part, expected wins per paid round, RTP contribution)``, the paid
    spin's and the free spins' apart, then (given the exact ``rtp``) the cap's reduction, so the rows add up to it.

    A line crosses one stop of each reel, each uniform on its strip and the reels independent, so every line
    sees symbol s on reel r with probability count/length: the 7^5 symbol lines are read as ``line_scan`` reads
    them (leading wilds paid as wilds, or the first other symbol with the wilds substituting, whichever pays
    more), times the 10 lines; Stars count on the 3-row window of each reel (every stop). A free spin plays the
    same reels, its wins multiplied, and a paid round plays the chain's expected number of free spins (Wald)."""
    from itertools import product

    t = tables(b)
    lens = [int(n) for n in t.lens]
    strips = [[int(c) for c in t.codes[r][: lens[r]]] for r in range(5)]
    prob = [{s: Fraction(strip.count(s), len(strip)) for s in set(strip)} for strip in strips]
    per_line: dict[tuple[int, int], Fraction] = {}
    for line in product(*[sorted(p) for p in prob]):
        p = Fraction(1)
        for r, s in enumerate(line):
            p *= prob[r][s]
        w = next((i for i, s in enumerate(line) if s != WILD), 5)
        wild_pay = int(t.pays[WILD, w]) if w else 0
        symbol, count, pay = WILD, w, wild_pay
        if w < 5:
            run = w + 1
            while run < 5 and line[run] in (line[w], WILD):
                run += 1
            if int(t.pays[line[w], run]) >= wild_pay:
                symbol, count, pay = line[w], run, int(t.pays[line[w], run])
        if pay:
            per_line[(symbol, count)] = per_line.get((symbol, count), Fraction(0)) + p
    stars = {0: Fraction(1)}                            # Stars on the window: each reel's count, convolved
    for strip in strips:
        reel: dict[int, Fraction] = {}
        for stop in range(len(strip)):
            k = sum(strip[(stop + row) % len(strip)] == STAR for row in range(3))
            reel[k] = reel.get(k, Fraction(0)) + Fraction(1, len(strip))
        both: dict[int, Fraction] = {}
        for a, pa in stars.items():
            for k, pk in reel.items():
                both[a + k] = both.get(a + k, Fraction(0)) + pa * pk
        stars = both
    weights = line_spin(t.codes, t.lens, 3, LINES, t.pays, WILD, STAR, t.star_pays, max_count=5)
    total = int(weights.sum())
    weight_of_award: dict[int, int] = {}
    for k in range(weights.shape[1]):
        a = int(t.awards[min(k, len(t.awards) - 1)])
        weight_of_award[a] = weight_of_award.get(a, 0) + int(weights[:, k].sum())
    played = _free_spins_played(t, weight_of_award, total)  # free spins a paid round plays, on average
    rows: list[tuple[str, str, Fraction, Fraction]] = []
    for part, spins, mult in (("paid spin", Fraction(1), 1), ("free spins", played, int(t.multiplier))):
        for (symbol, count), p in sorted(per_line.items(), key=lambda kv: -kv[1] * int(t.pays[kv[0]])):
            wins = len(LINES) * p * spins                  # expected line wins of this pay per paid round
            rows.append((f"{count} {NAMES[SYMBOLS[symbol]]}", part, wins, wins * int(t.pays[symbol, count]) * mult / COINS))
        for k in sorted(stars):
            coins = int(t.star_pays[min(k, len(t.star_pays) - 1)])
            if coins:
                rows.append((f"{k} Star", part, stars[k] * spins, stars[k] * spins * coins * mult / COINS))
    if rtp is not None:  # the cap's reduction: the exact RTP less the uncapped pays (below 1e-25 pp here)
        rows.append(("what the cap took off", "cap", Fraction(0), rtp - sum(r[3] for r in rows)))
    return rows


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
    starts = [a for a in by_award if a]
    played = _free_spins_played(t, {a: w for a, (w, _, _) in by_award.items()}, total)
    classes = [(poly([z, w - z]), a) for a, (w, z, _) in by_award.items()]   # a free spin: no win, or some win
    nothing = free_spins_feature(classes, t.limit, starts, 1)
    scale = total ** t.limit
    no_win = Fraction(by_award.get(0, (0, 0, 0))[1], total) + sum(
        (Fraction(by_award[a][1] * int(nothing[a].coeffs()[0] if nothing[a].coeffs() else 0), total * scale)
         for a in starts), Fraction(0))
    return {"rtp": mean * (1 + played * t.multiplier) / COINS, "hit": 1 - no_win,
            "feature": Fraction(sum(by_award[a][0] for a in starts), total)}
