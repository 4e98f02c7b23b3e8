"""The operator page in Chromium with players in two currencies on one build: its stakes, wins and GGR cells
show one line per currency, each formatted in that currency (JPY without decimals) and equal to the
database's figure for the players of that currency, to the minor unit."""

from __future__ import annotations

import re
import uuid
from dataclasses import replace

from playwright.sync_api import expect
from sqlalchemy import case, func, select

from reelforge.server.auth import bearer, open_session
from reelforge.server.launch import create_launch, exchange_launch
from reelforge.server.schema import players, rounds

from .conftest import OPERATOR_KEY, screenshot, test_config

GAME = "forge-of-fortunes"


def WEB_CONFIG():  # noqa: N802 - the name the web_server fixture looks for
    """The test configuration in operator mode, with a JPY ladder for GAME (the server's ladder: multiples
    of the build's win unit, so every win pays a whole yen)."""
    config = test_config()
    games = dict(config.games)
    games[GAME] = replace(games[GAME], ladders={"JPY": games[GAME].bet_ladder})
    return replace(config, mode="operator", games=games)


def minor_units(text: str) -> int:
    """The minor units a formatted amount shows, unsigned: its digits as one number ("¥0" 0, "€1,234.05" 123405)."""
    return int(re.sub(r"\D", "", text))


def test_a_figure_of_zero_reads_as_zero_minor_units() -> None:
    # finding 16: the digits of "¥0" stripped of leading zeros gave '' against '0' (a currency with no win)
    assert [minor_units(t) for t in ("¥0", "€0.00", "€1,234.05", "−€0.50", "¥1,000")] == [0, 0, 123405, 50, 1000]


def test_each_currency_has_its_own_line(web_server, new_page) -> None:
    engine, config, service = web_server.app.state.engine, web_server.config, web_server.app.state.service
    launched = create_launch(engine, config, {"player": "yen-player", "currency": "JPY", "language": "en",
                                              "profile": None, "min_bet": None, "max_bet": None, "game": None},
                             web_server.url + "/")
    yen = exchange_launch(engine, config, launched["launch_url"].split("launch=")[1].split("&")[0])["token"]
    assert yen
    euro = open_session(engine, config, "euro-player", OPERATOR_KEY)["token"]
    bet = config.games[GAME].bet_ladder[0]
    for name, token, n in (("yen-player", yen, 40), ("euro-player", euro, 25)):
        web_server.client().deposit(name, 10**8)
        who = bearer(f"Bearer {token}")
        for _ in range(n):
            rnd = service.start_round(who, GAME, bet, False, None, uuid.uuid4().hex).body
            while rnd["status"] == "open":
                rnd = service.play_step(who, rnd["id"], None, uuid.uuid4().hex).body
    with engine.connect() as conn:
        db = {code: (int(stakes), int(wins)) for code, stakes, wins in conn.execute(
            select(players.c.currency, func.sum(rounds.c.cost),
                   func.sum(case((rounds.c.status == "finished", rounds.c.win), else_=0)))
            .join(players, players.c.id == rounds.c.player_id).group_by(players.c.currency))}
    assert set(db) == {"EUR", "JPY"}

    page = new_page()
    page.goto("/operator.html")
    page.get_by_test_id("key").fill(OPERATOR_KEY)
    page.get_by_test_id("key-submit").click()
    expect(page.locator("body")).to_have_attribute("data-loaded", "1")
    rows = page.get_by_test_id("build-row").filter(has_text=GAME)
    expect(rows).to_have_count(2)  # one row per currency: euro and yen figures are never added together
    for i, code in enumerate(("EUR", "JPY")):  # sorted by currency code
        row = rows.nth(i)
        expect(row.get_by_test_id("currency")).to_have_text(code)
        cells = row.locator("td.num")  # started, open, voided, expired, stakes, wins, GGR, observed RTP, ...
        for index, figure in ((4, lambda s, w: s), (5, lambda s, w: w), (6, lambda s, w: s - w)):
            text, value = cells.nth(index).inner_text(), figure(*db[code])
            assert ("€" if code == "EUR" else "¥") in text, text
            assert code == "EUR" or not re.search(r"[.,]\d{2}$", text), text  # yen has no minor unit to show
            assert minor_units(text) == abs(value), (code, text, value)
            assert ("-" in text or "−" in text) == (value < 0), (code, text, value)
    screenshot(page, "operator-page-currencies-desktop")
    phone = new_page(phone=True)
    phone.goto("/operator.html")
    phone.get_by_test_id("key").fill(OPERATOR_KEY)
    phone.get_by_test_id("key-submit").click()
    expect(phone.locator("body")).to_have_attribute("data-loaded", "1")
    expect(phone.get_by_test_id("build-row").filter(has_text=GAME)).to_have_count(2)
    screenshot(phone, "operator-page-currencies-phone")
    assert not page.js_errors and not phone.js_errors, (page.js_errors, phone.js_errors)
