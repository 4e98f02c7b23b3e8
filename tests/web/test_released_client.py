"""The client a player expects from a released slot (issue 22): keys that never start an unintended paid
spin, a phone layout that cuts no text and notices that cover nothing, a Feature Buy refused before it is
confirmed, a bet panel, a settings menu with sound remembered, the intro screen, titles per page, the
published game ID in help, and a replay whose board and controls are above the fold, highlights per
picture. Few page loads, each checking many things, to keep the suite fast."""

from __future__ import annotations

import os
import re

import pytest

if not os.environ.get("CI"):
    pytest.importorskip("playwright.sync_api")

from playwright.sync_api import expect  # noqa: E402

from reelforge.core.draws import SecureDraws, SeededDraws

from .conftest import PHONE, screenshot
from .helpers import idle, last_round, open_game, session, unique_player
from .test_player_game import LAYOUT_JS, check_table, feature_seed
from .test_presentation import one_step

SMALL_PHONE = {**PHONE, "viewport": {"width": 360, "height": 740}}
COAL_SEED = 166  # a Forge of Fortunes round whose re-spins go on after a Coal move (16 steps)


@pytest.fixture(autouse=True)
def secure_draws_after(web_server):
    yield
    web_server.draws.source = SecureDraws()


def rounds_of(web_server, token: str) -> list:
    return web_server.api("GET", "/rounds", token).json()["rounds"]


def euros(page, minor: int) -> str:
    return page.evaluate("(m) => new Intl.NumberFormat(undefined, {style: 'currency', currency: 'EUR'}).format(m / 100)", minor)


