"""The shipped builds are the generic tuner's output: rerunning it reproduces a build file."""

from reelforge.game.results import TuneResult
from reelforge.games.forge_of_fortunes.build import BUILDS_DIR
from reelforge.games.forge_of_fortunes.game import ForgeOfFortunes


def test_tuning_94_2_reproduces_the_shipped_file(tmp_path):
    out = tmp_path / "94.2.toml"
    result = ForgeOfFortunes().tune("94.2", {}, str(out))
    assert out.read_text() == (BUILDS_DIR / "94.2.toml").read_text()
    assert isinstance(result, TuneResult) and result.method == "exact" and result.file == str(out)
    assert abs(result.figures["rtp_error_pp"]) < 0.001
    assert result.to_json()["figures"]["rtp"] == str(result.figures["rtp"])   # exact, as a fraction string
