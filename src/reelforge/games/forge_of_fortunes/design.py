"""Calibration of the Forge of Fortunes builds (rerunnable, deterministic).

The rules fix what the symbols do; a build chooses strip contents. This module
searches integer symbol counts for the base strips and one feature strip set
per ladder segment (the runners between safe runners) so that the exact
mathematics meets the targets: RTP, probability of the 2500x event, hit rate
and the volatility band. ``reelforge tune forge-of-fortunes`` calls
:func:`calibrate` and writes the build file; the shipped builds are its output.

Search: a continuous optimum is found first on the segment probabilities,
rounded to strip counts, then the project's generic tuner
(:mod:`reelforge.core.tuning`) climbs over the integer counts on the exact
figures (floats during the climb, Fractions for the final check) and closes
the RTP gap below 0.001 percentage points.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from reelforge.core.tuning import Param, TuningSpace, staged_climb
from reelforge.games.forge_of_fortunes.build import (
    BLANK,
    COAL,
    FILES,
    GOLD,
    REFERENCE_LADDER,
    REFERENCE_SAFE,
    SLAG,
    STRIPS_NOTE,
    Build,
    StripSet,
)
from reelforge.games.forge_of_fortunes.exact import exact

SEGMENTS = ("2x-3x", "5x-8x", "10x-15x", "20x-30x", "50x-75x", "100x-200x", "500x-1000x")
"""Feature strip sets: one per pair of consecutive runners below the top."""
RUNNER_SETS = tuple(SEGMENTS[r // 2] for r in range(len(REFERENCE_LADDER) - 1))
BASE_LENGTH = 100
FEATURE_LENGTH = 100
BASE_GOLD = (37, 46, 15)
"""Base reels 1..3 GOLD counts: hit rate 37*46/100^2 = 17.02%, trigger 1 in 39.2."""
BASE_SLAG = (8, 8, 10)


@dataclass
class Counts:
    """Integer symbol counts of the feature strips (the base strips are fixed)."""

    gold: dict[str, list[int]]           # per segment, reels 1..3
    slag: dict[str, list[int]]
    coal: dict[str, int]                 # reel 3 only

    def copy(self) -> "Counts":
        return Counts({k: list(v) for k, v in self.gold.items()},
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
    base = StripSet(tuple(spread(BASE_LENGTH, {GOLD: BASE_GOLD[i], SLAG: BASE_SLAG[i]})
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
_SAFE = {REFERENCE_LADDER.index(v) for v in REFERENCE_SAFE}
_TOP = len(REFERENCE_LADDER) - 1
_SEG_INDEX = [SEGMENTS.index(s) for s in RUNNER_SETS]
_P12 = BASE_GOLD[0] * BASE_GOLD[1] / BASE_LENGTH**2
_P3 = BASE_GOLD[2] / BASE_LENGTH


def _walk(a: list[float], s: list[float], co: list[float]) -> tuple[float, float, float]:
    """(rtp, sd, p_max) from per-runner advance / slag / coal probabilities.

    Plain Python floats in a fixed order of operations (a tridiagonal solve by
    elimination): the search compares candidates whose costs differ in the last
    digits, so its path must not depend on the machine's BLAS kernels."""
    n = _TOP
    co = [0.0 if r in _SAFE else co[r] for r in range(n)]
    # visits solve (I - Q)^T x = e0; (I - Q) has diagonal s + a + co, -a above, -coal below
    diag = [s[r] + a[r] + co[r] for r in range(n)]
    below = [0.0] + [-a[r - 1] for r in range(1, n)]         # (I - Q)^T[r, r - 1]
    above = [-co[r + 1] for r in range(n - 1)] + [0.0]       # (I - Q)^T[r, r + 1]
    rhs = [1.0] + [0.0] * (n - 1)
    for r in range(1, n):
        f = below[r] / diag[r - 1]
        diag[r] -= f * above[r - 1]
        rhs[r] -= f * rhs[r - 1]
    visits = [0.0] * n
    visits[-1] = rhs[-1] / diag[-1]
    for r in range(n - 2, -1, -1):
        visits[r] = (rhs[r] - above[r] * visits[r + 1]) / diag[r]
    end = [visits[r] * s[r] for r in range(n)] + [visits[-1] * a[-1]]
    t = _P12 * _P3
    pay = pay2 = 0.0
    for e, x in zip(end, REFERENCE_LADDER):
        pay += e * x
        pay2 += e * x * x
    rtp = _P12 * (1 - _P3) + t * pay
    m2 = _P12 * (1 - _P3) + t * pay2
    return rtp, math.sqrt(max(m2 - rtp * rtp, 0.0)), t * end[-1]


