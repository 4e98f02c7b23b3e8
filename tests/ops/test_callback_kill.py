"""The session-ended callback survives a SIGKILL (issue 40): a real server process writes it with the session's
end, fails to deliver it (the operator's backend answers 500), is killed; a fresh process delivers it."""

from __future__ import annotations

import json
import threading
import time

from sqlalchemy import create_engine, select

from reelforge.ops.supervisor import ServerSupervisor
from reelforge.server.schema import operator_callbacks
from reelforge.server.signing import signed_headers
from tests.ops.conftest import operator_config
from tests.server.fake_operator import FakeOperator
from tests.server.seamless_support import SECRET


def _until(done, seconds: float = 30.0) -> bool:
    end, tick = time.monotonic() + seconds, threading.Event()
    while not done():
        if time.monotonic() > end:
            return False
        tick.wait(0.05)
    return True


def _signed(client, path: str, body: dict, nonce: str) -> dict:
    data = json.dumps(body).encode()
    r = client.post(path, content=data, headers={"content-type": "application/json",
                                                 **signed_headers(SECRET, "POST", path, data, nonce=nonce)})
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_a_callback_written_before_a_kill_is_delivered_by_the_next_process(tmp_path):
    operator = FakeOperator(failures=10**6)  # down until the test says otherwise
    config, _key = operator_config(tmp_path)
    config.write_text(config.read_text() + f'\n[operator]\nsecret = "{SECRET}"\ncallback_url = "{operator.url}"\n')
    url = f"sqlite:///{tmp_path / 'server.db'}"
    supervisor = ServerSupervisor(url, tmp_path / "server.log", config)
    try:
        supervisor.start(processes=1)
        import httpx

        with httpx.Client(base_url=supervisor.base_url, timeout=30) as client:
            launched = _signed(client, "/api/v1/operator/launches", {"player": "killed", "currency": "EUR",
                                                                     "operator_session": "op-k"}, "n1")
            token = launched["launch_url"].split("launch=")[1]
            assert client.post("/api/v1/launch", json={"token": token}).status_code == 201
            _signed(client, "/api/v1/operator/players/killed/end-session", {}, "n2")
        assert _until(lambda: len(operator.received) >= 1)  # tried, refused by the operator's backend
        supervisor.kill()  # SIGKILL: the callback is pending in the database only
        engine = create_engine(url)

        def statuses() -> list[str]:
            with engine.connect() as conn:
                return conn.execute(select(operator_callbacks.c.status)).scalars().all()

        assert statuses() == ["pending"]
        operator.failures = 0
        supervisor.spawn()
        supervisor.wait_ready()
        assert _until(lambda: statuses() == ["done"]), statuses()
        engine.dispose()
        bodies = [call["body"] for call in operator.received]
        assert {b["callback_id"] for b in bodies} == {bodies[0]["callback_id"]}  # one callback, retried
        assert (bodies[-1]["reason"], bodies[-1]["session"], bodies[-1]["player"]) == ("ended_by_operator", "op-k",
                                                                                       "killed")
        assert all(call["signed"] for call in operator.received)
    finally:
        supervisor.close()
        operator.stop()
