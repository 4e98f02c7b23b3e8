"""Rounds end to end through HTTP: every game, its features, resume, retries, expiry, malfunction."""

from __future__ import annotations

import json
from datetime import timedelta
from fractions import Fraction

import pytest
from sqlalchemy import select, update

from reelforge.core.draws import SeededDraws
from reelforge.games.registry import game_ids, get_game
from reelforge.server.clock import utcnow
from reelforge.server.round_json import dumps, money
from reelforge.server.schema import ledger, rounds, steps

from .conftest import BrokenDraws, demo_config
from .scenarios import Scenario, feature_scenario, step_kind_scenarios


def assert_round_is(rnd: dict, scenario: Scenario) -> None:
    """The HTTP round is exactly the round the rules engine plays from the same draws."""
    expected = scenario.result
    assert [s["kind"] for s in rnd["steps"]] == scenario.kinds
    for got, exp, draws in zip(rnd["steps"], expected.steps, expected.draws, strict=True):
        assert got["draws"] == draws
        assert got["events"] == json.loads(dumps(exp.events))
        assert got["win_x"] == str(Fraction(exp.win))
        assert got["total_win_x"] == str(Fraction(exp.total_win))
    assert rnd["total_win_x"] == str(Fraction(expected.total_win))
    assert rnd["status"] == "finished"
    assert rnd["total_win"] == rnd["paid"] == money(rnd["bet"], Fraction(expected.total_win))


def ledger_of(server, public_id: int) -> list[tuple[str, int]]:
    """The ledger entries of the round the API showed as ``public_id``."""
    with server.engine.connect() as conn:
        return [(r.kind, r.amount) for r in conn.execute(select(ledger.c.kind, ledger.c.amount).where(
            ledger.c.round_id == server.internal(public_id)).order_by(ledger.c.id))]


@pytest.mark.parametrize("game_id", game_ids())
def test_every_step_kind_of_every_game_plays_through_http(server, game_id):
    """Paid-spin-only rounds, feature rounds and every step kind (re-spins, free spins, GEMBOX...)."""
    player = server.session()
    ladder = server.config.games[game_id].bet_ladder
    bet = ladder[0]
    for key, scenario in sorted(step_kind_scenarios(game_id).items()):
        before = player.balance()
        server.draws.source = SeededDraws(scenario.seed)
        rnd = player.start(game_id, bet)
        assert rnd["bet"] == bet and rnd["cost"] == bet, key
        assert rnd["steps"][0]["kind"] == scenario.kinds[0]
        if len(scenario.kinds) > 1:
            assert rnd["status"] == "open" and rnd["next_step"] == scenario.result.steps[0].next_step
            assert rnd["balance"] == before - bet  # the win is paid when the round ends, not before
        rnd = player.finish(rnd)
        assert_round_is(rnd, scenario)
        assert rnd["balance"] == player.balance() == before - bet + rnd["paid"]
        expected_entries = [("stake", -bet)] + ([("win", rnd["paid"])] if rnd["paid"] else [])
        assert ledger_of(server, rnd["id"]) == expected_entries
        assert player.get(f"/api/v1/rounds/{rnd['id']}/verify").json() == {
            "round": rnd["id"], "ok": True, "differences": []}
        # The last step's answer (its JSON spliced from the stored step text) is the stored round.
        assert player.get(f"/api/v1/rounds/{rnd['id']}").json() == rnd


def test_round_text_is_exactly_the_json_of_round_json(server):
    """A round answer's text, made without re-encoding the stored steps, is byte for byte
    what encoding the round's dictionary gives."""
    from reelforge.server.store import transaction

    game_id = next(iter(server.config.games))
    scenario = feature_scenario(game_id)
    player = server.session()
    server.draws.source = SeededDraws(scenario.seed)
    rnd = player.finish(player.start(game_id, server.config.games[game_id].bet_ladder[0]))
    assert len(rnd["steps"]) > 1
    with transaction(server.engine, write=False) as tx:
        stored, step_rows = tx.round(server.internal(rnd["id"])), tx.steps(server.internal(rnd["id"]))
    stored.void_reason = "état: void ✓ \"quoted\"\n"  # non-ASCII, quotes and escapes encode alike too
    text = server.service.round_text(stored, step_rows, 12345)
    assert text == dumps(server.service.round_json(stored, step_rows, 12345))
    assert json.loads(text)["steps"] == rnd["steps"]


