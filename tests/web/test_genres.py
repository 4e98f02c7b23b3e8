"""The genre renderers in the browser (issue 21): a game that declares the presentation ``lines`` (Seven
Lines) or ``hold_and_respin`` (Golden Vault) is drawn as a released slot without a renderer of its own:
symbol art, win lines drawn over the reels and read in words and money, the free spins with their
retrigger, the hold-and-respin board with coin values, sticky coins, the respin counter reset by a new
coin and the Grand for a full board; the help and a replay of each, on desktop and phone."""

from __future__ import annotations

import os
import re
from fractions import Fraction
from functools import cache

import pytest

if not os.environ.get("CI"):
    pytest.importorskip("playwright.sync_api")

from playwright.sync_api import expect  # noqa: E402

from reelforge.core.draws import RecordedDraws, SecureDraws, SeededDraws
from reelforge.game.results import RoundResult
from reelforge.games.registry import get_game

from .conftest import screenshot, test_config
from .helpers import last_round, open_game, play_round, session, stop_feature, unique_player
from .test_player_game import INTERNAL, LAYOUT_JS, MOMENTS_JS

DEMO = test_config()
LINES, VAULT = "seven-lines", "golden-vault"
pytestmark = pytest.mark.skipif(not {LINES, VAULT} <= set(DEMO.games), reason="the new games are not offered")
BOARD = {LINES: "[data-testid='ln-frame']", VAULT: "[data-testid='hr-frame']"}
COUNTERS = {LINES: ["ln-free-spins", "ln-multiplier", "ln-feature-win"], VAULT: ["hr-respins", "hr-coins", "hr-collected"]}
# Every text the banner shows, in order (the words a player reads while the round plays).
BANNER_JS = """window.__banner = [];
    new MutationObserver(() => { const b = document.querySelector('.ln-banner, .hr-banner');
        if (b && b.textContent && window.__banner[window.__banner.length - 1] !== b.textContent) window.__banner.push(b.textContent); })
      .observe(document, {subtree: true, childList: true, characterData: true});"""


def build(game_id: str):
    return get_game(game_id).load_build(DEMO.games[game_id].build)


@cache
def retrigger_seed() -> tuple[int, RoundResult]:
    """The first seed whose Seven Lines free spins are retriggered, in 30 steps or fewer, with a line win."""
    game, b = get_game(LINES), build(LINES)
    for seed in range(20_000):
        result = game.play_round(b, SeededDraws(seed))
        events = [ev for st in result.steps for ev in st.events]
        if len(result.steps) <= 30 and any(ev.get("retrigger") for ev in events) and any("line" in ev for ev in events):
            return seed, result
    raise AssertionError("no retriggered Seven Lines free spins in 20,000 seeds")


@cache
def reset_seed() -> tuple[int, RoundResult]:
    """The first seed whose Golden Vault respins are reset by a new coin, in 4 to 12 steps."""
    game, b = get_game(VAULT), build(VAULT)
    for seed in range(20_000):
        result = game.play_round(b, SeededDraws(seed))
        if 4 <= len(result.steps) <= 12 and any(ev.get("landed") for st in result.steps[1:] for ev in st.events):
            return seed, result
    raise AssertionError("no Golden Vault respins reset by a coin in 20,000 seeds")


def full_board_draws() -> list[int]:
    """Draws that make the paid spin land a coin on every cell (values cycling through the build's coins):
    Hold and Respin starts on a full board, which wins the Grand at once (the respin draws nothing)."""
    from reelforge.game.buildfile import kernel_tables
    from reelforge.games.golden_vault.build import tables

    cum = kernel_tables(build(VAULT), tables).base_cum[0]
    first_coin = 4  # outcomes: blank, 3 gems, then the 6 coin values
    return [int(cum[first_coin + (i % 6) - 1]) for i in range(15)]


@pytest.fixture(autouse=True)
def secure_draws_after(web_server):
    yield
    web_server.draws.source = SecureDraws()


def euros(minor: int) -> str:
    return f"€{minor / 100:,.2f}"


def check_table(page, game_id: str, when: str) -> None:
    size = page.viewport_size
    out = page.evaluate(LAYOUT_JS, [BOARD[game_id], COUNTERS[game_id], size["width"], size["height"]])
    assert not out["problems"], f"{game_id} {when}: {out['problems']}"
    bad = INTERNAL.search(out["text"]) or re.search(r"\bpay=|\bline=|\bwin=|_x\b", out["text"])
    assert not bad, f"{game_id} {when}: the player reads {bad.group(0)!r}"


