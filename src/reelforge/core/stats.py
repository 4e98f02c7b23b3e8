"""Mergeable round statistics and the figures derived from them.

Wins are counted in integer *win units*: a build declares how many units make
one total bet (``unit``), so every win is an exact integer and sums, sums of
squares and histograms merge exactly: ``a.merge(b)`` equals one run over both.

Kernels fill a :class:`Tally` (flat int64 arrays) per chunk of rounds; the
Python side turns it into an :class:`Accumulator`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

Z99 = 2.5758293035489004
"""Two-sided 99% normal quantile."""

BUCKET_EDGES_X: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100, 500, 1000)
"""Inner edges (multiples of total bet) of the GAMES.md win distribution."""

BUCKET_LABELS: tuple[str, ...] = (
    "0", "(0,1)", "[1,2)", "[2,5)", "[5,10)", "[10,20)", "[20,50)",
    "[50,100)", "[100,500)", "[500,1000)", "[1000,cap)", "cap",
)
N_BUCKETS = len(BUCKET_LABELS)

VOLATILITY_SD_FROM: tuple[float, ...] = (0, 1, 1.5, 2.5, 4, 6, 9, 14, 20, 30)
"""Volatility level k (1..10) starts at SD ``VOLATILITY_SD_FROM[k-1]`` (x total bet)."""

# Layout of Tally.totals (kept in one int64 array so kernels touch one buffer). The sums of the
# third and fourth powers of the round win (for the SD's interval) are kept exactly in two limbs
# each (value = hi * 2**62 + lo; see :mod:`reelforge.mechanics.tally`).
T_ROUNDS, T_HITS, T_WIN, T_WIN_SQ, T_MAX, T_MAX_COUNT, T_W3_LO, T_W3_HI, T_W4_LO, T_W4_HI = range(10)
N_TOTALS = 10
LIMB = 1 << 62
MAX_CAP_UNITS = 1 << 20
"""Largest round cap (win units) the kernels' exact power sums support (every round win is at most the cap)."""


def volatility_level(sd: float) -> int:
    """The project's 1-10 volatility level for a round-win SD (x total bet)."""
    level = 1
    for k, start in enumerate(VOLATILITY_SD_FROM, start=1):
        if sd >= start:
            level = k
    return level


def bucket_edges_units(unit: int) -> np.ndarray:
    """Inner bucket edges in win units, for kernels (see :func:`bucket_index`)."""
    return np.array([e * unit for e in BUCKET_EDGES_X], dtype=np.int64)


def bucket_index(win, edges, cap) -> int:
    """Win-distribution bucket of one round win: 0 for no win, the last for the cap, else one plus the
    number of inner ``edges`` at or below the win.

    The one definition of the buckets: the exact mathematics calls it with Fractions (x bet, edges
    :data:`BUCKET_EDGES_X`), the Python tallies with win units (:func:`bucket_edges_units`), and the
    kernels run this same function compiled by numba (:func:`reelforge.mechanics.tally.tally_round`)."""
    if win <= 0:
        return 0
    if win >= cap:
        return N_BUCKETS - 1
    b = 1
    for e in edges:
        b += win >= e  # counted, not branched on (the edges are sorted): the kernels' hot loop
    return b


def buckets(cap_x: float) -> list[tuple[int, str, float, float]]:
    """``(index, label, from, to)`` (x total bet) of every bucket a round win can fall in under a cap of
    ``cap_x``: a band at or above the cap (a cap of 1,000x or less) holds no round and is left out, and the
    last band below the cap ends at it. ``index`` is the bucket's place in a histogram (:func:`bucket_index`)."""
    cap = float(cap_x)
    out = []
    for i, (label, (lo, hi)) in enumerate(zip(BUCKET_LABELS, bucket_bounds(cap_x), strict=True)):
        if i in (0, N_BUCKETS - 1) or lo < cap:
            out.append((i, label, lo, hi if i in (0, N_BUCKETS - 1) else min(hi, cap)))
    return out