@pytest.mark.parametrize("game_id", [g for g in game_ids() if len(get_game(g).modes) > 1])
def test_feature_buy_is_debited_as_its_own_entry_and_plays_the_feature(server, game_id):
    game = get_game(game_id)
    mode = next(m for m in game.modes if m != "paid")
    gconf = server.config.games[game_id]
    build = game.load_build(gconf.build)
    price_x = game.feature_buy_price_x(build)
    bet = gconf.bet_ladder[0]
    cost = bet * price_x
    assert cost.denominator == 1
    scenario = Scenario(0, mode, game.play_round(build, SeededDraws(0), mode))
    player = server.session()
    before = player.balance()
    server.draws.source = SeededDraws(0)
    rnd = player.start(game_id, bet, buy_feature=True)
    assert rnd["mode"] == mode and rnd["cost"] == int(cost)
    rnd = player.finish(rnd)
    assert_round_is(rnd, scenario)
    assert ledger_of(server, rnd["id"])[0] == ("feature_buy", -int(cost))
    assert player.balance() == before - int(cost) + rnd["paid"]
    listing = {g["id"]: g for g in server.client.get("/api/v1/games").json()}
    assert listing[game_id]["feature_buy_price_x"] == str(price_x)


def test_games_without_a_feature_buy_refuse_one(server):
    player = server.session()
    for game_id in server.config.games:
        if len(get_game(game_id).modes) == 1:
            r = server.client.post(f"/api/v1/games/{game_id}/rounds", json={"bet": 10**0 * server.config.games[
                game_id].bet_ladder[0], "buy_feature": True}, headers=player.key())
            assert r.status_code == 422 and r.json()["error"] == "no_feature_buy"


@pytest.mark.parametrize("game_id", game_ids())
def test_resume_after_the_client_drops_mid_feature(make_server, game_id):
    scenario = step_kind_scenarios(game_id).get("long") or feature_scenario(game_id)
    server = make_server()
    player = server.session("bob")
    bet = server.config.games[game_id].bet_ladder[1]
    server.draws.source = SeededDraws(scenario.seed)
    rnd = player.start(game_id, bet)
    if len(scenario.kinds) > 2:
        rnd = player.step(rnd["id"])
    assert rnd["status"] == "open"
    played = len(rnd["steps"])

    # The client vanishes; the player comes back later through a new server process and a new session.
    seeded = server.draws.source
    again = make_server()
    again.draws.source = seeded
    player2 = again.session("bob")
    r = player2.get(f"/api/v1/games/{game_id}/rounds/unfinished")
    assert r.status_code == 200
    resumed = r.json()
    assert resumed["id"] == rnd["id"] and len(resumed["steps"]) == played
    assert resumed["state"] == rnd["state"] and resumed["next_step"] == rnd["next_step"]
    # A new round cannot start while this one is unfinished.
    r = again.client.post(f"/api/v1/games/{game_id}/rounds", json={"bet": bet}, headers=player2.key())
    assert r.status_code == 409 and r.json()["error"] == "unfinished_round"
    done = player2.finish(resumed)
    assert_round_is(done, scenario)
    assert player2.get(f"/api/v1/games/{game_id}/rounds/unfinished").status_code == 404