def played_out(page) -> str:
    """Wait for the feature that plays itself to end (a 20-step feature on a loaded machine takes a while)."""
    expect(page.locator("body")).to_have_attribute("data-round-state", re.compile(r"^(idle|open)$"), timeout=90_000)
    return page.evaluate("document.body.dataset.roundState")


def start(new_page, web_server, game_id: str, phone: bool, prefix: str):
    page = new_page(phone=phone)
    page.add_init_script(MOMENTS_JS)
    token = session(page, web_server, unique_player(prefix))
    open_game(page, game_id)
    page.evaluate(BANNER_JS)
    return page, token


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_seven_lines_draws_reels_win_lines_and_free_spins_with_a_retrigger(new_page, web_server, phone):
    seed, expected = retrigger_seed()
    view = "phone" if phone else "desktop"
    page, token = start(new_page, web_server, LINES, phone, "lines")
    expect(page.locator("[data-testid='ln-board'] .ln-cell[data-symbol] svg")).to_have_count(15)
    check_table(page, LINES, "on open")
    screenshot(page, f"seven-lines-open-{view}")
    bet = int(page.get_by_test_id("bet").get_attribute("data-minor"))
    web_server.draws.source = SeededDraws(seed)
    page.get_by_test_id("spin").click()
    assert stop_feature(page) == "open"  # paused in the free spins: the counters say where it stands
    expect(page.get_by_test_id("ln-free-spins")).to_contain_text(re.compile(r"^Free spins left\d+ of \d+$"))
    expect(page.get_by_test_id("ln-frame")).to_have_class(re.compile(r"\bfeature\b"))
    check_table(page, LINES, "with the free spins paused")
    screenshot(page, f"seven-lines-free-spins-{view}")
    page.get_by_test_id("spin").click()
    if phone:  # the phone sees the rest at once (SKIP); the desktop watches every spin and card
        expect(page.locator("body")).to_have_attribute("data-feature", "playing", timeout=60_000)
        page.get_by_test_id("feature-skip").click()
    assert played_out(page) == "idle"
    check_table(page, LINES, "after the round")
    screenshot(page, f"seven-lines-end-{view}")
    rnd = last_round(web_server, token)
    assert len(rnd["steps"]) == len(expected.steps) and rnd["paid"] == int(bet * Fraction(expected.total_win))
    # Every win read in the player's words and money; the trigger, the retrigger and the summary announced.
    banner = " | ".join(page.evaluate("window.__banner"))
    for st in expected.steps[: None if not phone else 2]:
        for ev in st.events:
            if ev["type"] == "win" and "line" in ev:
                count, symbol = ev["pay"].split(" ", 1)
                assert f"{count} {symbol} on line {ev['line']} pays {euros(int(bet * Fraction(ev['win_x'])))}" in banner, ev
    titles = [m["title"] for m in page.evaluate("window.__moments")]
    first = next(ev for ev in expected.steps[0].events if ev["type"] == "free_spins_awarded")
    retrigger = next(ev for st in expected.steps for ev in st.events if ev.get("retrigger"))
    assert f"{first['spins']} FREE SPINS" in titles, titles
    assert phone or f"+{retrigger['spins']} FREE SPINS" in titles, titles
    assert titles[-1] in ("FEATURE COMPLETE", "BIG WIN", "MEGA WIN", "EPIC WIN"), titles
    expect(page.get_by_test_id("win")).to_have_attribute("data-minor", str(rnd["paid"]))
    # The last spin's winning lines stay drawn over the reels.
    lined = [ev["line"] for ev in expected.steps[-1].events if ev["type"] == "win" and "line" in ev]
    expect(page.locator(".ln-lines polyline")).to_have_count(len(lined))
    assert not page.js_errors


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_golden_vault_holds_coins_resets_the_respins_and_pays_the_grand(new_page, web_server, phone):
    seed, expected = reset_seed()
    view = "phone" if phone else "desktop"
    page, token = start(new_page, web_server, VAULT, phone, "vault")
    expect(page.locator("[data-testid='hr-board'] .hr-cell")).to_have_count(15)
    check_table(page, VAULT, "on open")
    bet = int(page.get_by_test_id("bet").get_attribute("data-minor"))
    web_server.draws.source = SeededDraws(seed)
    page.get_by_test_id("spin").click()
    assert stop_feature(page) == "open"
    # The coins on the board show their values in money; the respins and what they hold are counted.
    for cell in page.locator(".hr-cell.coin").all():
        value = Fraction(cell.get_attribute("data-value"))
        expect(cell.locator(".hr-value b")).to_have_text(euros(int(bet * value)))
    expect(page.get_by_test_id("hr-respins")).to_have_attribute("data-value", re.compile(r"^[0-3]$"))
    expect(page.locator(".hr-cell.held").first).to_be_visible()
    check_table(page, VAULT, "with the respins paused")
    screenshot(page, f"golden-vault-respins-{view}")
    page.get_by_test_id("spin").click()
    assert played_out(page) == "idle"
    rnd = last_round(web_server, token)
    assert len(rnd["steps"]) == len(expected.steps) and rnd["paid"] == int(bet * Fraction(expected.total_win))
    banner = " | ".join(page.evaluate("window.__banner"))
    assert "The respins reset to 3" in banner and "coins collected pay" in banner, banner
    assert "HOLD AND RESPIN" in [m["title"] for m in page.evaluate("window.__moments")]
    check_table(page, VAULT, "after the round")
    screenshot(page, f"golden-vault-end-{view}")

    # A full board: every cell a coin, the Grand announced and paid on top of the coins.
    web_server.draws.source = RecordedDraws(full_board_draws())
    play_round(page)
    rnd = last_round(web_server, token)
    assert [s["kind"] for s in rnd["steps"]] == ["paid_spin", "respin"]
    expect(page.locator(".hr-cell.coin")).to_have_count(15)
    expect(page.get_by_test_id("hr-frame")).to_have_class(re.compile(r"\bgrand\b"))
    assert "GRAND!" in [m["title"] for m in page.evaluate("window.__moments")]
    expect(page.get_by_test_id("hr-wins")).to_contain_text("GRAND! A full board pays")
    expect(page.get_by_test_id("win")).to_have_attribute("data-minor", str(rnd["paid"]))
    check_table(page, VAULT, "after the Grand")
    screenshot(page, f"golden-vault-grand-{view}")
    assert not page.js_errors