def bucket_bounds(cap_x: float) -> list[tuple[float, float]]:
    """``(from, to)`` of every bucket, x total bet: ``(0, 0)`` for no win, ``(cap, cap)`` for the cap."""
    inner = [0.0, *map(float, BUCKET_EDGES_X), float(cap_x)]
    return [(0.0, 0.0), *zip(inner[:-1], inner[1:]), (float(cap_x), float(cap_x))]


@dataclass
class Tally:
    """Raw int64 buffers a kernel fills for one chunk of rounds."""

    totals: np.ndarray
    components: np.ndarray
    hist: np.ndarray
    counters: np.ndarray

    @classmethod
    def empty(cls, n_components: int, n_counters: int) -> "Tally":
        """Zeroed buffers; ``components`` holds each component's sum, then its sum of squares."""
        totals = np.zeros(N_TOTALS, dtype=np.int64)
        return cls(
            totals=totals,
            components=np.zeros(2 * n_components, dtype=np.int64),
            hist=np.zeros(N_BUCKETS, dtype=np.int64),
            counters=np.zeros(max(n_counters, 1), dtype=np.int64),
        )


@dataclass
class Accumulator:
    """Everything needed for the Game Rules Summary, merged exactly."""

    unit: int
    """Win units per total bet."""
    cap_units: int
    """The round cap (max win) in win units."""
    stake_units: int
    """What one round costs in win units (``unit`` for paid rounds, the price for a buy)."""
    component_names: tuple[str, ...]
    counter_names: tuple[str, ...] = ()
    rounds: int = 0
    hits: int = 0
    win: int = 0
    win_sq: int = 0
    max_win: int = 0
    max_count: int = 0
    components: list[int] = field(default_factory=list)
    hist: list[int] = field(default_factory=list)
    counters: list[int] = field(default_factory=list)
    win_cube: int = 0
    """Sum of the cubed round wins (win units^3), exact."""
    win_quad: int = 0
    """Sum of the round wins to the fourth power, exact (the SD's interval needs it)."""
    component_sq: list[int] = field(default_factory=list)
    """Per component, the sum over rounds of its squared per-round win (the split's intervals)."""

    def __post_init__(self) -> None:
        if self.cap_units >= MAX_CAP_UNITS:
            raise ValueError(f"a round cap of {self.cap_units} win units is beyond the kernels' exact power sums "
                             f"(at most {MAX_CAP_UNITS - 1})")
        if not self.components:
            self.components = [0] * len(self.component_names)
        if not self.component_sq:
            self.component_sq = [0] * len(self.component_names)
        if not self.hist:
            self.hist = [0] * N_BUCKETS
        if not self.counters:
            self.counters = [0] * len(self.counter_names)
        self._edges = bucket_edges_units(self.unit)

    # -- filling ---------------------------------------------------------
    def add_round(self, components: list[int] | tuple[int, ...], counters: dict[str, int] | None = None) -> None:
        """Add one round given its win per component (win units)."""
        w = int(sum(components))
        self.rounds += 1
        self.win += w
        self.win_sq += w * w
        self.win_cube += w ** 3
        self.win_quad += w ** 4
        if w > 0:
            self.hits += 1
        for i, c in enumerate(components):
            self.components[i] += int(c)
            self.component_sq[i] += int(c) * int(c)
        self.hist[bucket_index(w, self._edges, self.cap_units)] += 1
        if w > self.max_win:
            self.max_win, self.max_count = w, 1
        elif w == self.max_win and w > 0:
            self.max_count += 1
        for name, value in (counters or {}).items():
            self.counters[self.counter_names.index(name)] += int(value)

    def add_tally(self, tally: Tally) -> None:
        """Merge a kernel's chunk tally."""
        t = [int(v) for v in tally.totals]
        nc = len(self.component_names)
        comps = [int(v) for v in tally.components[:nc]]
        comp_sq = [int(v) for v in tally.components[nc: 2 * nc]]
        quad = t[T_W4_HI] * LIMB + t[T_W4_LO]
        if (t[T_HITS] and not quad) or any(c and not q for c, q in zip(comps, comp_sq)):
            # numba's cache does not notice a change in an inlined helper of another module
            raise RuntimeError("the kernel left the power sums empty: its numba cache predates the tally layout; "
                               "delete the __pycache__ folders under src/reelforge and run again")
        other = Accumulator(
            unit=self.unit, cap_units=self.cap_units, stake_units=self.stake_units,
            component_names=self.component_names, counter_names=self.counter_names,
            rounds=t[T_ROUNDS], hits=t[T_HITS], win=t[T_WIN], win_sq=t[T_WIN_SQ],
            max_win=t[T_MAX], max_count=t[T_MAX_COUNT],
            win_cube=t[T_W3_HI] * LIMB + t[T_W3_LO], win_quad=quad, component_sq=comp_sq,
            components=comps,
            hist=[int(v) for v in tally.hist],
            counters=[int(v) for v in tally.counters[: len(self.counter_names)]],
        )
        self.merge_in(other)

    def merge_in(self, other: "Accumulator") -> None:
        """Add ``other`` into this accumulator (exact)."""
        if (other.unit, other.cap_units, other.stake_units, other.component_names, other.counter_names) != (
            self.unit, self.cap_units, self.stake_units, self.component_names, self.counter_names
        ):
            raise ValueError("cannot merge statistics of different builds or modes")
        self.rounds += other.rounds
        self.hits += other.hits
        self.win += other.win
        self.win_sq += other.win_sq
        self.win_cube += other.win_cube
        self.win_quad += other.win_quad
        if other.max_win > self.max_win:
            self.max_win, self.max_count = other.max_win, other.max_count
        elif other.max_win == self.max_win:
            self.max_count += other.max_count
        self.components = [a + b for a, b in zip(self.components, other.components)]
        self.component_sq = [a + b for a, b in zip(self.component_sq, other.component_sq)]
        self.hist = [a + b for a, b in zip(self.hist, other.hist)]
        self.counters = [a + b for a, b in zip(self.counters, other.counters)]

    def merge(self, other: "Accumulator") -> "Accumulator":
        """A new accumulator holding both."""
        out = self.copy()
        out.merge_in(other)
        return out

    def copy(self) -> "Accumulator":
        return Accumulator(
            unit=self.unit, cap_units=self.cap_units, stake_units=self.stake_units,
            component_names=self.component_names, counter_names=self.counter_names,
            rounds=self.rounds, hits=self.hits, win=self.win, win_sq=self.win_sq,
            max_win=self.max_win, max_count=self.max_count,
            components=list(self.components), hist=list(self.hist), counters=list(self.counters),
            win_cube=self.win_cube, win_quad=self.win_quad, component_sq=list(self.component_sq),
        )

    def key(self) -> tuple:
        """Everything that must be identical for two runs to be 'the same totals'."""
        return (self.rounds, self.hits, self.win, self.win_sq, self.max_win, self.max_count,
                tuple(self.components), tuple(self.hist), tuple(self.counters),
                self.win_cube, self.win_quad, tuple(self.component_sq))

    # -- derived figures -------------------------------------------------
    @property
    def total_stake(self) -> int:
        return self.rounds * self.stake_units

    @property
    def rtp(self) -> float:
        return self.win / self.total_stake if self.rounds else float("nan")

    @property
    def rtp_exact(self) -> Fraction:
        return Fraction(self.win, self.total_stake)

    @property
    def sd(self) -> float:
        """SD of one round's win, in units of total bet."""
        if self.rounds < 2:
            return float("nan")
        n = self.rounds
        var_units = (self.win_sq - self.win * self.win / n) / (n - 1)
        return math.sqrt(max(var_units, 0.0)) / self.unit

    def rtp_ci99(self) -> tuple[float, float]:
        """99% normal interval of the RTP (win per stake)."""
        if self.rounds < 2:
            return (float("nan"), float("nan"))
        half = Z99 * self.sd * self.unit / self.stake_units / math.sqrt(self.rounds)
        return (self.rtp - half, self.rtp + half)

    def sd_ci99(self) -> tuple[float, float]:
        """99% interval of the round-win SD (x total bet) by the delta method with the fourth moment:
        Var(s^2) ~ (m4 - m2^2) / n, and SE(s) = SE(s^2) / (2 s)."""
        n = self.rounds
        if n < 2 or self.win_sq == 0:
            return (float("nan"), float("nan"))
        mean = Fraction(self.win, n)
        m2 = Fraction(self.win_sq, n) - mean ** 2
        m4 = (Fraction(self.win_quad, n) - 4 * mean * Fraction(self.win_cube, n)
              + 6 * mean ** 2 * Fraction(self.win_sq, n) - 3 * mean ** 4)
        var_s2 = max(float(m4 - m2 * m2) / n, 0.0)
        s = self.sd
        half = Z99 * math.sqrt(var_s2) / (2 * s * self.unit) / self.unit
        return (max(0.0, s - half), s + half)

    def component_rtp_ci99(self) -> dict[str, tuple[float, float]]:
        """99% normal interval of each component's RTP contribution (from its per-round second moment)."""
        out = {}
        n = self.rounds
        for name, c, csq in zip(self.component_names, self.components, self.component_sq):
            if n < 2:
                out[name] = (float("nan"), float("nan"))
                continue
            var = max((csq - c * c / n) / (n - 1), 0.0)
            half = Z99 * math.sqrt(var / n) / self.stake_units
            point = c / self.total_stake
            out[name] = (max(0.0, point - half), point + half)
        return out

    def rate_ci99(self, count: int) -> tuple[float, float]:
        """Wilson 99% interval of a per-round frequency ``count / rounds``."""
        return wilson_ci(count, self.rounds)

    @property
    def hit_rate(self) -> float:
        return self.hits / self.rounds if self.rounds else float("nan")

    def counter(self, name: str) -> int:
        return self.counters[self.counter_names.index(name)]

    def component_rtp(self) -> dict[str, float]:
        return {n: (c / self.total_stake if self.rounds else float("nan"))
                for n, c in zip(self.component_names, self.components)}

    def distribution(self) -> list[dict]:
        """Win distribution buckets as ``{"from", "to", "probability"}`` (x total bet)."""
        return [{"bucket": label, "from": lo, "to": hi, "count": int(self.hist[i]),
                 "probability": self.hist[i] / self.rounds if self.rounds else 0.0}
                for i, label, lo, hi in buckets(self.cap_units / self.unit)]


