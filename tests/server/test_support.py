"""Support and reporting (docs/OPERATORS.md, "Support and reporting"): the operator's round queries, the round
page, signed replay links, the daily revenue report, and the read-only support role."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from typer.testing import CliRunner

from reelforge.core.draws import SecureDraws, SeededDraws
from reelforge.ops.client import ApiClient
from reelforge.server.app import create_app
from reelforge.server.config import parse_config
from reelforge.server.config_operator import BrandConfig, OperatorConfig
from reelforge.server.config_values import ConfigError
from reelforge.server.revenue import ReportError, RevenueReport, RevenueRow, decimal_text, parse_rates
from reelforge.server.schema import players, rounds, steps
from reelforge.server.store import round_ids_key
from reelforge.server.support import issue_replay_link, replay_key

from .scenarios import feature_scenario
from .seamless_support import launch, reference_wallet, seamless_config
from .test_brands import play_until_a_win
from .test_config_and_commands import _cli
from .test_observability import scrape, total
from .test_sessions_and_games import OPERATOR_KEY, operator_config

SUPPORT_KEY = "support-desk-key"
GAME, OTHER = "forge-of-fortunes", "gemstones-gold"
OP = {"X-Operator-Key": OPERATOR_KEY}
SUP = {"X-Support-Key": SUPPORT_KEY}


def support_config(**kw):
    """An operator server (transfer wallet) with a support key and a secret for signed operator calls."""
    return operator_config(support_key_sha256=hashlib.sha256(SUPPORT_KEY.encode()).hexdigest(),
                           operator=OperatorConfig(secret="operator-signing-secret"), **kw)


def open_player(server, name: str, deposit: int = 100_000):
    """A player of the operator's platform with ``deposit`` on the transfer wallet."""
    r = server.client.post("/api/v1/sessions", json={"player": name}, headers=OP)
    assert r.status_code == 201, r.text
    r = server.client.post(f"/api/v1/operator/players/{name}/deposits", json={"amount": deposit},
                           headers={**OP, "Idempotency-Key": f"dep-{name}"})
    assert r.status_code in (200, 201), r.text
    from .conftest import Player

    return Player(server, server.client.post("/api/v1/sessions", json={"player": name}, headers=OP).json()["token"],
                  name)


@pytest.fixture
def played(make_server):
    """An operator server with a support key; alice plays 3 rounds of one game and 2 of another, bob 2 and
    leaves one open."""
    server = make_server(support_config())
    alice, bob = open_player(server, "alice"), open_player(server, "bob")
    bet = server.config.games[GAME].bet_ladder[0]
    other_bet = server.config.games[OTHER].bet_ladder[0]
    for _ in range(3):
        alice.finish(alice.start(GAME, bet))
    for _ in range(2):
        alice.finish(alice.start(OTHER, other_bet))
    bob.finish(bob.start(OTHER, other_bet))
    server.draws.source = SeededDraws(feature_scenario(GAME).seed)
    assert bob.start(GAME, bet)["status"] == "open"  # left unfinished
    server.draws.source = SecureDraws()
    return server, alice, bob


def query(server, headers=SUP, **params):
    return server.client.get("/api/v1/operator/rounds", params=params, headers=headers)


