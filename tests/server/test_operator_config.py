"""Configuration of operators: currencies and their ladders, jurisdiction profiles, the [operator] section."""

from __future__ import annotations

import pytest

from reelforge.server.config import parse_config
from reelforge.server.config_values import ConfigError

KEY = "0" * 64


def config(games=None, **sections):
    return parse_config({"server": {"mode": "operator", "api_key_sha256": KEY},
                         "games": games or {"seven-lines": {"bet_ladder": [10, 20]}}, **sections}, "t")


def test_currency_ladders_whose_wins_would_round_are_refused_at_load():
    # seven-lines pays in tenths of the bet: a 5-yen bet would pay some wins in half yen
    with pytest.raises(ConfigError, match=r"bet_ladders\.JPY: bet\(s\) \[5, 15\] are not multiples of the build's "
                                          r"win unit 10 minor units of JPY \(0 decimals\)"):
        config({"seven-lines": {"bet_ladder": [10], "bet_ladders": {"JPY": [5, 10, 15]}}})
    loaded = config({"seven-lines": {"bet_ladder": [10], "bet_ladders": {"JPY": [10, 100], "BHD": [100, 1000]}}})
    game = loaded.games["seven-lines"]
    assert game.ladder("JPY", "EUR") == (10, 100) and game.ladder("BHD", "EUR") == (100, 1000)
    assert game.ladder("USD", "EUR") is None and game.ladder("EUR", "EUR") == (10,)
    assert loaded.currencies["JPY"] == 0 and loaded.currencies["EUR"] == 2 and loaded.currencies["BHD"] == 3
    assert loaded.session_currencies() == ["BHD", "EUR", "JPY"]


@pytest.mark.parametrize("sections, match", [
    ({"currencies": {"XTS": 7}}, r"XTS decimals must be an integer in \[0, 4\]"),
    ({"currencies": {"xts": 2}}, "not a 3-letter upper-case currency code"),
    ({"operator": {"wallet": "seamless", "secret": "s" * 20}}, "needs wallet_url and a secret"),
    ({"operator": {"wallet": "remote"}}, "wallet must be 'transfer' or 'seamless'"),
    ({"operator": {"secret": "short"}}, "at least 16 characters"),
    ({"operator": {"secret_file": "/no/such/secret"}}, "cannot read secret_file '/no/such/secret'"),
    ({"operator": {"wallet_url": "ftp://x"}}, "must be an http"),
    ({"operator": {"colour": 1}}, "unknown key"),
    ({"profiles": {"my market": {}}}, "a profile name is"),
    ({"profiles": {"mine": {"turbo": "no"}}}, "turbo must be true or false"),
])
def test_bad_operator_sections_are_refused_with_where_and_why(sections, match):
    with pytest.raises(ConfigError, match=match):
        config(**sections)


def test_unknown_currencies_need_their_decimals():
    with pytest.raises(ConfigError, match="bet_ladders: unknown currency 'XTS'"):
        config({"seven-lines": {"bet_ladder": [10], "bet_ladders": {"XTS": [10]}}})
    assert config({"seven-lines": {"bet_ladder": [10], "bet_ladders": {"XTS": [10]}}},
                  currencies={"XTS": 1}).games["seven-lines"].ladders == {"XTS": (10,)}


def test_shipped_profiles_the_template_and_the_operators_own():
    loaded = config(profiles={"strict": {"profile": "uk", "reality_check_minutes": 30, "max_bet": 500}})
    uk = loaded.profiles["uk"]
    assert (uk.autoplay, uk.turbo, uk.min_round_seconds, uk.reality_check_minutes) == (False, False, 2.5, 60)
    default = loaded.profiles["default"]
    assert (default.turbo, default.min_round_seconds, default.reality_check_minutes) == (True, 0, 0)
    assert set(loaded.profiles) == {"default", "uk", "template", "strict"}
    strict = loaded.profiles["strict"]
    assert (strict.profile, strict.turbo, strict.reality_check_minutes, strict.max_bet) == ("strict", False, 30, 500)
    assert loaded.rules("strict") is strict and loaded.rules(None) is loaded.play


def test_the_secret_can_live_in_a_file_of_its_own(tmp_path):
    path = tmp_path / "operator-secret"
    path.write_text("s3cret-of-the-operator-0123\n")
    assert config(operator={"secret_file": str(path)}).operator.secret == "s3cret-of-the-operator-0123"
