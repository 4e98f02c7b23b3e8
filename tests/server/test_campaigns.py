"""Free-round campaigns (docs/OPERATORS.md, "Free-round campaigns"): the operator's calls, free rounds played
without a debit, the total credited once (ledger and seamless wallet), expiry, cancellation and faults."""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta
from typing import Any

from reelforge.server.clock import iso, utcnow
from reelforge.server.config import parse_config

KEY = "campaign-test-key"
GAME = "forge-of-fortunes"


def operator_config(**server: Any):
    """An operator-mode server on the internal (transfer) wallet with an operator key."""
    return parse_config({
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(KEY.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0, "provably_fair": False, **server},
        "games": {GAME: {"bet_ladder": [10, 20, 50]}, "gemstones-gold": {"bet_ladder": [20]}},
    }, "test")


def campaign_body(players: list[str], **over: Any) -> dict[str, Any]:
    return {"campaign_id": "spring-" + uuid.uuid4().hex[:8], "players": players, "games": [GAME],
            "bets": {"EUR": 20}, "rounds": 3, "valid_until": iso(utcnow() + timedelta(days=7)), **over}


def create(client: Any, body: dict[str, Any], expect: int = 201) -> dict[str, Any]:
    r = client.post("/api/v1/operator/campaigns", json=body, headers={"X-Operator-Key": KEY})
    assert r.status_code == expect, r.text
    return r.json()


def operator_api(server: Any) -> Any:
    from reelforge.ops.client import ApiClient

    return ApiClient(server.client, operator_key=KEY)


def session(server: Any, player: str) -> Any:
    from tests.server.conftest import Player

    r = operator_api(server).open_session(player, as_operator=True)
    assert r.status_code == 201, r.text
    return Player(server, r.json()["token"], player)


def free_start(player: Any, campaign: int, bet: int | None = 20, game: str = GAME, expect: int = 201,
               key: str | None = None, **more: Any) -> dict[str, Any]:
    """``POST /games/{game}/free-rounds``: the round started (or the refusal's body)."""
    body = {"campaign": campaign, **({} if bet is None else {"bet": bet}), **more}
    r = player.server.client.post(f"/api/v1/games/{game}/free-rounds", json=body,
                                  headers={**player.headers, "Idempotency-Key": key or uuid.uuid4().hex})
    assert r.status_code == expect, r.text
    return r.json()


def free_round(player: Any, campaign: int, bet: int = 20, game: str = GAME, expect: int = 201,
               key: str | None = None) -> dict[str, Any]:
    """Start a free round and play it to its end; the finished round (or the refusal's body)."""
    rnd = free_start(player, campaign, bet, game, expect, key)
    return player.finish(rnd) if expect == 201 else rnd