def test_idempotent_retries_change_nothing_twice(server):
    game_id = next(iter(server.config.games))
    scenario = feature_scenario(game_id)
    player = server.session()
    bet = server.config.games[game_id].bet_ladder[0]
    server.draws.source = SeededDraws(scenario.seed)
    first = player.start(game_id, bet, key="start-1")
    balance = player.balance()
    # The retry returns the first answer: same round, same balance, no second debit.
    assert player.start(game_id, bet, key="start-1", expect=201) == first
    assert player.balance() == balance
    # The same key with a different request is refused.
    r = server.client.post(f"/api/v1/games/{game_id}/rounds", json={"bet": server.config.games[game_id].bet_ladder[1]},
                           headers={**player.headers, "Idempotency-Key": "start-1"})
    assert r.status_code == 409 and r.json()["error"] == "idempotency_key_reused"
    # Steps too: a retried step does not play another step.
    step = player.step(first["id"], key="step-1")
    again = player.step(first["id"], key="step-1")
    assert again == step
    assert len(player.get(f"/api/v1/rounds/{first['id']}").json()["steps"]) == 2
    player.finish(step)
    with server.engine.connect() as conn:
        assert len(conn.execute(select(rounds)).all()) == 1


def test_money_requests_need_an_idempotency_key(server):
    player = server.session()
    game_id = next(iter(server.config.games))
    r = server.client.post(f"/api/v1/games/{game_id}/rounds", json={"bet": server.config.games[game_id].bet_ladder[0]},
                           headers=player.headers)
    assert r.status_code == 400 and "Idempotency-Key" in r.json()["detail"]
    assert player.balance() == server.config.demo_balance


def test_insufficient_balance_changes_nothing_and_auto_adjust_lowers_the_bet(make_server):
    server = make_server(demo_config(demo_balance=250))
    player = server.session()
    game_id = next(iter(server.config.games))
    ladder = server.config.games[game_id].bet_ladder
    top = ladder[-1]
    assert top > 250
    r = server.client.post(f"/api/v1/games/{game_id}/rounds", json={"bet": top}, headers=player.key())
    assert r.status_code == 402 and r.json()["error"] == "insufficient_balance"
    assert player.balance() == 250
    server.draws.source = SeededDraws(step_kind_scenarios(game_id)["single"].seed)
    rnd = player.start(game_id, top, auto_adjust_bet=True)
    expected = max(v for v in ladder if v <= 250)
    assert rnd["bet"] == expected and rnd["requested_bet"] == top and rnd["bet_adjusted"]
    player.finish(rnd)
    # Auto adjust never raises a bet: a bet the balance covers is played as asked.
    low = ladder[0]
    rnd = player.finish(player.start(game_id, low, auto_adjust_bet=True))
    assert rnd["bet"] == low and not rnd["bet_adjusted"]


def _long_round(server, player, game_id: str, mode: str = "paid", **body):
    """Start the first round of ``game_id`` with three or more steps (seeded); ``(round, scenario)``."""
    scenario = step_kind_scenarios(game_id, mode)["long"]
    server.draws.source = SeededDraws(scenario.seed)
    rnd = player.start(game_id, server.config.games[game_id].bet_ladder[0], **body)
    server.draws.source = BrokenDraws()  # decided at the stake: nothing is drawn any more
    return rnd, scenario


def _revealed_only(rnd: dict, scenario: Scenario, shown: int) -> None:
    """``rnd`` shows exactly the first ``shown`` steps of ``scenario`` and nothing of the rest."""
    assert [s["kind"] for s in rnd["steps"]] == scenario.kinds[:shown]
    assert rnd["step_count"] == shown
    assert rnd["total_win_x"] == str(Fraction(scenario.result.steps[shown - 1].total_win))
    assert rnd["state"] == json.loads(dumps(scenario.result.steps[shown - 1].state))
    assert rnd["paid"] == 0 and rnd["status"] == "open"


