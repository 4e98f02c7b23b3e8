"""The feature-split estimator: for any kernel game whose feature always starts in one state, paid rounds and
features simulated apart, features in the proportion that buys the most precision per CPU second, combined by
conditional Monte Carlo (:mod:`reelforge.game.conditional_rtp`: unbiased, the cap exact, an honest interval).

A game declares it in one line, a :class:`FeatureStart` as :attr:`KernelGame.feature_start
<reelforge.game.harness.KernelGame.feature_start>` (and ``stratified=True`` in its capabilities): the component its
feature's wins go to, and the fields of its kernel tables that make every paid spin trigger the feature (Canyon
Ways: ``trigger = 0`` Suns). Nothing else of the game is needed: both samples run the game's own round function,
inlined into one loop (:func:`_split_loop`) bound to it as the harness loop is (:func:`~reelforge.game.loop.kernel_loop`):

* **paid rounds**: whole rounds under the build's tables; a round's feature is left out (its win replaced by the
  features' mean for the round's paid spin), the rest kept as exact sums and the triggering rounds' paid wins;
* **features**: whole rounds under the forcing tables with the cap doubled, so a feature's own win up to the cap
  is never cut short by its paid spin; the paid spin is thrown away (a tenth of Canyon's round) and the feature's
  win ``min(F, C)`` kept. A forced paid spin beyond the cap sets its feature aside (the feature is independent
  of it, so keeping the rest biases nothing); a forced round that does not trigger is refused (a wrong declaration).

Each sample draws from its own stream of the seed (``SeedSequence`` children 0 and 1) in chunks, so the sums are
the same for any number of workers, and two samples of one build merge by adding.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from reelforge.core.calibration import map_chunks
from reelforge.core.chunks import chunk_stream
from reelforge.core.stats import MAX_CAP_UNITS, Z99
from reelforge.game.conditional_rtp import Features, PaidRounds, conditional_rtp
from reelforge.game.estimation import Sample, StratifiedEstimator
from reelforge.game.loop import borrowed, kernel_loop, round_tables
from reelforge.game.results import StratifiedEstimate
from reelforge.mechanics.rng import pcg_state

if TYPE_CHECKING:
    from reelforge.game.contract import Build
    from reelforge.game.harness import KernelGame

KIND = "feature-split"
PAID_CHUNK = 1_000_000
FEATURE_CHUNK = 100_000
SUMS = ("win", "win_squares", "hits", "capped", "set_aside", "undeclared")
"""The loop's integer sums, in order (paid rounds: the first four; features: the last two)."""


@dataclass(frozen=True)
class FeatureStart:
    """A game's feature that always starts in one state: how to play it apart (see the module docstring)."""

    part: str
    """The component (:attr:`KernelGame.components`) the feature's wins go to; the others are the paid spin's."""
    forced: dict[str, int] = field(hash=False)
    """Kernel tables fields and the values that make every paid spin trigger the feature."""
    features_per_round: float
    """Features simulated per paid round: measured per game, for the least CPU time at a given precision (Neyman
    allocation: sqrt(features' variance x a round's cost / (rounds' variance x a feature's cost)))."""
    efficiency_vs_plain: float | None = None
    """Measured, not derived: this estimator's efficiency over plain simulation's (the package quotes it)."""
    min_features: int = 1_000


def _split_loop(st, t, n, mode, cap, feature, trigger, forced, counters, sums, components, hist):  # pragma: no cover
    """``n`` rounds of the game's ``_play_round`` (bound per game by :func:`split_loop`) tallied for the feature
    split: paid rounds (``forced`` 0) into ``sums``, ``components`` and ``hist`` (the triggering rounds by paid
    win), features (``forced`` 1, ``cap`` doubled) into ``hist`` by their win, at most ``len(hist) - 1``."""
    nc = components.shape[0]
    owned_parts = np.zeros(nc, dtype=np.int64)
    parts = borrowed(owned_parts)
    rt = borrowed(t)
    rst = borrowed(st)
    rcounters = borrowed(counters)
    top = hist.shape[0] - 1
    for _ in range(n):
        before = rcounters[trigger]
        _play_round(rst, rt, mode, cap, parts, rcounters)  # noqa: F821 - bound per game by kernel_loop
        win = 0
        for c in range(nc):
            win += parts[c]
        triggered = rcounters[trigger] != before
        won = parts[feature]
        paid = win - won
        # a forced round must trigger, unless its paid spin alone reached the (doubled) cap: set aside below
        if win < 0 or win > cap or won < 0 or (won != 0 and not triggered) or (forced and not triggered and win < cap):
            sums[5] += 1
        elif forced:
            if paid <= top:
                hist[min(won, top)] += 1
            else:
                sums[4] += 1
        else:
            sums[0] += paid
            sums[1] += paid * paid
            if win > 0:
                sums[2] += 1
            if triggered:
                hist[paid] += 1
            elif win == cap:
                sums[3] += 1
            for c in range(nc):
                if c != feature:
                    components[c] += parts[c]
        for c in range(nc):
            parts[c] = 0


