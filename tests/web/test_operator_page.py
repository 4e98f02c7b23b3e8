"""The operator page in Chromium: behind the operator key, real figures from rounds played on the server, the
RTP chart with its band, an alarm for a build whose figures are wrong, open rounds and their age.

Rounds are played through the server's round service (the same transactions as the API, on the server's
database) so a few thousand of them take seconds; the page reads them as an operator would.
"""

from __future__ import annotations

import re
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

from playwright.sync_api import expect
from sqlalchemy import func, select

from reelforge.core.draws import SecureDraws, SeededDraws
from reelforge.games.registry import get_game
from reelforge.server.auth import bearer, open_session
from reelforge.server.monitor import MonitorSettings
from reelforge.server.schema import rounds

from ..server.scenarios import feature_scenario
from .conftest import OPERATOR_KEY, screenshot, test_config

FIGURES = Path(tempfile.mkdtemp(prefix="reelforge-web-monitor-")) / "lab.toml"


def WEB_CONFIG():  # noqa: N802 - the name the web_server fixture looks for
    """The test configuration with a fast monitor and a figures file that is wrong for seven-lines 96.0
    (it claims 30%: the build plays about 96%, so the monitor must alarm once it judges)."""
    version = get_game("seven-lines").load_build("96.0").identity.version
    FIGURES.write_text(f'["seven-lines"."96.0"."{version}".paid]\nrtp = "0.30"\nsd = 1.0\nsource = "wrong on purpose"\n')
    config = test_config()
    return replace(config, mode="operator",
                   monitor=MonitorSettings(min_rounds=300, check_seconds=0.5, figures=FIGURES))


def play(web_server, who, game: str, n: int) -> None:
    service = web_server.app.state.service
    bet = web_server.config.games[game].bet_ladder[0]
    for _ in range(n):
        rnd = service.start_round(who, game, bet, False, None, uuid.uuid4().hex).body
        while rnd["status"] == "open":
            rnd = service.play_step(who, rnd["id"], None, uuid.uuid4().hex).body


def test_operator_page_shows_figures_alarms_and_open_rounds(web_server, new_page) -> None:
    config = web_server.config
    token = open_session(web_server.app.state.engine, config, "op-player", OPERATOR_KEY)["token"]
    web_server.client().deposit("op-player", 10**9)
    who = bearer(f"Bearer {token}")
    web_server.draws.source = SeededDraws(26)
    for _ in range(6):  # batches a monitor check apart: the chart has points over time
        play(web_server, who, "seven-lines", 120)
        play(web_server, who, "forge-of-fortunes", 120)
        time.sleep(0.6)
    # two players leave a round of several steps open
    scenario = feature_scenario("forge-of-fortunes")
    for name in ("op-open-1", "op-open-2"):
        other = open_session(web_server.app.state.engine, config, name, OPERATOR_KEY)["token"]
        web_server.client().deposit(name, 10_000)
        web_server.draws.source = SeededDraws(scenario.seed)
        web_server.app.state.service.start_round(bearer(f"Bearer {other}"), "forge-of-fortunes",
                                                 config.games["forge-of-fortunes"].bet_ladder[0], False, None, "k1")
    web_server.draws.source = SecureDraws()
    time.sleep(0.6)

    page = new_page()
    page.goto("/operator.html")
    expect(page.get_by_test_id("key-form")).to_be_visible()  # nothing without the key
    page.get_by_test_id("key").fill("not-the-key")
    page.get_by_test_id("key-submit").click()
    expect(page.get_by_test_id("key-error")).to_have_text("that key was refused")
    page.get_by_test_id("key").fill(OPERATOR_KEY)
    page.get_by_test_id("key-submit").click()
    expect(page.locator("body")).to_have_attribute("data-loaded", "1")

    alarms = page.get_by_test_id("alarm")
    expect(alarms).to_have_count(1)
    expect(alarms.first).to_contain_text("seven-lines 96.0")
    expect(alarms.first).to_contain_text("above its limits")
    rows = page.get_by_test_id("build-row")
    expect(rows).to_have_count(2)
    expect(page.locator('[data-testid="build-row"][data-state="high"]')).to_contain_text("seven-lines")
    expect(page.locator('[data-testid="build-row"][data-state="ok"]')).to_contain_text("forge-of-fortunes")
    # the GGR shown is the database's, to the minor unit
    with web_server.app.state.engine.connect() as conn:
        stakes, wins = conn.execute(select(func.sum(rounds.c.cost), func.sum(rounds.c.win))
                                    .where(rounds.c.game == "seven-lines")).one()
    ggr = page.locator('[data-testid="build-row"][data-state="high"] [data-testid="ggr"]').inner_text()
    assert int(re.sub(r"\D", "", ggr)) == abs(stakes - wins)  # "€0.00" is 0 (finding 16)
    assert ("-" in ggr or "−" in ggr) == (stakes - wins < 0)
    charts = page.get_by_test_id("chart")
    expect(charts).to_have_count(2)
    for i in range(2):  # each with its band, the expected RTP and the observed RTP over several checks
        chart = charts.nth(i)
        expect(chart.locator("polygon.band")).to_have_count(1)
        expect(chart.locator("line.expected")).to_have_count(1)
        points = chart.locator("polyline.observed").get_attribute("points").split()
        assert len(points) >= 3
    expect(page.get_by_test_id("open-round")).to_have_count(2)
    expect(page.get_by_test_id("open-per-game")).to_contain_text("forge-of-fortunes: 2 open")
    expect(page.get_by_test_id("wallet")).to_contain_text("Transfer wallet")
    assert not page.js_errors
    screenshot(page, "operator-page-desktop")
