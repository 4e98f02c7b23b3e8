"""What an operator sees: ``/metrics`` agrees with the database to the minor unit (SQLite and PostgreSQL),
its access rules, route templates in its labels, structured logs without secrets, the operator overview."""

from __future__ import annotations

import hashlib
import io
import json
import time
import uuid
from dataclasses import replace
from datetime import timedelta

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import case, func, select

from reelforge.core.draws import SecureDraws, SeededDraws
from reelforge.server.app import create_app
from reelforge.server.config import parse_config
from reelforge.server.logs import configure_logging, unconfigure_logging
from reelforge.server.schema import fair_seeds, ledger, players, rounds
from reelforge.server.wallet import utcnow

from .conftest import BrokenDraws, Player, Server, demo_config
from .scenarios import feature_scenario
from .seamless_support import SECRET, launch

OPERATOR_KEY = "operator-key-for-the-observability-tests"
METRICS_TOKEN = "metrics-token-for-the-observability-tests"


def operator_config(**overrides):
    return demo_config(mode="operator", api_key_sha256=hashlib.sha256(OPERATOR_KEY.encode()).hexdigest(),
                       metrics_token_sha256=hashlib.sha256(METRICS_TOKEN.encode()).hexdigest(), **overrides)


def scrape(server, **headers) -> dict[tuple[str, tuple], float]:
    """``/metrics`` as ``{(sample name, sorted labels): value}``."""
    r = server.client.get("/metrics", headers=headers or {"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples}


def total(samples: dict, name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items() if n == name and all(dict(ls).get(k) == w for k, w in labels.items()))


def play(server, players, rounds_each: int, games: list[tuple[str, int]]) -> None:
    """Each player plays ``rounds_each`` complete rounds, cycling through ``games`` (game, bet), interleaved."""
    for i in range(rounds_each):
        for p in players:
            game, bet = games[(i + len(p.name)) % len(games)]
            p.finish(p.start(game, bet))


def database_totals(engine) -> dict[str, int]:
    """The ledger's and the rounds table's own totals."""
    with engine.connect() as conn:
        by_kind = dict(conn.execute(select(ledger.c.kind, func.sum(ledger.c.amount)).group_by(ledger.c.kind)).all())
        by_status = dict(conn.execute(select(rounds.c.status, func.count()).group_by(rounds.c.status)).all())
        expired = conn.execute(select(func.count()).where(rounds.c.completed_on_expiry)).scalar()
    return {"stakes": -int(by_kind.get("stake", 0)) - int(by_kind.get("feature_buy", 0)),
            "wins": int(by_kind.get("win", 0)), "refunds": int(by_kind.get("refund", 0)),
            "started": sum(by_status.values()), "finished": by_status.get("finished", 0),
            "voided": by_status.get("void", 0), "open": by_status.get("open", 0), "expired": expired}


def test_metrics_agree_with_the_database_to_the_minor_unit(make_server) -> None:
    """A soak-like run (several players, three games, multi-step rounds, a void round, rounds completed on
    expiry, rounds left open, scrapes in between) and then a scrape: every total is the database's."""
    server = make_server(operator_config())
    server.app.state.monitor.tally.settle_seconds = 0.0  # fold every scrape (PostgreSQL: exercises the fold)
    players = []
    for name in ("ann", "bob", "cyd", "dee"):
        r = server.client.post("/api/v1/sessions", json={"player": name}, headers={"X-Operator-Key": OPERATOR_KEY})
        assert r.status_code == 201, r.text
        players.append(Player(server, r.json()["token"], name))
        assert server.client.post(f"/api/v1/operator/players/{name}/deposits", json={"amount": 100_000},
                                  headers={"X-Operator-Key": OPERATOR_KEY,
                                           "Idempotency-Key": uuid.uuid4().hex}).status_code == 200
    games = [("forge-of-fortunes", server.config.games["forge-of-fortunes"].bet_ladder[1]),
             ("forge-of-gems", server.config.games["forge-of-gems"].bet_ladder[0]),
             ("seven-lines", server.config.games["seven-lines"].bet_ladder[2])]
    play(server, players, 6, games)
    scrape(server)  # a scrape mid-run: the tally folds what it has seen so far
    scenario = feature_scenario("forge-of-fortunes")  # a round of several steps: left open after its first
    opened = []
    for p in players:
        server.draws.source = SeededDraws(scenario.seed)
        opened.append(p.start("forge-of-fortunes", games[0][1]))
        assert opened[-1]["status"] == "open"
    server.draws.source = SecureDraws()
    play(server, players, 2, games[1:])
    scrape(server)  # the open rounds are folded as open, and remembered
    players[0].finish(opened[0])  # one is played to its end step by step ...
    scrape(server)
    # ... the others complete on expiry (decided win credited) ...
    assert server.service.expire(now=utcnow() + timedelta(days=server.config.round_expiry_days + 1)) == 3
    # ... a malfunction voids a round (stake refunded) ...
    server.draws.source = BrokenDraws()
    voided = players[0].start("seven-lines", games[2][1])
    assert voided["status"] == "void"
    server.draws.source = SecureDraws()
    # ... and two stay open at the scrape
    for p in players[:2]:
        server.draws.source = SeededDraws(scenario.seed)
        p.start("forge-of-fortunes", games[0][1])
    server.draws.source = SecureDraws()
    samples = scrape(server)
    db = database_totals(server.engine)
    assert db["voided"] == 1 and db["expired"] == 3 and db["open"] == 2 and db["finished"] > 30
    assert total(samples, "reelforge_stakes_minor_total", currency="EUR") == db["stakes"]
    assert total(samples, "reelforge_wins_minor_total", currency="EUR") == db["wins"]
    assert total(samples, "reelforge_refunds_minor_total", currency="EUR") == db["refunds"]
    assert total(samples, "reelforge_ggr_minor") == db["stakes"] - db["wins"] - db["refunds"]
    assert total(samples, "reelforge_rounds_started_total") == db["started"]
    assert total(samples, "reelforge_rounds_finished_total") == db["finished"]
    assert total(samples, "reelforge_rounds_voided_total") == db["voided"]
    assert total(samples, "reelforge_rounds_completed_on_expiry_total") == db["expired"]
    assert total(samples, "reelforge_open_rounds") == db["open"]
    # per game too: the rounds table grouped by game
    with server.engine.connect() as conn:
        per_game = dict(conn.execute(select(rounds.c.game, func.sum(rounds.c.cost)).group_by(rounds.c.game)).all())
    for game, cost in per_game.items():
        assert total(samples, "reelforge_stakes_minor_total", game=game) == cost
    # the RTP monitor judges every finished round here (no start configured)
    assert total(samples, "reelforge_rtp_rounds") == db["finished"]
    assert total(samples, "reelforge_rtp_alarm") == 0
    # request metrics: templates, never raw paths; every answer counted
    routes = {dict(ls)["route"] for (n, ls) in samples if n == "reelforge_http_responses_total"}
    assert "/api/v1/rounds/{round_id}/steps" in routes and "/api/v1/games/{game}/rounds" in routes
    assert not any(ch.isdigit() for r in routes for ch in r.replace("v1", "")), routes


def test_money_metrics_are_per_currency(make_server) -> None:
    """Players in EUR and JPY on the same build (transfer wallet, launched by URL in their currency): each
    currency's stakes, wins, refunds and GGR in ``/metrics`` are the database's summed per
    ``players.currency`` to the minor unit, counted through the fold, the open rounds remembered and closed
    later, and a void round; no currency's figure includes another's. The overview gives the same."""
    game = "forge-of-fortunes"
    config = parse_config({
        "server": {"mode": "operator", "api_key_sha256": hashlib.sha256(OPERATOR_KEY.encode()).hexdigest(),
                   "metrics_token_sha256": hashlib.sha256(METRICS_TOKEN.encode()).hexdigest(),
                   "expiry_check_seconds": 0, "round_start_quantum_ms": 0},
        "games": {game: {"bet_ladder": [10, 20], "bet_ladders": {"JPY": [10, 100]}}},
        "operator": {"secret": SECRET},
    }, "test")
    server = make_server(config)
    server.app.state.monitor.tally.settle_seconds = 0.0  # fold every scrape (PostgreSQL: exercises the fold)
    bets = {"EUR": 20, "JPY": 100}
    by_currency: dict[str, list[Player]] = {}
    for name, code in (("eve", "EUR"), ("emil", "EUR"), ("jun", "JPY"), ("jiro", "JPY")):
        by_currency.setdefault(code, []).append(Player(server, launch(server.client, name, code), name))
        assert server.client.post(f"/api/v1/operator/players/{name}/deposits", json={"amount": 1_000_000},
                                  headers={"X-Operator-Key": OPERATOR_KEY,
                                           "Idempotency-Key": uuid.uuid4().hex}).status_code == 200
    everyone = [p for group in by_currency.values() for p in group]
    currency_of = {p.name: code for code, group in by_currency.items() for p in group}
    for _ in range(5):
        for p in everyone:
            p.finish(p.start(game, bets[currency_of[p.name]]))
    scenario = feature_scenario(game)  # a round of several steps, left open after its first
    opened = {}
    for code, group in by_currency.items():
        server.draws.source = SeededDraws(scenario.seed)
        opened[code] = group[0].start(game, bets[code])
        assert opened[code]["status"] == "open"
    server.draws.source = SecureDraws()
    scrape(server)  # the open rounds are folded as open and remembered with their currency ...
    for code, group in by_currency.items():
        group[0].finish(opened[code])  # ... and closed afterwards
        server.draws.source = BrokenDraws()  # a malfunction voids a round in each currency (stake refunded)
        assert group[1].start(game, bets[code])["status"] == "void"
        server.draws.source = SecureDraws()
    samples = scrape(server)
    with server.engine.connect() as conn:
        db = {code: (int(stakes), int(wins), int(refunds)) for code, stakes, wins, refunds in conn.execute(
            select(players.c.currency, func.sum(rounds.c.cost),
                   func.sum(case((rounds.c.status == "finished", rounds.c.win), else_=0)),
                   func.sum(case((rounds.c.status == "void", rounds.c.cost), else_=0)))
            .join(players, players.c.id == rounds.c.player_id).group_by(players.c.currency))}
        ledger_db = {code: (-int(stake), int(win), int(refund)) for code, stake, win, refund in conn.execute(
            select(players.c.currency, *(func.sum(case((ledger.c.kind == kind, ledger.c.amount), else_=0))
                                         for kind in ("stake", "win", "refund")))
            .join(players, players.c.id == ledger.c.player_id).group_by(players.c.currency))}
    assert set(db) == {"EUR", "JPY"} and db == ledger_db
    assert all(refunds == bets[code] for code, (_, _, refunds) in db.items())
    assert db["EUR"][0] != db["JPY"][0]  # distinct totals: a figure that included the other currency would show
    for code, (stakes, wins, refunds) in db.items():
        assert total(samples, "reelforge_stakes_minor_total", currency=code) == stakes
        assert total(samples, "reelforge_wins_minor_total", currency=code) == wins
        assert total(samples, "reelforge_refunds_minor_total", currency=code) == refunds
        assert total(samples, "reelforge_ggr_minor", currency=code) == stakes - wins - refunds
    currencies = {dict(ls)["currency"] for (n, ls) in samples if n.startswith(("reelforge_stakes_minor",
                                                                               "reelforge_ggr_minor"))}
    assert currencies == {"EUR", "JPY"}
    r = server.client.get("/api/v1/operator/overview", headers={"X-Operator-Key": OPERATOR_KEY})
    assert r.status_code == 200, r.text
    rows = r.json()["builds"]  # one row per currency (and brand): never a figure of two currencies
    assert [row["currency"] for row in rows] == ["EUR", "JPY"]
    assert {row["currency"]: tuple((m["currency"], m["decimals"], m["stakes"], m["wins"], m["refunds"], m["ggr"])
                                   for m in row["money"]) for row in rows} \
        == {code: ((code, {"EUR": 2, "JPY": 0}[code], s, w, f, s - w - f),) for code, (s, w, f) in db.items()}
    # finding 7: each currency's RTP is its own, never (wins EUR + wins JPY) / (stakes EUR + stakes JPY)
    for row in rows:
        s, w, f = db[row["currency"]]
        assert row["rtp_all_time"] == w / (s - f)
        assert total(samples, "reelforge_rounds_started_total", currency=row["currency"]) == row["rounds_started"]


def test_metrics_and_overview_need_a_key(make_server) -> None:
    server = make_server(operator_config())
    assert server.client.get("/metrics").status_code == 401
    assert server.client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert server.client.get("/metrics", headers={"X-Operator-Key": OPERATOR_KEY}).status_code == 200
    assert server.client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}).status_code == 200
    assert server.client.get("/api/v1/operator/overview").status_code == 401
    # the metrics token reads metrics only, not the operator's figures
    assert server.client.get("/api/v1/operator/overview", headers={"X-Operator-Key": METRICS_TOKEN}).status_code == 403
    r = server.client.get("/api/v1/operator/overview", headers={"X-Operator-Key": OPERATOR_KEY})
    assert r.status_code == 200 and r.json()["wallet"] is None