def overlap(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def test_space_on_every_control_does_its_own_job_and_never_stakes(new_page, web_server):
    page = new_page()
    token = session(page, web_server, unique_player("keys"))
    start = web_server.balance(token)
    open_game(page, "gemstones-gold")
    controls = page.evaluate("""() => [...document.querySelectorAll(
            '.topbar a[href], #view-game button, #view-game input, #view-game select, #view-game a[href]')]
        .filter((n) => n.offsetParent && !n.disabled && n.id !== 'spin').map((n) => n.id || n.dataset.testid)""")
    assert {"help-toggle", "settings-open", "mute", "bet-open", "bet-minus", "bet-plus", "turbo", "auto-adjust", "buy"} <= set(controls)
    for control in controls:
        node = page.locator(f"#{control}") if not control.startswith("nav-") and control != "brand" else page.get_by_test_id(control)
        was = node.is_checked() if control in ("turbo", "auto-adjust") else None
        node.focus()
        page.keyboard.press("Space")
        if was is not None:  # a toggle switches from the keyboard
            assert node.is_checked() != was, control
        while page.evaluate("!!document.querySelector('dialog[open]')"):
            page.keyboard.press("Escape")  # help, bet panel, settings, the buy confirmation: closed unbought
        assert idle(page) == "idle"
        assert rounds_of(web_server, token) == [], f"Space on {control} started a round"
    assert web_server.balance(token) == start
    # Enter on SPIN plays a round and the focus stays on SPIN; Space from the page itself plays one too. Each a
    # round of one step (seeded: a secure draw could start a feature, which plays on for a minute under load).
    short = one_step("gemstones-gold", lambda events: True)
    web_server.draws.source = SeededDraws(short)
    page.get_by_test_id("spin").focus()
    page.keyboard.press("Enter")
    assert idle(page) == "idle"
    expect(page.get_by_test_id("spin")).to_be_focused()
    page.get_by_test_id("spin").blur()
    web_server.draws.source = SeededDraws(short)
    page.keyboard.press("Space")
    assert idle(page) == "idle"
    assert len(rounds_of(web_server, token)) == 2
    expect(page.get_by_test_id("message")).not_to_contain_text("#")  # no round id in the message bar
    assert not page.js_errors


@pytest.mark.parametrize("size", [PHONE, SMALL_PHONE], ids=["390x844", "360x740"])
def test_the_phone_cuts_no_text_and_notices_cover_nothing(browser, web_server, size):
    ctx = browser.new_context(base_url=web_server.url, **size)
    ctx.add_init_script("localStorage.setItem('rf.intro', '0')")
    page = ctx.new_page()
    try:
        player = unique_player("phone")
        token = session(page, web_server, player)
        web_server.withdraw(player, web_server.balance(token))  # nothing left
        page.reload()
        open_game(page, "gemstones-gold")
        expect(page.get_by_test_id("message")).to_have_text("Press SPIN to play.")  # no space bar on a touch screen
        expect(page.get_by_test_id("buy")).to_be_disabled()  # the price is above the balance: refused before asking
        page.get_by_test_id("auto-adjust").check()
        page.get_by_test_id("spin").click()
        notice = page.get_by_test_id("notice")
        expect(notice).to_contain_text(f"Your balance of {euros(page, 0)} is below the lowest bet of")
        expect(notice).not_to_contain_text("Auto adjust")
        for covered in ("balance", "game-title", "spin"):
            assert not overlap(notice.bounding_box(), page.get_by_test_id(covered).bounding_box()), covered
        check_table(page, "gemstones-gold", "with a notice")
        assert rounds_of(web_server, token) == []
        screenshot(page, f"notice-phone-{size['viewport']['width']}")
        # Forge of Gems' win list and GEMBOX on the smaller screen: every line readable, the list scrolls.
        assert web_server.client().deposit(player, 100_000).status_code == 200  # money back to play with
        page.goto("/#/lobby")
        page.reload()
        open_game(page, "forge-of-gems")
        seed, expected = feature_seed("forge-of-gems")
        web_server.draws.source = SeededDraws(seed)
        page.get_by_test_id("spin").click()
        assert idle(page) == "open"
        check_table(page, "forge-of-gems", "with the GEMBOX waiting")
        wins = page.get_by_test_id("fog-wins")
        if wins.locator("li").count():
            expect(wins.locator("li.total")).to_contain_text("This spin: €")
            box = wins.bounding_box()
            assert box["height"] >= 50, box  # more than a squeezed line or two
        page.get_by_test_id("spin").click()
        assert idle(page) == "idle"
        check_table(page, "forge-of-gems", "after the free spins")
        screenshot(page, f"forge-of-gems-phone-{size['viewport']['width']}")
        assert last_round(web_server, token)["status"] == "finished"
    finally:
        ctx.close()


def test_the_text_check_finds_cut_text(new_page, web_server):
    """The layout check used above fails on an instruction cut with an ellipsis (it is not a test that cannot fail)."""
    page = new_page(phone=True)
    session(page, web_server, unique_player("cut"))
    open_game(page, "forge-of-fortunes")
    page.evaluate("""() => { const m = document.getElementById('message');
        m.style.cssText = 'white-space: nowrap; overflow: hidden; text-overflow: ellipsis';
        m.textContent = 'Press FREE SPIN to continue, the re-spins are waiting for you to press the button'; }""")
    size = page.viewport_size
    out = page.evaluate(LAYOUT_JS, [".fof-machine", [], size["width"], size["height"]])
    assert any(p.startswith("text cut: 'Press FREE SPIN") for p in out["problems"]), out["problems"]


def test_bet_panel_settings_sound_intro_titles_and_the_published_game_id(new_page, web_server):
    page = new_page()
    token = session(page, web_server, unique_player("panel"))
    expect(page).to_have_title("Games · reelforge")
    assert "Build" not in page.get_by_test_id("lobby").inner_text()
    open_game(page, "forge-of-fortunes")
    expect(page).to_have_title("Forge of Fortunes")
    assert "Build" not in page.locator(".game-head").inner_text()
    expect(page.get_by_test_id("autoplay-open")).to_be_hidden()  # the operator does not allow autoplay here
    ladder = next(g for g in web_server.games if g["id"] == "forge-of-fortunes")["bet_ladder"]
    # The bet panel: the maximum in one tap, any bet of the ladder in one more.
    page.get_by_test_id("bet-open").click()
    expect(page.get_by_test_id("bet-panel").locator(".bet-option")).to_have_count(len(ladder))
    page.get_by_test_id("bet-max").click()
    expect(page.get_by_test_id("bet")).to_have_attribute("data-minor", str(ladder[-1]))
    page.get_by_test_id("bet-open").click()
    page.get_by_test_id(f"bet-option-{ladder[2]}").click()
    expect(page.get_by_test_id("bet")).to_have_attribute("data-minor", str(ladder[2]))
    expect(page.get_by_test_id("bet-panel")).to_be_hidden()
    # Sound: the mute button and the settings menu agree, and the choice outlives a reload.
    mute = page.get_by_test_id("mute")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    page.reload()
    idle(page)
    expect(page.get_by_test_id("mute")).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("settings-open").click()
    expect(page.get_by_test_id("setting-sound")).not_to_be_checked()
    page.get_by_test_id("setting-sound").check()
    page.get_by_test_id("setting-music").check()
    page.get_by_test_id("setting-turbo").check()
    screenshot(page, "settings-desktop")
    page.get_by_test_id("settings-close").click()
    expect(page.get_by_test_id("mute")).to_have_attribute("aria-pressed", "false")
    expect(page.get_by_test_id("turbo")).to_be_checked()  # quick spin in the menu is the bar's quick spin
    page.get_by_test_id("spin").click()  # a round with sound and music on: no error from the Web Audio API
    assert idle(page) in ("idle", "open")
    # Help: the published game ID players are told to confirm, and the version.
    page.get_by_test_id("help-toggle").click()
    expect(page.get_by_test_id("help-game-id")).to_contain_text("Game ID 622")
    help_ = web_server.api("GET", "/games/forge-of-fortunes/help").json()
    expect(page.get_by_test_id("help-game-id")).to_contain_text(f"Version {help_['version']}")
    expect(page.get_by_test_id("help")).not_to_contain_text("free spins")  # Forge of Fortunes has none
    page.get_by_test_id("help-close").click()
    # The intro screen, when the player has it on: the game's features, then Play; turned off, it stays off.
    page.evaluate("localStorage.setItem('rf.intro', '1')")
    page.get_by_test_id("nav-lobby").click()
    page.get_by_test_id("game-card-gemstones-gold").click()
    intro = page.get_by_test_id("intro")
    expect(intro).to_be_visible()
    expect(intro).to_contain_text("Gemstones Gold")
    screenshot(page, "intro-desktop")
    page.get_by_test_id("intro-show").uncheck()
    page.get_by_test_id("intro-play").click()
    expect(intro).to_be_hidden()
    expect(page.get_by_test_id("spin")).to_be_focused()
    assert page.evaluate("localStorage.getItem('rf.intro')") == "0"
    expect(page).to_have_title("Gemstones Gold")
    assert len(rounds_of(web_server, token)) == 1
    assert not page.js_errors


def test_the_replay_fits_above_the_fold_jumps_to_a_step_and_marks_only_its_own_picture(browser, new_page, web_server):
    page = new_page()
    token = session(page, web_server, unique_player("replay"))
    open_game(page, "forge-of-fortunes")
    web_server.draws.source = SeededDraws(COAL_SEED)
    page.get_by_test_id("spin").click()
    page.get_by_test_id("feature-skip").click()  # SKIP: the rest of the re-spins at once
    assert idle(page) == "idle"
    rnd = last_round(web_server, token)
    assert len(rnd["steps"]) == 16
    coal_step = next(s["index"] for s in rnd["steps"] for ev in s["events"] if ev.get("move") in ("coal_back", "coal_safe"))
    for phone in (False, True):
        view = page if not phone else new_page(phone=True)
        if phone:
            view.add_init_script(f"localStorage.setItem('rf.token', {token!r})")
        view.goto(f"/#/round/{rnd['id']}")
        expect(view.get_by_test_id("replay-pos")).to_have_text(re.compile(r"^Picture 1 of \d+$"))
        vh = view.viewport_size["height"]
        for part in ("replay-stage", "replay-next", "replay-scrub", "replay-jump"):
            box = view.get_by_test_id(part).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= vh, (phone, part, box, vh)
        machine = view.get_by_test_id("replay-stage").locator(".fof-machine").bounding_box()
        assert machine["y"] + machine["height"] <= vh, (phone, machine)
        screenshot(view, f"replay-above-the-fold-{'phone' if phone else 'desktop'}")
    # Jump to the step with Coal: its picture marks reel 3; the next picture marks nothing of it.
    page.get_by_test_id("replay-jump").select_option(str(coal_step))
    caption = page.get_by_test_id("replay-caption")
    for _ in range(6):
        if "Ladder: Coal" in caption.inner_text():
            break
        page.get_by_test_id("replay-next").click()
    assert "Ladder: Coal" in caption.inner_text()
    stage = page.get_by_test_id("replay-stage")
    expect(stage.locator(".fof-reel.coal")).to_have_count(1)
    page.get_by_test_id("replay-next").click()
    expect(caption).not_to_contain_text("Ladder: Coal")
    expect(stage.locator(".fof-reel.coal")).to_have_count(0)
    # The scrubber reaches the last picture in one move.
    last = int(page.get_by_test_id("replay-scrub").get_attribute("max"))
    page.get_by_test_id("replay-scrub").fill(str(last))
    expect(page.get_by_test_id("replay-pos")).to_have_attribute("data-index", str(last))
    expect(page.get_by_test_id("replay-next")).to_be_disabled()
    # The audit record reads in words: no raw JSON, no internal keys.
    page.get_by_test_id("audit").locator("summary").click()
    audit = page.get_by_test_id("round-steps").inner_text()
    assert "{" not in audit and not re.search(r"\b[A-Z]{2,}_[A-Z_]+\b", audit), audit[:300]
    assert not page.js_errors
