"""Forge of Fortunes fast path: numba kernel over flattened strips.

Consumes draws in the order documented in :mod:`.rules` (reel 1, 2, 3 per
spin), so fed the same seed it plays the same rounds as the reference engine.
Draws step PCG64 in the kernel (:func:`reelforge.mechanics.rng.draw_pcg`, the
stream of ``Generator.random()``); only winning rounds touch the tally, the
zero-win ones are counted once per chunk.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from reelforge.games.forge_of_fortunes.build import BLANK, COAL, GOLD, SLAG, Build
from reelforge.mechanics.rng import draw_pcg, pcg_state, store_pcg_state
from reelforge.mechanics.tally import close_tally, tally_win
from reelforge.stats import bucket_edges_units

CODES = {BLANK: 0, GOLD: 1, SLAG: 2, COAL: 3}
G, S, C = 1, 2, 3


@dataclass(frozen=True)
class Tables:
    """A build flattened into arrays once, at load."""

    base: np.ndarray          # int8 [3, max_len]
    base_len: np.ndarray      # int64 [3]
    feature: np.ndarray       # int8 [n_sets, 3, max_len]
    feature_len: np.ndarray   # int64 [n_sets, 3]
    runner_set: np.ndarray    # int64 [top]: strip set index per runner
    safe: np.ndarray          # bool [top + 1]
    ladder_units: np.ndarray  # int64 [top + 1]
    two_units: int
    unit: int
    cap_units: int
    edges: np.ndarray


def _encode(strips: tuple[str, ...], width: int) -> tuple[np.ndarray, np.ndarray]:
    arr = np.zeros((len(strips), width), dtype=np.int8)
    lens = np.zeros(len(strips), dtype=np.int64)
    for i, s in enumerate(strips):
        arr[i, : len(s)] = [CODES[ch] for ch in s]
        lens[i] = len(s)
    return arr, lens


def tables(build: Build, unit: int) -> Tables:
    """Flatten ``build`` for the kernel (``unit`` win units per total bet)."""
    names = list(build.feature_sets)
    width = max(len(s) for ss in [build.base, *build.feature_sets.values()] for s in ss.reels)
    base, base_len = _encode(build.base.reels, width)
    feature = np.zeros((len(names), 3, width), dtype=np.int8)
    feature_len = np.zeros((len(names), 3), dtype=np.int64)
    for k, name in enumerate(names):
        feature[k], feature_len[k] = _encode(build.feature_sets[name].reels, width)
    top = build.top
    return Tables(
        base=base, base_len=base_len, feature=feature, feature_len=feature_len,
        runner_set=np.array([names.index(s) for s in build.runner_sets], dtype=np.int64),
        safe=np.array([r in build.safe for r in range(top + 1)], dtype=np.bool_),
        ladder_units=np.array([v * unit for v in build.ladder], dtype=np.int64),
        two_units=int(build.two_of_a_kind_x * unit), unit=unit,
        cap_units=build.ladder[-1] * unit, edges=bucket_edges_units(unit),
    )


@njit(cache=True, inline="always")
def _feature(st, feature, feature_len, runner_set, safe, top):
    """Play Forging Re-Spins from runner 0; return (end runner, re-spins)."""
    r = 0
    spins = 0
    while True:
        k = runner_set[r]
        a = feature[k, 0, draw_pcg(st, feature_len[k, 0])]
        b = feature[k, 1, draw_pcg(st, feature_len[k, 1])]
        c = feature[k, 2, draw_pcg(st, feature_len[k, 2])]
        spins += 1
        if a == S or b == S or c == S:
            return r, spins
        if a == G and b == G and c == G:
            r += 1
            if r == top:
                return r, spins
        elif c == C and not safe[r]:
            r -= 1


@njit(cache=True)
def _simulate(st, n, base, base_len, feature, feature_len, runner_set, safe, ladder_units, two_units,
              cap_units, edges, totals, components, hist, counters):
    top = ladder_units.shape[0] - 1
    l0, l1, l2 = base_len[0], base_len[1], base_len[2]
    hits_before = totals[1]
    two_wins = 0
    for _ in range(n):
        s1 = base[0, draw_pcg(st, l0)]
        s2 = base[1, draw_pcg(st, l1)]
        s3 = base[2, draw_pcg(st, l2)]
        if s1 == G and s2 == G:
            if s3 == G:
                end, spins = _feature(st, feature, feature_len, runner_set, safe, top)
                win = ladder_units[end]
                components[1] += win
                components[3] += win * win
                counters[0] += 1
                counters[1] += spins
                counters[2 + end] += 1
            else:
                win = two_units
                two_wins += 1
            tally_win(totals, hist, edges, cap_units, win)
    components[0] += two_wins * two_units
    components[2] += two_wins * two_units * two_units
    close_tally(totals, hist, n, hits_before)


@njit(cache=True)
def _round_wins(st, n, base, base_len, feature, feature_len, runner_set, safe, ladder_units, two_units):
    top = ladder_units.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        s1 = base[0, draw_pcg(st, base_len[0])]
        s2 = base[1, draw_pcg(st, base_len[1])]
        s3 = base[2, draw_pcg(st, base_len[2])]
        if s1 == G and s2 == G:
            if s3 == G:
                end, _ = _feature(st, feature, feature_len, runner_set, safe, top)
                out[i] = ladder_units[end]
            else:
                out[i] = two_units
    return out


def simulate(t: Tables, rng: np.random.Generator, n: int, totals: np.ndarray, components: np.ndarray,
             hist: np.ndarray, counters: np.ndarray) -> None:
    """Play ``n`` paid rounds into the tally buffers (``rng`` advances past the draws used)."""
    st = pcg_state(rng)
    _simulate(st, n, t.base, t.base_len, t.feature, t.feature_len, t.runner_set, t.safe, t.ladder_units,
              t.two_units, t.cap_units, t.edges, totals, components, hist, counters)
    store_pcg_state(rng, st)


def round_wins(t: Tables, rng: np.random.Generator, n: int) -> np.ndarray:
    """Per-round wins (win units) of ``n`` paid rounds, for conformance tests (``rng`` advances)."""
    st = pcg_state(rng)
    out = _round_wins(st, n, t.base, t.base_len, t.feature, t.feature_len, t.runner_set, t.safe,
                      t.ladder_units, t.two_units)
    store_pcg_state(rng, st)
    return out
