"""Launch by URL in the browser: the operator's signed launch, the one-time token exchanged by the client,
amounts in the session's currency and language (Intl.NumberFormat), its ladder."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace

import pytest

if not os.environ.get("CI"):  # in CI the driver is a dev dependency and must be there
    pytest.importorskip("playwright.sync_api")

from playwright.sync_api import expect  # noqa: E402

from reelforge.server.config_games import GameConfig  # noqa: E402
from reelforge.server.config_operator import OperatorConfig  # noqa: E402
from reelforge.server.config_play import PlayRules  # noqa: E402
from reelforge.server.signing import signed_headers  # noqa: E402

from .conftest import screenshot, test_config  # noqa: E402
from .helpers import displayed_balance, displayed_bet, idle, open_game, play_round  # noqa: E402

SECRET = "web-launch-secret-0123456789"
GAME = "forge-of-fortunes"


def WEB_CONFIG():  # noqa: N802 - the web_server fixture's hook
    config = test_config()
    games = dict(config.games)
    base = games[GAME]
    games[GAME] = GameConfig(GAME, base.build, base.bet_ladder, {"JPY": (10, 20, 50, 100), "BHD": (100, 500)})
    profiles = {**config.profiles, "no-buy": PlayRules(profile="no-buy", feature_buy=False)}
    return replace(config, games=games, profiles=profiles,
                   operator=OperatorConfig(secret=SECRET, allowed_url_hosts=("casino.example",)))


def launch_url(web_server, **body) -> str:
    data = json.dumps(body).encode()
    headers = {"content-type": "application/json",
               **signed_headers(SECRET, "POST", "/api/v1/operator/launches", data)}
    r = web_server.http.post("/api/v1/operator/launches", content=data, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()["launch_url"]


@pytest.mark.parametrize("currency, language, pattern", [
    ("JPY", "ja-JP", r"^[￥¥]100,000$"),
    ("BHD", "en-GB", r"^BHD\s?100\.000$"),
])
def test_a_launch_url_opens_a_session_in_its_currency_and_language(new_page, web_server, currency, language,
                                                                   pattern):
    page = new_page()
    url = launch_url(web_server, player=f"launch-{currency.lower()}", currency=currency, language=language)
    token = re.search(r"launch=([\w-]+)", url).group(1)
    page.goto("/" + url.split("/", 3)[3])
    expect(page.get_by_test_id("balance")).to_have_text(re.compile(pattern))
    assert "launch=" not in page.url  # the spent token leaves the address bar
    assert displayed_balance(page) == 100_000
    again = web_server.http.post("/api/v1/launch", json={"token": token})
    assert again.status_code == 401 and again.json()["error"] == "launch_token_invalid"
    open_game(page, GAME)
    ladder = dict(WEB_CONFIG().games[GAME].ladders)[currency]
    assert displayed_bet(page) in ladder
    play_round(page)
    assert idle(page) == "idle"
    assert not page.js_errors


OPERATOR_PAGES = {"lobby_url": "https://casino.example/lobby", "deposit_url": "https://casino.example/cashier",
                  "history_url": "https://www.casino.example/account/history", "return_url": "https://casino.example/"}


def test_a_launch_shows_the_operators_pages_and_keeps_to_its_game_and_jurisdiction(new_page, web_server):
    # gemstones-gold has a feature buy: shown on the desktop (default jurisdiction), hidden on the phone
    # (a jurisdiction without it); both sessions launched for that one game
    game = "gemstones-gold"
    for phone, jurisdiction in ((False, None), (True, "no-buy")):
        page = new_page(phone=phone)
        url = launch_url(web_server, player=f"pages-{int(phone)}", currency="EUR", game=game, lang="en-GB",
                         device="mobile" if phone else "desktop",
                         **({"jurisdiction": jurisdiction} if jurisdiction else {}), **OPERATOR_PAGES)
        page.goto("/" + url.split("/", 3)[3])
        expect(page.get_by_test_id("game-title")).to_be_visible()
        idle(page)
        for key, value in OPERATOR_PAGES.items():
            link = page.get_by_test_id(f"op-{key.removesuffix('_url')}")
            expect(link).to_be_visible()
            expect(link).to_have_attribute("href", value)
            expect(link).to_have_attribute("target", "_top")
        buy = page.get_by_test_id("buy")
        expect(buy).to_be_hidden() if jurisdiction else expect(buy).to_be_visible()
        screenshot(page, f"launch-operator-pages-{'phone' if phone else 'desktop'}")
        page.get_by_test_id("nav-lobby").click()
        expect(page.locator("[data-testid^=game-card-]")).to_have_count(1)
        expect(page.get_by_test_id(f"game-card-{game}")).to_be_visible()
        assert not page.js_errors
