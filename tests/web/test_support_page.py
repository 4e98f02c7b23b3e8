"""The support page and a signed replay link in Chromium: the round's boards drawn by the game's own renderer
after every step, beside the facts, steps, fair data and wallet entries the server wrote; the player's replay
without a session; an altered link refused in words."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import replace

from playwright.sync_api import expect

from reelforge.server.auth import bearer, open_session

from .conftest import OPERATOR_KEY, screenshot, test_config

SUPPORT_KEY = "web-test-support-key"
WEB_PROVABLY_FAIR = True  # rounds drawn from the player's seed pair: the page shows real fair data


def WEB_CONFIG():  # noqa: N802 - the name the web_server fixture looks for
    return replace(test_config(), mode="operator",
                   support_key_sha256=hashlib.sha256(SUPPORT_KEY.encode()).hexdigest())


def test_support_page_and_replay_link_draw_the_rounds_boards(web_server, new_page) -> None:
    engine, config, service = web_server.app.state.engine, web_server.config, web_server.app.state.service
    token = open_session(engine, config, "desk-player", OPERATOR_KEY)["token"]
    web_server.client().deposit("desk-player", 10**7)
    who = bearer(f"Bearer {token}")
    bet = config.games["forge-of-gems"].bet_ladder[0]
    played = []
    for _ in range(20):  # the page is shown for the round with the most steps and win among them (any will do)
        rnd = service.start_round(who, "forge-of-gems", bet, False, None, uuid.uuid4().hex).body
        while rnd["status"] == "open":
            rnd = service.play_step(who, rnd["id"], None, uuid.uuid4().hex).body
        played.append(rnd)
    rnd = max(played, key=lambda r: (r["step_count"], r["paid"]))

    page = new_page()
    page.set_extra_http_headers({"X-Support-Key": SUPPORT_KEY})
    page.goto(f"/support/rounds/{rnd['id']}")
    # every step's board drawn by the game's renderer: up to a dozen boards, which a loaded machine (the suite's
    # workers beside it) takes longer than expect()'s 5 s to draw on a phone; the check is that all are drawn
    expect(page.get_by_test_id("boards")).to_have_attribute("data-drawn", str(rnd["step_count"]), timeout=30_000)
    expect(page.get_by_test_id("facts")).to_contain_text("desk-player")
    expect(page.get_by_test_id("fair")).to_contain_text(rnd["fair"]["server_seed_sha256"])
    expect(page.get_by_test_id("ledger")).to_contain_text("Stake")
    assert page.locator("[data-testid=board-0] .stage-inner *").count() > 0  # the renderer drew the board
    assert not page.js_errors, page.js_errors
    screenshot(page, "support-round-desktop")

    link = web_server.api("POST", f"/operator/rounds/{rnd['id']}/replay-links",
                          headers={"X-Support-Key": SUPPORT_KEY}).json()
    phone = new_page(phone=True)
    phone.goto(link["url"])
    expect(phone.get_by_test_id("boards")).to_have_attribute("data-drawn", str(rnd["step_count"]), timeout=30_000)
    expect(phone.get_by_test_id("round-title")).to_contain_text(str(rnd["id"]))
    assert "desk-player" not in phone.content() and not phone.js_errors
    screenshot(phone, "replay-link-phone")
    phone.goto(link["url"].replace("signature=", "signature=0"))
    expect(phone.get_by_test_id("refusal")).to_contain_text("altered or is incomplete")
    screenshot(phone, "replay-link-refused-phone")