def volatility_levels(sd_lo: float, sd_hi: float) -> list[int]:
    """The volatility levels an SD interval spans (every level from the lower end's to the upper's)."""
    if math.isnan(sd_lo) or math.isnan(sd_hi):
        return []
    return list(range(volatility_level(sd_lo), volatility_level(sd_hi) + 1))


def clopper_pearson(count: int, n: int, confidence: float = 0.99) -> tuple[float, float]:
    """Exact (Clopper-Pearson) binomial interval for ``count`` successes in ``n`` trials."""
    from scipy.stats import beta

    if n == 0:
        return (float("nan"), float("nan"))
    a = (1 - confidence) / 2
    lo = 0.0 if count == 0 else float(beta.ppf(a, count, n - count + 1))
    hi = 1.0 if count == n else float(beta.ppf(1 - a, count + 1, n - count))
    return (lo, hi)


def rule_of_three(n: int) -> float:
    """The 95% upper bound 3/n of a probability never observed in ``n`` trials."""
    return 3 / n


def never_observed_upper99(n: int) -> float:
    """The one-sided 99% upper bound -ln(0.01)/n (about 4.6/n) of a probability never observed in ``n`` trials:
    the p at which ``n`` trials all miss with probability 1%."""
    return -math.log(0.01) / n


def mean_ci99(total: int, total_sq: int, n: int) -> tuple[float, float]:
    """99% normal interval of a mean per item from its sum and sum of squares over ``n`` items."""
    if n < 2:
        return (float("nan"), float("nan"))
    mean = total / n
    var = max((total_sq - total * total / n) / (n - 1), 0.0)
    half = Z99 * math.sqrt(var / n)
    return (mean - half, mean + half)


def wilson_ci(count: int, n: int, z: float = Z99) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = count / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # exact ends: at count 0 (or n) centre - half (or centre + half) is 0 (or 1) only up to rounding
    lo = 0.0 if count == 0 else max(0.0, centre - half)
    hi = 1.0 if count == n else min(1.0, centre + half)
    return (lo, hi)
