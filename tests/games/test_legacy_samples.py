"""Samples kept in an earlier format are read by their own game (reelforge.game.estimation knows no game):
Gemstones Gold's coefficients ``.json``, Forge of Gems' strata ``.npz`` without metadata."""

import json

import numpy as np
import pytest

from reelforge.game.estimation import Sample, SampleError


def test_gemstones_gold_reads_its_earlier_json_tuning_sample(tmp_path):
    from reelforge.games.gemstones_gold.sampling import load_sample

    path = tmp_path / "kept.json"
    path.write_text(json.dumps({"settings": "2.5e9 boards, seed 20261130", "paid_hit": 0.35}))
    assert load_sample(path) == {"settings": "2.5e9 boards, seed 20261130", "paid_hit": 0.35}


def test_an_earlier_format_is_refused_where_no_game_reads_it(tmp_path):
    path = tmp_path / "kept.json"
    path.write_text("{}")
    with pytest.raises(SampleError, match="a forge-of-gems 'strata' sample is an .npz archive"):
        Sample.load(path, "forge-of-gems", "strata")
    np.savez(tmp_path / "bare.npz", spins=np.array(3))
    with pytest.raises(SampleError, match="no __sample__ entry"):
        Sample.load(tmp_path / "bare.npz", "gemstones-gold", "coefficients")


def test_forge_of_gems_reads_its_earlier_strata_and_refuses_other_arrays(tmp_path):
    from reelforge.games.forge_of_gems.stratified import LEGACY_STRATA, legacy_strata

    np.savez(tmp_path / "other.npz", spins=np.array(3))
    with pytest.raises(SampleError, match="no __sample__ entry"):
        Sample.load(tmp_path / "other.npz", "forge-of-gems", "strata", legacy_strata)
    arrays = {k: np.array(7) for k in LEGACY_STRATA}
    arrays["seconds"] = np.array(1.5)
    np.savez(tmp_path / "strata.npz", **arrays)
    s = Sample.load(tmp_path / "strata.npz", "forge-of-gems", "strata", legacy_strata)
    assert (s.game, s.kind, s.values["spins"], s.values["seeds"], s.values["seconds"]) == ("forge-of-gems", "strata",
                                                                                          7, [7], 1.5)
