"""Concurrency hazards, on two server processes sharing one database: whatever arrives at once
resolves to one outcome, and no money is spent twice.

Every test fires its requests at the same moment from separate connections (asyncio, one
connection per request), so they reach both server processes and race on the database.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
from sqlalchemy import select

from reelforge.server.db import make_engine
from reelforge.server.schema import ledger, players, rounds

from .conftest import GAME, LiveServers, round_ids

RACERS = 8
MAX_TRIES = 3000
"""Rounds started at most while looking for one with a feature (about 1 in 40 rounds has one)."""


def at_once(base_url: str, requests: list[tuple[str, str, dict[str, Any] | None, dict[str, str]]]
            ) -> list[httpx.Response]:
    """Send every request at the same moment, each on its own connection."""
    async def main() -> list[httpx.Response]:
        clients = [httpx.AsyncClient(base_url=base_url, timeout=60) for _ in requests]
        try:
            # Open every connection first, so the racing requests leave together.
            await asyncio.gather(*(c.get("/api/v1/games") for c in clients))
            return list(await asyncio.gather(*(c.request(m, p, json=b, headers=h)
                                               for c, (m, p, b, h) in zip(clients, requests))))
        finally:
            await asyncio.gather(*(c.aclose() for c in clients))

    return asyncio.run(main())


def auth(token: str, key: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


def ledger_of(live: LiveServers, player: str) -> list[tuple[str, int, int | None]]:
    """The player's ledger entries, each ``(kind, amount, public round id or None)``."""
    public = round_ids(live.url).public
    engine = make_engine(live.url)
    with engine.connect() as conn:
        rows = conn.execute(select(ledger.c.kind, ledger.c.amount, ledger.c.round_id)
                            .join(players, players.c.id == ledger.c.player_id)
                            .where(players.c.name == player).order_by(ledger.c.id)).all()
    engine.dispose()
    return [(kind, amount, None if rid is None else public(rid)) for kind, amount, rid in rows]


def rounds_of(live: LiveServers, player: str) -> list[Any]:
    engine = make_engine(live.url)
    with engine.connect() as conn:
        rows = conn.execute(select(rounds).join(players, players.c.id == rounds.c.player_id)
                            .where(players.c.name == player).order_by(rounds.c.id)).all()
    engine.dispose()
    return rows


def finish(client: httpx.Client, token: str, rnd: dict[str, Any]) -> dict[str, Any]:
    for _ in range(1000):
        if rnd["status"] != "open":
            return rnd
        r = client.post(f"/api/v1/rounds/{rnd['id']}/steps", json={}, headers=auth(token, uuid.uuid4().hex))
        assert r.status_code == 200, r.text
        rnd = r.json()
    raise AssertionError("round did not finish in 1000 steps")


def open_feature_round(live: LiveServers, token: str, bet: int) -> dict[str, Any]:
    """Play rounds until one stops with a feature still to play (live draws: no seed is chosen)."""
    with live.client() as c:
        for _ in range(MAX_TRIES):
            r = c.post(f"/api/v1/games/{GAME}/rounds", json={"bet": bet}, headers=auth(token, uuid.uuid4().hex))
            assert r.status_code == 201, r.text
            if r.json()["status"] == "open":
                return r.json()
    raise AssertionError(f"no feature round in {MAX_TRIES} rounds")


def test_the_same_round_stepped_from_several_clients_at_once_plays_each_step_once(live: LiveServers):
    player, token = live.session(deposit=100_000)
    rnd = open_feature_round(live, token, 10)
    before = rnd["step_count"]
    answers = at_once(live.base_url, [("POST", f"/api/v1/rounds/{rnd['id']}/steps", {},
                                       auth(token, uuid.uuid4().hex)) for _ in range(RACERS)])
    played = [a.json() for a in answers if a.status_code == 200]
    refused = [a for a in answers if a.status_code != 200]
    assert played, [a.text for a in answers]
    # Each success played the next step, one after the other; the rest found no step left.
    assert sorted(p["step_count"] for p in played) == list(range(before + 1, before + 1 + len(played)))
    assert all(a.status_code == 409 and a.json()["error"] == "round_not_open" for a in refused)
    with live.client() as c:
        final = finish(c, token, max(played, key=lambda p: p["step_count"]))
    assert final["status"] == "finished"
    assert len(refused) == 0 or final["step_count"] == before + len(played)
    round_entries = [(k, a) for k, a, rid in ledger_of(live, player) if rid == rnd["id"]]
    assert round_entries == [("stake", -10)] + ([("win", final["paid"])] if final["paid"] else [])


def test_the_same_idempotency_key_sent_at_once_starts_one_round(live: LiveServers):
    player, token = live.session(deposit=10_000)
    key = uuid.uuid4().hex
    answers = at_once(live.base_url, [("POST", f"/api/v1/games/{GAME}/rounds", {"bet": 20}, auth(token, key))
                                      for _ in range(RACERS)])
    assert {a.status_code for a in answers} == {201}, [a.text for a in answers]
    bodies = [a.json() for a in answers]
    assert all(b == bodies[0] for b in bodies), "a retried request must return the first answer"
    stakes = [e for e in ledger_of(live, player) if e[0] == "stake"]
    assert stakes == [("stake", -20, bodies[0]["id"])]
    with live.client() as c:
        final = finish(c, token, bodies[0])
        assert c.get("/api/v1/wallet", headers=auth(token)).json()["balance"] == 10_000 - 20 + final["paid"]


