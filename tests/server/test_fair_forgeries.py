"""Forged provably fair records are refused (issue 32, finding 12), offline by ``reelforge verify-fair`` and
by the server's audit: a round relabelled void with its steps removed, two rounds drawn from one nonce (or
a nonce skipped), bet and paid scaled together, a finished round relabelled open with a huge payment.
Every forgery is made from whatever rounds were played: the tests hold for every outcome."""

from __future__ import annotations

import copy
import json

from sqlalchemy import update
from typer.testing import CliRunner

from reelforge.cli import app
from reelforge.server.fair_verify import verify_export
from reelforge.server.schema import rounds, steps
from reelforge.server.verify import verify_round

from .test_fair import FOF, _finish, _player, fair_server  # noqa: F401 - the fixture

FORGERIES = {
    "void": lambda r: {**r, "status": "void", "steps": [], "paid": 0, "void_reason": "malfunction"},
    "scaled": lambda r: {**r, "bet": r["bet"] * 100, "paid": r["paid"] * 100},
    "open": lambda r: {**r, "status": "open", "paid": 10**9},
}


def _played(fair_server, name: str, count: int = 3):  # noqa: F811 - the fixture
    client = fair_server()
    api, headers = _player(client, name)
    played = [_finish(api, api.start_round(FOF, 10).json(), []) for _ in range(count)]
    assert client.post("/api/v1/fair/rotate", headers=headers).status_code == 200
    exported = [client.get(f"/api/v1/rounds/{r['id']}", headers=headers).json() for r in played]
    assert all(verify_export(r)["ok"] for r in exported)
    return client, exported


def test_verify_fair_refuses_each_forged_record(fair_server, tmp_path):  # noqa: F811 - the fixture
    _client, exported = _played(fair_server, "forger")
    for name, forge in FORGERIES.items():
        result = verify_export(forge(copy.deepcopy(exported[0])))
        assert not result["ok"], (name, result)
    assert any("plays to its end without a malfunction" in d
               for d in verify_export(FORGERIES["void"](exported[0]))["differences"])
    assert any("cost 10 recorded" in d for d in verify_export(FORGERIES["scaled"](exported[0]))["differences"])
    assert any("open round has paid 1000000000" in d
               for d in verify_export(FORGERIES["open"](exported[0]))["differences"])

    export = tmp_path / "rounds.json"
    twice = [exported[0], {**copy.deepcopy(exported[0]), "id": exported[0]["id"] + 1}]  # one nonce, two rounds
    export.write_text(json.dumps(twice))
    result = CliRunner().invoke(app, ["verify-fair", str(export)])
    assert result.exit_code == 1 and result.output.count("is used by rounds") == 2, result.output
    export.write_text(json.dumps([exported[0], exported[2]]))  # nonce 1 skipped
    result = CliRunner().invoke(app, ["verify-fair", str(export)])
    assert result.exit_code == 1 and "nonces 1..1 of seed pair" in result.output, result.output
    export.write_text(json.dumps(exported))
    assert CliRunner().invoke(app, ["verify-fair", str(export)]).exit_code == 0


def test_the_server_audit_refuses_each_forged_round(fair_server):  # noqa: F811 - the fixture
    client, exported = _played(fair_server, "insider", count=4)
    ids = [client.app.state.service.ids.internal(r["id"]) for r in exported]
    fair_server.tampered.update(ids)
    with fair_server.engine.begin() as conn:
        conn.execute(update(rounds).where(rounds.c.id == ids[0]).values(status="void", win=0, step_count=0,
                                                                        void_reason="malfunction"))
        conn.execute(steps.delete().where(steps.c.round_id == ids[0]))
        conn.execute(update(rounds).where(rounds.c.id == ids[1]).values(bet=rounds.c.bet * 100,
                                                                        win=rounds.c.win * 100))
        conn.execute(update(rounds).where(rounds.c.id == ids[2]).values(status="open", win=10**9))
        conn.execute(update(rounds).where(rounds.c.id == ids[3]).values(fair_nonce=2))  # nonce 2 twice, 3 none
    audits = [verify_round(fair_server.engine, i)["differences"] for i in ids]
    assert any("plays to its end without a malfunction" in d for d in audits[0]), audits[0]
    assert any("cost 10 stored" in d for d in audits[1]), audits[1]
    assert any("open round already paid" in d or "open but its last step finished" in d for d in audits[2])
    assert any("draws 2 rounds" in d for d in audits[3]) and any("draws 2 rounds" in d for d in audits[2])
    assert any("the last nonce 3" in d for d in audits[3]), audits[3]