def test_logs_are_json_lines_without_secrets(db_url) -> None:
    """Every line a session of play writes is JSON; requests and round events carry their ids and amounts;
    no session token, operator key, metrics token, Idempotency-Key or server seed appears anywhere."""
    out = io.StringIO()
    handler = configure_logging("json", out)
    app = create_app(replace(operator_config(), provably_fair=True), db_url)  # production draws: seed pairs
    try:
        server = Server(TestClient(app).__enter__(), app, None, app.state.config, db_url)
        secrets = [OPERATOR_KEY, METRICS_TOKEN]
        r = server.client.post("/api/v1/sessions", json={"player": "eve"}, headers={"X-Operator-Key": OPERATOR_KEY})
        token = r.json()["token"]
        secrets.append(token)
        auth = {"Authorization": f"Bearer {token}"}
        key = uuid.uuid4().hex
        secrets.append(key)
        assert server.client.post("/api/v1/operator/players/eve/deposits", json={"amount": 10_000},
                                  headers={"X-Operator-Key": OPERATOR_KEY, "Idempotency-Key": key}).status_code == 200
        bet = server.config.games["forge-of-gems"].bet_ladder[0]
        for _ in range(3):
            key = uuid.uuid4().hex
            secrets.append(key)
            rnd = server.client.post("/api/v1/games/forge-of-gems/rounds", json={"bet": bet},
                                     headers={**auth, "Idempotency-Key": key, "X-Request-Id": f"lb-{key[:8]}"}).json()
            while rnd["status"] == "open":
                key = uuid.uuid4().hex
                secrets.append(key)
                rnd = server.client.post(f"/api/v1/rounds/{rnd['id']}/steps", json={},
                                         headers={**auth, "Idempotency-Key": key}).json()
        # rotating the seed pair reveals the server seed to the player: it must not reach the log either
        rotated = server.client.post("/api/v1/fair/rotate", json={}, headers=auth)
        assert rotated.status_code in (200, 201), rotated.text
        server.client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        with server.engine.connect() as conn:
            seeds = [s for (s,) in conn.execute(select(fair_seeds.c.server_seed))]
        assert seeds
        secrets += seeds
    finally:
        server.client.__exit__(None, None, None)
        app.state.engine.dispose()
        unconfigure_logging(handler)
    text = out.getvalue()
    for secret in secrets:
        assert secret not in text
    lines = [json.loads(line) for line in text.splitlines()]
    requests = [x for x in lines if x.get("event") == "request"]
    events = [x for x in lines if x.get("event", "").startswith("round_")]
    assert len(requests) >= 7 and len(events) == 6
    starts = [x for x in requests if x["route"] == "/api/v1/games/{game}/rounds"]
    assert all(x["request_id"].startswith("lb-") and x["player"] == "eve" and x["round"] for x in starts)
    finished = [x for x in events if x["event"] == "round_finished"]
    assert len(finished) == 3
    for x in finished:
        assert {x["game"], x["build"], x["currency"], x["outcome"]} == {"forge-of-gems", "96.2", "EUR", "finished"}
        assert x["cost"] == bet and x["win"] >= 0 and x["request_id"] and x["player"] == "eve"
    # the request that ended a round and the event name the same request
    ids = {x["request_id"] for x in requests}
    assert all(x["request_id"] in ids for x in events)