@pytest.mark.parametrize("game_id", [LINES, VAULT])
def test_the_help_and_a_replay_read_in_words_and_money(new_page, web_server, game_id):
    seed, expected = retrigger_seed() if game_id == LINES else reset_seed()
    phone = new_page(phone=True)
    session(phone, web_server, unique_player("genre-help"))
    open_game(phone, game_id)
    phone.get_by_test_id("help-toggle").click()
    box = phone.get_by_test_id("help")
    expect(box.locator(".pt-art svg").first).to_be_visible()
    text = box.inner_text()
    assert not INTERNAL.search(text)
    screenshot(phone, f"help-{game_id}-phone")
    # Nothing cut off on the phone: no pay wider than its column, the table inside the dialog.
    widths = phone.evaluate("""(() => { const d = document.querySelector('[data-testid=help]');
        const cut = [...d.querySelectorAll('td.pay')].filter((c) => c.scrollWidth > c.clientWidth + 1).length;
        return [d.scrollWidth, d.clientWidth, cut]; })()""")
    assert widths[0] <= widths[1] and widths[2] == 0, widths

    page = new_page()
    token = session(page, web_server, unique_player("genre-replay"))
    open_game(page, game_id)
    web_server.draws.source = SeededDraws(seed)
    page.get_by_test_id("spin").click()
    expect(page.locator("body")).to_have_attribute("data-feature", "playing", timeout=60_000)
    page.get_by_test_id("feature-skip").click()  # the rest at once: the replay is what this test reads
    assert played_out(page) == "idle"
    rnd = last_round(web_server, token)
    page.get_by_test_id("nav-history").click()
    page.get_by_test_id(f"history-row-{rnd['id']}").click()
    pos = page.get_by_test_id("replay-pos")
    expect(pos).to_have_text(re.compile(r"^Picture 1 of \d+$"))
    total = int(pos.inner_text().rsplit(" ", 1)[1])
    assert total >= len(expected.steps)
    captions = []
    for i in range(total):
        expect(pos).to_have_attribute("data-index", str(i))
        caption = page.get_by_test_id("replay-caption").inner_text()
        assert caption and not INTERNAL.search(caption) and "=" not in caption, caption
        captions.append(caption)
        if i == total // 2:
            screenshot(page, f"replay-{game_id}-desktop")
        if i < total - 1:
            page.get_by_test_id("replay-next").click()
    joined = " ".join(captions)
    if game_id == LINES:
        assert re.search(r"on line \d+ pays €", joined) and "Retrigger" in joined, joined
        expect(page.locator("[data-testid=replay-stage] .ln-cell[data-symbol]")).to_have_count(15)
    else:
        assert "coins collected pay €" in joined and "the respins reset to 3" in joined, joined
        expect(page.locator("[data-testid=replay-stage] .hr-cell.coin").first).to_be_visible()
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verify-result")).to_have_attribute("data-ok", "true")
    assert not page.js_errors and not phone.js_errors