def test_rounds_are_queried_by_player_game_time_and_status_and_paged_by_a_stable_cursor(played):
    server, alice, bob = played
    everything = query(server, limit=200).json()
    assert everything["next_cursor"] is None and len(everything["rounds"]) == 7
    assert [r["player"] for r in everything["rounds"]][:2] == ["bob", "bob"]  # newest first
    assert {r["player"] for r in query(server, player="alice").json()["rounds"]} == {"alice"}
    assert len(query(server, player="alice", game=OTHER).json()["rounds"]) == 2
    assert [r["player"] for r in query(server, status="open").json()["rounds"]] == ["bob"]
    assert len(query(server, status="finished").json()["rounds"]) == 6
    first = everything["rounds"][-1]["created_at"]
    later = (datetime.fromisoformat(first.replace("Z", "+00:00")) + timedelta(microseconds=1)).isoformat()
    assert len(query(server, **{"from": later}).json()["rounds"]) == 6  # the first round started before
    assert query(server, **{"to": first}).json()["rounds"] == []  # to is exclusive
    assert len(query(server, **{"from": first[:10], "to": "2999-01-01"}).json()["rounds"]) == 7

    # Pages of 3 by the cursor: every round once, in order, even with a round played between the pages.
    seen, cursor = [], None
    for page_number in range(5):
        page = query(server, limit=3, **({"cursor": cursor} if cursor else {})).json()
        seen += [r["id"] for r in page["rounds"]]
        cursor = page["next_cursor"]
        if page_number == 0:
            alice.finish(alice.start(GAME, server.config.games[GAME].bet_ladder[0]))
        if cursor is None:
            break
    assert seen == [r["id"] for r in everything["rounds"]]

    # The operator's key reads the same; bad filters are 4xx JSON naming what is wrong.
    assert len(query(server, OP, player="bob").json()["rounds"]) == 2
    for params, code in [({"status": "lost"}, "invalid_request"), ({"from": "yesterday"}, "invalid_request"),
                         ({"limit": 0}, "invalid_request"), ({"limit": 201}, "invalid_request"),
                         ({"player": "a b"}, "invalid_player"), ({"cursor": 2**60}, "invalid_request")]:
        r = query(server, **params)
        assert r.status_code == 422 and r.json()["error"] == code, (params, r.text)
    assert query(server, **{"from": "2026-12-05", "to": "2026-12-04"}).json()["rounds"] == []  # an empty range
    naive = query(server, **{"from": first[:19]}).json()["rounds"]  # a time without a zone is UTC
    assert {r["id"] for r in naive} >= {r["id"] for r in query(server, **{"from": later}).json()["rounds"]}
    assert query(server, headers={}).json()["error"] == "credentials_required"
    r = query(server, headers={"X-Support-Key": "guess"})
    assert r.status_code == 403 and r.json()["error"] == "bad_credentials"


def test_the_support_role_reads_but_never_moves_money_or_changes_anything(played):
    server, alice, _ = played
    balance = alice.balance()
    for headers in ({"X-Operator-Key": SUPPORT_KEY}, SUP):  # the support key is not the operator's key
        for kind in ("deposits", "withdrawals"):
            r = server.client.post(f"/api/v1/operator/players/alice/{kind}", json={"amount": 500},
                                   headers={**headers, "Idempotency-Key": f"support-{kind}-{len(headers)}"})
            assert r.status_code in (401, 403), r.text
        r = server.client.post("/api/v1/sessions", json={"player": "alice"}, headers=headers)
        assert r.status_code in (401, 403), r.text
        for path in ("/api/v1/operator/launches", "/api/v1/operator/players/alice/end-session"):
            r = server.client.post(path, json={"player": "alice", "currency": "EUR"}, headers=headers)
            assert r.status_code == 401 and r.json()["error"] == "unsigned", r.text  # it holds no secret
    assert alice.balance() == balance
    r = server.client.get("/api/v1/operator/overview", headers={"X-Operator-Key": SUPPORT_KEY})
    assert r.status_code == 403


