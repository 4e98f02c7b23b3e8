"""Build files are validated on load with clear messages."""

import copy

import pytest

from reelforge.game.contract import BuildError
from reelforge.games.gemstones_gold.build import PUBLISHED_PAYTABLE, load_build, parse_build
from reelforge.games.gemstones_gold.game import GemstonesGold
from reelforge.games.registry import get_game

from .scenario import scenario_build


def good_data():
    b = scenario_build()
    return {"game": "gemstones-gold", "name": "x", "rtp": "0.9671", "feature_buy_price_x": "50",
            "paytable": {k: list(v) for k, v in PUBLISHED_PAYTABLE.items()},
            "reels": {"strips": list(b.strips)},
            "multipliers": {"values": list(b.values), "base_weights": [1] * 5, "free_weights": [1] * 5}}


def test_shipped_build_loads_and_is_registered():
    game = get_game("gemstones-gold")
    assert isinstance(game, GemstonesGold)
    assert "96.71" in game.build_names()
    build = load_build("96.71")
    assert len(build.strips) == 6 and all(len(s) >= 6 for s in build.strips)
    assert min(build.values) >= 2 and max(build.values) == 500
    assert game.win_unit(build) == 20 and build.cap_units == 150000


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["paytable"].update(GOLD_NUGGET=[20, 40, 80, 250]), "published paytable"),
    (lambda d: d["reels"]["strips"].pop(), "must hold 6 strips"),
    (lambda d: d["reels"]["strips"].__setitem__(0, "GRASEBQQ"), "unknown symbol"),
    (lambda d: d["multipliers"].update(values=[1, 3, 5, 20, 500]), "2..500"),
    (lambda d: d["multipliers"].update(base_weights=[1, 1]), "base_weights"),
    (lambda d: d["multipliers"].update(free_weights=[0, 0, 0, 0, 0]), "positive total"),
    (lambda d: d.update(feature_buy_price_x="-3"), "feature_buy_price_x"),
    (lambda d: d.update(feature_buy_price_x="50.01"), "multiple of 1/20"),
    (lambda d: d.pop("reels"), "missing 'reels'"),
])
def test_bad_build_data_is_refused_with_a_clear_message(mutate, message):
    data = copy.deepcopy(good_data())
    mutate(data)
    with pytest.raises(BuildError, match=message):
        parse_build(data, "x")

