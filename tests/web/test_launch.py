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

from reelforge.server.config import GameConfig, OperatorConfig  # noqa: E402
from reelforge.server.signing import signed_headers  # noqa: E402

from .conftest import test_config  # noqa: E402
from .helpers import displayed_balance, displayed_bet, idle, open_game, play_round  # noqa: E402

SECRET = "web-launch-secret-0123456789"
GAME = "forge-of-fortunes"


def WEB_CONFIG():  # noqa: N802 - the web_server fixture's hook
    config = test_config()
    games = dict(config.games)
    base = games[GAME]
    games[GAME] = GameConfig(GAME, base.build, base.bet_ladder, {"JPY": (10, 20, 50, 100), "BHD": (100, 500)})
    return replace(config, games=games, operator=OperatorConfig(secret=SECRET))


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