def _figures(c: Counts) -> tuple[float, float, float]:
    F = FEATURE_LENGTH
    a, s, co = [], [], []
    for seg in SEGMENTS:
        g = [x / F for x in c.gold[seg]]
        ns = [1 - x / F for x in c.slag[seg]]
        a.append(g[0] * g[1] * g[2])
        s.append(1 - ns[0] * ns[1] * ns[2])
        co.append(ns[0] * ns[1] * c.coal[seg] / F)
    return _walk(*_per_runner(a, s, co))


def _per_runner(*per_segment: list[float]) -> list[list[float]]:
    return [[seg_values[k] for k in _SEG_INDEX] for seg_values in per_segment]


@dataclass(frozen=True)
class Targets:
    rtp: float
    p_max: float = 1e-5
    sd: float = 11.5
    """Middle of volatility level 7 ([9, 14))."""


def continuous_start(t: Targets) -> Counts:
    """Solve for per-segment probabilities, then round them to strip counts.

    The fit is ill-conditioned (many strips give the same figures), so it runs
    in plain Python floats (:func:`_least_squares`): every machine finds the
    same start, and so the same build."""
    K = len(SEGMENTS)

    def unpack(x: list[float]) -> tuple[list[float], list[float], list[float]]:
        a = x[:K]
        s = [x[K + k] * (0.97 - a[k]) for k in range(K)]
        return a, s, [x[2 * K + k] * (0.97 - a[k] - s[k]) for k in range(K)]

    def residuals(x: list[float]) -> list[float]:
        a, s, co = unpack(x)
        rtp, sd, pmax = _walk(*_per_runner(a, s, co))
        return ([(rtp - t.rtp) / 1e-4, math.log(pmax / t.p_max) / 1e-3, (sd - t.sd) / 0.3]
                + [0.01 * (v - 0.6) for v in a] + [0.01 * (v - 0.3) for v in x[2 * K:]])

    lo = [0.15] * K + [0.04] * K + [0.05] * K
    hi = [0.9] * K + [0.95] * K + [0.9] * K
    a, s, co = unpack(_least_squares(residuals, [0.5] * K + [0.3] * K + [0.3] * K, lo, hi))
    F = FEATURE_LENGTH
    gold, slag, coal = {}, {}, {}
    for k, seg in enumerate(SEGMENTS):
        g = round(F * a[k] ** (1 / 3))
        per_reel_slag = 1 - (1 - s[k]) ** (1 / 3)
        sl = [max(0, round(F * per_reel_slag))] * 3
        gold[seg] = [g, g, g]
        slag[seg] = sl
        coal[seg] = max(0, min(F - g - sl[2], round(F * co[k] / (1 - sl[0] / F) ** 2)))
    return Counts(gold, slag, coal)


def _least_squares(f: Callable[[list[float]], list[float]], x: list[float], lo: list[float],
                   hi: list[float], iterations: int = 500) -> list[float]:
    """Levenberg-Marquardt in the box ``lo..hi``: a variable on a bound that the
    gradient pushes outward is held there (an active set), the others step freely."""
    n = len(x)
    r = f(x)
    cost = sum(v * v for v in r)
    damping = 1e-3
    for _ in range(iterations):
        columns = []
        for i in range(n):
            h = 1e-7 * max(1.0, abs(x[i]))
            xi = list(x)
            xi[i] = x[i] + h if x[i] + h <= hi[i] else x[i] - h
            columns.append([(u - v) / (xi[i] - x[i]) for u, v in zip(f(xi), r)])
        grad = [sum(c * v for c, v in zip(col, r)) for col in columns]
        free = [i for i in range(n)
                if not (x[i] <= lo[i] and grad[i] > 0) and not (x[i] >= hi[i] and grad[i] < 0)]
        normal = [[sum(p * q for p, q in zip(columns[i], columns[j])) for j in free] for i in free]
        while damping < 1e12:
            lhs = [[normal[a][b] + (damping * (1 + normal[a][a]) if a == b else 0.0) for b in range(len(free))]
                   for a in range(len(free))]
            step = _solve(lhs, [-grad[i] for i in free])
            trial = list(x)
            for k, i in enumerate(free):
                trial[i] = min(hi[i], max(lo[i], x[i] + step[k]))
            rt = f(trial)
            ct = sum(v * v for v in rt)
            if ct < cost:
                break
            damping *= 4
        else:
            break
        converged = cost - ct <= 1e-14 * cost
        x, r, cost, damping = trial, rt, ct, max(damping / 4, 1e-12)
        if converged:
            break
    return x


