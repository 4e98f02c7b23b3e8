"""The feature split (reelforge.game.feature_split, reelforge.game.conditional_rtp): paid rounds with their feature
replaced by the mean of features simulated apart. Exact on a case known exactly, the cap included; its 99%
intervals honest (the coverage proof's logic, bench/interval_coverage.py); its kernel path plays the rounds of
the harness loop and, forced, the reference rules' features."""

import dataclasses

import numpy as np
import pytest

from reelforge.analysis.coverage import coverage, min_covered
from reelforge.core.chunks import chunk_stream
from reelforge.core.draws import SeededDraws
from reelforge.game import feature_split
from reelforge.game.conditional_rtp import Features, PaidRounds, conditional_rtp
from reelforge.games.canyon_ways.game import CanyonWays

CAP = 30
PAID = {(0, 0): 0.55, (2, 0): 0.20, (8, 0): 0.10, (CAP, 0): 0.02, (0, 1): 0.05, (4, 1): 0.05, (25, 1): 0.03}
"""A paid spin's (win P, whether it triggers T) and their probabilities: triggers come with larger wins, and one
paid spin reaches the cap alone."""
FEATURE = {0: 0.10, 3: 0.40, 10: 0.30, 28: 0.15, 60: 0.05}
"""The feature's (uncapped) win and its probabilities: 28 and 60 cross the cap after some paid spins."""


def exact() -> dict[str, float]:
    """E[W], Var W and P(W = C) of W = min(P + T F, C), by enumeration."""
    dist: dict[int, float] = {}
    for (p, t), q in PAID.items():
        for f, r in FEATURE.items() if t else ((0, 1.0),):
            dist[min(p + f, CAP)] = dist.get(min(p + f, CAP), 0.0) + q * r
    mean = sum(w * q for w, q in dist.items())
    return {"mean": mean, "variance": sum(w * w * q for w, q in dist.items()) - mean**2, "cap": dist[CAP]}


def tallies(paid: np.ndarray, trig: np.ndarray, feats: np.ndarray) -> tuple[PaidRounds, Features]:
    """The sums the kernel keeps, from rounds' paid wins and triggers and from features' wins."""
    return (PaidRounds(len(paid), int(paid.sum()), int((paid * paid).sum()), 0, int(((trig == 0) & (paid == CAP)).sum()),
                       np.zeros(1, np.int64), np.bincount(paid[trig == 1], minlength=CAP + 1)),
            Features(np.bincount(np.minimum(feats, CAP), minlength=CAP + 1)))


def test_the_estimate_is_the_exact_figure_where_the_samples_are_the_distributions():
    """100 rounds and 20 features in exactly the distributions' proportions: every plug-in figure is the exact one
    (the cap's share of every feature that crosses it included); leaving the cap out would be 0.406x off."""
    rounds = [key for key, q in PAID.items() for _ in range(round(q * 100))]
    feats = np.array([f for f, q in FEATURE.items() for _ in range(round(q * 20))])
    paid, trig = (np.array(v) for v in zip(*rounds, strict=True))
    got = conditional_rtp(*tallies(paid, trig, feats))
    want = exact()
    assert got.mean == pytest.approx(want["mean"], abs=1e-12)
    assert got.round_variance == pytest.approx(want["variance"] * 100 / 99, abs=1e-12)
    assert got.cap_probability == pytest.approx(want["cap"], abs=1e-12)
    uncapped = sum(p * q for (p, _), q in PAID.items()) + sum(q for (_, t), q in PAID.items() if t) * feats.mean()
    assert uncapped - want["mean"] == pytest.approx(0.406, abs=1e-12)


def _shrunk(interval: tuple[float, float], factor: float) -> tuple[float, float]:
    mid, half = (interval[0] + interval[1]) / 2, (interval[1] - interval[0]) / 2
    return (mid - half * factor, mid + half * factor)


def test_the_intervals_cover_the_exact_rtp_and_a_third_as_wide_do_not():
    """200 independent runs of 3,000 rounds + 300 features drawn from the known distributions: the 99% interval
    covers the exact mean as often as an honest one must (the binomial's 0.1% bound); a third as wide does not."""
    keys, probs = list(PAID), np.array(list(PAID.values()))
    values, weights = np.array(list(FEATURE)), np.array(list(FEATURE.values()))

    def run(seed: int) -> dict[str, tuple[float, float]]:
        rng = np.random.default_rng(seed)
        paid, trig = np.array(keys)[rng.choice(len(keys), 3_000, p=probs)].T
        est = conditional_rtp(*tallies(paid, trig, rng.choice(values, 300, p=weights)))
        honest = (est.mean - est.half_width, est.mean + est.half_width)
        return {"mean": honest, "mean (a third as wide)": _shrunk(honest, 1 / 3)}

    mean = exact()["mean"]
    got = coverage("synthetic", {"mean": mean, "mean (a third as wide)": mean}, run, 200, 3600, "3,000 rounds",
                   min_covered(200, 0.001))
    assert got[0].passed, got[0]
    assert not got[1].passed, got[1]


