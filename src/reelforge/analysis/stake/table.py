"""A mode's lookup table: the game's win distribution on Stake's 0.1x grid, one weighted book per payout.

The steps (docs/STAKE.md, "The table is the game"):

1. **Outcomes** (:func:`observe`): the game's kernel plays ``rounds`` rounds in seeded chunks (the chunk
   streams of :mod:`reelforge.analysis.simulate`) and counts every round by (feature triggered or not,
   round win in win units), keeping the random-number state at the start of the first round of each
   (feature, win): any outcome in the distribution can be played again, with its events, by the rules.
2. **The grid** (:func:`on_grid`): a win on the 0.1x grid pays itself. A win between two grid steps
   pays the step below or the step above, with the chances that keep its expected payout (0.15x: 0.1x
   or 0.2x, even chances; 0.13x: 0.2x with chance 3/10): the RTP, the hit rate, the feature frequency
   and the frequency of the top win (on the grid) are unchanged. A win below 0.1x pays 0.1x (no game
   here has one; the RTP it adds is reported).
3. **Anchoring** (:func:`anchor`, optional): where certified figures are more precise than the sample
   (a stratified certification's RTP, an exact hit rate), the probabilities are tilted by minimum
   relative entropy (``p ~ q exp(l . f)``, the smallest change in the information sense) so the
   table's RTP, hit rate, feature frequency and top-win frequency equal them.
4. **Books** (:func:`select` and :func:`spread`): every (feature, payout) gets a book unless fewer books
   are asked; then each cell (feature or not, x the win band of :data:`reelforge.core.stats.BUCKET_LABELS`)
   keeps its smallest and largest payout and the most probable ones, and the probability of a payout
   without a book is shared between the nearest kept payouts below and above in its cell, in the
   proportions that keep its mean: each cell's probability and mean, hence the RTP, hit rate, feature
   frequency and top-win frequency, stay exactly those of step 3.
5. **Weights** (:func:`integer_weights`): unsigned 64-bit integers. Counts stay exact integers (their
   sum is the number of rounds, times 2 where a win was split); anchored or spread probabilities are
   scaled to a total near 2^62 and rounded (a relative error below 1e-15 on any figure).
"""

from __future__ import annotations

import bisect
import math
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit

from reelforge.analysis.simulate import CHUNK_ROUNDS, chunk_seed
from reelforge.core.stats import BUCKET_EDGES_X, Z99, bucket_index
from reelforge.game.contract import Build, Game
from reelforge.game.harness import KernelGame
from reelforge.game.loop import borrowed, round_tables
from reelforge.mechanics.rng import pcg_state

from .format import GRID, U64_MAX

Key = tuple[int, int]
"""(1 if the round triggered the feature else 0, payout in hundredths of the base bet)."""


class TableError(ValueError):
    """A table that cannot be made as asked; the message says why."""


def _observe_loop(st, t, n, mode, cap, fc, parts, counters, counts, states):  # pragma: no cover - numba
    """Play ``n`` rounds; count each by (feature counter moved, win units) and keep the state its first
    occurrence started from."""
    rst = borrowed(st)
    rt = borrowed(t)
    rparts = borrowed(parts)
    rcounters = borrowed(counters)
    nc = parts.shape[0]
    for _ in range(n):
        s0, s1, s2, s3 = st[0], st[1], st[2], st[3]
        before = counters[fc]
        for c in range(nc):
            rparts[c] = 0
        _play_round(rst, rt, mode, cap, rparts, rcounters)  # noqa: F821 - bound per game by _observer
        w = 0
        for c in range(nc):
            w += rparts[c]
        f = 1 if counters[fc] > before else 0
        if counts[f, w] == 0:
            states[f, w, 0] = s0
            states[f, w, 1] = s1
            states[f, w, 2] = s2
            states[f, w, 3] = s3
        counts[f, w] += 1


_OBSERVERS: dict[Any, Callable] = {}


