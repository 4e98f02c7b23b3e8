"""The coverage proof's short version (bench/interval_coverage.py runs 200): independent seeded runs of an estimator,
the 99% interval held to a figure known exactly; the pass mark is the binomial's, never tuned to the seeds."""

from reelforge.analysis.coverage import binomial_cdf, coverage, min_covered, plain_interval
from reelforge.game.exact import exact_figures
from reelforge.games.gemstones_gold.small import exact_paid, paid_intervals, small_build
from reelforge.games.registry import get_game

RUNS = 30
ALPHA = 0.001


def test_the_pass_marks_are_the_binomial_bounds():
    # the 195 of 200 is the 2% bound; the suite's short runs use 0.1%
    assert min_covered(200, 0.02) == 195
    mark = min_covered(RUNS, ALPHA)
    assert mark == 27
    assert binomial_cdf(mark - 1, RUNS, 0.99) <= ALPHA < binomial_cdf(mark, RUNS, 0.99)


def _shrunk(interval: tuple[float, float], factor: float) -> tuple[float, float]:
    mid, half = (interval[0] + interval[1]) / 2, (interval[1] - interval[0]) / 2
    return (mid - half * factor, mid + half * factor)


def test_gemstones_gold_importance_sampled_intervals_cover_the_exact_small_build():
    """The importance-sampled paid boards: 30 runs of 5,000 boards on the enumerable 12-stop build. An interval a
    third as wide misses the mark on the same runs: the test can fail."""
    build = small_build()
    exact = {k: float(v) for k, v in exact_paid(build).items()}
    honest = paid_intervals(build, 5_000)

    def run(seed: int) -> dict[str, tuple[float, float]]:
        got = honest(seed)
        return {**got, **{f"{k} (a third as wide)": _shrunk(v, 1 / 3) for k, v in got.items()}}

    figures = {**exact, **{f"{k} (a third as wide)": v for k, v in exact.items()}}
    results = {c.figure.split(": ", 1)[1]: c for c in coverage("small", figures, run, RUNS, 3600, "5,000 boards",
                                                                min_covered(RUNS, ALPHA))}
    assert results["paid_rtp"].passed and results["trigger_rate"].passed, results
    assert not results["paid_rtp (a third as wide)"].passed
    assert not results["trigger_rate (a third as wide)"].passed


def _covers_and_a_third_as_wide_does_not(figure: str, exact: float, honest, size: str) -> None:
    """``honest(seed)[figure]``'s interval covers ``exact`` in enough of the runs; a third as wide, on the same
    runs, does not (the check can fail)."""
    def run(seed: int) -> dict[str, tuple[float, float]]:
        got = honest(seed)[figure]
        return {figure: got, f"{figure} (a third as wide)": _shrunk(got, 1 / 3)}

    got = coverage("forge-of-fortunes", {figure: exact, f"{figure} (a third as wide)": exact}, run, RUNS, 3600,
                   size, min_covered(RUNS, ALPHA))
    assert got[0].passed, got[0]
    assert not got[1].passed, got[1]


def test_plain_simulation_intervals_cover_forge_of_fortunes_exact_rtp():
    game = get_game("forge-of-fortunes")
    build = game.load_build("96.2")
    _covers_and_a_third_as_wide_does_not("RTP", float(exact_figures(game, build).rtp),
                                         plain_interval(game, build, 100_000), "100,000 rounds")



def test_forge_of_gems_split_spins_intervals_cover_the_long_verify_run():
    """The split-spins estimator's RTP interval: 30 runs of 100,000 paid spins against 96.220% (+-0.071 pp, the long
    independent run of docs/maths.md: a fortieth of these runs' half-width). An interval a third as wide misses the
    mark on the same runs."""
    from reelforge.games.forge_of_gems.split_spins import coverage_intervals

    honest = coverage_intervals(get_game("forge-of-gems").load_build("96.2"), 100_000)

    def run(seed: int) -> dict[str, tuple[float, float]]:
        got = honest(seed)["RTP"]
        return {"RTP": got, "RTP (a third as wide)": _shrunk(got, 1 / 3)}

    got = coverage("forge-of-gems", {"RTP": 0.96220, "RTP (a third as wide)": 0.96220}, run, RUNS, 3600,
                   "100,000 paid spins", min_covered(RUNS, ALPHA))
    assert got[0].passed, got[0]
    assert not got[1].passed, got[1]


def test_the_delete_a_piece_jackknife_sd_interval_covers_forge_of_fortunes_exact_sd():
    """The interval a stratified package gives its SD (the jackknife over its pieces, sized as certify grows them),
    here on plain pieces of a game whose SD is exact: 30 runs of 4,000,000 rounds in 12 pieces. An interval a third
    as wide misses the mark on the same runs: the test can fail."""
    import math

    from reelforge.analysis.coverage import jackknife_sd_interval

    game = get_game("forge-of-fortunes")
    build = game.load_build("96.2")
    _covers_and_a_third_as_wide_does_not("SD", math.sqrt(float(exact_figures(game, build).variance)),
                                         jackknife_sd_interval(game, build, 100_000), "4,000,000 rounds in 12 pieces")
