"""What a player does in the browser, as small functions the tests read like prose."""

from __future__ import annotations

import importlib
import importlib.util
import re
import uuid
from types import ModuleType
from typing import Any

from playwright.sync_api import Page, expect


def unique_player(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def sign_in(page: Page, player: str) -> str:
    """Open the client, sign in as a demo player; return the session token the client keeps."""
    page.goto("/")
    page.get_by_test_id("login-name").fill(player)
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("player")).to_have_text(player)
    return page.evaluate("localStorage.getItem('rf.token')")


def session(page: Page, server: Any, player: str) -> str:
    """A demo session opened through the API and handed to the client (what the sign-in form does,
    without its page load): the client finds the token in localStorage and opens the lobby."""
    r = server.api("POST", "/sessions", json={"player": player})
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    page.add_init_script(f"localStorage.setItem('rf.token', {token!r})")
    page.goto("/#/lobby")
    expect(page.get_by_test_id("player")).to_have_text(player)
    return token


def open_game(page: Page, game_id: str, turbo: bool = True) -> None:
    page.get_by_test_id(f"game-card-{game_id}").click()
    idle(page)
    turbo_box = page.get_by_test_id("turbo")
    if turbo_box.is_checked() != turbo:
        turbo_box.click()


def idle(page: Page) -> str:
    """Wait until no request or animation runs; return ``idle`` (no round) or ``open`` (round unfinished)."""
    # expect() rather than wait_for_function(): the server's Content-Security-Policy forbids the eval
    # that a string predicate needs, and the tests run under the policy players get.
    # A feature's end with its big-win celebration, animations on, runs longer than expect()'s 5 s default;
    # Quick spin shortens every fall and pause of a feature, never skips one.
    expect(page.locator("body")).to_have_attribute("data-round-state", re.compile(r"^(idle|open)$"),
                                                   timeout=60_000)
    return page.evaluate("document.body.dataset.roundState")


def stop_feature(page: Page) -> str:
    """Press STOP while a feature plays itself: it pauses after the step in progress; return the state then.
    The paid spin before a feature may tumble many times, each fall animated: on a loaded machine it takes
    most of 20 s, so the wait is as long as :func:`idle`'s (the tests check the table, not its pace)."""
    expect(page.locator("body")).to_have_attribute("data-feature", "playing", timeout=60_000)
    expect(page.get_by_test_id("spin")).to_have_text("STOP")
    page.get_by_test_id("spin").click()
    return idle(page)


def press_spin(page: Page, key: bool = False) -> str:
    if key:
        page.keyboard.press("Space")
    else:
        page.get_by_test_id("spin").click()
    # spin() marks the round state busy synchronously inside the click/key handler, so idle() cannot race it.
    return idle(page)


def displayed_balance(page: Page) -> int:
    return int(page.get_by_test_id("balance").get_attribute("data-minor"))


def displayed_bet(page: Page) -> int:
    return int(page.get_by_test_id("bet").get_attribute("data-minor"))


def last_round(server: Any, token: str) -> dict[str, Any]:
    r = server.api("GET", "/rounds?limit=1", token)
    assert r.status_code == 200, r.text
    (summary,) = r.json()["rounds"]
    full = server.api("GET", f"/rounds/{summary['id']}", token)
    assert full.status_code == 200, full.text
    return full.json()


def play_round(page: Page, key: bool = False, max_steps: int = 500) -> int:
    """Press SPIN until the round is over; return how many presses it took (features play themselves:
    one press, or two where the player opens a GEMBOX)."""
    presses = 0
    state = "idle"
    while presses == 0 or state == "open":
        state = press_spin(page, key)
        presses += 1
        assert presses <= max_steps, "round did not finish"
    return presses


def set_bet(page: Page, ladder: list[int], bet: int) -> None:
    """Step the bet along the ladder with the minus/plus buttons until it shows ``bet``."""
    for _ in range(len(ladder) + 1):
        now = displayed_bet(page)
        if now == bet:
            return
        page.get_by_test_id("bet-plus" if now < bet else "bet-minus").click()
    raise AssertionError(f"could not reach bet {bet}")


def client_view(game_id: str) -> ModuleType | None:
    """What the game's own browser client shows of a round (its folder's ``client_view`` module: ``resumed_view``,
    and for a cascading board ``BOARD`` and ``board_text``), or None for a game drawn by a genre's renderer."""
    from reelforge.games.registry import get_game

    package = type(get_game(game_id)).__module__.rpartition(".")[0]
    if importlib.util.find_spec(f"{package}.client_view") is None:
        return None
    return importlib.import_module(f"{package}.client_view")


def check_view(page: Page, view: dict[str, dict[str, Any]], within: str = "") -> None:
    """Every element of ``view`` (CSS selector -> attribute -> value or pattern; ``count``: how many elements
    match) shows what it says; ``within``: the selector of the part of the page it is in."""
    for selector, attributes in view.items():
        found = page.locator(f"{within} {selector}".strip())
        for attribute, value in attributes.items():
            if attribute == "count":
                expect(found).to_have_count(value)
            else:
                expect(found).to_have_attribute(attribute, value)


def game_url(game_id: str) -> str:
    """The URL of the game's own renderer module (``client.js`` in its folder, served by the server)."""
    return f"/api/v1/games/{game_id}/client/client.js"