def test_campaign_played_and_credited_once_at_the_end_on_the_internal_wallet(make_server) -> None:
    server = make_server(operator_config())
    body = campaign_body(["alice", "bob"], wagering={"multiplier": 30, "note": "passed through"})
    made = create(server.client, body)
    assert (made["rounds"], made["bets"], made["credit"], made["wagering"]) == (3, {"EUR": 20}, "end",
                                                                                 body["wagering"])
    # Idempotent by the operator's campaign id; other content under it, or bad input: 4xx, nothing changed.
    assert create(server.client, body, expect=200)["id"] == made["id"]
    assert create(server.client, {**body, "rounds": 4}, expect=409)["error"] == "campaign_id_reused"
    for bad, status, error in [
            ({"valid_until": iso(utcnow() - timedelta(hours=1))}, 409, "campaign_window"),
            ({"valid_from": iso(utcnow() + timedelta(days=9))}, 409, "campaign_window"),
            ({"valid_until": "2030-01-01T00:00:00"}, 422, "invalid_request"),
            ({"games": ["no-such-game"]}, 404, "unknown_game"), ({"rounds": 0}, 422, "invalid_request"),
            ({"games": ["gemstones-gold"], "bets": {"EUR": 15}}, 409, "price_not_whole"),
            ({"players": ["alice", "alice"]}, 422, "invalid_request"), ({"bets": {"EUR": 0}}, 422, "invalid_request"),
            ({"bets": {"euro": 20}}, 422, "invalid_request"), ({"credit": "never"}, 422, "invalid_request"),
            ({"surprise": 1}, 422, "invalid_request")]:
        r = server.client.post("/api/v1/operator/campaigns", json={**campaign_body(["carol"]), **bad},
                               headers={"X-Operator-Key": KEY})
        assert (r.status_code, r.json()["error"]) == (status, error), (bad, r.text)
    assert server.client.post("/api/v1/operator/campaigns", json=body).status_code == 401
    assert server.client.post("/api/v1/operator/campaigns", json=body,
                              headers={"X-Operator-Key": "wrong"}).status_code == 403
    listed = server.client.get("/api/v1/operator/campaigns", headers={"X-Operator-Key": KEY}).json()["campaigns"]
    assert [c["campaign_id"] for c in listed] == [body["campaign_id"]]

    alice = session(server, "alice")
    offers = alice.get("/api/v1/campaigns").json()["campaigns"]
    assert [(o["id"], o["bet"], o["currency"], o["rounds_left"]) for o in offers] == [(made["id"], 20, "EUR", 3)]
    assert free_start(alice, made["id"], 50, expect=409)["error"] == "campaign_bet"
    assert free_start(alice, made["id"], game="gemstones-gold", expect=409)["error"] == "campaign_game"
    assert free_start(alice, made["id"], buy_feature=True, expect=422)["error"] == "invalid_request"
    assert free_start(alice, made["id"] + 1, expect=404)["error"] == "campaign_not_found"
    assert free_start(alice, made["id"], game="no-such-game", expect=404)["error"] == "unknown_game"
    key = uuid.uuid4().hex
    wins = []
    for n in range(3):
        rnd = free_round(alice, made["id"], key=key if n == 0 else None)
        assert rnd["campaign"] == made["id"] and rnd["cost"] == 0
        wins.append(rnd["total_win"])
        if n == 0:  # a retry of the first start: its first answer again, not a second round
            again = free_start(alice, made["id"], key=key)
            assert again["id"] == rnd["id"]
        if n < 2:
            assert alice.balance() == 0  # nothing is credited before the last free round
    assert alice.balance() == sum(wins)  # the total, once, after the last round
    assert free_round(alice, made["id"], expect=409)["error"] == "no_free_rounds_left"
    seen = progress_of(server, body["campaign_id"])["alice"]
    assert (seen["played"], seen["won"], seen["paid"], seen["rounds_left"]) == (3, sum(wins), sum(wins), 0)
    assert seen["settled_at"] is not None
    history = alice.get("/api/v1/rounds").json()["rounds"]
    assert [r.get("campaign") for r in history] == [made["id"]] * 3
    # The revenue report keeps the free rounds apart: a campaign row with no stake and their wins as its cost.
    report = server.client.get("/api/v1/operator/reports/revenue", params={"date": utcnow().date().isoformat()},
                               headers={"X-Operator-Key": KEY}).json()
    kinds = {(r["game"], r["kind"]): (r["rounds"], r["stakes"], r["wins"]) for r in report["rows"]}
    assert kinds == {(GAME, "campaign"): (3, 0, sum(wins))}, report

    # Cancelled with one of bob's rounds played: he starts no more, his accrued total is credited at once.
    bob = session(server, "bob")
    won = free_round(bob, made["id"])["total_win"]
    r = server.client.post(f"/api/v1/operator/campaigns/{body['campaign_id']}/cancel", headers={"X-Operator-Key": KEY})
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
    assert bob.balance() == won
    assert free_round(bob, made["id"], expect=409)["error"] == "campaign_closed"
    seen = progress_of(server, body["campaign_id"])["bob"]
    assert (seen["played"], seen["won"], seen["paid"], seen["rounds_left"]) == (1, won, won, 0)
    # /metrics' series: the free rounds apart (mode "free_rounds"), nothing staked, their wins as played.
    totals = server.app.state.monitor.tally.refresh()
    free = [t for key, t in totals.items() if key[5] == "free_rounds"]
    assert [(t.started, t.stakes, t.wins) for t in free] == [(4, 0, sum(wins) + won)]
    assert not [key for key in totals if key[5] != "free_rounds"]  # the paid modes' RTP excludes them
    server.app.state.monitor.check()
    assert not [k for k in server.app.state.monitor.readings if k[5] == "free_rounds"]  # nothing to judge

