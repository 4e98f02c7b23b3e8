"""The Gemstones Gold strip design (why it can reach the published hit rate).

Every strip is an *anti-clustered background* (any six consecutive paying symbols are distinct, so a
reel alone shows at most one of each) with a few *stacks*: six equal paying symbols in a row. A win
needs 8+ of one symbol on 36 cells, so it essentially needs stacks of the same symbol on two or more
reels; the number of stacks per reel sets the hit rate, and because the refills above a stack are
again anti-clustered, chains of three winning cascades in one column (what reveals a paid-spin
multiplier) stay rare. One scatter per strip; the strip lengths set the trigger rate.

:func:`make_strips` builds the strips from integer design parameters and a seed;
:func:`search_trigger` and :func:`search_hit` search them on the exact initial-board
probabilities (:mod:`.board`) and simulated cascade transitions (:mod:`.sampling`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reelforge.games.gemstones_gold.board import (
    initial_board_probabilities,
    initial_trigger,
    initial_win,
    scatter_probabilities,
)
from reelforge.games.gemstones_gold.build import N_PAYING, REELS, SCATTER, SYMBOL_CHARS
from reelforge.games.gemstones_gold.sampling import final_scatter_distribution, paid_coefficients, probe_build

TARGET_HIT = 0.3509
TARGET_TRIGGER = 0.0051


@dataclass
class DesignParams:
    """Integer design of the six strips (see the module docstring)."""

    lengths: tuple[int, ...] = (138, 138, 138, 138, 138, 138)
    stacks: tuple[str, ...] = ("PL", "PL", "PL", "PL", "PL", "PL")
    """Stack symbols per reel (one character per stack)."""
    background: tuple[int, ...] = (1, 1, 1, 1, 1, 1, 1, 1)
    """Relative weights of the 8 paying symbols in the background."""
    seed: int = 1671262
    scatters: tuple[int, ...] = (2, 2, 1, 1, 1, 1)
    stack_length: int = 6
    background_gap: int = 4
    scatter_lead: tuple[int, ...] = (15, 15, 15, 15, 15, 15)
    """Background symbols between a scatter and the stack below it on the strip."""
    """A background symbol differs from the previous ``background_gap`` paying symbols."""


def make_strips(p: DesignParams) -> list[str]:
    """Six strips: anti-clustered background with evenly spaced stacks; scatter i sits
    ``scatter_lead[r]`` background symbols above stack i (closer = pulled in by cascades more often)."""
    strips = []
    weights = np.array(p.background, dtype=float)
    for r in range(REELS):
        rng = np.random.default_rng([p.seed, r])
        length = p.lengths[r]
        stacks = [SYMBOL_CHARS.index(ch) for ch in p.stacks[r]]
        if p.scatters[r] > len(stacks):
            raise ValueError(f"reel {r + 1}: at most one scatter per stack")
        n_bg = length - p.stack_length * len(stacks) - p.scatters[r]
        gaps = [n_bg * (i + 1) // len(stacks) - n_bg * i // len(stacks) for i in range(len(stacks))]
        lead = p.scatter_lead[r]
        if min(gaps) < lead + 6:
            raise ValueError(f"reel {r + 1}: strip too short for its stacks and scatter lead")
        seq: list[int] = []
        paying_tail: list[int] = []   # last paying symbols (scatters skipped)
        for i, (sym, gap) in enumerate(zip(stacks, gaps, strict=True)):
            for k in range(gap):
                if i < p.scatters[r] and k == gap - lead:
                    seq.append(SCATTER)
                banned = set(paying_tail[-p.background_gap:]) if p.background_gap else set()
                if gap - k <= 5:
                    banned.add(sym)      # keep the stack's symbol away from it
                w = weights.copy()
                for b in banned:
                    w[b] = 0.0
                x = int(rng.choice(N_PAYING, p=w / w.sum()))
                seq.append(x)
                paying_tail.append(x)
            seq += [sym] * p.stack_length
            paying_tail += [sym] * p.stack_length
        strips.append("".join(SYMBOL_CHARS[v] for v in seq))
    return strips


def measured_trigger(strips: list[str], boards: int, seed: int) -> float:
    """Exact initial scatter distribution with simulated cascade transitions (post-stratified)."""
    trans = paid_coefficients(probe_build(strips), boards, seed)["trans"]
    ex = scatter_probabilities(strips)
    return sum(final_scatter_distribution(ex, trans).values())


def search_trigger(params: DesignParams, log: list[str], seed: int, boards: int = 3_000_000) -> DesignParams:
    """Scatter counts for the initial part (about 60% of the target), then the scatter lead
    (distance above a stack) for the part cascades add, by bisection on simulated boards."""
    best, best_gap = params, math.inf
    for n2 in range(REELS + 1):
        scatters = tuple(2 if r < n2 else 1 for r in range(REELS))
        cand = DesignParams(**{**params.__dict__, "scatters": scatters})
        init = initial_trigger(make_strips(cand))
        if init < TARGET_TRIGGER and abs(init - 0.6 * TARGET_TRIGGER) < best_gap:
            best, best_gap = cand, abs(init - 0.6 * TARGET_TRIGGER)
    params = best
    log.append(f"scatters per reel {params.scatters}: initial trigger {initial_trigger(make_strips(params)):.6f}")
    lo, hi = 1, 24          # trigger falls as the lead grows
    results: dict[int, float] = {}

    def at(lead: int) -> float:
        if lead not in results:
            cand = DesignParams(**{**params.__dict__, "scatter_lead": (lead,) * REELS})
            results[lead] = measured_trigger(make_strips(cand), boards, seed)
            log.append(f"scatter lead {lead}: trigger {results[lead]:.6f}")
        return results[lead]

    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at(mid) > TARGET_TRIGGER:
            lo = mid
        else:
            hi = mid
    lead = min((lo, hi), key=lambda d: abs(at(d) - TARGET_TRIGGER))
    return DesignParams(**{**params.__dict__, "scatter_lead": (lead,) * REELS})


def search_hit(strips: list[str], log: list[str], seed: int, gap: int = 4, tries: int = 400) -> list[str]:
    """Local edits of background symbols (keeping six-in-a-row anti-clustering rules) until the
    exact hit estimate is within 0.005 pp of the target."""
    rng = np.random.default_rng([seed, 99])
    strips = list(strips)
    nowin_trig = initial_board_probabilities(strips)["nowin_trigger"]
    err = initial_win(strips) + nowin_trig - TARGET_HIT
    log.append(f"hit before edits {err + TARGET_HIT:.6f}")
    for _ in range(tries):
        if abs(err) < 0.00005:
            break
        r = int(rng.integers(REELS))
        s = strips[r]
        n = len(s)
        pos = int(rng.integers(n))
        run = [s[(pos + k) % n] for k in range(-6, 7)]
        if run[6] == "X" or any(run[5 + j] == run[6] for j in (0, 2)):
            continue          # never touch scatters or stacks
        neighbours = {c for k, c in enumerate(run) if 6 - gap <= k <= 6 + gap and k != 6}
        choices = [c for c in SYMBOL_CHARS[:N_PAYING] if c not in neighbours and c != run[6]]
        if not choices:
            continue
        new = s[:pos] + choices[int(rng.integers(len(choices)))] + s[pos + 1:]
        cand = strips[:r] + [new] + strips[r + 1:]
        e = initial_win(cand) + nowin_trig - TARGET_HIT
        if abs(e) < abs(err):
            strips, err = cand, e
            log.append(f"edit reel {r + 1} stop {pos}: hit {err + TARGET_HIT:.6f}")
    return strips
