"""The browser client against a real game server: lobby, a round of each game,
a feature interrupted by a reload and finished, feature buy, history with the
audit ledger and verify, errors in words, retries after a lost connection,
bet controls and the space bar, on phone and desktop viewports."""

from __future__ import annotations

import json
import math
import os
import re
from fractions import Fraction
from functools import cache

import pytest

if not os.environ.get("CI"):  # in CI the driver is a dev dependency and must be there
    pytest.importorskip("playwright.sync_api")

from playwright.sync_api import expect  # noqa: E402

from reelforge.core.draws import SecureDraws, SeededDraws
from reelforge.game.results import RoundResult
from reelforge.games.registry import get_game
from reelforge.server.round_json import dumps

from .conftest import screenshot, test_config
from .helpers import (
    check_view,
    client_view,
    displayed_balance,
    displayed_bet,
    game_url,
    idle,
    last_round,
    open_game,
    play_round,
    press_spin,
    session,
    set_bet,
    sign_in,
    stop_feature,
    unique_player,
)

DEMO = test_config()
GAMES = list(DEMO.games)
BUY_GAMES = [g for g in GAMES if get_game(g).feature_buy_price_x(get_game(g).load_build(DEMO.games[g].build))]


@cache
def long_feature_seed(game_id: str, mode: str = "paid", min_steps: int = 4) -> tuple[int, RoundResult]:
    """The first seed (0, 1, 2...) whose round has ``min_steps`` to ``min_steps + 8`` steps (a feature,
    short enough to keep the test fast): pointing the server's test-only draw source at
    ``SeededDraws(seed)`` makes it play exactly this round."""
    game = get_game(game_id)
    build = game.load_build(DEMO.games[game_id].build)
    for seed in range(20_000):
        result = game.play_round(build, SeededDraws(seed), mode)
        if min_steps <= len(result.steps) <= min_steps + 8:
            return seed, result
    raise AssertionError(f"no {game_id} round with {min_steps} to {min_steps + 8} steps in 20,000 seeds")


def assert_same_round(api_round: dict, expected: RoundResult) -> None:
    assert [s["kind"] for s in api_round["steps"]] == [s.kind for s in expected.steps]
    for got, exp in zip(api_round["steps"], expected.steps):
        assert got["events"] == json.loads(dumps(exp.events))
    assert api_round["total_win_x"] == str(Fraction(expected.total_win))


def check_resumed_view(page, game_id: str, api_round: dict) -> None:
    """What the table must show after a reload: the round resumed, and what the game's own client says it shows."""
    expect(page.get_by_test_id("stage")).to_have_attribute("data-resumed", str(api_round["id"]))
    if (view := client_view(game_id)) is not None:
        check_view(page, view.resumed_view(api_round))


