"""The calibration code: the shipped builds are its output, its exact pieces are exact, and its
samples are kept in the one sample format."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from reelforge.game.estimation import Sample, SampleError
from reelforge.game.results import StratifiedEstimate
from reelforge.games.forge_of_gems import design, stratified, template
from reelforge.games.forge_of_gems.build import BUILDS_DIR, build_to_toml, load_build


@pytest.fixture(scope="module")
def strata():
    return stratified.simulate_strata(200_000, 2_000, seed=1, tail_threshold=stratified.TAIL_THRESHOLD,
                                      chunk=100_000, log=False)


@pytest.mark.parametrize("name", template.BUILD_NAMES)
def test_shipped_builds_are_the_design_with_their_gembox_weight(name):
    shipped = load_build(name)
    assert shipped.unit == template.UNIT == 20  # one cent-friendly unit: the RTP is set by weights
    assert shipped.rtp == Fraction(name) / 100  # a fraction of the stake
    made = template.make_build(name, shipped.gembox[3].weights[0])
    # the whole file, header included, is what the tuner writes after tuning on the shipped samples
    tuned_on = stratified.Strata(spins=sum(s[1] for s in design.SHIPPED_SAMPLES),
                                 features=sum(s[2] for s in design.SHIPPED_SAMPLES),
                                 seed=design.SHIPPED_SAMPLES[0][0],
                                 merged_seeds=[s[0] for s in design.SHIPPED_SAMPLES])
    assert build_to_toml(made, design.header(name, tuned_on)) == (BUILDS_DIR / f"{name}.toml").read_text()


def test_first_board_scatter_classes_are_exact_binomials():
    build = load_build("96.2")
    probs = template.initial_scatter_classes(build)
    assert sum(probs) == 1
    q1 = Fraction(template.SCATTER_WEIGHTS[0], build.cells[0].total)   # reel 1 (3 cells)
    q = Fraction(template.SCATTER_WEIGHTS[1], build.cells[1].total)    # reels 2-5 (12 cells)
    assert all(build.cells[r].total == build.cells[1].total for r in range(1, 5))
    exactly3 = sum(comb(3, a) * q1**a * (1 - q1) ** (3 - a) * comb(12, 3 - a) * q ** (3 - a) * (1 - q) ** (9 + a)
                   for a in range(4))
    assert probs[1] == exactly3


def test_estimator_runs_on_a_small_sample_and_reports_its_parts(strata):
    e = stratified.estimate(strata, load_build("96.2"))
    lo, hi = e["ci99"]
    assert lo < e["rtp"] < hi
    assert e["paid_spin_rtp"] > 0 and e["gembox_rtp"] > 0
    assert abs(e["rtp"] - e["paid_spin_rtp"] - e["gembox_rtp"]) < 1e-12
    assert set(e["frequencies"]) >= {"gembox_3", "s3_prize20", "s5_prize40_fs10"}
    common = stratified.estimate_of(strata, load_build("96.2"))
    assert isinstance(common, StratifiedEstimate) and common.rtp == e["rtp"] and common.sd_is_lower_bound
    assert common.rounds == 200_000 and common.feature_rounds == 2_000 and common.seed == 1
    assert sum(common.rtp_split.values()) == pytest.approx(common.rtp, abs=1e-12)
    assert common.extra["gembox_frequencies"] == e["frequencies"]


def test_a_kept_sample_estimates_exactly_what_the_simulated_one_did(strata, tmp_path):
    path = strata.save(tmp_path / "s.npz")
    again = stratified.Strata.load(path)
    for build in (load_build("96.2"), load_build("84.2")):
        assert stratified.estimate(again, build) == stratified.estimate(strata, build)
    merged = again.merge(strata)
    assert merged.seeds == [1, 1] and merged.spins == 400_000
    merged_again = stratified.Strata.load(merged.save(tmp_path / "m.npz"))
    assert merged_again.seeds == [1, 1] and np.array_equal(merged_again.hist_b, merged.hist_b)
    # the earlier format (arrays only, no metadata) still reads
    old = tmp_path / "old.npz"
    np.savez_compressed(old, spins=strata.spins, n_cls=strata.n_cls, sum_b=strata.sum_b, max_b=strata.max_b,
                        hist_b=strata.hist_b, features=strata.features, sums=strata.sums, cross=strata.cross,
                        tail=np.array(strata.tail, dtype=np.int64).reshape(-1, 4),
                        tail_threshold=strata.tail_threshold, seconds=strata.seconds, seed=strata.seed)
    assert stratified.estimate(stratified.Strata.load(old), load_build("96.2")) == \
        stratified.estimate(strata, load_build("96.2"))


def test_a_sample_of_another_game_or_kind_is_refused_by_name(tmp_path):
    path = Sample("gemstones-gold", "coefficients", {"seed": 1}, {"x": 1.5}).save(tmp_path / "g.npz")
    with pytest.raises(SampleError, match="a gemstones-gold sample of kind 'coefficients', not a forge-of-gems"):
        stratified.Strata.load(path)
    with pytest.raises(SampleError, match="an .npz archive; name it g.npz"):
        Sample("forge-of-gems", "strata", {}).save(tmp_path / "g.json")
    (tmp_path / "bad.npz").write_text("not a zip")
    with pytest.raises(SampleError, match="not a sample file"):
        stratified.Strata.load(tmp_path / "bad.npz")
    with pytest.raises(SampleError, match="no such sample file"):
        stratified.Strata.load(tmp_path / "none.npz")


def test_tune_from_a_kept_sample_writes_the_build_the_design_tunes(strata, tmp_path):
    from reelforge.game.results import TuneResult
    from reelforge.games.forge_of_gems.build import FILES
    from reelforge.games.forge_of_gems.game import ForgeOfGems

    kept = strata.save(tmp_path / "s.npz")
    out = tmp_path / "91.2.toml"
    result = ForgeOfGems().tune("91.2", {}, str(out), sample=str(kept))
    assert isinstance(result, TuneResult) and result.file == str(out)
    made = design.calibrate_one(strata, "91.2", 0.912)
    assert out.read_text() == build_to_toml(made, design.header("91.2", strata))
    assert FILES.load_file(out) == made
    assert result.figures["rtp"] == stratified.estimate(strata, made)["rtp"]
    assert result.figures["gembox_weights"][3] == list(made.gembox[3].weights)
    with pytest.raises(ValueError, match="a sample file is an .npz archive"):
        ForgeOfGems().tune("91.2", {}, str(out), sample=str(tmp_path / "s.json"))