def test_the_same_step_key_sent_at_once_plays_one_step(live: LiveServers):
    player, token = live.session(deposit=100_000)
    rnd = open_feature_round(live, token, 10)
    key = uuid.uuid4().hex
    answers = at_once(live.base_url, [("POST", f"/api/v1/rounds/{rnd['id']}/steps", {}, auth(token, key))
                                      for _ in range(RACERS)])
    assert {a.status_code for a in answers} == {200}, [a.text for a in answers]
    bodies = [a.json() for a in answers]
    assert all(b == bodies[0] for b in bodies)
    assert bodies[0]["step_count"] == rnd["step_count"] + 1
    with live.client() as c:
        final = finish(c, token, bodies[0])
    internal = round_ids(live.url).internal(rnd["id"])
    assert [r.step_count for r in rounds_of(live, player) if r.id == internal] == [final["step_count"]]


def test_rounds_started_at_once_for_one_player_never_overlap(live: LiveServers):
    player, token = live.session(deposit=100_000)
    answers = at_once(live.base_url, [("POST", f"/api/v1/games/{GAME}/rounds", {"bet": 10},
                                       auth(token, uuid.uuid4().hex)) for _ in range(RACERS)])
    started = [a.json() for a in answers if a.status_code == 201]
    refused = [a.json() for a in answers if a.status_code != 201]
    assert started
    # A start is refused only because another round of the player is still open.
    assert all(r["error"] == "unfinished_round" for r in refused), refused
    with live.client() as c:
        for rnd in started:
            if rnd["status"] == "open":
                finish(c, token, rnd)
    stored = rounds_of(live, player)
    internal = round_ids(live.url).internal
    assert sorted(r.id for r in stored) == sorted(internal(r["id"]) for r in started)
    # One open round at a time: each round finished before the next one was created.
    for earlier, later in zip(stored, stored[1:]):
        assert earlier.finished_at is not None and earlier.finished_at <= later.created_at
    stakes = [e for e in ledger_of(live, player) if e[0] == "stake"]
    assert len(stakes) == len(started)


def assert_every_debit_was_funded(entries: list[tuple[str, int, int | None]]) -> None:
    """Walking the ledger in order, the balance never goes below zero: no debit spent money that a
    debit before it had already spent (a second round or withdrawal is only possible after a win)."""
    balance = 0
    for kind, amount, round_id in entries:
        balance += amount
        assert balance >= 0, (kind, amount, round_id, entries)


def test_a_balance_of_exactly_one_stake_is_spent_once(live: LiveServers):
    bet = 50
    player, token = live.session(deposit=bet)
    answers = at_once(live.base_url, [("POST", f"/api/v1/games/{GAME}/rounds", {"bet": bet},
                                       auth(token, uuid.uuid4().hex)) for _ in range(RACERS)])
    internal = round_ids(live.url).internal  # in the order they were started
    started = sorted((a.json() for a in answers if a.status_code == 201), key=lambda r: internal(r["id"]))
    assert started, [a.text for a in answers]
    assert all(a.json()["error"] in ("insufficient_balance", "unfinished_round")
               for a in answers if a.status_code != 201)
    with live.client() as c:
        finished = [finish(c, token, rnd) for rnd in started]
        balance = c.get("/api/v1/wallet", headers=auth(token)).json()["balance"]
    # A later round can only have been paid by an earlier round's win (a single-spin round that
    # won at least the bet is over at once and funds the next start).
    for i in range(1, len(finished)):
        assert bet + sum(r["paid"] for r in finished[:i]) - i * bet >= bet, finished
    entries = ledger_of(live, player)
    assert_every_debit_was_funded(entries)
    assert len([e for e in entries if e[0] == "stake"]) == len(started)
    assert balance == bet - bet * len(started) + sum(r["paid"] for r in finished)


def test_a_withdrawal_racing_rounds_for_the_last_stake_spends_it_once(live: LiveServers):
    bet = 50
    player, token = live.session(deposit=bet)
    requests = []
    for i in range(RACERS):
        if i % 2:
            requests.append(("POST", f"/api/v1/operator/players/{player}/withdrawals", {"amount": bet},
                             {"X-Operator-Key": live.operator_key, "Idempotency-Key": uuid.uuid4().hex}))
        else:
            requests.append(("POST", f"/api/v1/games/{GAME}/rounds", {"bet": bet}, auth(token, uuid.uuid4().hex)))
    answers = at_once(live.base_url, requests)
    ok = [a for a in answers if a.status_code in (200, 201)]
    assert ok, [a.text for a in answers]
    assert all(a.status_code in (402, 409) for a in answers if a not in ok)
    with live.client() as c:
        for a in ok:
            if a.status_code == 201:
                finish(c, token, a.json())
        balance = c.get("/api/v1/wallet", headers=auth(token)).json()["balance"]
    entries = ledger_of(live, player)
    assert_every_debit_was_funded(entries)
    debits = [e for e in entries if e[1] < 0]
    assert len(debits) == len(ok)  # every success debited once, every refusal nothing
    assert balance == sum(e[1] for e in entries)
    if len(ok) > 1:  # only possible when a round won back at least the stake first
        assert any(e[0] == "win" and e[1] >= bet for e in entries)