def test_the_round_page_and_details_show_steps_money_and_fair_data(played):
    server, alice, _ = played
    rnd = query(server, player="alice", game=GAME, limit=1).json()["rounds"][0]
    details = server.client.get(f"/api/v1/operator/rounds/{rnd['id']}", headers=SUP).json()
    assert details["player"] == "alice" and details["brand"] == "default" and details["currency"] == "EUR"
    assert len(details["steps"]) == details["step_count"] >= 1 and details["wallet_calls"] is None
    assert [e["kind"] for e in details["ledger"]] == ["stake"] + (["win"] if details["paid"] else [])
    assert sum(e["amount"] for e in details["ledger"]) == details["paid"] - details["cost"]

    basic = "Basic " + base64.b64encode(f"desk:{SUPPORT_KEY}".encode()).decode()
    page = server.client.get(f"/support/rounds/{rnd['id']}", headers={"Authorization": basic})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), page.text
    bet = server.config.games[GAME].bet_ladder[0]
    assert "alice" in page.text and f"{bet // 100}.{bet % 100:02d} EUR" in page.text
    assert "Balance entries" in page.text and "not a provably fair round" in page.text
    refused = server.client.get(f"/support/rounds/{rnd['id']}")
    assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Basic")
    r = server.client.get("/api/v1/operator/rounds/1", headers=SUP)
    assert r.status_code == 404 and r.json()["error"] == "round_not_found"
    # An open round shows support only the steps its player has seen, never those decided and still hidden.
    unfinished = query(server, status="open").json()["rounds"][0]
    shown = server.client.get(f"/api/v1/operator/rounds/{unfinished['id']}", headers=SUP).json()["steps"]
    with server.engine.connect() as conn:
        stored = conn.execute(select(func.count()).select_from(steps)
                              .where(steps.c.round_id == server.internal(unfinished["id"]))).scalar()
    assert len(shown) == unfinished["step_count"] < stored

    # A provably fair round (a server drawing from the player's seed pair, on the same database): its seeds and
    # nonce, and the server seed once the player rotated the pair.
    with TestClient(create_app(server.config, engine=server.engine)) as fair_server:
        auth = {"Authorization": f"Bearer {alice.token}"}
        played_round = fair_server.post(f"/api/v1/games/{OTHER}/rounds", json={"bet": 20},
                                        headers={**auth, "Idempotency-Key": "fair-round"}).json()
        while played_round["status"] == "open":
            played_round = fair_server.post(f"/api/v1/rounds/{played_round['id']}/steps", json={},
                                            headers={**auth, "Idempotency-Key": f"s{played_round['step_count']}"}).json()
        fair = played_round["fair"]
        page = fair_server.get(f"/support/rounds/{played_round['id']}", headers=SUP).text
        assert fair["server_seed_sha256"] in page and fair["client_seed"] in page and "not revealed yet" in page
        assert f"<dt>Nonce</dt><dd>{fair['nonce']}</dd>" in page
        revealed = fair_server.post("/api/v1/fair/rotate", headers=auth).json()["revealed"]["server_seed"]
        details = fair_server.get(f"/api/v1/operator/rounds/{played_round['id']}", headers=OP).json()
        assert details["fair"]["server_seed"] == revealed
        assert revealed in fair_server.get(f"/support/rounds/{played_round['id']}", headers=SUP).text


def test_a_signed_replay_link_opens_the_round_until_it_expires_and_refuses_an_altered_one(played):
    server, alice, _ = played
    rnd = query(server, player="alice", limit=1).json()["rounds"][0]
    r = server.client.post(f"/api/v1/operator/rounds/{rnd['id']}/replay-links", json={"expires_in_seconds": 600},
                           headers=SUP)
    assert r.status_code == 201, r.text
    link = r.json()
    assert link["round_id"] == rnd["id"]
    path = link["url"].split("://", 1)[1].split("/", 1)[1]
    page = server.client.get(f"/{path}")  # no session, no key
    assert page.status_code == 200 and f"Round {rnd['id']}" in page.text and "alice" not in page.text
    assert "Wallet calls" not in page.text and "Balance entries" not in page.text  # the player's view

    expires, signature = path.split("expires=")[1].split("&signature=")
    altered = [f"/replay/{rnd['id']}?expires={int(expires) + 3600}&signature={signature}",
               f"/replay/{rnd['id'] + 1}?expires={expires}&signature={signature}",
               f"/replay/{rnd['id']}?expires={expires}&signature={signature[:-1]}0"
               if signature[-1] != "0" else f"/replay/{rnd['id']}?expires={expires}&signature={signature[:-1]}1",
               f"/replay/{rnd['id']}?expires={expires}"]
    for url in altered:
        refused = server.client.get(url)
        assert refused.status_code == 403 and "altered or is incomplete" in refused.text, url
    key = replay_key(round_ids_key(server.engine))
    old = issue_replay_link(key, "http://x", rnd["id"], 60, now=datetime.now(UTC) - timedelta(days=2))
    refused = server.client.get("/" + old["url"].split("/", 3)[3])
    assert refused.status_code == 410 and "This replay link expired on" in refused.text
    for body in ({"expires_in_seconds": 0}, {"expires_in_seconds": 91 * 86400}, {"expires": 5}):
        r = server.client.post(f"/api/v1/operator/rounds/{rnd['id']}/replay-links", json=body, headers=SUP)
        assert r.status_code == 422, body