def no_horizontal_overflow(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"page is {width}px wide on a {page.viewport_size['width']}px screen"


@pytest.fixture(autouse=True)
def secure_draws_after(web_server):
    yield
    web_server.draws.source = SecureDraws()


def test_lobby_lists_every_game_with_its_rtp_and_max_win(new_page, web_server):
    page = new_page(phone=True)
    sign_in(page, unique_player("lobby"))
    for g in web_server.games:
        card = page.get_by_test_id(f"game-card-{g['id']}")
        expect(card).to_contain_text(g["title"])
        percent = g["rtp"] * 100  # a fraction of the stake in every game
        # shown to at most 3 decimals (an exact RTP such as Seven Lines' 96.008537...% reads 96.009%)
        expect(card.get_by_test_id("lobby-rtp")).to_have_text(re.compile(rf"^{round(percent, 3):g}%$"))
        expect(card.get_by_test_id("lobby-max-win")).to_have_text(f"{g['max_win_x']:,}x")
        odds = card.get_by_test_id("lobby-max-win-odds")       # how often, where exact (issue 34)
        expect(odds).to_have_text(re.compile(r"^once in [\d,.]+( × 10[⁰¹²³⁴⁵⁶⁷⁸⁹]+)? rounds$") if g["max_win"]["probability"]
                                  else ("reachable" if g["max_win"]["reachable"] else "an upper bound"))
    no_horizontal_overflow(page)
    screenshot(page, "lobby-phone")
    assert not page.js_errors


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("game_id", GAMES)
def test_play_a_round_and_the_balance_follows_the_api(new_page, web_server, game_id, phone):
    page = new_page(phone=phone)
    token = sign_in(page, unique_player("round"))
    start = web_server.balance(token)
    assert displayed_balance(page) == start
    # The first game on a desktop plays with the animations on (the cascade games have their own test).
    open_game(page, game_id, turbo=phone or game_id != GAMES[0])
    expect(page.get_by_test_id("stage")).to_have_attribute("data-game", game_id)
    play_round(page)
    rnd = last_round(web_server, token)
    assert rnd["status"] == "finished" and rnd["game"] == game_id
    assert web_server.balance(token) == start - rnd["cost"] + rnd["paid"] == displayed_balance(page)
    ledger = web_server.api("GET", "/wallet/ledger", token).json()["entries"]
    assert [(e["kind"], e["amount"]) for e in ledger if e["round_id"] == rnd["id"]][::-1] == \
        [("stake", -rnd["cost"])] + ([("win", rnd["paid"])] if rnd["paid"] else [])
    if rnd["paid"]:
        expect(page.get_by_test_id("win")).to_have_attribute("data-minor", str(rnd["paid"]))
    screenshot(page, f"{game_id}-{'phone' if phone else 'desktop'}")
    if phone:
        no_horizontal_overflow(page)
    assert not page.js_errors


@pytest.mark.parametrize("game_id", GAMES)
def test_a_feature_interrupted_by_a_reload_resumes_where_it_stopped(new_page, web_server, game_id):
    seed, expected = long_feature_seed(game_id)
    page = new_page()
    token = session(page, web_server, unique_player("resume"))
    start = web_server.balance(token)
    open_game(page, game_id)
    web_server.draws.source = SeededDraws(seed)
    page.get_by_test_id("spin").click()  # the paid spin triggers the feature, which plays by itself...
    if get_game(game_id).step_actions:
        assert idle(page) == "open"  # ...once the player has taken the step it waits for (opened the GEMBOX)
        page.get_by_test_id("spin").click()
    assert stop_feature(page) == "open"  # ...until STOP pauses it after the step in progress
    expect(page.get_by_test_id("bet-minus")).to_be_disabled()
    expect(page.get_by_test_id("bet-plus")).to_be_disabled()
    before = last_round(web_server, token)
    assert before["status"] == "open" and 2 <= len(before["steps"]) < len(expected.steps)

    page.reload()
    # The board as it was left, under the "Continue your feature" card; then the feature plays itself to its end.
    expect(page.get_by_test_id("moment-title")).to_have_text("CONTINUE YOUR FEATURE")
    check_resumed_view(page, game_id, before)
    expect(page.get_by_test_id("message")).to_contain_text("resumed")
    expect(page.get_by_test_id("bet")).to_have_attribute("data-minor", str(before["bet"]))
    screenshot(page, f"{game_id}-feature-resumed")

    expect(page.locator("body")).to_have_attribute("data-round-state", "idle", timeout=60_000)  # no press needed
    rnd = last_round(web_server, token)
    assert rnd["id"] == before["id"] and rnd["status"] == "finished"
    assert len(rnd["steps"]) == len(expected.steps)
    assert_same_round(rnd, expected)
    assert web_server.balance(token) == start - rnd["cost"] + rnd["paid"] == displayed_balance(page)
    expect(page.get_by_test_id("controls")).to_have_attribute("data-state", "idle")
    expect(page.get_by_test_id("auto-adjust")).to_be_enabled()  # the bet controls are free again
    assert not page.js_errors


@pytest.mark.parametrize("game_id", BUY_GAMES)
def test_feature_buy_costs_its_price_and_plays_the_feature(new_page, web_server, game_id):
    page = new_page(phone=True)
    token = session(page, web_server, unique_player("buy"))
    start = web_server.balance(token)
    open_game(page, game_id)
    bet = displayed_bet(page)
    game = next(g for g in web_server.games if g["id"] == game_id)
    price = bet * Fraction(game["feature_buy_price_x"])
    expect(page.get_by_test_id("buy")).to_have_attribute("data-price", str(int(price)))
    page.get_by_test_id("buy").click()
    expect(page.get_by_test_id("buy-confirm")).to_be_visible()
    page.get_by_test_id("buy-yes").click()
    assert idle(page) == "idle"  # the bought feature plays by itself to its end
    rnd = last_round(web_server, token)
    assert rnd["mode"] != "paid" and rnd["cost"] == price and len(rnd["steps"]) > 1
    assert web_server.balance(token) == start - rnd["cost"] + rnd["paid"] == displayed_balance(page)
    screenshot(page, f"{game_id}-feature-buy-phone")


def test_history_shows_every_step_and_verify_replays_the_round(new_page, web_server):
    game_id = GAMES[0]
    seed, expected = long_feature_seed(game_id, min_steps=3)
    page = new_page()
    token = session(page, web_server, unique_player("history"))
    open_game(page, game_id)
    play_round(page)
    web_server.draws.source = SeededDraws(seed)
    play_round(page)
    api_rounds = web_server.api("GET", "/rounds", token).json()["rounds"]
    assert len(api_rounds) == 2

    page.get_by_test_id("nav-history").click()
    rows = page.locator("[data-testid^='history-row-']")
    expect(rows).to_have_count(2)
    newest = api_rounds[0]
    page.get_by_test_id(f"history-row-{newest['id']}").click()
    # The raw audit record is for auditors: collapsed under the replay until asked for.
    expect(page.get_by_test_id("replay-caption")).not_to_be_empty()
    expect(page.get_by_test_id("round-steps")).to_be_hidden()
    page.get_by_test_id("audit").locator("summary").click()
    steps = page.locator("[data-testid^='step-']")
    expect(steps).to_have_count(len(expected.steps))
    for i, step in enumerate(expected.steps):
        for ev in step.events:
            expect(steps.nth(i).locator(f".event[data-type='{ev['type']}']").first).to_be_visible()
    page.get_by_test_id("verify").click()
    result = page.get_by_test_id("verify-result")
    expect(result).to_have_attribute("data-ok", "true")
    expect(result).to_contain_text("Verified")
    screenshot(page, "history-round-verified")
    assert web_server.api("GET", f"/rounds/{newest['id']}/verify", token).json()["ok"] is True
    assert not page.js_errors


def test_insufficient_balance_is_explained_and_auto_adjust_lowers_the_bet(new_page, web_server):
    game_id = GAMES[0]
    ladder = DEMO.games[game_id].bet_ladder
    low, high = ladder[3], ladder[4]  # the balance will cover ``low`` but not ``high``
    player = unique_player("poor")
    page = new_page(phone=True)
    token = session(page, web_server, player)
    left = (low + high) // 2
    web_server.withdraw(player, web_server.balance(token) - left)
    page.reload()
    expect(page.get_by_test_id("balance")).to_have_attribute("data-minor", str(left))
    open_game(page, game_id)
    if page.get_by_test_id("auto-adjust").is_checked():
        page.get_by_test_id("auto-adjust").click()
    set_bet(page, list(ladder), high)

    press_spin(page)
    notice = page.get_by_test_id("notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Insufficient balance")
    assert web_server.api("GET", "/rounds", token).json()["rounds"] == []
    assert displayed_balance(page) == web_server.balance(token) == left
    screenshot(page, "insufficient-balance-phone")

    page.get_by_test_id("auto-adjust").click()
    play_round(page)
    rnd = last_round(web_server, token)
    assert rnd["requested_bet"] == high and rnd["bet"] == low and rnd["bet_adjusted"]
    assert displayed_bet(page) == low
    assert displayed_balance(page) == web_server.balance(token) == left - low + rnd["paid"]


def test_a_lost_connection_retries_the_same_request_with_the_same_key(new_page, web_server):
    """The first answer to the round start and to a step is lost after the server acted: the client
    retries with the same Idempotency-Key, the server answers from its record, nothing happens twice."""
    game_id = GAMES[0]
    seed, expected = long_feature_seed(game_id, min_steps=3)
    page = new_page()
    token = session(page, web_server, unique_player("netloss"))
    start = web_server.balance(token)
    open_game(page, game_id)
    page.evaluate("""() => { window.__notices = [];
        new MutationObserver(() => window.__notices.push(document.getElementById('notice-text').textContent))
          .observe(document.getElementById('notice-text'), {childList: true, characterData: true, subtree: true}); }""")
    keys: dict[str, list[str]] = {"start": [], "step": []}

    def drop_first_answer(kind):
        def handler(route):
            keys[kind].append(route.request.headers["idempotency-key"])
            if len(keys[kind]) == 1:
                route.fetch()  # the server plays it...
                route.abort("connectionreset")  # ...and the answer never arrives
            else:
                route.continue_()
        return handler

    page.route("**/api/v1/games/*/rounds", drop_first_answer("start"))
    page.route("**/api/v1/rounds/*/steps", drop_first_answer("step"))
    web_server.draws.source = SeededDraws(seed)
    play_round(page)

    for kind in ("start", "step"):
        assert len(keys[kind]) >= 2 and keys[kind][0] == keys[kind][1], keys
    rounds = web_server.api("GET", "/rounds", token).json()["rounds"]
    assert len(rounds) == 1
    rnd = last_round(web_server, token)
    assert_same_round(rnd, expected)
    assert web_server.balance(token) == start - rnd["cost"] + rnd["paid"] == displayed_balance(page)
    notices = page.evaluate("window.__notices")
    assert "Connection lost. Reconnecting…" in notices and "Connection restored." in notices, notices
    assert not page.js_errors


def test_bet_moves_along_the_ladder_and_the_space_bar_spins(new_page, web_server):
    game_id = GAMES[0]
    ladder = list(DEMO.games[game_id].bet_ladder)
    page = new_page()
    token = session(page, web_server, unique_player("bets"))
    open_game(page, game_id)
    set_bet(page, ladder, ladder[0])
    expect(page.get_by_test_id("bet-minus")).to_be_disabled()
    page.get_by_test_id("bet-plus").click()
    assert displayed_bet(page) == ladder[1]
    expect(page.get_by_test_id("bet")).to_have_text(re.compile(r"\d"))
    set_bet(page, ladder, ladder[-1])
    expect(page.get_by_test_id("bet-plus")).to_be_disabled()
    set_bet(page, ladder, ladder[2])

    page.evaluate("document.activeElement.blur()")  # the space bar spins from the page, not from a focused control
    play_round(page, key=True)
    rnd = last_round(web_server, token)
    assert rnd["bet"] == ladder[2] and rnd["status"] == "finished"

    page.get_by_test_id("help-toggle").click()
    help_box = page.get_by_test_id("help")
    expect(help_box).to_be_visible()
    help_ = web_server.api("GET", f"/games/{game_id}/help").json()
    expect(help_box.get_by_test_id("help-game-id")).to_have_text(
        f"Game ID {help_['published_id'] or help_['game_id']}Version {help_['version']}")
    expect(help_box.get_by_test_id("paytable")).to_be_visible()
    expect(help_box).to_contain_text(f"{help_['max_win_x']:,}x")
    screenshot(page, f"{game_id}-help-desktop")
    page.get_by_test_id("help-close").click()
    expect(help_box).to_be_hidden()


CASCADE_GAMES = {g: view for g in GAMES if (view := client_view(g)) is not None and hasattr(view, "board_text")}
"""game id -> its client view, whose board (``BOARD``) shows each board an event draws as ``board_text``."""


def cascade_seed(game_id: str, cascades: int = 2) -> tuple[int, RoundResult]:
    """The first seed whose paid spin has at least ``cascades`` cascade events."""
    game = get_game(game_id)
    build = game.load_build(DEMO.games[game_id].build)
    for seed in range(5000):
        result = game.play_round(build, SeededDraws(seed))
        if sum(e["type"] == "cascade" for e in result.steps[0].events) >= cascades:
            return seed, result
    raise AssertionError(f"no {game_id} paid spin with {cascades} cascades in 5,000 seeds")


@pytest.mark.parametrize("game_id", [g for g in GAMES if g in CASCADE_GAMES])
def test_cascades_play_out_one_board_at_a_time(new_page, web_server, game_id):
    """With animations on, every board of the spin (the first, each cascade's, the last) is shown in turn."""
    board, board_text = CASCADE_GAMES[game_id].BOARD, CASCADE_GAMES[game_id].board_text
    seed, expected = cascade_seed(game_id)
    page = new_page()
    session(page, web_server, unique_player("cascade"))
    open_game(page, game_id, turbo=False)
    page.evaluate("""(board) => { window.__boards = [];
        const grid = document.querySelector(board);
        new MutationObserver(() => { const b = grid.dataset.board;
            if (window.__boards[window.__boards.length - 1] !== b) window.__boards.push(b); })
          .observe(grid, {attributes: true, attributeFilter: ['data-board']}); }""", board)
    web_server.draws.source = SeededDraws(seed)
    press_spin(page)
    shown = page.evaluate("window.__boards")
    wanted = []
    for ev in expected.steps[0].events:
        for key in ("board", "final_board"):
            if key in ev and (not wanted or wanted[-1] != board_text(ev[key])):
                wanted.append(board_text(ev[key]))
    assert len(wanted) >= 3
    it = iter(shown)
    assert all(any(b == s for s in it) for b in wanted), (wanted, shown)  # in order, none skipped
    screenshot(page, f"{game_id}-cascades-desktop")


def render_steps(page, module: str, steps: list, round_: dict | None = None, fast: bool = True) -> None:
    """Load a renderer module (its URL; a game's own with its stylesheet, as the client does) in the page and
    play ``steps`` (step dicts as the server sends them); ``fast``: as with Quick spin, no pauses."""
    page.goto("/#/render-test")
    # The client starts (its language, then its route) before the test takes the page over: replacing the view
    # while it starts would leave its start-up writing to elements that are gone.
    # expect() rather than wait_for_function(): a string predicate needs eval, which the page's policy forbids
    expect(page.locator("body")).to_have_attribute("data-view", "login")
    page.evaluate("""async ({module, steps, round, fast}) => {
        // a game's client.js without create gives its symbols' look to the generic renderer, as the client does
        const own = await import(module);
        const m = own.create ? own : (await import('/js/games/generic.js')).withLook(own);
        if (module.endsWith('/client/client.js')) await new Promise((done) => {
            const link = Object.assign(document.createElement('link'), {rel: 'stylesheet', href: module.replace(/js$/, 'css')});
            link.onload = link.onerror = done;
            document.head.append(link);
        });
        const holder = document.createElement('div');
        holder.className = 'stage';
        holder.style.height = '70vh';  // the table's stage has a height: the boards fit it (container units)
        holder.dataset.testid = 'render-test';
        document.querySelector('main').replaceChildren(holder);
        const r = m.create(holder, {game: {}, help: {}, money: (v) => String(v)});
        r.newRound(round);
        const anim = {fast: () => fast, wait: (ms) => new Promise((ok) => setTimeout(ok, fast ? 0 : ms))};
        for (const s of steps) await r.playStep(s, round, anim);
        window.__status = r.status(round);
    }""", {"module": module, "steps": steps, "round": round_ or {"status": "open", "mode": "paid"}, "fast": fast})


def test_gemstones_gold_renderer_draws_the_worked_example(new_page, web_server):
    """The seed's worked example (values 5x, 20x, 3x; blockers removed 5x+20x, 5x, 5x; only 5x applies),
    played by the rules engine on the hand-built board of the Gemstones Gold tests, drawn by the client."""
    from reelforge.core.draws import RecordedDraws
    from tests.games.gemstones_gold.scenario import free_draws, paid_draws, scenario_build

    game, build = get_game("gemstones-gold"), scenario_build()
    paid = game.play_step(build, game.start_round(build, "paid"), RecordedDraws(paid_draws([(0, 5), (1, 20), (2, 3)])))
    free = game.play_step(build, game.start_round(build, "buy"), RecordedDraws(free_draws([5, 20, 3, 2, 2, 2])))
    as_json = [{"kind": s.kind, "events": json.loads(dumps(s.events))} for s in (paid, free)]
    page = new_page(phone=True)
    render_steps(page, game_url("gemstones-gold"), as_json[:1])
    lane = page.get_by_test_id
    expect(lane("gg-lane-1")).to_have_attribute("data-blockers", "0")
    expect(lane("gg-lane-1")).to_contain_text("5x")
    expect(lane("gg-lane-2")).to_have_attribute("data-blockers", "2")
    expect(lane("gg-lane-2")).not_to_contain_text("20x")  # still hidden under its blockers
    expect(lane("gg-lane-3")).to_have_attribute("data-blockers", "3")
    expect(lane("gg-lane-4")).to_have_attribute("data-value", "")
    expect(page.get_by_test_id("gg-sum")).to_have_attribute("data-sum", "5")
    expect(page.get_by_test_id("gg-sum")).to_contain_text("5x")
    final = paid.events[-2]["final_board"]
    expect(page.get_by_test_id("gg-board")).to_have_attribute("data-board", client_view("gemstones-gold").board_text(final))
    expect(page.get_by_test_id("gg-free-spins")).to_be_hidden()
    screenshot(page, "gemstones-gold-worked-example-phone")

    render_steps(page, game_url("gemstones-gold"), as_json[1:], {"status": "open", "mode": "buy"})
    expect(page.get_by_test_id("gg-free-spins")).to_have_attribute("data-value", "9")
    expect(page.get_by_test_id("gg-total-multiplier")).to_have_attribute("data-value", "7")
    expect(page.get_by_test_id("gg-sum")).to_contain_text("5x + 2x = 7x")
    screenshot(page, "gemstones-gold-free-spin-phone")
    assert not page.js_errors


@pytest.mark.skipif("forge-of-gems" not in GAMES, reason="Forge of Gems is not offered")
def test_the_gembox_waits_for_the_player_across_a_reload(new_page, web_server):
    seed, expected = long_feature_seed("forge-of-gems", min_steps=2)
    assert expected.steps[1].kind == "gembox"
    page = new_page(phone=True)
    token = session(page, web_server, unique_player("gembox"))
    open_game(page, "forge-of-gems")
    # on the phone the board's box is as tall as the board: no empty band above or under it
    gaps = page.evaluate("""() => { const fit = document.querySelector('.fog.cascade > .fit').getBoundingClientRect(),
        frame = document.querySelector('.fog-frame').getBoundingClientRect();
        return [frame.top - fit.top, fit.bottom - frame.bottom]; }""")
    assert max(gaps) <= 6, gaps
    web_server.draws.source = SeededDraws(seed)
    assert press_spin(page) == "open"
    # The closed GEMBOX waits for the player: after a reload, and when the client is opened afresh.
    for reopen in (page.reload, lambda: page.goto("/")):
        expect(page.get_by_test_id("fog-gembox")).to_have_attribute("data-state", "closed")
        expect(page.get_by_test_id("spin")).to_have_text("OPEN GEMBOX")
        reopen()
        expect(page.get_by_test_id("stage")).to_have_attribute("data-game", "forge-of-gems")
        assert idle(page) == "open"
    expect(page.get_by_test_id("fog-gembox")).to_have_attribute("data-state", "closed")
    screenshot(page, "forge-of-gems-gembox-waiting-phone")
    page.get_by_test_id("spin").click()
    expect(page.get_by_test_id("fog-gembox")).to_have_attribute("data-state", "opened")
    reward = expected.steps[1].events[0]
    if reward["free_spins"]:  # the opening moment says what the GEMBOX held; then the free spins play
        expect(page.get_by_test_id("moment")).to_contain_text(f"{reward['free_spins']} FREE SPINS")
        screenshot(page, "forge-of-gems-gembox-opened-phone")
    assert idle(page) == "idle"
    rnd = last_round(web_server, token)
    assert rnd["steps"][1]["kind"] == "gembox" and rnd["steps"][1]["action"] == "open"
    assert_same_round(rnd, expected)
    # The feature's cards go with it: no GEMBOX and no free-spin counter left standing.
    expect(page.get_by_test_id("fog-gembox")).to_be_hidden()
    expect(page.get_by_test_id("fog-free-spins")).to_be_hidden()


def test_a_game_without_its_own_renderer_gets_the_generic_one(new_page, web_server):
    """The generic renderer draws any board an event carries and lists the wins (here Forge of Gems' events)."""
    seed, expected = cascade_seed("forge-of-gems") if "forge-of-gems" in GAMES else (None, None)
    if expected is None:
        pytest.skip("needs Forge of Gems events")
    steps = [{"kind": s.kind, "events": json.loads(dumps(s.events))} for s in expected.steps[:1]]
    page = new_page(phone=True)
    render_steps(page, "/js/games/generic.js", steps)
    boards = [ev["board"] for ev in steps[0]["events"] if "board" in ev]
    grid = page.get_by_test_id("board")
    expect(grid.locator(".cell")).to_have_count(15)
    for c, col in enumerate(boards[-1]):
        for r, name in enumerate(col):
            expect(grid.locator(f".cell[data-col='{c}'][data-row='{r}']")).to_have_attribute("data-symbol", name)
    wins = [ev for ev in steps[0]["events"] if ev["type"] == "win"]
    expect(page.get_by_test_id("event-log").locator("li.win")).to_have_count(len(wins))
    assert not page.js_errors


def _tumble_round() -> tuple[list[dict], list[list[str]], dict, list[list[str]]]:
    """The events of the first seeded Canyon Ways paid spin that wins and tumbles, up to that tumble: the
    events, the board won on, the win and the board after the tumble."""
    game = get_game("canyon-ways")
    build = game.load_build(DEMO.games["canyon-ways"].build)
    for seed in range(200):
        events = json.loads(dumps(game.play_round(build, SeededDraws(seed)).steps[0].events))
        if len(events) > 2 and events[1]["type"] == "win" and events[2]["type"] == "tumble":
            return events[:3], events[0]["board"], events[1], events[2]["board"]
    raise AssertionError("no Canyon Ways spin that wins and tumbles in 200 seeds")


# Each label of a board: its words, and whether each word sits on one line (a word broken in its middle has
# two line boxes), inside its cell, with the label's font size.
LABELS_JS = """() => [...document.querySelectorAll('[data-testid=board] .cell .label')].map((label) => {
    const text = label.firstChild, cell = label.parentElement.getBoundingClientRect(), box = label.getBoundingClientRect();
    const broken = [];
    for (const m of text.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
        if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) broken.push(m[0]);
    }
    return {name: text.textContent, broken, px: parseFloat(getComputedStyle(label).fontSize),
            inside: box.left >= cell.left - 0.5 && box.right <= cell.right + 0.5 && box.bottom <= cell.bottom + 0.5};
})"""


def test_the_generic_board_draws_a_games_tiles_lights_its_wins_and_lets_a_tumble_fall(new_page, web_server):
    """Canyon Ways on the generic renderer with the look its client.js gives: every cell a tile with its picture
    and its whole name (never broken in a word, also a long name on a 2-row reel beside 7-row ones); a win lights
    the cells it pays (the symbol and the Wilds on the reels it counts); after the tumble the survivors fall by
    the cells taken below them and new symbols drop into the top; with reduced motion nothing moves. Then a wins
    list of a cascade game (Gemstones Gold) on the phone: its newest line in view, none half under its total."""
    events, board, win, after = _tumble_round()
    page = new_page(phone=True)
    module = game_url("canyon-ways")
    render_steps(page, module, [{"kind": "paid_spin", "events": events[:2]}])
    count, symbol = win["pay"].split(" ", 1)
    lit = {(c, r) for c, col in enumerate(board[:int(count)]) for r, name in enumerate(col) if name in (symbol, "Wild")}
    cells = page.locator("[data-testid=board] .cell")
    shown = {(int(c.get_attribute("data-col")), int(c.get_attribute("data-row"))) for c in cells.all()
             if "win" in c.get_attribute("class").split()}
    assert shown == lit
    # the game's pictures: a drawing for its high symbols, a letter for the royals; a lit tile, not a flat one
    looks = page.evaluate("""() => [...document.querySelectorAll('[data-testid=board] .cell')].map((c) => ({
        symbol: c.dataset.symbol, svg: !!c.querySelector('.glyph svg'), glyph: c.querySelector('.glyph').textContent,
        background: getComputedStyle(c).backgroundImage}))""")
    assert all("gradient" in cell["background"] for cell in looks)
    for cell in looks:
        royal = {"Ace": "A", "King": "K", "Queen": "Q", "Jack": "J", "Ten": "10", "Nine": "9"}.get(cell["symbol"])
        assert (cell["glyph"] == royal) if royal else cell["svg"], cell

    render_steps(page, module, [{"kind": "paid_spin", "events": events}], fast=False)
    for c, col in enumerate(after):
        kept = [r for r in range(len(board[c])) if (c, r) not in lit]
        fresh = len(col) - len(kept)
        for r in range(len(col)):
            fall = fresh if r < fresh else r - kept[r - fresh]
            cell = page.locator(f"[data-testid=board] .cell[data-col='{c}'][data-row='{r}']")
            expect(cell).to_have_attribute("data-symbol", col[r])
            assert cell.evaluate("(n) => n.style.getPropertyValue('--from') || '0'") == str(fall), (c, r)
            assert ("drop" in cell.get_attribute("class").split()) == (fall > 0)
    # the narration in a player's words: the ways the reels land on, what paid and what it paid, the tumble
    ways = math.prod(events[0]["heights"])
    paid = format(float(Fraction(win["win_x"])), ",.4f").rstrip("0").rstrip(".")
    narration = page.get_by_test_id("event-log").locator("li:not(.step-head)").all_inner_texts()
    assert narration == [f"Reels: {ways:,} way{'s' * (ways != 1)}",
                         f"{count} × {symbol} pays {paid}x · {win['ways']:,} way{'s' * (win['ways'] != 1)}",
                         "Cascade 1: the winning symbols are removed and the symbols fall."], narration
    page.emulate_media(reduced_motion="reduce")
    render_steps(page, module, [{"kind": "paid_spin", "events": events}], fast=False)
    assert page.evaluate("document.querySelector('[data-testid=board]').getAnimations({subtree: true}).length") == 0
    expect(page.locator("[data-testid=board] .cell.drop")).to_have_count(0)

    # A long name on a 2-row reel (tall, narrow cells) beside 7-row reels: whole words, inside the cell, readable.
    tall = [["Horseshoe", "Horseshoe"]] + [["Horseshoe", "Eagle", "Cactus", "Queen", "Bison", "Sun", "Wild"]] * 5
    render_steps(page, module, [{"kind": "paid_spin", "events": [{"type": "reels", "board": tall}]}])
    labels = page.evaluate(LABELS_JS)
    assert len(labels) == 37 and all(lb["name"] in ("Horseshoe", "Eagle", "Cactus", "Queen", "Bison", "Sun", "Wild")
                                     for lb in labels)
    assert not [lb for lb in labels if lb["broken"] or not lb["inside"] or lb["px"] < 7], labels
    screenshot(page, "generic-board-tall-and-short-reels-phone")

    seed, result = cascade_seed("gemstones-gold", cascades=4)
    render_steps(page, game_url("gemstones-gold"), [{"kind": s.kind, "events": json.loads(dumps(s.events))}
                                                   for s in result.steps[:1]])
    lines = page.evaluate("""() => { const list = document.querySelector('[data-testid=gg-wins]');
        const head = list.querySelector('li.total').getBoundingClientRect(), box = list.getBoundingClientRect();
        return {scrolled: list.scrollTop, bottom: box.bottom - list.clientTop, head: [head.top, head.bottom],
                lines: [...list.querySelectorAll('li:not(.total)')].map((li) => { const r = li.getBoundingClientRect();
                    return [r.top, r.bottom, li.textContent]; })}; }""")
    assert lines["scrolled"] > 0, "the spin's wins fit the list: the check would see nothing"
    top, bottom = lines["head"]
    assert not [ln for ln in lines["lines"] if ln[0] < bottom - 0.5 and ln[1] > bottom + 0.5], lines
    assert lines["lines"][-1][1] <= lines["bottom"] + 0.5, lines
    assert not page.js_errors
