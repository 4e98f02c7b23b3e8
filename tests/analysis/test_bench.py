"""The kernel benchmark's record: rates, raw rate and their ratio from alternated runs."""

from reelforge.bench.kernels import bench


def test_bench_reports_the_rate_the_raw_rate_and_their_ratio_from_paired_runs():
    r = bench("forge-of-fortunes", repeats=3, seconds=0.05)
    assert r["game"] == "forge-of-fortunes" and r["build"] and r["mode"] == "paid"
    assert r["rounds_per_second_per_core"] > 1e5 and r["raw_draws_per_second"] > 1e6
    low, high = r["rounds_per_million_raw_draws_range"]
    assert low <= r["rounds_per_million_raw_draws"] <= high  # the median of the pairs' ratios
    assert r["runs"] == 3 and r["rounds_per_run"] >= 10_000 and r["timer"] == "thread CPU time"
    assert len(r["load_average"]) == 2