@pytest.mark.parametrize("game_id", game_ids())
def test_a_round_is_decided_at_the_stake_and_revealed_one_step_at_a_time(server, game_id):
    """The whole round is played when staked (a draw source that fails afterwards changes nothing);
    round, unfinished-round, history and verify answers show only the steps revealed so far."""
    player = server.session()
    before = player.balance()
    rnd, scenario = _long_round(server, player, game_id)
    bet = rnd["bet"]
    _revealed_only(rnd, scenario, 1)
    for shown in range(1, len(scenario.kinds)):
        for view in (player.get(f"/api/v1/rounds/{rnd['id']}").json(),
                     player.get(f"/api/v1/games/{game_id}/rounds/unfinished").json()):
            _revealed_only(view, scenario, shown)
        listed = player.get("/api/v1/rounds").json()["rounds"][0]
        assert listed["step_count"] == shown and listed["paid"] == 0
        assert listed["total_win_x"] == str(Fraction(scenario.result.steps[shown - 1].total_win))
        verified = player.get(f"/api/v1/rounds/{rnd['id']}/verify").json()
        assert verified["ok"], verified
        assert player.balance() == before - bet  # paid at the end of the round
        rnd = player.finish(rnd) if shown == len(scenario.kinds) - 1 else player.step(rnd["id"])
        if rnd["status"] == "open":
            _revealed_only(rnd, scenario, shown + 1)
    assert_round_is(rnd, scenario)
    assert player.balance() == before - bet + rnd["paid"]
    assert ledger_of(server, rnd["id"]) == [("stake", -bet)] + ([("win", rnd["paid"])] if rnd["paid"] else [])
    # Nothing unrevealed was stored on the round itself, and every step is now revealed.
    with server.engine.connect() as conn:
        assert all(r.revealed_at is not None for r in conn.execute(
            select(steps.c.revealed_at).where(steps.c.round_id == server.internal(rnd["id"]))))


def test_an_abandoned_feature_buy_is_completed_and_paid_on_expiry_never_refunded(server):
    """The free option is gone: a bought feature left unfinished is completed on expiry with its decided
    win, whatever was shown so far; the price is not refunded."""
    game_id = "gemstones-gold"
    player = server.session()
    before = player.balance()
    rnd, scenario = _long_round(server, player, game_id, "buy", buy_feature=True)
    price = rnd["cost"]
    rnd = player.step(rnd["id"])  # two steps seen, then the player walks away
    assert server.service.expire(utcnow() + timedelta(days=89)) == 0
    assert server.service.expire(utcnow() + timedelta(days=90, seconds=1)) == 1
    done = player.get(f"/api/v1/rounds/{rnd['id']}").json()
    decided = money(rnd["bet"], Fraction(scenario.result.total_win))
    assert done["status"] == "finished" and done["completed_on_expiry"] and done["void_reason"] is None
    assert done["finished_at"] is not None and done["paid"] == decided
    assert [s["kind"] for s in done["steps"]] == scenario.kinds
    assert player.balance() == before - price + decided
    assert ledger_of(server, rnd["id"]) == [("feature_buy", -price)] + ([("win", decided)] if decided else [])
    r = server.client.post(f"/api/v1/rounds/{rnd['id']}/steps", json={}, headers=player.key())
    assert r.status_code == 409 and r.json()["error"] == "round_not_open"
    assert server.service.expire(utcnow() + timedelta(days=200)) == 0  # completed once


def test_a_step_on_an_expired_round_completes_it(server):
    game_id = next(iter(server.config.games))
    player = server.session()
    before = player.balance()
    rnd, scenario = _long_round(server, player, game_id)
    with server.engine.begin() as conn:
        conn.execute(update(rounds).where(rounds.c.id == server.internal(rnd["id"])).values(
            created_at=utcnow() - timedelta(days=91)))
    done = player.step(rnd["id"])
    assert done["status"] == "finished" and done["completed_on_expiry"]
    assert len(done["steps"]) == len(scenario.kinds) and done["balance"] == player.balance()
    assert player.balance() == before - rnd["bet"] + done["paid"]
    assert ("refund", rnd["bet"]) not in ledger_of(server, rnd["id"])


