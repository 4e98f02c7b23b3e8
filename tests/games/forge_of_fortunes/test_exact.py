"""Exact mathematics: the GAMES.md targets, and a check against brute force."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from reelforge.core.stats import volatility_level
from reelforge.games.forge_of_fortunes.exact import exact
from reelforge.games.forge_of_fortunes.game import ForgeOfFortunes

from .test_rules import make_build

GAME = ForgeOfFortunes()
BUILDS = ["96.2", "94.2", "91.2", "87.2", "84.2"]


@pytest.mark.parametrize("name", BUILDS)
def test_exact_rtp_within_0_001_pp_of_the_build_name(name):
    r = exact(GAME.load_build(name))
    assert abs(r.rtp - Fraction(name) / 100) < Fraction(1, 100_000)


@pytest.mark.parametrize("name", BUILDS)
def test_volatility_level_7(name):
    r = exact(GAME.load_build(name))
    assert volatility_level(float(r.variance) ** 0.5) == 7


def test_top_build_max_event_one_in_100000_within_5_percent():
    p = exact(GAME.load_build("96.2")).max_win_probability
    assert abs(p * 100_000 - 1) <= Fraction(5, 100)


def test_top_build_hit_frequency_17_01_within_half_a_point():
    r = exact(GAME.load_build("96.2"))
    assert abs(r.hit_rate - Fraction(1701, 10000)) <= Fraction(5, 1000)


def test_distribution_sums_to_one_and_matches_rtp():
    r = exact(GAME.load_build("96.2"))
    assert sum(r.outcomes.values()) == 1
    assert sum(w * p for w, p in r.outcomes.items()) == r.rtp


def brute_force(build, max_spins=60):
    """Enumerate every stop combination of every spin up to ``max_spins`` re-spins (tiny strips only)."""
    def stops(ss):
        return list(itertools.product(*[range(len(s)) for s in ss.reels]))

    dist = {}
    base = build.base
    n_base = len(stops(base))
    states = {}
    for st in stops(base):
        sym = "".join(base.reels[i][st[i]] for i in range(3))
        if sym == "GGG":
            states[0] = states.get(0, 0) + Fraction(1, n_base)
        elif sym[:2] == "GG":
            dist[Fraction(1)] = dist.get(Fraction(1), 0) + Fraction(1, n_base)
        else:
            dist[Fraction(0)] = dist.get(Fraction(0), 0) + Fraction(1, n_base)
    for _ in range(max_spins):
        nxt = {}
        for r, pr in states.items():
            ss = build.feature_strips(r)
            combos = stops(ss)
            for st in combos:
                sym = "".join(ss.reels[i][st[i]] for i in range(3))
                p = pr / len(combos)
                if "S" in sym:
                    w = Fraction(build.ladder[r])
                    dist[w] = dist.get(w, 0) + p
                elif sym == "GGG":
                    if r + 1 == build.top:
                        w = Fraction(build.ladder[-1])
                        dist[w] = dist.get(w, 0) + p
                    else:
                        nxt[r + 1] = nxt.get(r + 1, 0) + p
                elif sym[2] == "C" and r not in build.safe:
                    nxt[r - 1] = nxt.get(r - 1, 0) + p
                else:
                    nxt[r] = nxt.get(r, 0) + p
        states = nxt
    return dist, sum(states.values(), Fraction(0))


def test_markov_chain_equals_brute_force_enumeration_on_a_short_ladder():
    build = make_build(ladder=[2, 3, 5, 8], safe=[2, 5, 8],
                       base={"reels": ["GS-", "G-", "GGS"]},
                       feature={"sets": {"a": {"reels": ["GGS-", "GGG-", "GSCC"]},
                                         "b": {"reels": ["GGGS", "GG-", "GGC-"]}},
                                "runner_sets": ["a", "b", "a"]})
    dist, unresolved = brute_force(build, max_spins=80)
    r = exact(build)
    for w, p in r.outcomes.items():
        assert abs(float(p - dist.get(w, 0))) <= float(unresolved) + 1e-15
    assert unresolved < Fraction(1, 10**6)


def test_ten_million_simulated_rounds_land_inside_their_99_interval_around_exact_rtp():
    build = GAME.load_build("96.2")
    acc = GAME.simulate_chunk(build, 10_000_000, np.random.SeedSequence(20261129))
    lo, hi = acc.rtp_ci99()
    assert lo <= float(exact(build).rtp) <= hi
