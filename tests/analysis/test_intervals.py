"""Every estimated figure carries its 99% interval; exact figures carry none; the kernels' power sums
and per-component squares (what the SD and split intervals rest on) equal the reference engine's."""

import math
from fractions import Fraction

import numpy as np
import pytest

from reelforge.analysis.summary import exact_summary, simulation_summary
from reelforge.core.draws import SeededDraws
from reelforge.core.stats import clopper_pearson
from reelforge.games.registry import get_game


def intervals(obj, path=""):
    """Every (path, point, interval) pair of a summary: a key ``k_ci99`` beside a key ``k``."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key.endswith("_ci99") and key[:-5] in obj:
                yield f"{path}{key}", obj[key[:-5]], value
            elif key == "ci99" and "probability" in obj:
                yield f"{path}{key}", obj["probability"], value
            else:
                yield from intervals(value, f"{path}{key}.")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from intervals(value, f"{path}{i}.")


def holds(point, ci):
    if isinstance(point, dict):  # e.g. rtp_split_ci99 beside rtp_split
        return all(holds(point[k], ci[k]) for k in point)
    lo, hi = ci
    return lo <= point <= hi


def reference_components(game_id, build, rounds, seed):
    """Per-round (components) of ``rounds`` reference-engine rounds on the kernel's stream."""
    game = get_game(game_id)
    draws = SeededDraws(seed)
    out = []
    for _ in range(rounds):
        if game_id == "forge-of-gems":
            from reelforge.games.forge_of_gems import rules

            out.append(rules.round_units(build, draws)[1])
            continue
        result = game.play_round(build, draws)
        unit = game.win_unit(build)
        total = int(result.total_win * unit)
        first = int(result.steps[0].win * unit)
        out.append([first, total - first])
    return out


@pytest.mark.parametrize("game_id, rounds, seed", [
    ("forge-of-fortunes", 30_000, 5), ("gemstones-gold", 4_000, 2026), ("forge-of-gems", 4_000, 11)])
def test_kernel_power_sums_and_component_squares_equal_the_reference_engine(game_id, rounds, seed):
    game = get_game(game_id)
    build = game.load_build(game.default_build())
    kernel = game.simulate_chunk(build, rounds, seed)
    ref = game.new_accumulator(build)
    for comps in reference_components(game_id, build, rounds, seed):
        ref.add_round(comps)
    for field in ("rounds", "hits", "win", "win_sq", "win_cube", "win_quad", "components", "component_sq", "hist"):
        assert getattr(kernel, field) == getattr(ref, field), field
    assert kernel.win_quad > 0 and all(kernel.component_sq)  # the stream reached every component


@pytest.mark.parametrize("game_id, rounds", [
    ("forge-of-fortunes", 200_000), ("gemstones-gold", 100_000), ("forge-of-gems", 50_000)])
def test_every_estimated_figure_carries_an_interval_that_holds_it(game_id, rounds):
    game = get_game(game_id)
    build = game.load_build(game.default_build())
    s = simulation_summary(game, build, game.simulate_chunk(build, rounds, 7), seed=7)
    for key in ("rtp_ci99", "house_edge_ci99", "rtp_split_ci99", "hit_rate_ci99", "feature_rate_ci99",
                "feature_frequency_one_in_ci99", "sd_ci99", "max_win_probability_ci99"):
        assert s[key] is not None, key
    found = list(intervals(s))
    assert len(found) >= 20  # the top-level figures and the twelve distribution bands at least
    for path, point, ci in found:
        if point is None or ci is None:
            continue
        assert holds(point, ci), (path, point, ci)
    assert all(d["ci99"][0] <= d["probability"] <= d["ci99"][1] for d in s["distribution"])
    # the volatility level is one of the levels its SD interval spans, which run without gaps
    levels = s["volatility_levels_ci99"]
    assert s["volatility_level"] in levels and levels == list(range(levels[0], levels[-1] + 1))
    assert s["sample"]["rounds"] == rounds and s["sample"]["seed"] == 7


def test_exact_figures_say_exact_and_carry_no_interval():
    game = get_game("forge-of-fortunes")
    s = exact_summary(game, game.load_build("96.2"))
    assert s["sample"]["kind"] == "exact" and s["rtp_ci99"] is None
    assert not [k for k in s if k.endswith("_ci99") and s[k] is not None]
    assert all("ci99" not in d for d in s["distribution"])
    assert Fraction(s["rtp_exact"]) == sum(Fraction(v) for v in s["rtp_split_exact"].values())


