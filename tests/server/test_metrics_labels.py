"""``/metrics`` as an operator's Prometheus sums it (issue 32, finding 7): latency by game, unknown paths
as ``unmatched``, the builds offered, and the database's figures reported by one designated instance of
several on one database, so a ``sum`` over instances counts each round once."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select

from reelforge.core.draws import SeededDraws
from reelforge.server.schema import rounds

from .conftest import Player
from .test_observability import METRICS_TOKEN, OPERATOR_KEY, operator_config, scrape, total

GAME = "forge-of-fortunes"


def _player(server, name: str) -> Player:
    r = server.client.post("/api/v1/sessions", json={"player": name}, headers={"X-Operator-Key": OPERATOR_KEY})
    assert r.status_code == 201, r.text
    assert server.client.post(f"/api/v1/operator/players/{name}/deposits", json={"amount": 100_000},
                              headers={"X-Operator-Key": OPERATOR_KEY, "Idempotency-Key": uuid.uuid4().hex}
                              ).status_code == 200
    return Player(server, r.json()["token"], name)


def test_latency_has_the_game_and_unknown_paths_are_unmatched(make_server) -> None:
    server = make_server(operator_config())
    server.draws.source = SeededDraws(5)
    p = _player(server, "labelled")
    p.finish(p.start(GAME, server.config.games[GAME].bet_ladder[0]))
    assert server.client.get("/api/v1/no/such/path").status_code == 404
    assert server.client.get("/api/v1/games/no-such-game/help").status_code == 404
    samples = scrape(server)
    starts = "/api/v1/games/{game}/rounds"
    assert total(samples, "reelforge_http_request_duration_seconds_count", route=starts, game=GAME) == 1
    assert total(samples, "reelforge_http_request_duration_seconds_count", route="unmatched") == 1
    assert not [ls for (n, ls) in samples if "no-such-game" in str(ls) or "{rest:path}" in str(ls)]
    assert total(samples, "reelforge_http_responses_total", route="unmatched", status="404") == 1
    offered = {dict(ls)["game"]: dict(ls) for (n, ls) in samples if n == "reelforge_build_info"}
    build = server.service.games[GAME].build.identity
    assert offered[GAME]["build"] == build.name and offered[GAME]["content_hash"] == build.content_hash
    assert set(offered) == set(server.service.games)
    assert [dict(ls)["version"] for (n, ls) in samples if n == "reelforge_server_info"] != []


def test_one_designated_instance_reports_the_database_figures(make_server) -> None:
    # two instances on one database: a sum over both scrapes is the database's count, not twice it
    reporter = make_server(operator_config())
    other = make_server(operator_config(database_metrics=False), own_engine=True)
    reporter.draws.source = other.draws.source = SeededDraws(6)
    bet = reporter.config.games[GAME].bet_ladder[0]
    for server, name in ((reporter, "via-one"), (other, "via-two")):
        p = _player(server, name)
        for _ in range(3):
            p.finish(p.start(GAME, bet))
    with reporter.engine.connect() as conn:
        started = conn.execute(select(func.count()).select_from(rounds)).scalar_one()
    scrapes = [scrape(s, Authorization=f"Bearer {METRICS_TOKEN}") for s in (reporter, other)]
    assert sum(total(s, "reelforge_rounds_started_total") for s in scrapes) == started == 6
    assert not [n for (n, _) in scrapes[1] if n.startswith(("reelforge_rounds_", "reelforge_stakes_", "reelforge_rtp_"))]
    assert total(scrapes[1], "reelforge_http_request_duration_seconds_count") > 0  # its own events still
