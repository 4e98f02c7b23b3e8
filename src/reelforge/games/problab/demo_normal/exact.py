"""demo_normal's figures exactly, over every stop combination.

Each reel stops uniformly on its strip and the reels are independent, so the cells a line crosses
(one per reel) are five independent symbols, each distributed as its reel's strip: every line of
every window has the same expected pay, and the paid spin's expected win is the number of lines
times the expected pay of one line (by linearity: no enumeration of the product of the strips'
lengths, 3.4 billion windows, is needed for a mean). The free rounds are the same with the free
reels. The trigger probability convolves each reel's distribution of scatters in its window
(its ``rows`` consecutive stops). Since the peer applies no cap (and a round cannot reach this
game's, its highest possible win), the total RTP is exact:
``paid spin + P(trigger) x free_rounds x E[free spin]``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np

from reelforge.games.problab.peer_builds import Mode

from .build import NormalBuild
from .kernel import line_pay
from .rules import TRIGGER


@dataclass(frozen=True)
class NormalExact:
    """demo_normal's exact figures, as fractions of the stake (the bet: ``bet_unit`` units)."""

    paid_spin_rtp: Fraction
    trigger_probability: Fraction
    free_round_win_x: Fraction
    """Expected win of one free round, in multiples of the bet."""
    free_rounds_win_x: Fraction
    """Expected win of the whole feature (all its free rounds), in multiples of the bet."""
    free_rtp: Fraction
    """P(trigger) x the feature's expected win."""
    rtp: Fraction

    def to_json(self) -> dict[str, object]:
        return {k: {"exact": str(v), "value": float(v)} for k, v in self.__dict__.items()}


def line_expectation(build: NormalBuild, mode: Mode) -> Fraction:
    """Expected units one line pays: over the five symbols it crosses, each drawn from its reel's strip."""
    pays = mode.pays_by_count()
    wild = build.code("wild")
    counts = [Counter(strip) for strip in mode.reels]
    total = 0
    cells = np.empty(len(counts), dtype=np.int64)
    for combo in product(*(sorted(c) for c in counts)):
        cells[:] = combo
        pay = line_pay(cells, pays, wild)
        if pay:
            weight = 1
            for c, s in zip(counts, combo, strict=True):
                weight *= c[s]
        total += int(pay) * weight if pay else 0
    space = 1
    for strip in mode.reels:
        space *= len(strip)
    return Fraction(total, space)


def scatter_distribution(build: NormalBuild, mode: Mode) -> dict[int, Fraction]:
    """P(n scatters on the window), over every stop combination (reels convolved)."""
    scatter = build.code("scatter")
    dist = {0: Fraction(1)}
    for strip in mode.reels:
        n = len(strip)
        per = Counter(sum(strip[(stop + k) % n] == scatter for k in range(build.rows)) for stop in range(n))
        nxt: dict[int, Fraction] = {}
        for a, pa in dist.items():
            for b, cb in per.items():
                nxt[a + b] = nxt.get(a + b, Fraction(0)) + pa * Fraction(cb, n)
        dist = nxt
    return dist


def exact(build: NormalBuild) -> NormalExact:
    """The paid spin's RTP, the trigger probability, the free rounds' expected win and the total RTP."""
    lines = len(build.lines)
    paid = lines * line_expectation(build, build.base) / build.bet_unit
    trigger = sum((p for n, p in scatter_distribution(build, build.base).items() if n >= TRIGGER), Fraction(0))
    free_round = lines * line_expectation(build, build.free) / build.bet_unit
    feature = build.free_rounds * free_round
    return NormalExact(paid, trigger, free_round, feature, trigger * feature, paid + trigger * feature)


def exact_distribution(build: NormalBuild, cap: int) -> Any:
    """demo_normal's whole win distribution and figures through the generic evaluator: every stop
    combination of the paid spin's reels, split by whether it triggers, composed with the free rounds
    (every stop combination of the free reels, ``free_rounds`` times: free rounds award none)."""
    from reelforge.game.exact import figures_of
    from reelforge.games.problab.peer_builds import strip_arrays
    from reelforge.mechanics.enumeration import line_spin
    from reelforge.mechanics.exact_features import free_spins_feature, poly, round_distribution

    lines = np.array(build.lines, dtype=np.int64)

    def spin(mode: Mode) -> tuple[dict[int, Any], int]:
        codes, lens = strip_arrays(mode.reels)
        w = line_spin(codes, lens, build.rows, lines, mode.pays_by_count(), build.code("wild"),
                      build.code("scatter"), None, max_count=TRIGGER)
        return {0: poly(w[:, :TRIGGER].sum(axis=1)), build.free_rounds: poly(w[:, TRIGGER])}, int(np.prod(lens))

    paid, _ = spin(build.base)
    free, length = spin(build.free)
    total_free = free[0] + free[build.free_rounds]      # free rounds award none: one class
    features = free_spins_feature([(total_free, 0)], build.free_rounds, [build.free_rounds], cap)
    return figures_of(round_distribution(paid, features, length ** build.free_rounds, 1, cap), build.bet_unit,
                      ("paid_spin", "free_spins"))