def test_the_revenue_report_equals_the_metrics_and_the_database_to_the_minor_unit(played, tmp_path):
    server, alice, bob = played
    with server.engine.connect() as conn:
        days = sorted({str(d)[:10] for d in conn.execute(select(rounds.c.created_at)).scalars()})
        db = {(g, c): (int(n), int(s), int(w)) for g, c, n, s, w in conn.execute(
            select(rounds.c.game, players.c.currency, func.count(), func.sum(rounds.c.cost),
                   func.sum(rounds.c.win)).join(players, players.c.id == rounds.c.player_id)
            .group_by(rounds.c.game, players.c.currency))}
    reports = [server.client.get("/api/v1/operator/reports/revenue", params={"date": d}, headers=SUP).json()
               for d in days]
    rows: dict[tuple[str, str], dict[str, int]] = {}
    for report in reports:
        for row in report["rows"]:
            assert row["kind"] == "paid" and row["ggr"] == row["stakes"] - row["wins"] - row["refunds"]
            t = rows.setdefault((row["game"], row["currency"]), dict.fromkeys(("rounds", "stakes", "wins", "ggr"), 0))
            for name in t:
                t[name] += row[name]
    samples = scrape(server, **OP)
    for (game, currency), t in rows.items():
        labels = {"brand": "default", "currency": currency, "game": game}
        assert t["rounds"] == total(samples, "reelforge_rounds_started_total", **labels) == db[(game, currency)][0]
        assert t["stakes"] == total(samples, "reelforge_stakes_minor_total", **labels) == db[(game, currency)][1]
        assert t["wins"] == total(samples, "reelforge_wins_minor_total", **labels) == db[(game, currency)][2]
        assert t["ggr"] == total(samples, "reelforge_ggr_minor", **labels)
    assert set(rows) == set(db)

    # CSV, and a conversion into GBP (EUR 1 = GBP 0.8575); a missing rate or a float is refused.
    csv_text = server.client.get("/api/v1/operator/reports/revenue", headers=SUP,
                                 params={"date": days[-1], "format": "csv", "to": "GBP", "rates": "EUR:0.8575"}).text
    head, first = csv_text.splitlines()[:2]
    assert head.startswith("date,brand,game,currency,kind,rounds") and "ggr_converted" in head
    assert first.startswith(f"{days[-1]},default,") and ",GBP,0.8575," in first
    for params, status, words in (({"to": "GBP"}, 409, "no rate for EUR"), ({"to": "XYZ", "rates": "EUR:1"}, 409,
                                   "not a currency this server knows"), ({"rates": "EUR:1"}, 409, "without a reporting"),
                                  ({"to": "GBP", "rates": "GBP:2,EUR:1"}, 409, "its rate is 1"),
                                  ({"to": "GBP", "rates": "EUR:-1"}, 422, "rates"),
                                  ({"to": "GBP", "rates": "EUR:0.0"}, 422, "rates"),
                                  ({"date": "04/12/2026"}, 422, "date")):
        r = server.client.get("/api/v1/operator/reports/revenue", headers=SUP, params={"date": days[-1], **params})
        assert r.status_code == status and words in r.json()["detail"], (params, r.text)

    # The command line gives the same report, converted at the operator's rates file.
    rates = tmp_path / "rates.json"
    rates.write_text('{"EUR": 0.8575}')  # a number as written: read as the decimal 0.8575, never a float
    gbp_only = tmp_path / "gbp.json"
    gbp_only.write_text('{"GBP": "190.25"}')
    cli = _cli()
    result = CliRunner().invoke(cli, ["revenue", "--db", server.url, "--date", days[-1], "--to", "GBP",
                                      "--rates", str(rates), "--format", "json"])
    assert result.exit_code == 0, result.output
    api = server.client.get("/api/v1/operator/reports/revenue", headers=SUP,
                            params={"date": days[-1], "to": "GBP", "rates": "EUR:0.8575"}).json()
    assert json.loads(result.output) == api and api["rates"] == {"EUR": "0.8575"}
    for args, words in ((["--date", "2026-13-01"], "not a day"), (["--date", days[-1], "--to", "GBP"], "together"),
                        (["--date", days[-1], "--to", "JPY", "--rates", str(gbp_only)], "no rate for EUR")):
        result = CliRunner().invoke(cli, ["revenue", "--db", server.url, *args])
        assert result.exit_code == 2 and words in result.output, result.output


