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

# Layout of Tally.totals (kept in one int64 array so kernels touch one buffer).
T_ROUNDS, T_HITS, T_WIN, T_WIN_SQ, T_MAX, T_MAX_COUNT = range(6)
N_TOTALS = 6


def volatility_level(sd: float) -> int:
    """The project's 1-10 volatility level for a round-win SD (x total bet)."""
    level = 1
    for k, start in enumerate(VOLATILITY_SD_FROM, start=1):
        if sd >= start:
            level = k
    return level


def bucket_edges_units(unit: int) -> np.ndarray:
    """Inner bucket edges in win units, for kernels (see :func:`bucket_of`)."""
    return np.array([e * unit for e in BUCKET_EDGES_X], dtype=np.int64)


def bucket_of(win_units: int, edges_units: np.ndarray, cap_units: int) -> int:
    """Histogram bucket of one round win (pure Python twin of the kernels' loop)."""
    if win_units == 0:
        return 0
    if win_units >= cap_units:
        return N_BUCKETS - 1
    b = 1
    for e in edges_units:
        if win_units >= e:
            b += 1
    return b


@dataclass
class Tally:
    """Raw int64 buffers a kernel fills for one chunk of rounds."""

    totals: np.ndarray
    components: np.ndarray
    hist: np.ndarray
    counters: np.ndarray

    @classmethod
    def empty(cls, n_components: int, n_counters: int) -> "Tally":
        totals = np.zeros(N_TOTALS, dtype=np.int64)
        return cls(
            totals=totals,
            components=np.zeros(n_components, dtype=np.int64),
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

    def __post_init__(self) -> None:
        if not self.components:
            self.components = [0] * len(self.component_names)
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
        if w > 0:
            self.hits += 1
        for i, c in enumerate(components):
            self.components[i] += int(c)
        self.hist[bucket_of(w, self._edges, self.cap_units)] += 1
        if w > self.max_win:
            self.max_win, self.max_count = w, 1
        elif w == self.max_win and w > 0:
            self.max_count += 1
        for name, value in (counters or {}).items():
            self.counters[self.counter_names.index(name)] += int(value)

    def add_tally(self, tally: Tally) -> None:
        """Merge a kernel's chunk tally."""
        t = [int(v) for v in tally.totals]
        other = Accumulator(
            unit=self.unit, cap_units=self.cap_units, stake_units=self.stake_units,
            component_names=self.component_names, counter_names=self.counter_names,
            rounds=t[T_ROUNDS], hits=t[T_HITS], win=t[T_WIN], win_sq=t[T_WIN_SQ],
            max_win=t[T_MAX], max_count=t[T_MAX_COUNT],
            components=[int(v) for v in tally.components],
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
        if other.max_win > self.max_win:
            self.max_win, self.max_count = other.max_win, other.max_count
        elif other.max_win == self.max_win:
            self.max_count += other.max_count
        self.components = [a + b for a, b in zip(self.components, other.components)]
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
        )

    def key(self) -> tuple:
        """Everything that must be identical for two runs to be 'the same totals'."""
        return (self.rounds, self.hits, self.win, self.win_sq, self.max_win, self.max_count,
                tuple(self.components), tuple(self.hist), tuple(self.counters))

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
        cap_x = self.cap_units / self.unit
        bounds = [0.0, 0.0] + [float(e) for e in BUCKET_EDGES_X] + [cap_x, cap_x]
        out = []
        for i, label in enumerate(BUCKET_LABELS):
            if i == 0:
                lo, hi = 0.0, 0.0
            elif i == N_BUCKETS - 1:
                lo, hi = cap_x, cap_x
            else:
                lo, hi = bounds[i], bounds[i + 1]
            out.append({"bucket": label, "from": lo, "to": hi,
                        "count": self.hist[i],
                        "probability": self.hist[i] / self.rounds if self.rounds else 0.0})
        return out


def wilson_ci(count: int, n: int, z: float = Z99) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = count / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
