"""Provably fair rounds in the browser, on a server with the production draws (players' seed pairs): the
lobby shows the commitment before any bet, rotation is refused while a round is unfinished and then reveals
the seed, the client's Web Crypto verifier recomputes every round's draws and says they are fair, and says
NOT fair once one stored draw is altered. Its draws are the server's (the same function, in JavaScript)."""

from __future__ import annotations

import json

from playwright.sync_api import expect
from sqlalchemy import update

from reelforge.core.draws import fair_draws
from reelforge.server.schema import steps

from .conftest import screenshot
from .helpers import session, unique_player

WEB_PROVABLY_FAIR = True
FOF, GG = "forge-of-fortunes", "gemstones-gold"


def _play(client, game: str, bet: int, **body) -> dict:
    r = client.start_round(game, bet, **body)
    assert r.status_code == 201, r.text
    return r.json()


def _finish(client, rnd: dict) -> dict:
    while rnd["status"] == "open":
        r = client.step(rnd["id"])
        assert r.status_code == 200, r.text
        rnd = r.json()
    return rnd


def test_the_client_recomputes_the_servers_draws(new_page, web_server):
    page = new_page()
    session(page, web_server, unique_player("jsdraws"))
    seed, ranges = bytes(range(100, 132)), [2, 3, 6, 10, 37, 100, 1000, 65537, 2**31 - 1, 2**31 - 2, 3 * 2**29] * 60
    in_js = page.evaluate("([seed, ranges]) => import('/js/fair.js').then((m) => m.fairDraws(seed, 'js:seed', 12, ranges))",
                          [seed.hex(), ranges])
    assert in_js == fair_draws(seed, "js:seed", 12, ranges)
    assert page.js_errors == []


def test_rounds_verify_in_the_browser_after_rotation(new_page, web_server):
    page = new_page()
    token = session(page, web_server, unique_player("fair"))
    client = web_server.client(token)
    shown = web_server.api("GET", "/fair", token).json()["current"]
    expect(page.get_by_test_id("fair-panel").first).to_be_visible()
    expect(page.get_by_test_id("fair-commitment").first).to_have_text(shown["server_seed_sha256"])
    screenshot(page, "fair-lobby-desktop")

    rounds = [_finish(client, _play(client, FOF, 10)) for _ in range(3)]
    rounds.append(_finish(client, _play(client, GG, 20)))
    bought = _play(client, GG, 20, buy_feature=True)
    assert bought["status"] == "open"

    # Rotation from the history's panel: refused (in words) while the bought round is unfinished.
    page.get_by_test_id("nav-history").click()
    panel = page.locator("#fair-panel-history")
    expect(panel.get_by_test_id("fair-next-nonce")).to_have_text("5")
    panel.get_by_test_id("fair-rotate").click()
    expect(panel.get_by_test_id("fair-message")).to_contain_text(f"round {bought['id']} of {GG} is unfinished")
    expect(panel.get_by_test_id("fair-commitment")).to_have_text(shown["server_seed_sha256"])
    rounds.append(_finish(client, bought))

    panel.get_by_test_id("fair-new-client-seed").fill("browser-seed")
    panel.get_by_test_id("fair-rotate").click()
    expect(panel.get_by_test_id("fair-revealed-check")).to_have_attribute("data-ok", "true")
    expect(panel.get_by_test_id("fair-client-seed")).to_have_text("browser-seed")
    expect(panel.get_by_test_id("fair-next-nonce")).to_have_text("0")
    revealed = panel.get_by_test_id("fair-revealed-seed").inner_text()
    screenshot(page, "fair-history-rotated-desktop")

    # Every round of the revealed pair verifies in the browser.
    for rnd in rounds:
        page.goto(f"/#/round/{rnd['id']}")
        expect(page.get_by_test_id("fair-round-seed")).to_have_text(revealed)
        expect(page.get_by_test_id("fair-round-nonce")).to_have_text(str(rnd["fair"]["nonce"]))
        page.get_by_test_id("fair-verify").click()
        result = page.get_by_test_id("fair-result")
        expect(result).to_have_attribute("data-ok", "true")
        draws = sum(len(s["draws"]) for s in web_server.api("GET", f"/rounds/{rnd['id']}", token).json()["steps"])
        expect(result).to_contain_text(f"all {draws} draws")
    screenshot(page, "fair-round-verified-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "fair-round-verified-phone")

    # One stored draw altered: the browser's verifier names it.
    victim = rounds[-1]
    record = web_server.api("GET", f"/rounds/{victim['id']}", token).json()
    draws = record["steps"][2]["draws"]
    draws[0] = (draws[0] + 1) % record["steps"][2]["ranges"][0]
    with web_server.app.state.engine.begin() as conn:
        victim_id = web_server.app.state.service.ids.internal(victim["id"])  # the database's id of the public one
        conn.execute(update(steps).where(steps.c.round_id == victim_id, steps.c.idx == 2)
                     .values(draws=json.dumps(draws)))
    page.goto(f"/#/round/{victim['id']}")
    page.reload()
    page.get_by_test_id("fair-verify").click()
    expect(page.get_by_test_id("fair-result")).to_have_attribute("data-ok", "false")
    expect(page.get_by_test_id("fair-result")).to_contain_text("Step 3, draw 1")
    screenshot(page, "fair-round-altered-phone")
    assert page.js_errors == []
