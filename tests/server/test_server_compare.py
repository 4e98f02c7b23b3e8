"""``bench/server_compare.py``: its tables, and the watcher that analyses a PostgreSQL run's database and
measures PostgreSQL's own work per round."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text

from .conftest import PG_ENV, _pg_admin_url

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import server_compare  # noqa: E402


def _run(rounds: float, server: float, pg: float | None = None) -> dict:
    out = {"rounds_per_s": rounds, "server_cpu_ms_per_round": server, "client_cpu_ms_per_round": 0.1}
    if pg is not None:
        out.update(pg_cpu_ms_per_round=pg, wal_bytes_per_round=3000)
    return out


def test_the_table_gives_postgresqls_own_figures_only_where_every_run_has_them():
    both = server_compare.table("PostgreSQL", {"old": [_run(800, 1.0, 0.8), _run(900, 1.2, 1.0)],
                                               "new": [_run(700, 1.1, 0.9), _run(700, 1.1, 1.1)]})
    assert "PostgreSQL CPU per round (ms)" in both[2] and "WAL per round (bytes)" in both[2]
    assert both[-1] == "| new / old | | 0.824 | 1.000 | 1.000 | 1.111 | 1.000 |"
    some = server_compare.table("PostgreSQL", {"old": [_run(800, 1.0, 0.8)], "new": [_run(700, 1.1)]})
    assert "PostgreSQL CPU" not in some[2] and some[-1] == "| new / old | | 0.875 | 1.100 | 1.000 |"


@pytest.fixture
def scratch_pg():
    """A database of its own with a ``rounds`` table of one column."""
    admin = _pg_admin_url()
    if admin is None:
        pytest.skip(f"{PG_ENV} is not set (.ci/run starts PostgreSQL and sets it)")
    name = f"rf_compare_{uuid.uuid4().hex[:10]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    db = create_engine(url, isolation_level="AUTOCOMMIT")
    with db.connect() as conn:
        conn.execute(text("CREATE TABLE rounds (id bigint)"))
    yield url, db
    db.dispose()
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


def _watch(url: str, rows: int, postmaster: int, window: float, analyze: bool) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", server_compare._WATCH, url, str(rows), str(postmaster), str(window),
                           "analyze" if analyze else "no"], capture_output=True, text=True, timeout=90)


def test_the_watcher_analyses_once_the_rounds_are_there_and_measures_postgresql_per_round(scratch_pg):
    url, db = scratch_pg
    with db.connect() as conn:
        conn.execute(text("INSERT INTO rounds SELECT generate_series(1, 40)"))
        backend = conn.execute(text("SELECT pg_backend_pid()")).scalar()
    stat = Path(f"/proc/{backend}/stat")
    if not stat.exists():
        pytest.skip("PostgreSQL runs on another machine: its processes cannot be read here")
    postmaster = int(stat.read_text().rpartition(")")[2].split()[1])
    stop = threading.Event()

    def play() -> None:  # rounds keep coming during the window, as a bench's do
        with db.connect() as conn:
            while not stop.is_set():
                conn.execute(text("INSERT INTO rounds SELECT generate_series(1, 50)"))
                time.sleep(0.02)

    player = threading.Thread(target=play)
    player.start()
    try:
        done = _watch(url, 30, postmaster, 0.5, True)
    finally:
        stop.set()
        player.join()
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["analyzed_after_s"] >= 0 and figures["pg_window_rounds"] > 0
    assert figures["pg_cpu_ms_per_round"] >= 0 and figures["wal_bytes_per_round"] > 0
    with db.connect() as conn:  # the analysis happened: the table has statistics now
        assert conn.execute(text("SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables "
                                 "WHERE relname = 'rounds'")).scalar()


def test_the_watcher_fails_when_the_rounds_never_come(scratch_pg):
    url, _ = scratch_pg
    short = server_compare._WATCH.replace("time.monotonic() - began < 60", "time.monotonic() - began < 1")
    done = subprocess.run([sys.executable, "-c", short, url, "10", "0", "0.1", "no"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0 and "never reached 10 rows" in done.stderr