def test_a_requests_round_events_are_written_with_its_request_line_in_one_write() -> None:
    """JSON log: a request's round events are held while it runs and written with its request line, in one
    write after its answer (each with the time it happened); an event outside a request is written at once."""
    from types import SimpleNamespace

    from reelforge.server.logs import CURRENT, RequestInfo, log_request, round_event

    writes: list[str] = []

    class Stream(io.StringIO):
        def write(self, text: str) -> int:
            writes.append(text)
            return super().write(text)

    handler = configure_logging("json", Stream())
    rnd = SimpleNamespace(player_id=7, game="forge-of-gems", build="96.2", build_version="1.0", mode="paid", bet=20,
                          cost=20, win=40, status="finished", completed_on_expiry=False)
    try:
        info = RequestInfo("req-1")
        token = CURRENT.set(info)
        try:
            round_event("round_started", rnd, 4242, "eve", "EUR")
            round_event("round_finished", rnd, 4242, "eve", "EUR")
            assert writes == []  # held while the request runs
            log_request(info, "POST", "/api/v1/games/forge-of-gems/rounds", "/api/v1/games/{game}/rounds", 201, 0.01)
        finally:
            CURRENT.reset(token)
        round_event("round_finished", rnd, 4243, None, "EUR")  # the expiry check's: no request, written at once
    finally:
        unconfigure_logging(handler)
    assert len(writes) == 2
    request = [json.loads(line) for line in writes[0].splitlines()]
    assert [x["event"] for x in request] == ["round_started", "round_finished", "request"]
    assert {x["request_id"] for x in request} == {"req-1"} and request[2]["round"] == 4242
    assert request[0]["ts"] <= request[2]["ts"] and request[1]["win"] == 40
    alone = json.loads(writes[1])
    assert (alone["event"], alone["round"], alone["request_id"]) == ("round_finished", 4243, None)


