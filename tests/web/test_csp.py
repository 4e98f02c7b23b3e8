"""The browser client works under the server's Content-Security-Policy (same origin, no inline script)."""

from __future__ import annotations

import os

import httpx
import pytest

if not os.environ.get("CI"):  # in CI the driver is a dev dependency and must be there
    pytest.importorskip("playwright.sync_api")

from playwright.sync_api import expect  # noqa: E402

from reelforge.server.hardening import CONTENT_SECURITY_POLICY

from .helpers import open_game, play_round, sign_in, unique_player


def test_the_client_loads_and_plays_under_the_content_security_policy(new_page, web_server):
    answer = httpx.get(web_server.url + "/", timeout=10)
    assert answer.status_code == 200 and answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    page = new_page()
    refused: list[str] = []
    page.on("console", lambda msg: refused.append(msg.text) if "Content Security Policy" in msg.text else None)
    sign_in(page, unique_player("csp"))
    for game in web_server.games:
        page.goto("/#/lobby")
        open_game(page, game["id"])
        expect(page.get_by_test_id("stage")).to_have_attribute("data-game", game["id"])
        play_round(page)
    assert refused == [] and page.js_errors == []
