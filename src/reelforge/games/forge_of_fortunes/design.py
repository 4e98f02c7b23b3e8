"""Calibration of the Forge of Fortunes builds (rerunnable, deterministic).

The rules fix what the symbols do; a build chooses strip contents. This module
searches integer symbol counts for the base strips and one feature strip set
per ladder segment (the runners between safe runners) so that the exact
mathematics meets the targets: RTP, probability of the 2500x event, hit rate
and the volatility band. ``reelforge tune forge-of-fortunes`` calls
:func:`calibrate` and writes the build file; the shipped builds are its output.

Search: a continuous optimum is found first on the segment probabilities,
rounded to strip counts, then the project's generic tuner
(:mod:`reelforge.tuning`) climbs over the integer counts on the exact
figures (floats during the climb, Fractions for the final check) and closes
the RTP gap below 0.001 percentage points.
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
from reelforge.tuning import Param, TuningSpace, staged_climb

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
_LADDER = np.array(REFERENCE_LADDER, dtype=float)
_SAFE = {REFERENCE_LADDER.index(v) for v in REFERENCE_SAFE}
_TOP = len(REFERENCE_LADDER) - 1
_SEG_INDEX = np.array([SEGMENTS.index(s) for s in RUNNER_SETS])
_P12 = BASE_GOLD[0] * BASE_GOLD[1] / BASE_LENGTH**2
_P3 = BASE_GOLD[2] / BASE_LENGTH


def _walk(a: np.ndarray, s: np.ndarray, co: np.ndarray) -> tuple[float, float, float]:
    """(rtp, sd, p_max) from per-runner advance / slag / coal probabilities."""
    co = np.where([r in _SAFE for r in range(_TOP)], 0.0, co)
    m = np.diag(s + a + co)
    m[np.arange(_TOP - 1), np.arange(1, _TOP)] = -a[:-1]
    m[np.arange(1, _TOP), np.arange(_TOP - 1)] = -co[1:]
    e0 = np.zeros(_TOP)
    e0[0] = 1
    visits = np.linalg.solve(m.T, e0)
    end = np.append(visits * s, visits[-1] * a[-1])
    t = _P12 * _P3
    rtp = _P12 * (1 - _P3) + t * float(end @ _LADDER)
    m2 = _P12 * (1 - _P3) + t * float(end @ _LADDER ** 2)
    return rtp, math.sqrt(max(m2 - rtp * rtp, 0.0)), t * float(end[-1])


def _figures(c: Counts) -> tuple[float, float, float]:
    F = FEATURE_LENGTH
    a = np.empty(len(SEGMENTS))
    s = np.empty(len(SEGMENTS))
    co = np.empty(len(SEGMENTS))
    for k, seg in enumerate(SEGMENTS):
        g = [x / F for x in c.gold[seg]]
        ns = [1 - x / F for x in c.slag[seg]]
        a[k] = g[0] * g[1] * g[2]
        s[k] = 1 - ns[0] * ns[1] * ns[2]
        co[k] = ns[0] * ns[1] * c.coal[seg] / F
    return _walk(a[_SEG_INDEX], s[_SEG_INDEX], co[_SEG_INDEX])


@dataclass(frozen=True)
class Targets:
    rtp: float
    p_max: float = 1e-5
    sd: float = 11.5
    """Middle of volatility level 7 ([9, 14))."""


def continuous_start(t: Targets) -> Counts:
    """Solve for per-segment probabilities, then round them to strip counts."""
    from scipy.optimize import least_squares

    K = len(SEGMENTS)

    def unpack(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a = x[:K]
        s = x[K:2 * K] * (0.97 - a)
        return a, s, x[2 * K:] * (0.97 - a - s)

    def residuals(x: np.ndarray) -> np.ndarray:
        a, s, co = unpack(x)
        rtp, sd, pmax = _walk(a[_SEG_INDEX], s[_SEG_INDEX], co[_SEG_INDEX])
        return np.concatenate([[(rtp - t.rtp) / 1e-4, math.log(pmax / t.p_max) / 1e-3, (sd - t.sd) / 0.3],
                               0.01 * (a - 0.6), 0.01 * (x[2 * K:] - 0.3)])

    lo = np.array([0.15] * K + [0.04] * K + [0.05] * K)
    hi = np.array([0.9] * K + [0.95] * K + [0.9] * K)
    sol = least_squares(residuals, np.array([0.5] * K + [0.3] * K + [0.3] * K), bounds=(lo, hi))
    a, s, co = unpack(sol.x)
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


def build_toml(build: Build, counts_note: str = "") -> str:
    """Serialise a build as the TOML data file the loader reads."""
    lines = [
        "# Forge of Fortunes build, written by `reelforge tune forge-of-fortunes` (games/forge_of_fortunes/design.py).",
        "# Strips: one character per stop: G Gold Nugget, S Slag, C Coal (feature reel 3 only), - blank.",
    ]
    if counts_note:
        lines.append(f"# {counts_note}")
    lines += [
        'game = "forge-of-fortunes"',
        f'name = "{build.name}"',
        f'rtp = "{float(build.rtp):.6g}"',
        f"coins = {build.coins}",
        f"two_of_a_kind_coins = {build.two_of_a_kind_coins}",
        f"max_stake = {build.max_stake}",
        f"ladder = {list(build.ladder)}",
        f"safe = {[build.ladder[i] for i in sorted(build.safe)]}",
        "",
        "[base]",
        "reels = [",
        *[f'  "{r}",' for r in build.base.reels],
        "]",
        "",
        "[feature]",
        "runner_sets = [",
        *[f'  "{s}",  # runner {i + 1}: {build.ladder[i]}x' for i, s in enumerate(build.runner_sets)],
        "]",
    ]
    for name, ss in build.feature_sets.items():
        lines += ["", f'[feature.sets."{name}"]', "reels = [", *[f'  "{r}",' for r in ss.reels], "]"]
    return "\n".join(lines) + "\n"


def tune(name: str, rtp: Fraction, p_max: float = 1e-5, sd: float = 11.5) -> Build:
    """Calibrate a build for ``rtp`` (a fraction, e.g. 0.962) and return it."""
    counts = calibrate(Targets(rtp=float(rtp), p_max=p_max, sd=sd))
    return counts_to_build(counts, name, Fraction(rtp))
