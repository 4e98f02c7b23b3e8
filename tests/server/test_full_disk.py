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
        filler.unlink()
        r = client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10},
                        headers={**auth, "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code == 201, r.text
        assert client.get("/api/v1/wallet", headers=auth).status_code == 200
    check_wallets(app.state.engine)
    check_all_rounds_verify(app.state.engine, set())
    app.state.engine.dispose()
