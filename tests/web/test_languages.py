"""The client in the player's language (issue 39): the lobby, a game with its help and feature buy card,
the history and a round's replay in German, Japanese and Arabic (right to left), at 1366x768 and 390x844:
no English word of the client's catalog left (game and symbol names excepted), nothing overflowing; a
language the server does not know is English. Screenshots of each go to test-artifacts/web/."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect

from reelforge.core import i18n

from .conftest import screenshot
from .helpers import idle

GAME = "gemstones-gold"
LANGS = ("de", "ja", "ar")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")

# Everything visible that breaks out of its box or the screen; a scroll container's content scrolls.
OVERFLOW = """() => {
  const W = document.documentElement.clientWidth, out = [];
  if (document.documentElement.scrollWidth > W + 1) out.push(`page ${document.documentElement.scrollWidth} > ${W}`);
  const scrolls = (el) => { for (let p = el.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll') return true; } return false; };
  for (const el of document.querySelectorAll('body *')) {
    if (!el.checkVisibility || !el.checkVisibility()) continue;
    if (el.closest('.stage-inner, .replay-stage, svg')) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (!r.width) continue;
    if (!scrolls(el) && (r.right > W + 1 || r.left < -1)) out.push(`${el.tagName}.${el.className} off screen`);
    if (cs.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1 && !['auto', 'scroll'].includes(cs.overflowX))
      out.push(`${el.tagName}.${el.className} clipped: "${el.textContent.trim().slice(0, 40)}"`);
  }
  return out;
}"""


def english_words(lang: str, names: set[str]) -> set[str]:
    """The words of the client's English messages that ``lang``'s translations do not use themselves (a
    word such as RTP, Lobby or Build is the same in both), less the game's and its symbols' names."""
    english = {m.id if isinstance(m.id, str) else m.id[1] for m in i18n.read_catalog("en", "client") if m.id}
    words = {w.lower() for text in english for w in _WORD.findall(re.sub(r"\{\w+\}", " ", text))}
    translated = " ".join(str(v) if isinstance(v, str) else " ".join(v.values())
                          for v in i18n.client_messages(lang).values())
    keep = {w.lower() for w in _WORD.findall(translated)}
    return words - keep - {w.lower() for n in names for w in _WORD.findall(n)} - {"reelforge"}


def english_left(page, selector: str, vocabulary: set[str]) -> list[str]:
    text = page.locator(selector).first.inner_text().replace(page.get_by_test_id("brand").inner_text(), " ")
    return sorted({w for w in _WORD.findall(text) if w.lower() in vocabulary})


def played_round(web_server, token: str) -> int:
    """A finished round of GAME for the history (played through the API: its outcome does not matter)."""
    api = web_server.client(token)
    bet = next(g for g in web_server.games if g["id"] == GAME)["bet_ladder"][0]
    r = api.start_round(GAME, bet)
    assert r.status_code == 201, r.text
    rnd = r.json()
    while rnd["status"] == "open":
        rnd = api.step(rnd["id"]).json()
    return rnd["id"]


@pytest.mark.parametrize("phone", [False, True], ids=["1366x768", "390x844"])
def test_lobby_game_help_buy_card_history_and_replay_speak_de_ja_ar(new_page, web_server, phone):
    r = web_server.api("POST", "/sessions", json={"player": f"lang-{uuid.uuid4().hex[:8]}"})
    token = r.json()["token"]
    round_id = played_round(web_server, token)
    help_ = web_server.api("GET", f"/games/{GAME}/help").json()
    names = {g["title"] for g in web_server.games} | {row["name"] for row in help_["page"].get("paytable", {}).get("rows", [])}
    names |= set(help_["symbol_names"].values())   # symbol names stay as the game keeps them (Scatter)
    games_domain = "games" in i18n.domains()  # the games' help texts (translated in the games catalog)
    size = "phone" if phone else "desktop"
    for lang in LANGS:
        vocabulary = english_words(lang, names)
        page = new_page(phone=phone)
        page.add_init_script(f"localStorage.setItem('rf.token', {token!r})")
        page.goto(f"/?lang={lang}#/lobby")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("html")).to_have_attribute("dir", "rtl" if lang == "ar" else "ltr")
        expect(page.get_by_test_id(f"game-card-{GAME}")).to_be_visible()
        checks = {"lobby": english_left(page, "body", vocabulary)}
        assert page.evaluate(OVERFLOW) == [], (lang, size, "lobby")
        screenshot(page, f"lang-{lang}-{size}-lobby")

        page.get_by_test_id(f"game-card-{GAME}").click()
        idle(page)
        checks["game"] = english_left(page, "body", vocabulary)
        assert page.evaluate(OVERFLOW) == [], (lang, size, "game")
        screenshot(page, f"lang-{lang}-{size}-game")

        page.get_by_test_id("help-toggle").click()
        expect(page.get_by_test_id("help")).to_be_visible()
        # Before the games' own catalog is there, the help's client parts (its frame, bets, RTP, ids).
        help_part = "[data-testid=help]" if games_domain else "[data-testid=help] .help-head"
        checks["help"] = english_left(page, help_part, vocabulary) + english_left(
            page, "[data-testid=help-rtp]", vocabulary) + english_left(page, "[data-testid=help-game-id]", vocabulary)
        # how the RTP is known (exact, certified with its interval, or the design value), in the language too
        expect(page.get_by_test_id("help-rtp-proof")).to_have_attribute("data-method", help_["rtp_proof"]["method"])
        checks["help"] += english_left(page, "[data-testid=help-rtp-proof]", vocabulary)
        assert page.evaluate(OVERFLOW) == [], (lang, size, "help")
        screenshot(page, f"lang-{lang}-{size}-help")
        page.get_by_test_id("help-close").click()

        page.get_by_test_id("buy").click()  # the feature card: what the feature costs, before it is bought
        expect(page.get_by_test_id("buy-confirm")).to_be_visible()
        checks["feature buy"] = english_left(page, "[data-testid=buy-confirm]", vocabulary)
        assert page.evaluate(OVERFLOW) == [], (lang, size, "feature buy")
        screenshot(page, f"lang-{lang}-{size}-buy")
        page.get_by_test_id("buy-no").click()

        page.get_by_test_id("nav-history").click()
        expect(page.get_by_test_id(f"history-row-{round_id}")).to_be_visible()
        checks["history"] = english_left(page, "body", vocabulary)
        assert page.evaluate(OVERFLOW) == [], (lang, size, "history")
        page.get_by_test_id(f"history-row-{round_id}").click()
        expect(page.get_by_test_id("replay-pos")).not_to_be_empty()
        checks["replay"] = english_left(page, "body", vocabulary)
        assert page.evaluate(OVERFLOW) == [], (lang, size, "replay")
        screenshot(page, f"lang-{lang}-{size}-replay")
        assert {k: v for k, v in checks.items() if v} == {}, (lang, size)
        assert not page.js_errors, page.js_errors


def test_a_language_the_server_does_not_know_is_english(new_page, web_server):
    page = new_page()
    page.goto("/?lang=tlh")  # Klingon: not offered
    expect(page.get_by_test_id("login-submit")).to_have_text("Start playing")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    r = web_server.api("GET", "/languages/tlh")
    assert r.status_code == 200 and r.json()["lang"] == "en"
    assert not page.js_errors