class FailAfter:
    """A draw source that gives ``n`` seeded draws and then fails (an entropy device breaking mid-round)."""

    def __init__(self, seed: int, n: int) -> None:
        self.inner, self.left = SeededDraws(seed), n

    def draw(self, n: int) -> int:
        if self.left == 0:
            raise OSError("entropy source unavailable")
        self.left -= 1
        return self.inner.draw(n)


def test_a_malfunction_while_deciding_voids_the_round_before_anything_is_shown(server):
    game_id = next(iter(server.config.games))
    player = server.session()
    bet = server.config.games[game_id].bet_ladder[0]
    before = player.balance()
    # In the paid spin:
    server.draws.source = BrokenDraws()
    rnd = player.start(game_id, bet)
    assert rnd["status"] == "void" and "malfunction" in rnd["void_reason"]
    assert "entropy source unavailable" in rnd["void_reason"]
    assert rnd["balance"] == before and rnd["paid"] == 0 and rnd["steps"] == []
    # And in a later step of a feature: decided at the stake, so voided there, with nothing shown.
    scenario = feature_scenario(game_id)
    server.draws.source = FailAfter(scenario.seed, len(scenario.result.draws[0]))
    rnd = player.start(game_id, bet)
    assert rnd["status"] == "void" and "step 2" in rnd["void_reason"]
    assert rnd["steps"] == [] and rnd["step_count"] == 0 and player.balance() == before
    assert ledger_of(server, rnd["id"]) == [("stake", -bet), ("refund", bet)]
    with server.engine.connect() as conn:
        assert conn.execute(select(steps).where(steps.c.round_id == server.internal(rnd["id"]))).first() is None


def test_a_retried_step_gets_its_first_answer_and_stored_answers_grow_linearly(server):
    from reelforge.server.schema import idempotency

    game_id = "forge-of-gems"
    player = server.session()
    rnd, scenario = _long_round(server, player, game_id)
    answers = []
    while rnd["status"] == "open":
        key = player.key()
        r = server.client.post(f"/api/v1/rounds/{rnd['id']}/steps", json={}, headers=key)
        if r.status_code == 409:  # a GEMBOX wants its action
            r = server.client.post(f"/api/v1/rounds/{rnd['id']}/steps", json={"action": "open"}, headers=key)
        assert r.status_code == 200, r.text
        rnd = r.json()
        answers.append((key, r.json()["steps"][-1]["action"], r.text))
    for key, action, text in answers:
        again = server.client.post(f"/api/v1/rounds/{rnd['id']}/steps",
                                   json={} if action is None else {"action": action}, headers=key)
        assert again.status_code == 200 and again.text == text  # the first answer, word for word
    with server.engine.connect() as conn:
        stored = [len(r.response) for r in conn.execute(select(idempotency.c.response))]
    sent = sum(len(text) for *_, text in answers)
    assert len(answers) >= 2 and max(stored) < min(len(t) for *_, t in answers[1:])
    assert sum(stored) < sent  # the steps are not stored again with every answer


def test_steps_on_finished_or_foreign_rounds_are_refused(server):
    game_id = next(iter(server.config.games))
    alice, mallory = server.session("alice"), server.session("mallory")
    bet = server.config.games[game_id].bet_ladder[0]
    server.draws.source = SeededDraws(step_kind_scenarios(game_id)["single"].seed)
    done = alice.start(game_id, bet)
    assert done["status"] == "finished"
    r = server.client.post(f"/api/v1/rounds/{done['id']}/steps", json={}, headers=alice.key())
    assert r.status_code == 409 and r.json()["error"] == "round_not_open"
    server.draws.source = SeededDraws(feature_scenario(game_id).seed)
    open_round = alice.start(game_id, bet)
    # Mallory can neither see nor play Alice's rounds: 404, exactly like a missing round.
    for rid in (done["id"], open_round["id"]):
        for path in (f"/api/v1/rounds/{rid}", f"/api/v1/rounds/{rid}/verify"):
            r = mallory.get(path)
            assert r.status_code == 404 and r.json()["error"] == "round_not_found"
        r = server.client.post(f"/api/v1/rounds/{rid}/steps", json={}, headers=mallory.key())
        assert r.status_code == 404
    assert mallory.get(f"/api/v1/games/{game_id}/rounds/unfinished").status_code == 404
    assert mallory.get("/api/v1/rounds").json()["rounds"] == []
    assert mallory.balance() == server.config.demo_balance
    alice.finish(open_round)


