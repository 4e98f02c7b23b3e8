"""The Gemstones Gold calibration: the generic tuner on a kept sample, reproducible by seed."""

import pytest

from reelforge.games.gemstones_gold import design
from reelforge.games.gemstones_gold.build import load_build


def test_tuner_solves_the_linear_rtp_split_on_its_sample_and_is_reproducible(tmp_path):
    strips = list(load_build("96.71").strips)
    cal = design.calibrate(strips=strips, paid_n=1_000_000, feature_n=30_000, seed=5, workers=2)
    smp = cal.sample
    # the paid part is a + b mu_base: the tuner's mean is the closed-form solution (to its 1e-4 grid)
    mu = (design.TARGET_PAID - smp["paid"]["a"]) / smp["paid"]["b"]
    assert abs(design.mean_of(cal.base_weights) - mu) < 1.5e-4
    figures = design.tuning_space(smp).measure(design.build_from(strips, cal.base_weights, cal.free_weights))
    assert abs(figures["rtp_paid"] - design.TARGET_PAID) < 2e-5
    assert abs(figures["rtp_free"] - design.TARGET_FREE) < 2e-5
    # intervals: the parts' half-widths add in quadrature (independent strata), each around its figure
    ci = design.sample_intervals(smp, design.build_from(strips, cal.base_weights, cal.free_weights))
    hw = {k: (b - a) / 2 for k, (a, b) in ci.items()}
    assert hw["rtp"] ** 2 == pytest.approx(hw["rtp_paid"] ** 2 + hw["rtp_free"] ** 2)
    assert all(0 < h < 0.1 for h in hw.values())
    assert sum(ci["rtp_paid"]) / 2 == pytest.approx(figures["rtp_paid"])
    # kept and reloaded, the same sample gives the same build text (worker counts: tests/test_calibration.py)
    path = tmp_path / "sample.json"
    design.save_sample(path, cal)
    again = design.calibrate(sample=design.load_sample(path))
    assert design.build_toml(again) == design.build_toml(cal)


def test_weights_for_a_mean_hit_it_to_within_one_step_of_the_value_2_weight():
    for mu in (3.2, 6.29, 12.0):
        w = design.weights_for_mean(mu, tail=design.FREE_TAIL)
        assert abs(design.mean_of(w) - mu) < (design.VALUES[1]) / sum(w)