def _observer(game: KernelGame) -> Callable:
    """:func:`_observe_loop` compiled around the game's round function (as the harness's loop is)."""
    loop = type(game).loop
    play_round = getattr(getattr(loop, "py_func", None), "__globals__", {}).get("_play_round")
    if play_round is None:
        raise TableError(f"{game.id}: its kernel loop is written out, not made by kernel_loop around a round "
                         "function, so its rounds cannot be observed one by one")
    if play_round not in _OBSERVERS:
        # bound to the game's kernel module as kernel_loop binds the harness loop: cached beside it, renewed
        # when it changes, one cache entry per round function
        module = sys.modules[loop.py_func.__module__]
        glob = {"_play_round": play_round, "borrowed": borrowed, "__name__": module.__name__}
        fn = types.FunctionType(_observe_loop.__code__.replace(co_filename=module.__file__), glob, "observe_loop")
        fn.__qualname__ = f"stake_observe_loop_{play_round.py_func.__name__}"
        fn.__module__ = module.__name__
        _OBSERVERS[play_round] = njit(cache=True)(fn)
    return _OBSERVERS[play_round]


@dataclass
class Outcomes:
    """A mode's rounds by (feature, win units): how often each was seen and the state one started from."""

    unit: int
    """Win units per base bet."""
    cap_units: int
    rounds: int
    seed: int
    counts: np.ndarray
    """int64 [2, cap_units + 1]: rounds by (feature triggered, win units)."""
    states: np.ndarray
    """uint64 [2, cap_units + 1, 4]: the PCG64 state a round of that outcome started from."""

    def figures(self, cost: Fraction) -> dict[str, Any]:
        """The sample's own RTP (with its 99% interval), hit rate, feature frequency and top-win frequency."""
        n = self.rounds
        by_win = [int(c) for c in self.counts.sum(axis=0)]
        top = max(u for u, c in enumerate(by_win) if c)
        first = sum(u * c for u, c in enumerate(by_win))
        second = sum(u * u * c for u, c in enumerate(by_win))
        rtp = Fraction(first, n * self.unit) / cost
        sd = math.sqrt(max(Fraction(second, n) - Fraction(first, n) ** 2, 0)) / self.unit / float(cost)
        half = Z99 * sd / math.sqrt(n)
        return {"rounds": n, "rtp": float(rtp), "rtp_ci99": [float(rtp) - half, float(rtp) + half],
                "hit_rate": int(self.counts[:, 1:].sum()) / n, "feature_rate": int(self.counts[1].sum()) / n,
                "max_win_x": top / self.unit, "max_win_rate": int(self.counts[:, top].sum()) / n}


def observe(game: Game, build: Build, mode: str, rounds: int, seed: int,
            progress: Callable[[int], None] | None = None) -> Outcomes:
    """``rounds`` rounds of ``mode`` from ``seed`` (chunk ``i`` from :func:`chunk_seed` ``(seed, i)``, as
    ``reelforge simulate`` draws them), counted by (feature, win) with a replayable state per outcome."""
    if not isinstance(game, KernelGame):
        raise TableError(f"{game.id}: not a kernel game: its rounds cannot be observed")
    game.check_mode(mode)
    loop = _observer(game)
    cap = game.cap_units(build)
    counter = game.counter_names(build).index(game.feature_counter) if game.feature_counter else -1
    if counter < 0:
        raise TableError(f"{game.id}: declares no feature counter")
    counts = np.zeros((2, cap + 1), dtype=np.int64)
    states = np.zeros((2, cap + 1, 4), dtype=np.uint64)
    t = round_tables(build, game.make_tables, game.scratch)
    parts = np.zeros(len(game.components), dtype=np.int64)
    counters = np.zeros(max(len(game.counter_names(build)), 1), dtype=np.int64)
    done, index = 0, 0
    while done < rounds:
        n = min(CHUNK_ROUNDS, rounds - done)
        st = pcg_state(np.random.Generator(np.random.PCG64(chunk_seed(seed, index))))
        loop(st, t, n, game.modes.index(mode), cap, counter, parts, counters, counts, states)
        done, index = done + n, index + 1
        if progress:
            progress(done)
    return Outcomes(game.win_unit(build), cap, rounds, seed, counts, states)