LOOP_NAME = f"feature_split_loop_{zlib.crc32(_split_loop.__code__.co_code):08x}"
"""The loop's name in numba's cache, after its code: a changed loop never reuses a stale compiled one."""
_LOOPS: dict[Callable, Callable] = {}


def split_loop(game_class: type) -> Callable:
    """:func:`_split_loop` compiled around the game's round function (the one its harness loop was made from)."""
    play_round = getattr(game_class.loop, "round_function", None)
    if play_round is None:
        raise ValueError(f"{game_class.__name__}'s loop was not made by kernel_loop: it has no round function to "
                         "split its feature from")
    loop = _LOOPS.get(play_round)
    if loop is None:
        loop = _LOOPS[play_round] = kernel_loop(play_round, _split_loop, LOOP_NAME)
    return loop


def _chunk(rng, n, game_class, tables, cap, feature, trigger, forced, counters, sums, components, hist) -> None:
    split_loop(game_class)(pcg_state(rng), tables, n, 0, cap, feature, trigger, forced, np.zeros(counters, np.int64),
                           sums, components, hist)


def simulate(game: KernelGame, build: Build, count: int, seed: np.random.SeedSequence, forced: bool,
             workers: int | None = None, log: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` paid rounds (or, ``forced``, features) of ``build``: the sums (:data:`SUMS`), the components' wins
    outside the feature and the histogram (the same for any number of workers)."""
    start = game.feature_start
    assert start is not None
    cap = game.cap_units(build)
    if 2 * cap >= MAX_CAP_UNITS:
        raise ValueError(f"{game.id}: a cap of {cap:,} win units is too large to split its feature apart (the "
                         f"features play to twice the cap, beyond the kernels' limit of {MAX_CAP_UNITS - 1:,})")
    tables = round_tables(build, game.make_tables, game.scratch)
    if forced:
        tables = tables._replace(**start.forced)
    trigger = game.counters.index(game.feature_counter)
    args = (type(game), tables, 2 * cap if forced else cap, game.components.index(start.part), trigger, int(forced),
            len(game.counters))
    outs = [((len(SUMS),), np.int64), ((len(game.components),), np.int64), ((cap + 1,), np.int64)]
    total = [np.zeros(shape, dtype=object if i == 0 else np.int64) for i, (shape, _) in enumerate(outs)]
    for sums, components, hist in map_chunks(_chunk, count, seed, args, outs, FEATURE_CHUNK if forced else PAID_CHUNK,
                                             workers, "features" if forced else "paid rounds", log):
        total[0] += sums.astype(object)           # exact Python integers across chunks
        total[1] += components
        total[2] += hist
    if total[0][SUMS.index("undeclared")]:
        raise ValueError(f"{game.id} {build.name}: {total[0][5]:,} rounds do not keep the feature split's declaration "
                         f"(a feature win without a trigger, a forced round that did not trigger, or a win beyond the "
                         f"cap): check feature_start")
    return total[0], total[1], total[2]


def paid_rounds(sample: Sample) -> PaidRounds:
    v, a = sample.values, sample.arrays
    return PaidRounds(int(v["rounds"]), int(v["win"]), int(v["win_squares"]), int(v["hits"]), int(v["capped"]),
                      a["components"], a["triggered"])


class FeatureSplitEstimator(StratifiedEstimator):
    """The feature split of a game declaring :attr:`KernelGame.feature_start` (the module docstring)."""

    kind = KIND
    description = ("conditional Monte Carlo: paid rounds with their features replaced by the mean of features "
                   "simulated apart (the feature starts in one state), in the proportion that buys the most "
                   "precision per CPU second, the cap exact")

    def __init__(self, game: KernelGame) -> None:
        if game.feature_start is None:
            raise ValueError(f"{game.id} declares no feature_start")
        self.owner, self.start = game, game.feature_start
        self.game = game.id  # type: ignore[misc]

    @property
    def efficiency_vs_plain(self) -> dict[str, object] | None:
        """The game's measured ratio, as a certification package quotes it."""
        if self.start.efficiency_vs_plain is None:
            return None
        return {"ratio": self.start.efficiency_vs_plain, "how": "1 / (99% half-width^2 x CPU seconds) of this estimator "
                f"against plain simulation of whole rounds, `python bench/efficiency.py --game {self.game} --repeats 2` "
                "(docs/performance.md)"}

    def feature_rounds(self, rounds: int) -> int:
        return max(int(rounds * self.start.features_per_round), self.start.min_features)

    def sample(self, build: Build, rounds: int, feature_rounds: int, seed: int, workers: int | None = None,
               log: bool = False) -> Sample:
        """``rounds`` paid rounds (stream 0 of ``seed``) and ``feature_rounds`` features (stream 1): what was drawn,
        never how long it took (a certification package's piece is simulated again from its seed and compared)."""
        sums, components, triggered = simulate(self.owner, build, rounds, chunk_stream(seed, 0), False, workers, log)
        fsums, _, wins = simulate(self.owner, build, feature_rounds, chunk_stream(seed, 1), True, workers, log)
        values = {k: int(sums[i]) for i, k in enumerate(SUMS[:4])} | {"rounds": rounds, "features": feature_rounds,
                                                                       "set_aside": int(fsums[4])}
        return Sample(self.game, KIND, {"build": build.identity.label, "content_hash": build.identity.content_hash,
                                        "seed": seed, "rounds": rounds, "features": feature_rounds},
                      values, {"components": components, "triggered": triggered, "features": wins})

    def merge(self, first: Sample, second: Sample) -> Sample:
        if first.settings["content_hash"] != second.settings["content_hash"]:
            raise ValueError("feature-split samples of different builds cannot be merged")
        values = {k: first.values[k] + second.values[k] for k in first.values}
        settings = first.settings | {k: first.settings[k] + second.settings[k] for k in ("rounds", "features")}
        return Sample(self.game, KIND, settings, values, {k: first.arrays[k] + second.arrays[k] for k in first.arrays})

    def estimate(self, sample: Sample, build: Build) -> StratifiedEstimate:
        if sample.settings["content_hash"] != build.identity.content_hash:
            raise ValueError(f"this feature-split sample was simulated for build {sample.settings['build']}, not "
                             f"{build.identity.label}: it estimates only that build")
        paid = paid_rounds(sample)
        est = conditional_rtp(paid, Features(sample.arrays["features"]))
        stake = self.owner.stake_units(build, "paid")
        n, triggers = paid.rounds, paid.triggers
        split = {c: float(paid.components[i]) / n / stake for i, c in enumerate(self.owner.components)
                 if c != self.start.part} | {self.start.part: est.feature_mean / stake}
        rate, hit = triggers / n, paid.hits / n
        half = Z99 * est.variance**0.5 / stake
        return StratifiedEstimate(
            rounds=n, feature_rounds=int(sample.values["features"]), seed=int(sample.settings["seed"]),
            rtp=est.mean / stake, rtp_ci99=(est.mean / stake - half, est.mean / stake + half), rtp_split=split,
            rtp_split_ci99=dict.fromkeys(split), feature_rate=rate, feature_rate_ci99=_binomial_ci99(rate, n),
            sd=est.round_variance**0.5 / stake, hit_rate=hit, hit_rate_ci99=_binomial_ci99(hit, n),
            max_win_probability=est.cap_probability,
            extra={"estimator_method": self.description, "features_set_aside": int(sample.values["set_aside"]),
                   "feature_mean_x": _feature_mean(sample) / stake,
                   # what the cap takes from the features beyond min(F, C): min(F, C - P) where P > 0
                   "cap_correction_x": (triggers * _feature_mean(sample) - est.feature_mean * n) / n / stake})


def _binomial_ci99(p: float, n: int) -> tuple[float, float]:
    half = Z99 * (p * (1 - p) / n) ** 0.5
    return (max(p - half, 0.0), min(p + half, 1.0))


def _feature_mean(sample: Sample) -> float:
    wins = sample.arrays["features"]
    return float(np.arange(wins.shape[0]) @ wins) / max(int(wins.sum()), 1)


class FeatureSplitGame:
    """A kernel game's stratified estimator is the feature split (its :attr:`feature_start` declared): put
    before :class:`~reelforge.game.harness.KernelGame` in the game's bases. A mixin, so that only the games
    that declare it have ``stratified()`` (the conformance check holds the capability to the method)."""

    def stratified_estimator(self) -> FeatureSplitEstimator:
        """The feature split (:mod:`reelforge.game.feature_split`) on the game's :attr:`feature_start`."""
        return FeatureSplitEstimator(self)

    def stratified(self, build: Build, rounds: int, seed: int) -> StratifiedEstimate:
        """The feature split's estimate of ``build`` from ``rounds`` paid rounds (and its features apart)."""
        return self.stratified_estimator().run(build, rounds, seed)

