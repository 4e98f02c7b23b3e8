"""Provably fair rounds over HTTP, on SQLite and PostgreSQL: the commitment is shown before any bet, every
round records it with its client seed and nonce, rotation is refused while a round is unfinished and
otherwise reveals the seed, and every round then verifies from its seeds alone (offline and through the
server's audit); one altered stored draw makes both fail. The server seed never leaves the server before
its rotation: not in an answer, an error or a log line."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import struct
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from typer.testing import CliRunner

from reelforge.core.draws import FairDraws, lemire_map
from reelforge.ops.client import ApiClient
from reelforge.server.app import create_app
from reelforge.server.config import parse_config
from reelforge.server.config_values import ConfigError
from reelforge.server.db import open_database
from reelforge.server.fair_verify import ExportError, verify_export
from reelforge.server.schema import fair_seeds, steps
from reelforge.server.verify import verify_round

from .conftest import check_all_rounds_verify, check_wallets, demo_config
from .test_statements import statements  # noqa: F401 - the statement-counting fixture

FOF, GG = "forge-of-fortunes", "gemstones-gold"


@pytest.fixture
def fair_server(db_url):
    """A server with the production draw sources (no test draw source): provably fair rounds."""
    engine = open_database(db_url)
    tampered: set[int] = set()
    clients = []

    def make(config=None):
        client = TestClient(create_app(config or demo_config(), engine=engine))
        client.__enter__()
        clients.append(client)
        return client

    make.engine, make.tampered = engine, tampered
    yield make
    for client in clients:
        client.__exit__(None, None, None)
    check_wallets(engine)
    check_all_rounds_verify(engine, tampered)
    engine.dispose()


def _player(client, name: str) -> tuple[ApiClient, dict[str, str]]:
    token = ApiClient(client).open_session(name).json()["token"]
    return ApiClient(client, token), {"Authorization": f"Bearer {token}"}


def _finish(api: ApiClient, rnd: dict, answers: list[str]) -> dict:
    while rnd["status"] == "open":
        r = api.step(rnd["id"])
        assert r.status_code == 200, r.text
        answers.append(r.text)
        rnd = r.json()
    return rnd


def _active_server_seed(engine, player_seed_pair: int) -> str:
    """The test reads the secret from the database (the oracle a player does not have)."""
    with engine.connect() as conn:
        return conn.execute(select(fair_seeds.c.server_seed).where(fair_seeds.c.id == player_seed_pair)).scalar_one()


def test_rounds_commit_rotate_reveal_and_verify_from_their_seeds(fair_server, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    client = fair_server()
    api, headers = _player(client, "fairplayer")
    answers: list[str] = []

    # Before any bet: the commitment, a random client seed, nonce 0.
    shown = client.get("/api/v1/fair", headers=headers)
    assert shown.status_code == 200, shown.text
    answers.append(shown.text)
    pair = shown.json()
    assert pair["enabled"] and pair["current"]["next_nonce"] == 0
    commitment, client_seed = pair["current"]["server_seed_sha256"], pair["current"]["client_seed"]
    assert len(commitment) == 64 and len(client_seed) >= 16

    # Rounds of two games, each played to its end but the last: a Feature Buy, unfinished after its first step.
    starts, played = [], []
    for game, bet, body in [(FOF, 10, {}), (FOF, 10, {}), (FOF, 10, {}), (GG, 20, {}), (GG, 20, {"buy_feature": True})]:
        r = api.start_round(game, bet, **body)
        assert r.status_code == 201, r.text
        answers.append(r.text)
        starts.append(r.json())
        played.append(_finish(api, r.json(), answers) if body == {} else r.json())
    unfinished = played[-1]
    assert unfinished["status"] == "open"
    for nonce, rnd in enumerate(starts):
        assert rnd["fair"] == {"algorithm": "HMAC-SHA256 counter mode v1", "seed_pair": pair["current"]["seed_pair"],
                               "server_seed_sha256": commitment, "client_seed": client_seed, "nonce": nonce,
                               "server_seed": None}
        assert all(len(s["ranges"]) == len(s["draws"]) for s in rnd["steps"])

    # Rotation is refused while a round is unfinished, and changes nothing.
    refused = client.post("/api/v1/fair/rotate", headers=headers, json={"client_seed": "mine"})
    assert refused.status_code == 409 and refused.json()["error"] == "unfinished_round", refused.text
    assert f"round {unfinished['id']}" in refused.json()["detail"]
    answers.append(refused.text)
    assert client.get("/api/v1/fair", headers=headers).json()["current"] == {**pair["current"], "next_nonce": 5}
    played[-1] = _finish(api, unfinished, answers)

    # Until the rotation the server seed is nowhere: not in any answer, error, history or log line.
    secret = _active_server_seed(fair_server.engine, pair["current"]["seed_pair"])
    answers += [client.get(p, headers=headers).text for p in
                ("/api/v1/rounds", f"/api/v1/rounds/{played[0]['id']}", f"/api/v1/rounds/{played[0]['id']}/verify",
                 "/api/v1/fair/seed-pairs", "/api/v1/wallet")]
    assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == commitment
    assert not [a for a in answers if secret in a]
    assert not [r for r in caplog.records if secret in r.getMessage()]

    # Rotation: the seed revealed (its SHA-256 is the commitment), a new pair with the player's client seed.
    rotated = client.post("/api/v1/fair/rotate", headers=headers, json={"client_seed": "my-own-seed"})
    assert rotated.status_code == 200, rotated.text
    body = rotated.json()
    assert body["revealed"]["server_seed"] == secret and body["revealed"]["server_seed_sha256"] == commitment
    assert body["revealed"]["rounds"] == 5
    assert body["current"]["client_seed"] == "my-own-seed" and body["current"]["next_nonce"] == 0
    assert body["current"]["server_seed_sha256"] != commitment
    later = api.start_round(FOF, 10).json()
    assert later["fair"]["nonce"] == 0 and later["fair"]["client_seed"] == "my-own-seed"
    later = _finish(api, later, answers)

    # History, round and replay records show the revealed seed; every round verifies from its seeds alone.
    history = client.get("/api/v1/rounds", headers=headers).json()["rounds"]
    assert {r["id"]: r["fair"]["server_seed"] for r in history} == {
        **{r["id"]: secret for r in played}, later["id"]: None}
    exported = [client.get(f"/api/v1/rounds/{r['id']}", headers=headers).json() for r in played]
    for rnd in exported:
        result = verify_export(rnd)
        assert result["ok"] and result["steps_checked"] == rnd["step_count"], result
    assert sum(verify_export(r)["draws_checked"] for r in exported) == sum(
        len(s["draws"]) for r in exported for s in r["steps"])
    with pytest.raises(ExportError, match="not revealed"):
        verify_export(client.get(f"/api/v1/rounds/{later['id']}", headers=headers).json())
    export = tmp_path / "rounds.json"
    export.write_text(json.dumps({"rounds": exported}))
    from reelforge.cli import app

    ok = CliRunner().invoke(app, ["verify-fair", str(export)])
    assert ok.exit_code == 0 and "5 round(s) verified from their seeds: 5 ok, 0 mismatched" in ok.output, ok.output

    # One stored draw altered: the offline verifier, the CLI and the server's audit all say so.
    victim = exported[-1]
    victim_id = client.app.state.service.ids.internal(victim["id"])  # the database's id of the public one
    fair_server.tampered.add(victim_id)
    draws = victim["steps"][1]["draws"]
    draws[2] = (draws[2] + 1) % victim["steps"][1]["ranges"][2]
    with fair_server.engine.begin() as conn:
        conn.execute(update(steps).where(steps.c.round_id == victim_id, steps.c.idx == 1)
                     .values(draws=json.dumps(draws)))
    altered = client.get(f"/api/v1/rounds/{victim['id']}", headers=headers).json()
    result = verify_export(altered)
    assert not result["ok"] and any("step 1: the recorded draws differ from the seeds' draws from draw #3" in d
                                    for d in result["differences"]), result
    export.write_text(json.dumps(altered))
    bad = CliRunner().invoke(app, ["verify-fair", str(export)])
    assert bad.exit_code == 1 and "MISMATCH" in bad.output, bad.output
    audit = verify_round(fair_server.engine, victim_id)
    assert not audit["ok"] and any("differ from the seeds' draws" in d for d in audit["differences"]), audit


def test_a_wrong_seed_or_a_changed_client_seed_fails_verification(fair_server):
    client = fair_server()
    api, headers = _player(client, "doubter")
    rnd = _finish(api, api.start_round(FOF, 10).json(), [])
    revealed = client.post("/api/v1/fair/rotate", headers=headers).json()["revealed"]["server_seed"]
    record = client.get(f"/api/v1/rounds/{rnd['id']}", headers=headers).json()
    assert verify_export(record)["ok"]
    other = "00" * 32
    result = verify_export({**record, "fair": {**record["fair"], "server_seed": other}})
    assert not result["ok"] and "commitment" in result["differences"][0]
    result = verify_export({**record, "fair": {**record["fair"], "client_seed": "not-the-one"}})
    assert not result["ok"] and "draws differ" in " ".join(result["differences"])
    assert verify_export({**record, "fair": {**record["fair"], "server_seed": None}}, revealed)["ok"]


def test_bad_rotation_requests_are_refused_and_change_nothing(fair_server):
    client = fair_server()
    api, headers = _player(client, "typo")
    before = client.get("/api/v1/fair", headers=headers).json()
    for body in ({"client_seed": ""}, {"client_seed": "has space"}, {"client_seed": "x" * 65},
                 {"client_seed": 7}, {"client_seed": "é"}, {"seed": "x"}):
        r = client.post("/api/v1/fair/rotate", headers=headers, json=body)
        assert r.status_code == 422 and r.json()["error"] == "invalid_request", (body, r.text)
    assert client.post("/api/v1/fair/rotate", json={}).status_code == 401
    assert client.get("/api/v1/fair", headers=headers).json() == before


def test_operators_may_keep_plain_csprng_rounds(fair_server):
    client = fair_server(replace(demo_config(), provably_fair=False))
    api, headers = _player(client, "plain")
    rnd = api.start_round(FOF, 10).json()
    assert rnd["fair"] is None and all(s["ranges"] is None for s in rnd["steps"])
    assert client.get("/api/v1/fair", headers=headers).json()["enabled"] is False
    base = {"server": {"mode": "demo"}, "games": {FOF: {"bet_ladder": [10]}}}
    assert parse_config(base).provably_fair is True
    assert parse_config({**base, "server": {"mode": "demo", "provably_fair": False}}).provably_fair is False
    with pytest.raises(ConfigError, match="provably_fair must be true or false"):
        parse_config({**base, "server": {"mode": "demo", "provably_fair": "yes"}})


def test_fair_draws_are_hmac_sha256_in_counter_mode_through_the_lemire_map():
    """Known answer from an independent HMAC (RFC 2104 by hand over hashlib) and the published map."""
    key, client_seed, nonce = bytes(range(32)), "player-seed", 7

    def block(i: int) -> bytes:
        inner = hashlib.sha256(bytes(b ^ 0x36 for b in key.ljust(64, b"\0")) + f"{client_seed}:{nonce}:{i}".encode())
        return hashlib.sha256(bytes(b ^ 0x5C for b in key.ljust(64, b"\0")) + inner.digest()).digest()

    words = [w for i in range(3) for w in struct.unpack(">8I", block(i))]
    assert block(0) == hmac.new(key, b"player-seed:7:0", "sha256").digest()
    ranges = [2, 3, 10, 37, 100, 1000, 65537, 2**31 - 1] * 2 + [6] * 8
    expected, pos = [], 0
    for n in ranges:
        while True:
            value, ok = lemire_map(words[pos], n)
            pos += 1
            if ok:
                expected.append(value)
                break
    source = FairDraws(key, client_seed, nonce)
    assert [source.draw(n) for n in ranges] == expected
    assert "00010203" not in repr(source)


def test_a_fair_round_start_is_still_lock_read_write_commit_on_postgresql(fair_server, statements):  # noqa: F811
    """The seed pair is read with the start's one read and its nonce advanced in its one write."""
    client = fair_server()
    if not fair_server.engine.url.get_backend_name().startswith("postgresql"):
        pytest.skip("counts PostgreSQL's round trips (SQLite runs in process)")
    api, _ = _player(client, "counted")
    _finish(api, api.start_round(FOF, 10).json(), [])  # the first round opens the pair (one INSERT more)
    statements.clear()
    rnd = api.start_round(FOF, 10).json()
    assert rnd["fair"]["nonce"] == 1
    assert statements == ["SELECT", "SELECT", "WITH", "COMMIT"], statements
    _finish(api, rnd, [])


def test_fair_draws_skip_the_words_lemire_map_rejects():
    """A range whose words are often rejected (2**32 mod n is about n: a third of the words): the draws are
    those of lemire_map over the same stream of words, every rejected word skipped."""
    n, key = 1431655766, bytes(range(32))
    words = FairDraws(key, "player-seed", 3)
    expected, rejected = [], 0
    while len(expected) < 200:
        value, ok = lemire_map(words.raw32(), n)
        if ok:
            expected.append(value)
        else:
            rejected += 1
    assert rejected > 40  # the stream of this seed has its share of rejected words
    source = FairDraws(key, "player-seed", 3)
    assert [source.draw(n) for _ in range(200)] == expected