def test_human_log_lines() -> None:
    out = io.StringIO()
    handler = configure_logging("human", out)
    try:
        from reelforge.server.logs import RequestInfo, log_request

        info = RequestInfo("abc")
        log_request(info, "POST", "/api/v1/games/forge-of-gems/rounds", "/api/v1/games/{game}/rounds", 201, 0.014)
        log_request(info, "GET", "/js/app.js", "static", 200, 0.001)  # left out: static files say nothing
    finally:
        unconfigure_logging(handler)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].endswith("POST /api/v1/games/forge-of-gems/rounds  201  14 ms"), lines


def test_two_workers_share_their_metrics(tmp_path) -> None:
    """``serve --workers 2`` in operator mode: whichever worker answers a scrape, it counts every answer of both
    (prometheus_client's multi-process mode), its totals are the database's, and the logs are JSON lines."""
    import os
    import subprocess
    import sys

    import httpx

    from .test_serve_newcomer import _free_port, _lines, _read_until

    config = tmp_path / "operator.toml"
    config.write_text(f'[server]\nmode = "operator"\napi_key_sha256 = "{hashlib.sha256(OPERATOR_KEY.encode()).hexdigest()}"\n'
                      '[games.seven-lines]\nbet_ladder = [100]\n[games.forge-of-fortunes]\nbet_ladder = [100]\n')
    shared = tmp_path / "metrics"
    shared.mkdir()
    port, db = _free_port(), tmp_path / "two.db"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PROMETHEUS_MULTIPROC_DIR": str(shared)}
    proc = subprocess.Popen([sys.executable, "-m", "reelforge", "serve", "--config", str(config), "--db",
                             f"sqlite:///{db}", "--port", str(port), "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = _lines(proc)
    base = f"http://127.0.0.1:{port}"
    try:
        _read_until(lines, r"server_started")  # operator mode logs JSON: the banner is one JSON line
        for _ in range(300):
            try:
                if httpx.get(f"{base}/api/v1/games", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        op = {"X-Operator-Key": OPERATOR_KEY}
        answers = 1
        for name in ("w1", "w2", "w3"):
            token = httpx.post(f"{base}/api/v1/sessions", json={"player": name}, headers=op).json()["token"]
            httpx.post(f"{base}/api/v1/operator/players/{name}/deposits", json={"amount": 100_000},
                       headers={**op, "Idempotency-Key": uuid.uuid4().hex})
            answers += 2
            for i in range(12):  # a new connection per request: the kernel spreads them over both workers
                game = ("seven-lines", "forge-of-fortunes")[i % 2]
                rnd = httpx.post(f"{base}/api/v1/games/{game}/rounds", json={"bet": 100},
                                 headers={"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}).json()
                answers += 1
                while rnd["status"] == "open":
                    rnd = httpx.post(f"{base}/api/v1/rounds/{rnd['id']}/steps", json={},
                                     headers={"Authorization": f"Bearer {token}",
                                              "Idempotency-Key": uuid.uuid4().hex}).json()
                    answers += 1
        for _ in range(3):  # any worker's scrape sees both workers' answers
            text = httpx.get(f"{base}/metrics", headers=op).text
            samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
                       for f in text_string_to_metric_families(text) for s in f.samples}
            assert total(samples, "reelforge_http_responses_total") == answers
            answers += 1
        pids = {p.stem.rsplit("_", 1)[-1] for p in shared.glob("*.db")}
        assert len(pids) == 2, pids  # both workers counted answers
        from sqlalchemy import create_engine

        engine = create_engine(f"sqlite:///{db}")
        db_totals = database_totals(engine)
        engine.dispose()
        assert total(samples, "reelforge_stakes_minor_total") == db_totals["stakes"] == 36 * 100
        assert total(samples, "reelforge_wins_minor_total") == db_totals["wins"]
        assert total(samples, "reelforge_rounds_finished_total") == db_totals["finished"] == 36
        proc.terminate()
        out = _read_until(lines, r"server_stopped")
        logged = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert sum(1 for x in logged if x.get("event") == "round_finished") == 36
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_the_monitor_judges_rounds_since_its_start(make_server) -> None:
    """``[monitor] since``: the totals count every round; the RTP monitor only those started from then on."""
    from reelforge.server.monitor import MonitorSettings
    from reelforge.server.tally import RoundTally

    server = make_server()
    player = server.session("sam")
    bet = server.config.games["seven-lines"].bet_ladder[0]
    play(server, [player], 5, [("seven-lines", bet)])
    since = utcnow()
    play(server, [player], 7, [("seven-lines", bet)])
    tally = RoundTally(server.engine, MonitorSettings(since=since).since)
    (totals,) = tally.refresh().values()
    assert (totals.started, totals.finished, totals.monitored_rounds) == (12, 12, 7)
    assert totals.monitored_cost == 7 * bet
