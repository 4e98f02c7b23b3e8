"""SQLite on a disk that fills up (a small tmpfs, where the test may mount one): requests are answered
503 ``storage_full`` with Retry-After, nothing is half applied, and once space is freed the server
serves again by itself."""

from __future__ import annotations

import logging
import os
import subprocess
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from reelforge.server.app import create_app
from reelforge.server.config import load_config

from .conftest import check_all_rounds_verify, check_wallets


@pytest.fixture
def small_disk(tmp_path: Path):
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                                           capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root and CAP_SYS_ADMIN)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_is_answered_503_storage_full_and_the_server_recovers(small_disk, caplog):
    config = replace(load_config(None), expiry_check_seconds=0)
    app = create_app(config, f"sqlite:///{small_disk / 'full.db'}")
    with TestClient(app) as client:
        token = client.post("/api/v1/sessions", json={"player": "filler"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        filler = small_disk / "filler"
        with open(filler, "wb") as f:  # take every free byte
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        with caplog.at_level(logging.ERROR, logger="reelforge.server"):
            answers = [client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10},
                                   headers={**auth, "Idempotency-Key": uuid.uuid4().hex}) for _ in range(30)]
        full = [r for r in answers if r.status_code == 503]
        assert full, [r.status_code for r in answers]  # the WAL's free pages ran out at some point
        assert all(r.status_code in (201, 503) for r in answers)
        assert all(r.json()["error"] == "storage_full" and r.headers["retry-after"] == "60" for r in full)
        assert not any(rec.exc_info for rec in caplog.records)
        assert _two_answers_on_one_connection(app, auth["Authorization"]) == [503, 503]
        filler.unlink()
        r = client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10},
                        headers={**auth, "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code == 201, r.text
        assert client.get("/api/v1/wallet", headers=auth).status_code == 200
    check_wallets(app.state.engine)
    check_all_rounds_verify(app.state.engine, set())
    app.state.engine.dispose()


def _two_answers_on_one_connection(app, authorization: str) -> list[int]:
    """Serve ``app`` with uvicorn as ``serve`` does, send two round requests on one keep-alive connection
    and return their statuses (a connection the server closed after the first could give no second)."""
    import socket
    import threading
    import time

    import uvicorn

    from reelforge.server.http import uvicorn_settings

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", **uvicorn_settings()))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    statuses = []
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            buffer = b""
            for _ in range(2):
                body = b'{"bet": 10}'
                sock.sendall(b"POST /api/v1/games/forge-of-fortunes/rounds HTTP/1.1\r\nHost: x\r\n"
                             b"Content-Type: application/json\r\nAuthorization: " + authorization.encode() +
                             b"\r\nIdempotency-Key: " + uuid.uuid4().hex.encode() +
                             b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
                while b"\r\n\r\n" not in buffer:
                    buffer += sock.recv(65536)
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length:")))
                while len(buffer) < length:
                    buffer += sock.recv(65536)
                buffer = buffer[length:]
                assert b"connection: close" not in head.lower()
                statuses.append(int(head.split()[1]))
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    return statuses
