"""Free rounds in the browser: a campaign made with the operator's API is offered when the player opens its
game, played at its bet without a stake, and its total paid after the last round (docs/OPERATORS.md)."""

from __future__ import annotations

import os
import re
import uuid
from datetime import timedelta

import pytest

if not os.environ.get("CI"):  # in CI the driver is a dev dependency and must be there
    pytest.importorskip("playwright.sync_api")

from playwright.sync_api import expect  # noqa: E402

from reelforge.server.clock import iso, utcnow  # noqa: E402

from .conftest import OPERATOR_KEY, screenshot  # noqa: E402
from .helpers import displayed_balance, displayed_bet, play_round, session, unique_player  # noqa: E402

GAME = "forge-of-fortunes"


def test_a_campaign_is_offered_played_without_a_stake_and_its_total_paid(new_page, web_server) -> None:
    bet = web_server.config.games[GAME].bet_ladder[0]
    desk, phone = unique_player("free-desk"), unique_player("free-phone")
    r = web_server.http.post("/api/v1/operator/campaigns", headers={"X-Operator-Key": OPERATOR_KEY}, json={
        "campaign_id": f"web-{uuid.uuid4().hex[:8]}", "players": [desk, phone], "games": [GAME],
        "bets": {"EUR": bet}, "rounds": 3, "valid_until": iso(utcnow() + timedelta(days=3))})
    assert r.status_code == 201, r.text

    page = new_page()
    session(page, web_server, desk)
    before = displayed_balance(page)
    page.get_by_test_id(f"game-card-{GAME}").click()
    offer = page.get_by_test_id("free-offer")
    expect(offer).to_be_visible()
    expect(page.get_by_test_id("free-offer-text")).to_have_text(re.compile(r"^You have 3 free rounds at €\d"))
    screenshot(page, "free-rounds-offer-1366")
    page.get_by_test_id("free-accept").click()
    expect(page.get_by_test_id("free-left")).to_have_text("3 of 3 left")
    page.get_by_test_id("turbo").check()
    assert displayed_bet(page) == bet
    for left in (2, 1):
        play_round(page)
        expect(page.get_by_test_id("free-left")).to_have_text(f"{left} of 3 left")
        assert displayed_balance(page) == before  # nothing staked, the winnings paid after the last round
    screenshot(page, "free-rounds-playing-1366")
    play_round(page)
    total = page.get_by_test_id("free-total")
    expect(total).to_have_text(re.compile(r"^Free rounds complete: you won .+ in 3 free rounds\.$"))
    won = int(total.get_attribute("data-minor"))
    assert displayed_balance(page) == before + won
    mine = [p for p in r.json()["players"] if p["player"] == desk]
    assert mine and mine[0]["played"] == 0  # as created; now:
    seen = web_server.http.get(f"/api/v1/operator/campaigns/{r.json()['campaign_id']}",
                               headers={"X-Operator-Key": OPERATOR_KEY}).json()["players"]
    assert [(p["played"], p["won"], p["paid"]) for p in seen if p["player"] == desk] == [(3, won, won)]
    screenshot(page, "free-rounds-total-1366")
    assert page.js_errors == []

    small = new_page(phone=True)
    session(small, web_server, phone)
    small.get_by_test_id(f"game-card-{GAME}").click()
    expect(small.get_by_test_id("free-offer")).to_be_visible()
    screenshot(small, "free-rounds-offer-390")
    small.get_by_test_id("free-later").click()
    expect(small.get_by_test_id("free-play")).to_be_visible()  # kept for later: the banner offers them again
    small.get_by_test_id("turbo").check()
    paid = displayed_bet(small)
    play_round(small)  # a paid round first; the free rounds are still there after it
    small.get_by_test_id("free-play").click()
    expect(small.get_by_test_id("free-left")).to_have_text("3 of 3 left")
    assert displayed_bet(small) == bet
    play_round(small)
    expect(small.get_by_test_id("free-left")).to_have_text("2 of 3 left")
    screenshot(small, "free-rounds-playing-390")
    small.get_by_test_id("free-pause").click()  # later again: the paid bet is back
    assert displayed_bet(small) == paid
    assert small.js_errors == []