GAME = CanyonWays()
BUILD = GAME.load_build("96.0")


def test_paid_rounds_are_the_harness_loops_rounds():
    """The split loop plays the rounds the harness loop plays from the same stream (its sums are theirs)."""
    seed = np.random.SeedSequence(77)
    sums, components, triggered = feature_split.simulate(GAME, BUILD, 20_000, seed, False, workers=1)
    acc = GAME.simulate_chunk(BUILD, 20_000, chunk_stream(seed, 0))
    paid = GAME.components.index("paid_spins")
    assert (sums[0], sums[1], sums[2]) == (acc.components[paid], acc.component_sq[paid], acc.hits)
    assert int(triggered.sum()) == acc.counter("triggers") > 50
    assert int(components[paid]) == acc.components[paid] and components[1 - paid] == 0


def test_forced_rounds_play_the_reference_rules_feature_from_the_same_stream():
    """Forced (every paid spin triggers: 0 Suns), the kernel's features are the reference rules' with a build of
    trigger 0, round by round from the same draws, at twice the cap."""
    n, cap = 40, GAME.cap_units(BUILD)
    forced = dataclasses.replace(BUILD, data={**BUILD.data, "trigger": 0})
    draws, wins = SeededDraws(5), []
    for _ in range(n):
        state, paid = GAME.rules.new_state(forced, "paid"), None
        while True:
            step = GAME.rules.play_step(forced, state, draws, 2 * cap)
            total = int(step.total_win * GAME.unit)
            paid = total if paid is None else paid
            if step.finished:
                break
            state = step.state
        wins.append(min(total - paid, cap))
    sums = np.zeros(len(feature_split.SUMS), np.int64)
    hist = np.zeros(cap + 1, np.int64)
    tables = feature_split.round_tables(BUILD, GAME.make_tables)._replace(trigger=0)
    feature_split._chunk(np.random.Generator(np.random.PCG64(5)), n, CanyonWays, tables, 2 * cap, 1, 0, 1, 3, sums,
                         np.zeros(2, np.int64), hist)
    assert np.array_equal(hist, np.bincount(wins, minlength=cap + 1)) and sum(wins) > 0
    assert not sums.any()


def test_a_declaration_that_does_not_force_the_trigger_is_refused():
    """Forcing tables that leave the trigger as it is: most forced rounds do not trigger, and the run says so."""
    class Unforced(CanyonWays):
        feature_start = feature_split.FeatureStart("free_spins", {"trigger": 4}, 0.05)

    with pytest.raises(ValueError, match="do not keep the feature split's declaration"):
        feature_split.simulate(Unforced(), BUILD, 100, np.random.SeedSequence(1), True, workers=1)


def test_samples_merge_to_the_sample_of_both_and_estimate_only_their_build():
    est = GAME.stratified_estimator()
    a, b = est.sample(BUILD, 2_000, 200, 11, workers=1), est.sample(BUILD, 3_000, 100, 12, workers=1)
    both = est.merge(a, b)
    assert both.values["rounds"] == 5_000 and int(both.arrays["features"].sum()) == 300
    assert both.values["win"] == a.values["win"] + b.values["win"]
    other = GAME.load_build("94.0")
    with pytest.raises(ValueError, match="estimates only that build"):
        est.estimate(both, other)
    got = est.estimate(both, BUILD)
    assert got.rounds == 5_000 and got.rtp_ci99[0] < got.rtp < got.rtp_ci99[1]


def test_the_tuner_measures_a_game_with_a_feature_split_by_it(tmp_path):
    """The generic tuner sizes and measures candidates with the feature split (plain rounds before it): a loose
    tolerance, met by the shipped build as it is."""
    got = GAME.tune("96.0", {"rtp": 0.95}, out=str(tmp_path / "t.toml"), tolerances={"rtp": 0.05})
    assert got.method.startswith("the feature-split estimator, ") and "features per candidate" in got.method
    lo, hi = got.figures_ci99["rtp"]
    assert lo < got.figures["rtp"] < hi and 0.04 < (hi - lo) / 2 < 0.06      # sized to the tolerance


def test_a_certification_package_names_the_feature_split_and_its_measured_efficiency():
    from reelforge.analysis.manifest import estimator_words

    words = estimator_words(GAME, "stratified")
    assert words["description"].startswith("conditional Monte Carlo")
    assert words["efficiency_vs_plain"]["ratio"] == 2.72 and "bench/efficiency.py --game canyon-ways" in (
        words["efficiency_vs_plain"]["how"])


def test_a_sample_is_the_same_for_any_number_of_workers():
    """Chunk i of each stream draws from child i of the seed: two chunks of each, one worker or two, equal sums."""
    est = GAME.stratified_estimator()
    one, two = (est.sample(BUILD, feature_split.PAID_CHUNK + 1_000, feature_split.FEATURE_CHUNK + 100, 21, workers=w)
                for w in (1, 2))
    assert one.values == two.values and one.values["rounds"] > feature_split.PAID_CHUNK
    assert all(np.array_equal(one.arrays[k], two.arrays[k]) for k in one.arrays)