def test_history_is_newest_first_and_paginated(server):
    game_id = next(iter(server.config.games))
    player = server.session()
    bet = server.config.games[game_id].bet_ladder[0]
    ids = [player.finish(player.start(game_id, bet))["id"] for _ in range(5)]
    page = player.get("/api/v1/rounds", params={"limit": 2}).json()
    assert [r["id"] for r in page["rounds"]] == ids[::-1][:2]
    page2 = player.get("/api/v1/rounds", params={"limit": 2, "before": page["next_before"]}).json()
    assert [r["id"] for r in page2["rounds"]] == ids[::-1][2:4]
    page3 = player.get("/api/v1/rounds", params={"limit": 2, "before": page2["next_before"]}).json()
    assert [r["id"] for r in page3["rounds"]] == ids[:1] and page3["next_before"] is None
    full = player.get(f"/api/v1/rounds/{ids[0]}").json()
    assert set(full) >= {"id", "game", "build", "bet", "status", "steps", "total_win", "balance", "state"}
    assert set(full["steps"][0]) >= {"kind", "events", "win", "win_x", "draws", "state"}
    entries = player.get("/api/v1/wallet/ledger", params={"limit": 100}).json()["entries"]
    assert entries[-1]["kind"] == "deposit" and entries[-1]["amount"] == server.config.demo_balance
    assert entries[0]["balance_after"] == player.balance()
    assert {e["round_id"] for e in entries if e["kind"] == "stake"} == set(ids)


def test_verify_finds_a_tampered_round(server):
    game_id = next(iter(server.config.games))
    player = server.session()
    scenario = feature_scenario(game_id)
    server.draws.source = SeededDraws(scenario.seed)
    rnd = player.finish(player.start(game_id, server.config.games[game_id].bet_ladder[0]))
    server.tampered.add(rnd["id"])
    with server.engine.begin() as conn:
        conn.execute(update(steps).where(steps.c.round_id == server.internal(rnd["id"]), steps.c.idx == 0).values(
            events=json.dumps([{"type": "forged"}])))
        conn.execute(update(rounds).where(rounds.c.id == server.internal(rnd["id"])).values(win=rnd["paid"] + 1))
    result = player.get(f"/api/v1/rounds/{rnd['id']}/verify").json()
    assert result["ok"] is False
    assert any("step 0: events differ" in d for d in result["differences"])
    assert any("paid" in d for d in result["differences"])


def test_concurrent_requests_never_overdraw_or_double_play(make_server):
    """Many threads on one player's wallet: row locks serialise them; the balance never goes negative."""
    from concurrent.futures import ThreadPoolExecutor

    from reelforge.server.auth import authenticate
    from reelforge.server.errors import ApiError

    probe = demo_config()
    game_id = next(iter(probe.games))
    ladder = probe.games[game_id].bet_ladder
    bet = ladder[-1]
    server = make_server(demo_config(demo_balance=3 * bet))
    player = server.session()
    who = authenticate(server.engine, f"Bearer {player.token}")

    # The same key from many threads at once starts exactly one round.
    def same_key(_: int) -> int:
        return server.service.start_round(who.player_id, game_id, ladder[0], False, None, "same-key").body["id"]

    with ThreadPoolExecutor(8) as pool:
        assert len(set(pool.map(same_key, range(8)))) == 1
    player.finish(player.get(f"/api/v1/rounds/{same_key(0)}").json())

    def start(i: int) -> str:
        try:
            return server.service.start_round(who.player_id, game_id, bet, False, None, f"c{i}").body["status"]
        except ApiError as exc:
            return exc.code

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(start, range(16)))
    assert set(outcomes) <= {"finished", "open", "insufficient_balance", "unfinished_round"}, outcomes
    assert outcomes.count("open") <= 1
    assert player.balance() >= 0


