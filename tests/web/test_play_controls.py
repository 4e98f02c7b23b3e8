"""Responsible-play and jurisdiction controls in the browser, on a server configured with them all:
the session clock and net position, no Turbo, a capped bet ladder, rounds paced by the server's
min_round_seconds, and a reality check that pauses play until the player answers it."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import datetime

import pytest

if not os.environ.get("CI"):
    pytest.importorskip("playwright.sync_api")

from playwright.sync_api import expect  # noqa: E402

from reelforge.core.draws import SecureDraws, SeededDraws
from reelforge.server.config_play import PlayRules

from .conftest import screenshot, test_config
from .helpers import displayed_balance, displayed_bet, idle, open_game, play_round, session, unique_player

GAME = "forge-of-fortunes"
MAX_BET = 500
PACE = 1.5


def WEB_CONFIG():  # noqa: N802 - the hook conftest's web_server looks for
    config = test_config()
    games = {gid: replace(g, bet_ladder=tuple(b for b in g.bet_ladder if b <= MAX_BET)) for gid, g in config.games.items()}
    return replace(config, games=games, play=PlayRules(reality_check_minutes=1, turbo=False,
                                                       min_round_seconds=PACE, max_bet=MAX_BET,
                                                       autoplay=True, autoplay_max_rounds=3))


def test_no_turbo_a_capped_ladder_paced_rounds_and_the_session_net_position(new_page, web_server):
    page = new_page()
    refused: list[int] = []
    page.on("response", lambda r: refused.append(r.status) if r.status >= 400 else None)
    token = session(page, web_server, unique_player("paced"))
    expect(page.get_by_test_id("session-bar")).to_be_visible()
    expect(page.get_by_test_id("session-net")).to_have_attribute("data-minor", "0")
    open_game(page, GAME, turbo=False)
    expect(page.get_by_test_id("turbo-label")).to_be_hidden()
    for _ in range(20):
        if page.get_by_test_id("bet-plus").is_disabled():
            break
        page.get_by_test_id("bet-plus").click()
    assert displayed_bet(page) == MAX_BET
    start = web_server.balance(token)
    play_round(page)
    play_round(page)  # pressed at once: the client waits out the pace instead of being refused
    rounds = web_server.api("GET", "/rounds", token).json()["rounds"]
    assert len(rounds) == 2 and all(r["bet"] == MAX_BET for r in rounds)
    gap = (datetime.fromisoformat(rounds[0]["created_at"]) - datetime.fromisoformat(rounds[1]["created_at"])).total_seconds()
    assert gap >= PACE, gap
    assert not refused, refused  # the client waited: the server never had to refuse it
    expect(page.get_by_test_id("notice")).to_be_hidden()
    wallet = web_server.api("GET", "/wallet", token).json()
    assert wallet["session"]["net"] == wallet["balance"] - start == displayed_balance(page) - start
    expect(page.get_by_test_id("session-net")).to_have_attribute("data-minor", str(wallet["session"]["net"]))
    screenshot(page, "play-controls-desktop")
    assert not page.js_errors


def test_the_server_refuses_a_round_sooner_than_the_pace_with_a_clear_4xx(web_server):
    token = web_server.api("POST", "/sessions", json={"player": unique_player("fast")}).json()["token"]
    headers = {"Idempotency-Key": "a"}
    first = web_server.api("POST", f"/games/{GAME}/rounds", token, json={"bet": MAX_BET}, headers=headers)
    assert first.status_code == 201
    again = web_server.api("POST", f"/games/{GAME}/rounds", token, json={"bet": MAX_BET}, headers={"Idempotency-Key": "b"})
    assert again.status_code == 429 and again.json()["error"] == "too_soon"
    above = web_server.api("POST", f"/games/{GAME}/rounds", token, json={"bet": 1000}, headers={"Idempotency-Key": "c"})
    assert above.status_code == 422 and above.json()["error"] == "bet_above_maximum"


def test_a_reality_check_pauses_play_until_the_player_answers(new_page, web_server):
    page = new_page(phone=True)
    page.clock.install()
    session(page, web_server, unique_player("reality"))
    open_game(page, GAME, turbo=False)
    expect(page.get_by_test_id("reality-check")).to_be_hidden()
    page.clock.fast_forward("01:01")
    dialog = page.get_by_test_id("reality-check")
    expect(dialog).to_be_visible()
    expect(page.get_by_test_id("reality-text")).to_contain_text("playing for 1 minute")
    expect(page.get_by_test_id("reality-text")).to_contain_text("net position is €0.00")
    expect(page.get_by_test_id("spin")).to_be_disabled()
    page.keyboard.press("Escape")  # only an answer dismisses it
    expect(dialog).to_be_visible()
    page.keyboard.press("Space")
    assert web_server.api("GET", "/rounds", page.evaluate("localStorage.getItem('rf.token')")).json()["rounds"] == []
    screenshot(page, "reality-check-phone")
    page.get_by_test_id("reality-continue").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("spin")).to_be_enabled()
    assert idle(page) == "idle"
    assert not page.js_errors


@pytest.fixture
def secure_draws_after(web_server):
    yield
    web_server.draws.source = SecureDraws()


def test_autoplay_where_the_operator_allows_it_keeps_to_its_rounds_the_pace_and_the_loss_limit(new_page, web_server, secure_draws_after):
    page = new_page()
    token = session(page, web_server, unique_player("autoplay"))
    open_game(page, GAME, turbo=False)
    web_server.draws.source = SeededDraws(2)  # five rounds in a row without a win or a feature
    page.get_by_test_id("autoplay-open").click()
    expect(page.get_by_test_id("autoplay-dialog")).to_be_visible()
    # No more rounds than the operator allows; a loss limit is always set.
    assert page.get_by_test_id("autoplay-rounds").locator("option").all_inner_texts() == ["3 rounds"]
    page.get_by_test_id("autoplay-loss").select_option(str(10 * displayed_bet(page)))
    screenshot(page, "autoplay-dialog-desktop")
    page.get_by_test_id("autoplay-start").click()
    expect(page.get_by_test_id("autoplay-open")).to_have_attribute("data-running", "true")
    expect(page.get_by_test_id("bet-open")).to_be_disabled()  # the bet cannot change while autoplay runs
    expect(page.get_by_test_id("message")).to_have_text("Autoplay finished.", timeout=20_000)
    rounds = web_server.api("GET", "/rounds", token).json()["rounds"]
    assert len(rounds) == 3
    starts = sorted(datetime.fromisoformat(r["created_at"]) for r in rounds)
    assert all((b - a).total_seconds() >= PACE for a, b in zip(starts, starts[1:]))  # the pace still holds
    # A loss limit of two bets stops it after two losing rounds.
    bet = displayed_bet(page)
    page.get_by_test_id("autoplay-open").click()
    page.get_by_test_id("autoplay-loss").select_option(str(2 * bet))
    page.get_by_test_id("autoplay-start").click()
    expect(page.get_by_test_id("message")).to_contain_text("loss limit", timeout=20_000)
    assert len(web_server.api("GET", "/rounds", token).json()["rounds"]) == 5
    expect(page.get_by_test_id("autoplay-open")).to_have_text("AUTO")
    assert idle(page) == "idle"
    assert not page.js_errors