def _solve(m: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting, in plain floats."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(m[i][c]))
        m[c], m[p] = m[p], m[c]
        for i in range(c + 1, n):
            f = m[i][c] / m[c][c]
            if f:
                m[i] = [u - f * v for u, v in zip(m[i], m[c])]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def _values(c: Counts) -> dict[str, int]:
    v = {}
    for seg in SEGMENTS:
        for i in range(3):
            v[f"{seg}.gold.{i + 1}"] = c.gold[seg][i]
            v[f"{seg}.slag.{i + 1}"] = c.slag[seg][i]
        v[f"{seg}.coal"] = c.coal[seg]
    return v


def _counts(v: dict[str, int]) -> Counts:
    return Counts({seg: [v[f"{seg}.gold.{i}"] for i in (1, 2, 3)] for seg in SEGMENTS},
                  {seg: [v[f"{seg}.slag.{i}"] for i in (1, 2, 3)] for seg in SEGMENTS},
                  {seg: v[f"{seg}.coal"] for seg in SEGMENTS})


def tuning_space(targets: Targets) -> TuningSpace:
    """The feature strips' symbol counts as the generic tuner's free parameters.

    Candidates are measured with the exact Markov-chain figures (in floats while
    searching; :func:`exact` re-checks the result in rational arithmetic).
    """
    F = FEATURE_LENGTH
    params = []
    for seg in SEGMENTS:
        params += [Param(f"{seg}.gold.{i}", 1, F) for i in (1, 2, 3)]
        params += [Param(f"{seg}.slag.{i}", 0, F) for i in (1, 2, 3)]
        params.append(Param(f"{seg}.coal", 0, F))

    def measure(c: Counts) -> dict[str, float]:
        rtp, sd, pmax = _figures(c)
        return {"rtp": rtp, "sd": sd, "p_max": pmax}

    return TuningSpace(
        params=params, start=_values(continuous_start(targets)), make_build=_counts, measure=measure,
        tolerances={"rtp": 1e-6, "p_max": 0.02},
        valid=lambda v: _valid(_counts(v)),
        # volatility level 7 with a margin, and the max-event odds inside +-3%
        bands={"sd": (9.5, 13.5), "p_max": (targets.p_max * 0.97, targets.p_max * 1.03)},
    )


def _valid(c: Counts) -> bool:
    for seg in SEGMENTS:
        for i in range(3):
            used = c.gold[seg][i] + c.slag[seg][i] + (c.coal[seg] if i == 2 else 0)
            if c.gold[seg][i] < 1 or c.slag[seg][i] < 0 or used > FEATURE_LENGTH:
                return False
        if c.coal[seg] < 0:
            return False
    return True


def calibrate(targets: Targets) -> Counts:
    """Generic tuner from the continuous start: RTP tolerance tightened 1e-4 -> 1e-5 -> 1e-6."""
    space = tuning_space(targets)
    values = staged_climb(space, {"rtp": targets.rtp, "p_max": targets.p_max}, "rtp", (1e-4, 1e-5, 1e-6))
    return _counts(values)


def describe(build: Build) -> dict[str, float]:
    """The exact figures of a build, as floats, for printing."""
    r = exact(build)
    return {"rtp": float(r.rtp), "hit_rate": float(r.hit_rate), "p_max": float(r.max_win_probability),
            "one_in": float(1 / r.max_win_probability) if r.max_win_probability else float("inf"),
            "sd": math.sqrt(float(r.variance)), "trigger_one_in": float(1 / r.trigger)}


HEADER = ("Forge of Fortunes build, written by `reelforge tune forge-of-fortunes` "
          "(games/forge_of_fortunes/design.py).\n" + STRIPS_NOTE)


def build_toml(build: Build, counts_note: str = "") -> str:
    """The build file the loader reads (the shared writer, :mod:`reelforge.game.buildfile`)."""
    return FILES.text(build, HEADER + (f"\n{counts_note}" if counts_note else ""))


def tune(name: str, rtp: Fraction, p_max: float = 1e-5, sd: float = 11.5) -> Build:
    """Calibrate a build for ``rtp`` (a fraction, e.g. 0.962) and return it."""
    counts = calibrate(Targets(rtp=float(rtp), p_max=p_max, sd=sd))
    return counts_to_build(counts, name, Fraction(rtp))
