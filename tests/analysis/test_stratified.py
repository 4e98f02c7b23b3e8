"""The stratified estimate reaches summary through the generic Game hook (the command line's entry point run in the
test process: a Python process of its own per command cost about 1 CPU s of start-up)."""

import json
import sys


def run_summary(monkeypatch, capsys, *args) -> tuple[int, str, str]:
    """``reelforge summary ARGS`` in this process: (exit status, stdout, stderr)."""
    from reelforge.cli import main

    monkeypatch.setattr(sys, "argv", ["reelforge", "summary", *args])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


def test_gemstones_gold_stratified_summary_reports_parts_with_intervals(monkeypatch, capsys):
    code, out, err = run_summary(monkeypatch, capsys, "gemstones-gold", "--stratified", "--rounds", "200000",
                                 "--seed", "7", "--json")
    assert code == 0, err
    s = json.loads(out)
    assert s["method"] == "stratified" and s["rounds"] == 200_000
    lo, hi = s["rtp_ci99"]
    assert lo < s["rtp"] < hi
    parts = s["rtp_split"]
    assert abs(parts["paid_spins"] + parts["free_spins"] - s["rtp"]) < 1e-12
    for name, (plo, phi) in s["rtp_split_ci99"].items():
        assert plo < parts[name] < phi
    assert 0 < s["feature_rate"] < s["hit_rate"] < 1


def test_games_without_a_stratified_estimate_say_so(monkeypatch, capsys):
    code, _, err = run_summary(monkeypatch, capsys, "forge-of-fortunes", "--stratified")
    assert code == 2
    assert "no stratified estimate" in err


def test_forge_of_gems_stratified_summary(monkeypatch, capsys):
    code, out, err = run_summary(monkeypatch, capsys, "forge-of-gems", "--build", "94.2", "--stratified", "--rounds",
                                 "300000", "--seed", "3", "--json")
    assert code == 0, err
    s = json.loads(out)
    lo, hi = s["rtp_ci99"]
    assert s["method"] == "stratified" and lo < s["rtp"] < hi
    assert abs(sum(s["rtp_split"].values()) - s["rtp"]) < 1e-9
    assert s["feature_rate"] > 0


def test_precision_picks_the_stratified_estimate_on_gemstones_gold_and_says_why(monkeypatch, capsys):
    # the 6e6-spin stratified pilot already reaches 1 pp, where a plain run needs ~1.7e7 rounds
    code, out, err = run_summary(monkeypatch, capsys, "gemstones-gold", "--precision", "1", "--seed", "7",
                                 "--workers", "1", "--json")
    assert code == 0, err
    s = json.loads(out)
    est = s["estimator"]
    assert s["method"] == "stratified" and est["used"] == "stratified"
    assert "stratified is predicted sooner" in est["reason"]
    assert s["rtp_ci99_half_width_pp"] <= 1.0 and est["precision_reached"] is True
    lo, hi = s["rtp_ci99"]
    assert (hi - lo) / 2 * 100 <= 1.0 and lo < s["rtp"] < hi
    assert est["pilot"]["plain_rounds_needed"] > s["rounds"] == est["pilot"]["paid_spins"] == 6_000_000
    assert est["predicted_seconds"]["plain"] > est["predicted_seconds"]["stratified"]


def test_stratified_runs_grow_until_the_half_width_meets_the_target():
    from reelforge.analysis.estimate import stratified_to_precision
    from reelforge.games.registry import get_game

    game = get_game("gemstones-gold")
    s, runs = stratified_to_precision(game, game.load_build("96.71"), 3.0, 11, 100_000)
    assert len(runs) >= 2 and runs[0]["half_width_pp"] > 3.0   # the first size was too small...
    assert runs[-1]["rounds"] > runs[0]["rounds"] == 100_000
    assert s["rtp_ci99_half_width_pp"] <= 3.0 and s["rounds"] == runs[-1]["rounds"]   # ...the last one is not
    # the estimate's own figures under extra; the Feature Buy RTP is the core figure a plain summary has
    split = s["extra"]["hit_rate_split"]
    assert set(split) == {"trigger_with_win", "win_without_trigger", "trigger_with_win_ci99", "win_without_trigger_ci99"}
    for part in ("trigger_with_win", "win_without_trigger"):  # each part of the split with its own interval
        assert split[f"{part}_ci99"][0] < split[part] < split[f"{part}_ci99"][1]
    assert "hit_rate_split" not in s and s["feature_buy"]["price_x"] == "561/10"
    lo, hi = s["feature_buy"]["rtp_ci99"]
    assert lo < s["feature_buy"]["rtp"] < hi


def test_plain_overrides_the_choice_and_bad_combinations_exit_2(monkeypatch, capsys):
    code, out, err = run_summary(monkeypatch, capsys, "gemstones-gold", "--precision", "3", "--plain", "--seed", "1",
                                 "--workers", "1", "--json")
    assert code == 0, err
    s = json.loads(out)
    assert s["method"] == "simulation" and s["estimator"]["used"] == "plain"
    assert s["estimator"]["reason"] == "requested with --plain" and s["estimator"]["precision_reached"] is True
    for args, message in ((["--stratified", "--plain"], "exclude each other"),
                          (["--stratified", "--mode", "buy"], "has no --mode buy"),
                          (["--stratified", "--backend", "ray"], "runs in this process")):
        code, _, err = run_summary(monkeypatch, capsys, "gemstones-gold", *args)
        assert code == 2 and message in err, (args, err)


def test_gemstones_gold_second_moment_has_the_paid_spins_cross_term_with_its_feature():
    """The round SD is sqrt(E[X^2] - E[X]^2) with E[X^2] = E[P^2] + E[F^2] + 2 E[P F] (P the paid win, F the
    feature's): the cross term from the paid win by final scatter class (once left out: an SD 0.45x too low on
    96.71, a jackknife interval around the wrong figure). A sample without those sums (drawn before them, or
    merged with one) says its SD is a lower bound."""
    import math

    from reelforge.game.estimation import Sample
    from reelforge.games.gemstones_gold.stratified import PAID_BY_FINAL, merge_samples, verify_estimate, verify_sample
    from reelforge.games.registry import get_game

    build = get_game("gemstones-gold").load_build("96.71")
    sample = verify_sample(build, 20_000, 1_000, seed=3, workers=1)
    by_final = sample.arrays[PAID_BY_FINAL]
    assert math.isclose(by_final.sum(), sample.arrays["paid_sums"][0], rel_tol=1e-12)  # every winning board's z
    full = verify_estimate(sample, build)
    older = Sample(sample.game, sample.kind, settings=sample.settings, values=sample.values,
                   arrays={k: v for k, v in sample.arrays.items() if k != PAID_BY_FINAL})
    bound = verify_estimate(older, build)
    assert full["paid_feature_cross_x2"] > 0 and not full["sd_is_lower_bound"] and bound["sd_is_lower_bound"]
    assert math.isclose(full["sd"] ** 2 - bound["sd"] ** 2, 2 * full["paid_feature_cross_x2"], rel_tol=1e-9)
    assert PAID_BY_FINAL not in merge_samples(sample, older).arrays
    assert PAID_BY_FINAL in merge_samples(sample, sample).arrays