def test_no_observed_max_win_gives_the_one_sided_99_percent_upper_bound():
    game = get_game("forge-of-fortunes")
    build = game.load_build("96.2")
    acc = game.simulate_chunk(build, 20_000, 3)
    assert acc.max_win < acc.cap_units  # 1 in 100,848: none in this sample (fixed seed)
    s = simulation_summary(game, build, acc, seed=3)
    assert s["max_win_count"] == 0 and s["max_win_probability"] == 0
    assert s["max_win_probability_upper_99"] == pytest.approx(-math.log(0.01) / 20_000)
    # the one interval of the figure, in the summary and on the cap's row of the distribution
    assert s["max_win_probability_ci99"] == [0.0, s["max_win_probability_upper_99"]] == s["distribution"][-1]["ci99"]
    assert "not observed in 20,000 rounds, below -ln(0.01)/N = 0.00023 at 99%" in s["max_win_statement"]


def test_observed_max_wins_carry_their_count_and_an_exact_binomial_interval():
    game = get_game("forge-of-fortunes")
    build = game.load_build("96.2")
    acc = game.simulate_chunk(build, 400_000, 1)
    s = simulation_summary(game, build, acc, seed=1)
    k = s["max_win_count"]
    assert k > 0 and s["max_win_probability"] == k / 400_000
    assert s["max_win_probability_ci99"] == list(clopper_pearson(k, 400_000))
    assert s["max_win_probability_upper_99"] is None
    assert f"observed {k:,} times in 400,000 rounds" in s["max_win_statement"]


def test_clopper_pearson_ends_are_where_the_binomial_tails_reach_half_a_percent():
    from scipy.stats import binom

    lo, hi = clopper_pearson(0, 1000)
    assert lo == 0 and abs(hi - (1 - 0.005 ** (1 / 1000))) < 1e-12
    lo, hi = clopper_pearson(5, 100)
    assert abs(binom.sf(4, 100, lo) - 0.005) < 1e-9  # P(X >= 5) at the lower end
    assert abs(binom.cdf(5, 100, hi) - 0.005) < 1e-9  # P(X <= 5) at the upper end


@pytest.mark.parametrize("game_id", ["gemstones-gold", "forge-of-gems"])
def test_par_pay_contributions_and_the_caps_reduction_add_up_to_the_samples_total_win(game_id):
    from reelforge.game.parsheet import reference_sample
    from reelforge.games.forge_of_gems import reporting as fog
    from reelforge.games.gemstones_gold import reporting as gg

    game = get_game(game_id)
    build = game.load_build(game.default_build())
    attribute = gg.attribute if game_id == "gemstones-gold" else fog.attribute(build.unit)
    tally = reference_sample(game, build, 400, 9, attribute)
    draws = SeededDraws(9)
    unit = game.win_unit(build)
    total = sum(int(game.play_round(build, draws).total_win * unit) for _ in range(400))
    assert total > 0 and sum(tally.total.values()) == total
    assert tally.rounds == 400 and all(k.count("|") == 2 for k in tally.total)
    pays = [k for k in tally.total if not k.startswith(("cap|", "gembox|"))]
    assert pays and all(tally.total[k] > 0 for k in pays)


def test_the_rtp_split_has_a_feature_buy_part_with_its_own_sample_and_interval():
    from reelforge.analysis.summary import add_feature_buy

    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    s = simulation_summary(game, build, game.simulate_chunk(build, 20_000, 5), seed=5)
    add_feature_buy(game, build, s, 5, 1)
    buy = s["feature_buy"]
    assert buy["features"] == 10_000 and buy["seed"] == 6 and Fraction(buy["price_x"]) == build.feature_buy_price_x
    assert buy["rtp_ci99"][0] < buy["rtp"] < buy["rtp_ci99"][1]
    acc = game.simulate_chunk(build, 10_000, np.random.SeedSequence(6, spawn_key=(0,)), mode="buy")
    assert buy["rtp"] == acc.rtp  # the buy rounds are the simulation driver's chunk 0 of seed + 1
    forge = get_game("forge-of-fortunes")
    s2 = exact_summary(forge, forge.load_build("96.2"))
    add_feature_buy(forge, forge.load_build("96.2"), s2, 5, 1)
    assert "feature_buy" not in s2  # no Feature Buy in that game
