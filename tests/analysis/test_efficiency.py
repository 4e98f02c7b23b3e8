"""`reelforge simulate --estimator plain|best`: the estimate, its half-width, CPU seconds and efficiency;
bad choices refused in one line with status 2."""

import json
import sys

import pytest
from typer.testing import CliRunner

from reelforge.analysis.efficiency import PlainRtp, efficiency, estimator
from reelforge.cli import app, main
from reelforge.game.rtp_estimators import ExactRtp, StratifiedRtp
from reelforge.games.registry import get_game

runner = CliRunner()


def test_best_is_exact_where_the_game_is_enumerable_and_plain_is_the_plain_simulation():
    out = runner.invoke(app, ["simulate", "forge-of-fortunes", "--estimator", "best", "--rounds", "1000", "--seed",
                              "3", "--json"])
    assert out.exit_code == 0, out.output
    r = json.loads(out.output)
    g = get_game("forge-of-fortunes")
    assert (r["method"], r["half_width"], r["efficiency"], r["rounds"]) == ("exact", 0.0, None, 0)
    assert r["rtp"] == float(g.exact(g.load_build(r["build"])).rtp)
    out = runner.invoke(app, ["simulate", "forge-of-fortunes", "--estimator", "plain", "--rounds", "20000",
                              "--seed", "3", "--json"])
    p = json.loads(out.output)
    assert (p["method"], p["rounds"]) == ("plain", 20_000) and p["half_width"] > 0 and p["cpu_seconds"] > 0
    assert p["efficiency"] == pytest.approx(1 / (p["half_width"] ** 2 * p["cpu_seconds"]))
    assert p["rtp_ci99"][0] < r["rtp"] < p["rtp_ci99"][1]


def test_each_game_names_its_best_estimator():
    fog, gg, sl = get_game("forge-of-gems"), get_game("gemstones-gold"), get_game("seven-lines")
    assert isinstance(estimator(sl, sl.load_build("96.0"), "best"), ExactRtp)
    best = estimator(fog, fog.load_build("96.2"), "best")
    assert isinstance(best, StratifiedRtp) and "single free spins" in best.description
    assert isinstance(estimator(gg, gg.load_build(gg.default_build()), "best"), StratifiedRtp)
    assert isinstance(estimator(fog, fog.load_build("96.2"), "plain"), PlainRtp)
    assert efficiency(0.0, 3.0) is None and efficiency(0.1, 2.0) == pytest.approx(50.0)


@pytest.mark.parametrize("args, message", [
    (["--estimator", "fast", "--rounds", "10"], "--estimator must be one of plain, best"),
    (["--estimator", "best", "--precision", "0.1"], "--estimator takes --rounds N"),
    (["--estimator", "best", "--rounds", "10", "--precision", "0.1"], "--estimator takes --rounds N"),
])
def test_bad_estimator_requests_are_one_line_and_status_2(args, message, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["reelforge", "simulate", "seven-lines", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err
