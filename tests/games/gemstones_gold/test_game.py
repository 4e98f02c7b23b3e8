"""The Game interface: help, stakes, accumulators and the summary extras."""

from fractions import Fraction

from reelforge.analysis.summary import simulation_summary
from reelforge.games.gemstones_gold.build import load_build
from reelforge.games.gemstones_gold.game import GemstonesGold

GAME = GemstonesGold()


def test_help_names_the_game_build_paytable_and_max_win():
    build = load_build("96.71")
    h = GAME.help(build)
    assert h.title == "Gemstones Gold" and h.game_id == h.published_id == "1671262" and h.version == "1.0 r2"
    assert h.game == "gemstones-gold" and h.volatility == "High"
    # the RTP shown is the certified centre, its whole 99% interval within 0.05 pp of the name (certified_figures.toml)
    assert h.build == "96.71" and h.rtp_percent == "96.71" and h.rtp_proof["method"] == "certified"
    low, high = (Fraction(x) for x in h.rtp_proof["interval"])
    assert Fraction(9666, 10000) <= low < h.rtp < high <= Fraction(9676, 10000)
    assert h.max_win_x == 7500
    assert h.extra["paytable_coins"]["GOLD_NUGGET"] == {"8-9": 20, "10-11": 40, "12-14": 80, "15+": 200}
    assert h.paytable["rows"][0] == {"art": ["GOLD_NUGGET"], "name": "Gold Nugget", "pays_x": ["1", "2", "4", "10"]}
    assert h.feature_buy_price_x == build.feature_buy_price_x
    assert h.to_json()["feature_buy_price_x"] == str(build.feature_buy_price_x)


def test_feature_buy_costs_its_price_and_paid_rounds_one_bet():
    build = load_build("96.71")
    assert GAME.stake_x(build, "paid") == 1
    assert GAME.stake_x(build, "buy") == build.feature_buy_price_x > 40
    assert GAME.new_accumulator(build, "buy").stake_units == build.feature_buy_price_x * 20
    assert GAME.new_accumulator(build).stake_units == 20


def test_summary_extras_split_the_hit_rate_and_report_the_feature():
    build = load_build("96.71")
    acc = GAME.simulate_chunk(build, 20_000, 3)
    extra = GAME.extra_summary(build, acc)
    split = extra["hit_rate_split"]
    assert abs(split["trigger_free_spins"] + split["win_without_trigger"] - acc.hit_rate) < 1e-12
    # the trigger rate is the summary's core feature_rate, not repeated among the extras
    assert simulation_summary(GAME, build, acc)["feature_rate"] == acc.counter("triggers") / acc.rounds
    assert not {"trigger_rate", "feature_frequency_1_in", "feature_buy_price_x"} & set(extra)
    assert acc.component_names == ("paid_spins", "free_spins")


def test_simulate_features_is_the_bought_feature_stratum():
    build = load_build("96.71")
    acc = GAME.simulate_features(build, 2_000, 5)
    assert acc.rounds == 2_000 and acc.counter("triggers") == 2_000
    assert acc.components[0] == 0 and acc.counter("free_spins_played") >= 10 * 2_000
    assert Fraction(acc.stake_units, 20) == build.feature_buy_price_x