@dataclass(frozen=True)
class Source:
    """The round a book plays: its feature flag and win units, and how its win went onto the grid."""

    feature: int
    units: int
    rounding: str
    """``none``, ``down`` or ``up``."""


def grid_shares(h: Fraction) -> list[tuple[int, Fraction, str]]:
    """What a win of ``h`` hundredths of the bet pays on the grid: ``(payout, chance, rounding)`` each."""
    low = math.floor(h / GRID) * GRID
    if h == low:
        return [(low, Fraction(1), "none")]
    if low == 0:
        return [(GRID, Fraction(1), "up")]
    up = (h - low) / GRID
    return [(low, 1 - up, "down"), (low + GRID, up, "up")]


def on_grid(outcomes: Outcomes) -> tuple[dict[Key, Fraction], dict[Key, Source], Fraction]:
    """Each (feature, payout)'s weight on the 0.1x grid (counts, a win between two steps split as the
    module says), a round that shows each payout, and the RTP (x base bet per round) the grid added
    (non-zero only for wins below 0.1x)."""
    mass: dict[Key, Fraction] = {}
    source: dict[Key, Source] = {}
    added = Fraction(0)
    feature, units = np.nonzero(outcomes.counts)
    for f, u in zip(feature.tolist(), units.tolist(), strict=True):
        count = int(outcomes.counts[f, u])
        h = Fraction(u * 100, outcomes.unit)
        shares = grid_shares(h)
        added += count * (sum(p * share for p, share, _ in shares) - h) / 100
        for payout, share, rounding in shares:
            key = (f, payout)
            mass[key] = mass.get(key, Fraction(0)) + count * share
            if key not in source or (rounding == "none" and source[key].rounding != "none"):
                source[key] = Source(f, u, rounding)
    return mass, source, added / outcomes.rounds


ANCHORS = ("rtp", "hit_rate", "feature_rate", "max_win_rate")
"""The figures a table can be anchored to, besides the probability of each win band."""