def test_conversion_is_exact_and_rounds_once_half_to_even():
    decimals = {"EUR": 2, "GBP": 2, "JPY": 0, "BHD": 3}
    rows = [RevenueRow("default", "g", "GBP", "paid", rounds=2, stakes=1, wins=3),      # 1.5 and 4.5 cents
            RevenueRow("default", "g", "JPY", "paid", rounds=1, stakes=150, wins=50),   # 91.5 and 30.5 cents
            RevenueRow("default", "g", "BHD", "paid", rounds=1, stakes=1005, refunds=1005)]  # 241.2 cents
    rates = parse_rates({"GBP": "1.5", "JPY": "0.0061", "BHD": Decimal("2.4")}, "EUR", decimals)
    report = RevenueReport(date(2026, 12, 4), rows, decimals, "EUR", rates)
    report.convert_rows()
    assert [r.converted for r in rows] == [
        {"stakes": 2, "wins": 4, "refunds": 0, "ggr": -2},  # half to even: 1.5 -> 2, 4.5 -> 4
        {"stakes": 92, "wins": 30, "refunds": 0, "ggr": 62},  # 91.5 -> 92, 30.5 -> 30
        {"stakes": 241, "wins": 0, "refunds": 241, "ggr": 0}]
    assert report.totals()["converted"] == {"currency": "EUR", "decimals": 2, "stakes": 335, "wins": 34,
                                            "refunds": 241, "ggr": 60}
    assert decimal_text(-1005, 3) == "-1.005" and decimal_text(7, 2) == "0.07" and decimal_text(150, 0) == "150"
    for bad, words in (({"GBP": 1.5}, "floating point"), ({"GBP": "0"}, "positive"), ({"GBP": "x"}, "not a decimal"),
                       ({"EUR": "1.1"}, "its rate is 1"), ({"gbp": "1"}, "not a currency")):
        with pytest.raises(ReportError, match=words):
            parse_rates(bad, "EUR", decimals)


@pytest.fixture(scope="module")
def wallet(tmp_path_factory):
    yield from reference_wallet(tmp_path_factory, seed=11)


def test_seamless_wallet_calls_are_on_the_round_page_and_a_brand_reads_only_its_own_rounds(make_server, wallet):
    config = seamless_config(wallet.url)
    key_b = "brand-b-support-key"
    config = replace(config, support_key_sha256=hashlib.sha256(SUPPORT_KEY.encode()).hexdigest(), brands={
        "b": BrandConfig("b", replace(config.operator, brand="b"), config.play, "EUR", config.games,
                         support_key_sha256=hashlib.sha256(key_b.encode()).hexdigest())})
    server = make_server(config)
    server.draws.source = SeededDraws(7)
    wallet.open_account("ann", "EUR", 100_000)
    api = ApiClient(server.client, launch(server.client, "ann"))
    rnd = play_until_a_win(api, 20)
    details = server.client.get(f"/api/v1/operator/rounds/{rnd['id']}", headers=SUP).json()
    calls = details["wallet_calls"]
    assert [(c["kind"], c["amount"], c["status"]) for c in calls] == [("debit", rnd["cost"], "done"),
                                                                     ("credit", rnd["paid"], "done")]
    page = server.client.get(f"/support/rounds/{rnd['id']}", headers=SUP).text
    assert "Wallet calls" in page and all(c["transaction_id"] in page for c in calls)
    assert f"{rnd['paid'] // 100}.{rnd['paid'] % 100:02d} EUR" in page

    other = {"X-Support-Key": key_b}  # brand b's support desk: the default brand's rounds are not its own
    assert server.client.get(f"/api/v1/operator/rounds/{rnd['id']}", headers=other).status_code == 404
    assert server.client.get(f"/support/rounds/{rnd['id']}", headers=other).status_code == 404
    assert query(server, other).json()["rounds"] == [] and query(server, SUP).json()["rounds"]
    r = server.client.post(f"/api/v1/operator/rounds/{rnd['id']}/replay-links", json={}, headers=other)
    assert r.status_code == 404


def test_a_support_key_must_be_a_key_of_its_own():
    digest, other = hashlib.sha256(b"k").hexdigest(), hashlib.sha256(b"s").hexdigest()
    server = {"mode": "operator", "api_key_sha256": digest}
    with pytest.raises(ConfigError, match="needs a key of its own"):
        parse_config({"server": {**server, "support_key_sha256": digest}}, "test")
    with pytest.raises(ConfigError, match="support_key_sha256 must be 64 hex digits"):
        parse_config({"server": {**server, "support_key_sha256": "abc"}}, "test")
    with pytest.raises(ConfigError, match=r"\[brands.b\]: support_key_sha256 is the operator's"):
        parse_config({"server": server, "brands": {"b": {"api_key_sha256": other, "support_key_sha256": other}}},
                     "test")
    config = parse_config({"server": {**server, "support_key_sha256": other}}, "test")
    assert config.default_brand.check_support_key("s") and not config.default_brand.check_api_key("s")
