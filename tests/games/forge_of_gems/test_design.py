"""The calibration code: the shipped builds are its output, and its exact pieces are exact."""

from fractions import Fraction
from math import comb

import pytest

from reelforge.games.forge_of_gems import design
from reelforge.games.forge_of_gems.build import BUILDS_DIR, build_to_toml, load_build


@pytest.mark.parametrize("name", design.BUILD_NAMES)
def test_shipped_builds_are_the_design_with_their_gembox_weight(name):
    shipped = load_build(name)
    assert shipped.unit == design.UNIT == 20  # one cent-friendly unit: the RTP is set by weights
    made = design.make_build(name, shipped.gembox[3].weights[0])
    assert build_to_toml(made) == build_to_toml(shipped)
    assert build_to_toml(shipped) in (BUILDS_DIR / f"{name}.toml").read_text()


def test_first_board_scatter_classes_are_exact_binomials():
    build = load_build("96.2")
    probs = design.initial_scatter_classes(build)
    assert sum(probs) == 1
    q1 = Fraction(design.SCATTER_WEIGHTS[0], build.cells[0].total)   # reel 1 (3 cells)
    q = Fraction(design.SCATTER_WEIGHTS[1], build.cells[1].total)    # reels 2-5 (12 cells)
    assert all(build.cells[r].total == build.cells[1].total for r in range(1, 5))
    exactly3 = sum(comb(3, a) * q1**a * (1 - q1) ** (3 - a) * comb(12, 3 - a) * q ** (3 - a) * (1 - q) ** (9 + a)
                   for a in range(4))
    assert probs[1] == exactly3


def test_estimator_runs_on_a_small_sample_and_reports_its_parts():
    st = design.sample(200_000, 2_000, seed=1, tail_threshold=design.TAIL_THRESHOLD, chunk=100_000, log=False)
    e = design.estimate(st, load_build("96.2"))
    lo, hi = e["ci99"]
    assert lo < e["rtp"] < hi
    assert e["paid_spin_rtp"] > 0 and e["gembox_rtp"] > 0
    assert abs(e["rtp"] - e["paid_spin_rtp"] - e["gembox_rtp"]) < 1e-12
    assert set(e["frequencies"]) >= {"gembox_3", "s3_prize20", "s5_prize40_fs10"}