def test_two_server_processes_share_one_database_safely(make_server):
    """Two servers with separate connection pools (as two processes would have) on one wallet."""
    from concurrent.futures import ThreadPoolExecutor

    from reelforge.server.auth import authenticate
    from reelforge.server.errors import ApiError

    probe = demo_config()
    game_id = next(iter(probe.games))
    bet = probe.games[game_id].bet_ladder[-1]
    first = make_server(demo_config(demo_balance=5 * bet))
    second = make_server(demo_config(demo_balance=5 * bet), own_engine=True)
    player = first.session("shared")
    who = authenticate(first.engine, f"Bearer {player.token}")
    services = [first.service, second.service]

    def play(i: int) -> str:
        service = services[i % 2]
        try:
            rnd = service.start_round(who.player_id, game_id, bet, False, None, f"k{i}").body
            while rnd["status"] == "open":
                rnd = service.play_step(who.player_id, rnd["id"], None, f"k{i}-{len(rnd['steps'])}").body
            return rnd["status"]
        except ApiError as exc:
            return exc.code

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(play, range(24)))
    assert set(outcomes) <= {"finished", "insufficient_balance", "unfinished_round", "round_not_open"}, outcomes
    assert player.balance() >= 0


def test_the_server_completes_expired_rounds_periodically(make_server):
    import time

    server = make_server(demo_config(expiry_check_seconds=0.05))
    game_id = next(iter(server.config.games))
    player = server.session()
    server.draws.source = SeededDraws(feature_scenario(game_id).seed)
    rnd = player.start(game_id, server.config.games[game_id].bet_ladder[0])
    with server.engine.begin() as conn:
        conn.execute(update(rounds).where(rounds.c.id == server.internal(rnd["id"])).values(
            created_at=utcnow() - timedelta(days=91)))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if player.get(f"/api/v1/rounds/{rnd['id']}").json()["status"] != "open":
            break
        time.sleep(0.05)
    done = player.get(f"/api/v1/rounds/{rnd['id']}").json()
    assert done["status"] == "finished" and done["completed_on_expiry"]
    assert player.balance() == server.config.demo_balance - done["cost"] + done["paid"]


def test_bets_are_paid_without_rounding_on_the_shipped_ladders():
    """Every shipped game's win unit divides 100.00 and every ladder value is a multiple of it, so
    floor(bet * win_x) never rounds: money is never lost or invented."""
    config = demo_config()
    for game_id, gconf in config.games.items():
        game = get_game(game_id)
        build = game.load_build(gconf.build)
        unit = game.win_unit(build)
        exact = all(bet % unit == 0 for bet in gconf.bet_ladder)
        assert 10000 % unit == 0, (game_id, unit)
        assert exact, (game_id, unit, [b for b in gconf.bet_ladder if b % unit])
        for bet in gconf.bet_ladder:
            for k in (1, unit - 1, 7 * unit + 1):
                x = Fraction(k, unit)
                assert bet * x == money(bet, x)
            for mode in game.modes:
                assert (bet * game.stake_x(build, mode)).denominator == 1, (game_id, bet, mode)


def test_the_game_list_says_every_demo_game_pays_exact_wins(server):
    games = server.client.get("/api/v1/games").json()
    assert {g["id"]: g["exact_wins"] for g in games} == {g["id"]: True for g in games}
    assert "forge-of-gems" in {g["id"] for g in games}


def test_the_demo_configuration_offers_every_registered_game():
    assert sorted(demo_config().games) == sorted(game_ids())


def test_money_conversion_rounds_down():
    assert money(10, Fraction(3, 20)) == 1  # 1.5 minor units pay 1
    assert money(20, Fraction(3, 20)) == 3
    assert money(10**12, Fraction(2500)) == 2500 * 10**12
