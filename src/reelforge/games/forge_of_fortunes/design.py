"""Calibration of the Forge of Fortunes builds (rerunnable, deterministic).

The rules fix what the symbols do; a build chooses strip contents. This module
searches integer symbol counts for the base strips and one feature strip set
per ladder segment (the runners between safe runners) so that the exact
mathematics meets the targets: RTP, probability of the 2500x event, hit rate
and the volatility band. ``reelforge tune forge-of-fortunes`` calls
:func:`calibrate` and writes the build file; the shipped builds are its output.

Search: a continuous optimum is found first on the segment probabilities,
rounded to strip counts, then an integer hill-climb on the exact figures
(floats during the climb, Fractions for the final check) closes the RTP gap
below 0.001 percentage points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from reelforge.games.forge_of_fortunes.build import (
    BLANK,
    COAL,
    GOLD,
    REFERENCE_LADDER,
    REFERENCE_SAFE,
    SLAG,
    Build,
    StripSet,
)
from reelforge.games.forge_of_fortunes.exact import exact

SEGMENTS = ("low", "lower_mid", "upper_mid", "high")
"""Feature strip sets: runners 2x-3x, 5x-15x, 20x-75x, 100x-1000x."""
RUNNER_SETS = ("low",) * 2 + ("lower_mid",) * 4 + ("upper_mid",) * 4 + ("high",) * 4
BASE_LENGTH = 60
FEATURE_LENGTH = 60


@dataclass
class Counts:
    """Integer symbol counts that define a build's strips."""

    base_gold: list[int]                 # reels 1..3
    base_slag: list[int]
    gold: dict[str, list[int]]           # per segment, reels 1..3
    slag: dict[str, list[int]]
    coal: dict[str, int]                 # reel 3 only

    def copy(self) -> "Counts":
        return Counts(list(self.base_gold), list(self.base_slag),
                      {k: list(v) for k, v in self.gold.items()},
                      {k: list(v) for k, v in self.slag.items()}, dict(self.coal))


def spread(length: int, counts: dict[str, int]) -> str:
    """A strip of ``length`` with the given symbol counts spread evenly, blanks elsewhere."""
    slots = [BLANK] * length
    free = list(range(length))
    for symbol, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        if n <= 0:
            continue
        step = len(free) / n
        chosen = [free[int(i * step + step / 2) % len(free)] for i in range(n)]
        for pos in chosen:
            slots[pos] = symbol
        taken = set(chosen)
        free = [p for p in free if p not in taken]
    return "".join(slots)


def counts_to_build(c: Counts, name: str, rtp: Fraction) -> Build:
    base = StripSet(tuple(spread(BASE_LENGTH, {GOLD: c.base_gold[i], SLAG: c.base_slag[i]})
                          for i in range(3)))  # type: ignore[arg-type]
    sets = {}
    for seg in SEGMENTS:
        reels = []
        for i in range(3):
            counts = {GOLD: c.gold[seg][i], SLAG: c.slag[seg][i]}
            if i == 2:
                counts[COAL] = c.coal[seg]
            reels.append(spread(FEATURE_LENGTH, counts))
        sets[seg] = StripSet(tuple(reels))  # type: ignore[arg-type]
    ladder = REFERENCE_LADDER
    return Build(name=name, rtp=rtp, coins=10, two_of_a_kind_coins=10, ladder=ladder,
                 safe=frozenset(ladder.index(v) for v in REFERENCE_SAFE), base=base,
                 feature_sets=sets, runner_sets=RUNNER_SETS)


# -- fast float evaluation for the search ------------------------------------
_LADDER = np.array(REFERENCE_LADDER, dtype=float)
_SAFE = {REFERENCE_LADDER.index(v) for v in REFERENCE_SAFE}
_SEG_OF = [SEGMENTS.index(s) for s in RUNNER_SETS]


def _figures(c: Counts) -> tuple[float, float, float, float]:
    """(rtp, sd, p_max, hit) from counts, in floats."""
    L, F = BASE_LENGTH, FEATURE_LENGTH
    p = [g / L for g in c.base_gold]
    p12 = p[0] * p[1]
    top = len(_LADDER) - 1
    a = np.empty(top)
    s = np.empty(top)
    co = np.empty(top)
    for r in range(top):
        seg = SEGMENTS[_SEG_OF[r]]
        g = [x / F for x in c.gold[seg]]
        ns = [1 - x / F for x in c.slag[seg]]
        a[r] = g[0] * g[1] * g[2]
        s[r] = 1 - ns[0] * ns[1] * ns[2]
        co[r] = ns[0] * ns[1] * c.coal[seg] / F if r not in _SAFE else 0.0
    m = np.zeros((top, top))
    for r in range(top):
        m[r, r] = s[r] + a[r] + co[r]
        if r + 1 < top:
            m[r, r + 1] = -a[r]
        if co[r]:
            m[r, r - 1] = -co[r]
    e0 = np.zeros(top)
    e0[0] = 1
    visits = np.linalg.solve(m.T, e0)
    end = np.append(visits * s, visits[-1] * a[-1])
    t = p12 * p[2]
    rtp = p12 * (1 - p[2]) + t * float(end @ _LADDER)
    m2 = p12 * (1 - p[2]) + t * float(end @ _LADDER ** 2)
    return rtp, math.sqrt(max(m2 - rtp * rtp, 0.0)), t * end[-1], p12


