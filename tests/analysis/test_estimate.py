"""The estimator policy of summaries (analysis/estimate.py): which estimator runs, and why, and what it refuses."""

import pytest

from reelforge.analysis.estimate import EstimateError, SummaryRequest, check_request, estimate
from reelforge.games.registry import get_game

FOF = get_game("forge-of-fortunes")
GG = get_game("gemstones-gold")


def test_a_game_with_exact_mathematics_gets_its_exact_figures_unless_rounds_or_plain_are_asked():
    build = FOF.load_build("96.2")
    exact = estimate(FOF, build, SummaryRequest())
    assert exact.summary["method"] == "exact" and exact.checkpoints is None
    plain = estimate(FOF, build, SummaryRequest(rounds=200_000, seed=5, workers=1, plain=True))
    assert plain.summary["method"] == "simulation" and plain.summary["rounds"] == 200_000
    assert plain.summary["estimator"] == {"used": "plain", "reason": "requested with --plain"}
    assert plain.checkpoints and plain.checkpoints[-1][0] == 200_000 and plain.seed == 5


def test_a_precision_target_without_a_stratified_estimator_runs_plain_until_it_is_met():
    s = estimate(FOF, FOF.load_build("96.2"), SummaryRequest(precision_pp=2.0, seed=8, workers=1)).summary
    assert s["estimator"]["used"] == "plain" and s["estimator"]["reason"] == "the game has no stratified estimator"
    assert s["estimator"]["requested_precision_pp"] == 2.0 and s["estimator"]["precision_reached"] is True
    assert s["rtp_ci99_half_width_pp"] <= 2.0


def test_a_report_or_a_cluster_takes_the_plain_simulation_without_a_pilot():
    s = estimate(GG, GG.load_build("96.71"), SummaryRequest(rounds=20_000, precision_pp=40.0, seed=3, workers=1, report=True)).summary
    assert s["estimator"]["used"] == "plain" and s["estimator"]["reason"].startswith("the report (--out) needs")
    assert "pilot" not in s["estimator"] and s["sample"]["kind"] == "simulation"


@pytest.mark.parametrize("request_, message", [
    (SummaryRequest(stratified=True, plain=True), "--stratified and --plain exclude each other"),
    (SummaryRequest(stratified=True, mode="buy"), "it has no --mode buy"),
    (SummaryRequest(stratified=True, report=True), "drop --out or --stratified"),
    (SummaryRequest(stratified=True, backend="ray"), "--stratified runs in this process"),
])
def test_requests_that_cannot_be_honoured_are_refused_before_anything_runs(request_, message):
    with pytest.raises(EstimateError, match=message):
        check_request(GG, request_)


def test_a_game_without_a_stratified_estimate_refuses_one_and_bad_backends_are_named():
    with pytest.raises(EstimateError, match="forge-of-fortunes has no stratified estimate"):
        estimate(FOF, FOF.load_build("96.2"), SummaryRequest(stratified=True))
    with pytest.raises(EstimateError, match="unknown backend 'cloud'"):
        estimate(FOF, FOF.load_build("96.2"), SummaryRequest(rounds=1000, backend="cloud"))
    with pytest.raises(EstimateError, match="--address needs --backend ray"):
        estimate(FOF, FOF.load_build("96.2"), SummaryRequest(rounds=1000, address="10.0.0.1:6379"))