def test_free_rounds_on_the_seamless_wallet_credit_each_win_with_the_campaign_id_through_a_wallet_outage(
        make_server, tmp_path_factory) -> None:
    from reelforge.server.reconcile import reconcile
    from tests.server.conftest import Player
    from tests.server.seamless_support import API_KEY, launch, outbox_due_now, reference_wallet, seamless_config

    for wallet in reference_wallet(tmp_path_factory, seed=11):
        server = make_server(seamless_config(wallet.url))
        wallet.open_account("sam", "EUR", 10_000)
        body = campaign_body(["sam", "sol"], credit="each_win", rounds=4)
        r = server.client.post("/api/v1/operator/campaigns", json=body, headers={"X-Operator-Key": API_KEY})
        assert r.status_code == 201, r.text
        made = r.json()
        sam = Player(server, launch(server.client, "sam"), "sam")
        sol = Player(server, launch(server.client, "sol", game="gemstones-gold"), "sol")  # launched for one game
        assert free_start(sol, made["id"], expect=403)["error"] == "game_not_in_session"
        wallet.set_faults(kinds=("credit",), error_before=1.0)  # the wallet fails every credit: they wait in the outbox
        wins = [free_round(sam, made["id"])["total_win"] for _ in range(4)]
        assert wallet.balance("sam") == 10_000
        seen = progress_of(server, body["campaign_id"], API_KEY)["sam"]
        assert (seen["played"], seen["won"], seen["paid"]) == (4, sum(wins), sum(wins))  # written to the outbox
        wallet.set_faults()
        outbox_due_now(server)  # their backoff has not passed yet: no waiting in a test
        server.service.wallet.deliver_due()
        assert wallet.balance("sam") == 10_000 + sum(wins)  # every win once, nothing debited
        theirs = wallet.ledger()
        assert {t["kind"] for t in theirs} <= {"credit"} and len(theirs) == sum(1 for w in wins if w)
        assert {t["campaign_id"] for t in theirs} <= {body["campaign_id"]}
        report = reconcile(server.engine, theirs)
        assert report["clean"], report
        assert not report["pending"]


def progress_of(server: Any, key: str, operator_key: str = KEY) -> dict[str, dict[str, Any]]:
    r = server.client.get(f"/api/v1/operator/campaigns/{key}", headers={"X-Operator-Key": operator_key})
    assert r.status_code == 200, r.text
    return {p["player"]: p for p in r.json()["players"]}


