"""The Gemstones Gold calibration: the generic tuner on a kept sample, reproducible by seed."""

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
    # kept and reloaded, the same sample gives the same build text; one worker gives the same sample
    path = tmp_path / "sample.json"
    design.save_sample(path, cal)
    again = design.calibrate(sample=design.load_sample(path))
    assert design.build_toml(again) == design.build_toml(cal)
    serial = design.calibrate(strips=strips, paid_n=1_000_000, feature_n=30_000, seed=5, workers=1)
    assert design.build_toml(serial) == design.build_toml(cal)


def test_weights_for_a_mean_hit_it_to_within_one_step_of_the_value_2_weight():
    for mu in (3.2, 6.29, 12.0):
        w = design.weights_for_mean(mu, tail=design.FREE_TAIL)
        assert abs(design.mean_of(w) - mu) < (design.VALUES[1]) / sum(w)