@dataclass(frozen=True)
class Targets:
    rtp: float
    p_max: float | None = 1e-5
    hit: float = 0.1701
    sd: tuple[float, float] = (9.6, 13.4)
    """Stay inside volatility level 7 ([9, 14)) with a margin."""


def _score(c: Counts, t: Targets, fixed_base: bool) -> float:
    rtp, sd, pmax, hit = _figures(c)
    score = (abs(rtp - t.rtp) / 1e-6) ** 2
    if t.p_max is not None and pmax > 0:
        score += (math.log(pmax / t.p_max) / 0.005) ** 2
    elif pmax <= 0:
        score += 1e12
    if not fixed_base:
        score += ((hit - t.hit) / 0.0005) ** 2
    lo, hi = t.sd
    if sd < lo:
        score += ((lo - sd) / 0.05) ** 2 * 100
    if sd > hi:
        score += ((sd - hi) / 0.05) ** 2 * 100
    return score


def _valid(c: Counts) -> bool:
    for i in range(3):
        if not (1 <= c.base_gold[i] and c.base_gold[i] + c.base_slag[i] <= BASE_LENGTH and c.base_slag[i] >= 0):
            return False
    for seg in SEGMENTS:
        for i in range(3):
            used = c.gold[seg][i] + c.slag[seg][i] + (c.coal[seg] if i == 2 else 0)
            if c.gold[seg][i] < 1 or c.slag[seg][i] < 0 or used > FEATURE_LENGTH:
                return False
        if c.coal[seg] < 0:
            return False
    return True


def _neighbours(c: Counts, fixed_base: bool):
    fields = []
    if not fixed_base:
        fields += [("base_gold", None, i) for i in range(3)]
    for seg in SEGMENTS:
        fields += [("gold", seg, i) for i in range(3)] + [("slag", seg, i) for i in range(3)] + [("coal", seg, None)]
    for f in fields:
        for d in (-1, 1):
            n = c.copy()
            target = getattr(n, f[0])
            if f[1] is None:
                target[f[2]] += d
            elif f[2] is None:
                target[f[1]] += d
            else:
                target[f[1]][f[2]] += d
            if _valid(n):
                yield n


def starting_counts() -> Counts:
    """A hand-made starting point: a generous low ladder, a harsh top segment."""
    return Counts(
        base_gold=[24, 25, 4], base_slag=[6, 6, 8],
        gold={"low": [45, 45, 40], "lower_mid": [42, 42, 40], "upper_mid": [40, 40, 36], "high": [36, 36, 30]},
        slag={"low": [2, 2, 3], "lower_mid": [3, 3, 4], "upper_mid": [4, 4, 6], "high": [7, 7, 9]},
        coal={"low": 4, "lower_mid": 6, "upper_mid": 6, "high": 6},
    )


def calibrate(targets: Targets, start: Counts | None = None, fixed_base: bool = False,
              max_rounds: int = 4000) -> Counts:
    """Integer hill-climb (best single or paired move) from ``start`` toward ``targets``."""
    c = (start or starting_counts()).copy()
    best = _score(c, targets, fixed_base)
    for _ in range(max_rounds):
        improved = False
        candidates = list(_neighbours(c, fixed_base))
        scored = sorted(((_score(n, targets, fixed_base), i) for i, n in enumerate(candidates)))
        if scored and scored[0][0] < best:
            best, c = scored[0][0], candidates[scored[0][1]]
            improved = True
        else:
            # pairs of moves: the first move from the best few singles, then any single
            for _, i in scored[:12]:
                for n2 in _neighbours(candidates[i], fixed_base):
                    s2 = _score(n2, targets, fixed_base)
                    if s2 < best:
                        best, c, improved = s2, n2, True
                        break
                if improved:
                    break
        if not improved:
            break
    return c


def describe(build: Build) -> dict[str, float]:
    """The exact figures of a build, as floats, for printing."""
    r = exact(build)
    return {"rtp": float(r.rtp), "hit_rate": float(r.hit_rate), "p_max": float(r.max_win_probability),
            "one_in": float(1 / r.max_win_probability) if r.max_win_probability else float("inf"),
            "sd": math.sqrt(float(r.variance)), "trigger_one_in": float(1 / r.trigger)}