def test_expiry_credits_the_accrued_total_once_and_concurrent_tabs_never_overplay(make_server) -> None:
    from concurrent.futures import ThreadPoolExecutor

    server = make_server(operator_config())
    body = campaign_body(["eve"], rounds=2)
    made = create(server.client, body)
    eve = session(server, "eve")
    # Six tabs start at once: at most the campaign's two rounds start, each counted once.
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: server.client.post(
            f"/api/v1/games/{GAME}/free-rounds", json={"campaign": made["id"]},
            headers={**eve.headers, "Idempotency-Key": uuid.uuid4().hex}), range(6)))
    started = [a.json() for a in answers if a.status_code == 201]
    assert 1 <= len(started) <= 2 and {rnd["bet"] for rnd in started} == {20}  # the bet left out: the campaign's
    assert {a.json()["error"] for a in answers if a.status_code != 201} <= {"no_free_rounds_left", "unfinished_round"}
    won = sum(eve.finish(rnd)["total_win"] for rnd in started)
    assert progress_of(server, body["campaign_id"])["eve"]["played"] == len(started)
    # The window passes: the rounds not started lapse, the accrued total is credited once (twice swept: once).
    assert server.service.settle_campaigns(utcnow() + timedelta(days=8)) == (0 if len(started) == 2 else 1)
    assert server.service.settle_campaigns(utcnow() + timedelta(days=8)) == 0
    assert eve.balance() == won
    seen = progress_of(server, body["campaign_id"])["eve"]
    assert (seen["won"], seen["paid"]) == (won, won) and seen["settled_at"] is not None


def test_verify_names_a_campaign_whose_total_does_not_match_its_credits(make_server) -> None:
    from sqlalchemy import update
    from typer.testing import CliRunner

    from reelforge.server.schema import campaign_players
    from tests.server.test_config_and_commands import _cli

    cli = _cli()

    server = make_server(operator_config())
    body = campaign_body(["ivy"], rounds=1)
    made = create(server.client, body)
    won = free_round(session(server, "ivy"), made["id"])["total_win"]
    runner = CliRunner()
    assert runner.invoke(cli, ["verify", "--db", server.url, "--all"]).exit_code == 0
    with server.engine.begin() as conn:  # a total paid twice over, as a bug or a tampering would record it
        conn.execute(update(campaign_players).values(paid=won + 5, won=won + 5))
    result = runner.invoke(cli, ["verify", "--db", server.url, "--all"])
    assert result.exit_code == 1 and "free-round campaigns: MISMATCH" in result.output
    assert f"campaign {body['campaign_id']!r}, player 'ivy': paid {won + 5} recorded, {won} credited" in result.output
    with server.engine.begin() as conn:
        conn.execute(update(campaign_players).values(paid=won, won=won))


def test_the_same_campaign_created_from_eight_threads_at_once_is_made_once(make_server) -> None:
    from concurrent.futures import ThreadPoolExecutor

    server = make_server(operator_config())
    body = campaign_body(["gus"])
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: server.client.post("/api/v1/operator/campaigns", json=body,
                                                             headers={"X-Operator-Key": KEY}), range(8)))
    assert sorted(a.status_code for a in answers) == [200] * 7 + [201]
    assert len({a.json()["id"] for a in answers}) == 1


def test_the_api_description_keeps_the_free_round_body_and_states_which_bets_a_feature_buy_is_allowed_at(
        make_server) -> None:
    server = make_server(parse_config({
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(KEY.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0},
        "games": {"gemstones-gold": {"bet_ladder": [20, 40]}},
        "responsible_play": {"max_stake": 1200},
    }, "test"))
    paths = server.client.get("/openapi.json").json()["paths"]
    free = paths["/api/v1/games/gemstones-gold/free-rounds"]["post"]["requestBody"]["content"]["application/json"]
    assert free["schema"] == {"$ref": "#/components/schemas/FreeRoundRequest"}  # not the paid start's body
    start = paths["/api/v1/games/gemstones-gold/rounds"]["post"]["requestBody"]["content"]["application/json"]
    assert start["schema"]["properties"]["bet"]["enum"] == [20, 40]
    buys = [v for v in start["schema"]["anyOf"] if "bet" in v["properties"]]
    assert [v["properties"]["bet"]["enum"] for v in buys] == [[20]]  # the buy at 40 costs more than 1200
    player = session(server, "hal")
    assert operator_api(server).deposit("hal", 100_000).status_code == 200
    assert player.start("gemstones-gold", 40, expect=422, buy_feature=True)["error"] == "stake_above_maximum"
    player.finish(player.start("gemstones-gold", 20, buy_feature=True))