def anchor(mass: dict[Key, Any], cost: Fraction, targets: dict[str, float], cap_payout: int,
           bands: dict[int, float] | None = None) -> dict[Key, float]:
    """``mass`` tilted by minimum relative entropy so its RTP (x ``cost``), hit rate, feature frequency,
    top-payout frequency and the probability of each win band (``bands``: by index of
    :data:`reelforge.core.stats.BUCKET_LABELS`) equal ``targets`` and ``bands``, as probabilities
    (TableError where no tilt can meet them)."""
    unknown = sorted(set(targets) - set(ANCHORS))
    if unknown:
        raise TableError(f"unknown anchor figure(s) {unknown}: {', '.join(ANCHORS)}")
    keys = list(mass)
    q = np.array([float(mass[k]) for k in keys])
    q /= q.sum()
    top = max(p for _, p in keys)
    columns = {"rtp": [p / 100 / float(cost) for _, p in keys], "hit_rate": [float(p > 0) for _, p in keys],
               "feature_rate": [float(f) for f, _ in keys], "max_win_rate": [float(p == top) for _, p in keys]}
    where = [cell(k, cap_payout)[1] for k in keys]
    targets = dict(targets)
    for band, prob in sorted((bands or {}).items()):
        columns[f"band {band}"] = [float(b == band) for b in where]
        targets[f"band {band}"] = prob
    names = [n for n in columns if n in targets]
    if not names:
        return dict(zip(keys, q.tolist(), strict=True))
    F = np.array([columns[n] for n in names]).T
    t = np.array([float(targets[n]) for n in names])
    for n, col, target in zip(names, F.T, t, strict=True):
        if not col.min() < target < col.max():
            raise TableError(f"anchor {n}={target}: outside what the table's payouts can give "
                             f"({col.min()}..{col.max()})")
    scale = np.abs(t)

    def tilted(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z = logq + F @ lam
        w = np.exp(z - z.max())
        p = w / w.sum()
        return p, (p @ F - t) / scale

    logq = np.log(q)
    lam = np.zeros(len(names))
    p, gap = tilted(lam)
    for _ in range(100):
        if np.abs(gap).max() <= 1e-13:
            break
        mean = p @ F
        cov = (F * p[:, None]).T @ F - np.outer(mean, mean)
        step = np.linalg.lstsq(cov, -gap * scale, rcond=None)[0]
        size = 1.0
        while size > 1e-6:   # Newton's step, halved until the gaps shrink
            new_p, new_gap = tilted(lam + size * step)
            if np.abs(new_gap).max() < np.abs(gap).max():
                break
            size /= 2
        else:
            break            # no step shrinks the gaps further: float precision reached
        lam, p, gap = lam + size * step, new_p, new_gap
    if np.abs(gap).max() > 1e-9:
        raise TableError(f"anchoring to {targets} did not converge (relative gaps {gap.tolist()})")
    return dict(zip(keys, p.tolist(), strict=True))


def cell(key: Key, cap_payout: int) -> tuple[int, int]:
    """The key's cell: (feature, win band) with the bands of the Game Rules Summary."""
    return key[0], bucket_index(key[1], [e * 100 for e in BUCKET_EDGES_X], cap_payout)


def select(mass: dict[Key, Any], books: int | None, cap_payout: int) -> list[Key]:
    """The keys that get a book: all, or ``books`` of them: each cell's smallest and largest payout, then the
    most probable (TableError where ``books`` is below what every cell needs)."""
    if books is None or books >= len(mass):
        return sorted(mass)
    cells: dict[tuple[int, int], list[Key]] = {}
    for key in mass:
        cells.setdefault(cell(key, cap_payout), []).append(key)
    kept = {k for keys in cells.values() for k in (min(keys), max(keys))}
    if books < len(kept):
        raise TableError(f"--books {books}: at least {len(kept)} books are needed (the smallest and largest payout "
                         f"of each of the {len(cells)} win bands, with and without the feature)")
    rest = sorted((k for k in mass if k not in kept), key=lambda k: (-mass[k], k))
    return sorted(kept | set(rest[: books - len(kept)]))


def spread(mass: dict[Key, Any], kept: list[Key], cap_payout: int) -> dict[Key, Any]:
    """``mass`` on the ``kept`` keys: the weight of each other key shared between the kept payouts next
    below and above it in its cell, keeping its mean."""
    out = {k: mass[k] for k in kept}
    by_cell: dict[tuple[int, int], list[int]] = {}
    for k in kept:
        by_cell.setdefault(cell(k, cap_payout), []).append(k[1])
    for payouts in by_cell.values():
        payouts.sort()
    for key, m in mass.items():
        if key in out:
            continue
        f, v = key
        payouts = by_cell[cell(key, cap_payout)]
        i = bisect.bisect_left(payouts, v)
        lo, hi = payouts[i - 1], payouts[i]
        share_hi = Fraction(v - lo, hi - lo)
        out[(f, lo)] += m * (1 - share_hi)
        out[(f, hi)] += m * share_hi
    return out


def integer_weights(mass: dict[Key, Any]) -> dict[Key, int]:
    """Unsigned 64-bit weights: the masses times their common denominator where that fits (exact), else scaled to a
    total near 2^62 and rounded (TableError where a kept payout would round to weight 0)."""
    values = list(mass.values())
    if all(isinstance(v, int | Fraction) for v in values):
        common = math.lcm(*(Fraction(v).denominator for v in values))
        ints = {k: int(v * common) for k, v in mass.items()}
        if sum(ints.values()) <= U64_MAX:
            return ints
    total = sum(Fraction(v) for v in values)
    scale = Fraction(2**62) / total
    out = {k: round(Fraction(v) * scale) for k, v in mass.items()}
    zero = [k for k, w in out.items() if w == 0 and mass[k] > 0]
    if zero:
        raise TableError(f"payouts {[k[1] for k in zero[:5]]} are too rare for 64-bit weights")
    return out
