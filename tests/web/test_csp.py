"""The browser client works under the server's Content-Security-Policy (same origin, no inline script)."""

from __future__ import annotations

import os
from pathlib import Path

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


def test_no_page_of_the_server_loads_scripts_from_another_host(new_page, web_server):
    """/docs and /redoc (FastAPI's pages load their scripts from a CDN) are off unless a demo configuration
    asks for them; operator mode refuses to; every page the server does serve loads only its own scripts."""
    from reelforge.server.config import load_config
    from reelforge.server.config_values import ConfigError

    for path in ("/docs", "/redoc"):
        assert httpx.get(web_server.url + path, timeout=10).status_code == 404, path
    page = new_page()
    foreign: list[str] = []
    page.on("request", lambda req: foreign.append(req.url) if not req.url.startswith(web_server.url) else None)
    for path in ("/", "/operator.html", "/docs"):
        page.goto(path)
    assert foreign == []
    config_dir = Path(__file__).resolve().parents[2] / "test-artifacts"
    config_dir.mkdir(exist_ok=True)
    toml = config_dir / "api-docs-operator.toml"
    toml.write_text('[server]\nmode = "operator"\napi_docs = true\napi_key_sha256 = "' + "a" * 64 + '"\n'
                    '[games.forge-of-fortunes]\nbet_ladder = [100]\n')
    with pytest.raises(ConfigError, match="api_docs is for demo servers only"):
        load_config(toml)
    toml.write_text('[server]\nmode = "demo"\napi_docs = true\n[games.forge-of-fortunes]\nbet_ladder = [100]\n')
    assert load_config(toml).api_docs is True
