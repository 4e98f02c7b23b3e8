"""A PostgreSQL cluster of its own, for reliability tests and runs that restart it abruptly.

The shared test cluster (``.ci/start-postgres.sh``) runs with ``fsync`` and
``synchronous_commit`` off, which is fast but can drop commits already
acknowledged when PostgreSQL dies; reliability figures must come from
durable settings (``fsync``, ``synchronous_commit`` and ``full_page_writes``
on, PostgreSQL's defaults). This starts such a cluster in a temporary folder,
on a free loopback port, as the ``postgres`` user when run as root (initdb
and postgres refuse to run as root), and can kill it the way a crash does
(``pg_ctl stop -m immediate``: no checkpoint, recovery from the WAL on start).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class ClusterError(RuntimeError):
    """PostgreSQL could not be set up or started."""


def _bin_dir() -> Path | None:
    found = os.environ.get("REELFORGE_PG_BIN") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in p.split("/")[-2].split(".")
                                                                           if x.isdigit()], reverse=True)), None)
    return Path(found) if found and (Path(found) / "initdb").exists() else None


def available() -> bool:
    """Whether PostgreSQL's server binaries are installed here."""
    return _bin_dir() is not None


class PostgresCluster:
    """A durable PostgreSQL cluster in a temporary folder (see the module docstring)."""

    def __init__(self, max_connections: int = 100, reserved: int = 0) -> None:
        bin_dir = _bin_dir()
        if bin_dir is None:
            raise ClusterError("no PostgreSQL binaries (set REELFORGE_PG_BIN)")
        self.bin = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="reelforge-pg-durable-"))
        self.data = self.folder / "data"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=on "
                        f"-c synchronous_commit=on -c full_page_writes=on -c max_connections={max_connections} "
                        f"-c superuser_reserved_connections={reserved}")
        if os.getuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "reelforge", "-A", "trust", "-E", "UTF8")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://reelforge@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bin / tool), *args]
        if os.getuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise ClusterError(f"{tool} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> float:
        """Start (after a crash: recover) and wait until it accepts connections; the seconds it took."""
        t0 = time.monotonic()
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w", "-t", "60",
                  "-o", self.options, "start")
        return time.monotonic() - t0

    def crash(self) -> None:
        """Stop the way a crash does: every process killed, no checkpoint."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")

    def restart_abruptly(self) -> float:
        """:meth:`crash` then :meth:`start`; the seconds until it accepted connections again."""
        t0 = time.monotonic()
        self.crash()
        self.start()
        return time.monotonic() - t0

    def close(self) -> None:
        """Stop it and delete its folder."""
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        except ClusterError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


def new_database(cluster: PostgresCluster, name: str) -> str:
    """Create database ``name`` on the cluster; its URL."""
    import psycopg

    with psycopg.connect(host="127.0.0.1", port=cluster.port, user="reelforge", dbname="postgres",
                         autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql+psycopg://reelforge@127.0.0.1:{cluster.port}/{name}"


def restart_fault(cluster: PostgresCluster, after: float, times: int = 1, pause: float = 5.0):
    """A soak ``fault``: ``after`` seconds in, restart PostgreSQL abruptly ``times`` times, ``pause``
    seconds apart; returns, per restart, how long the server took to answer a request that needs the database
    (a new session) just before it (``answer_before_s``: the machine's and the soak's load, the yardstick of
    the figures after), how long PostgreSQL took to accept connections again, and how long after that the
    server answered the same request again."""
    import uuid

    import httpx

    def answer(base_url: str) -> float:
        """Seconds until a new session is opened (asked again every 10 ms while it fails)."""
        started = time.monotonic()
        while True:
            r = httpx.post(base_url + "/api/v1/sessions", json={"player": f"probe-{uuid.uuid4().hex[:12]}"},
                           timeout=30)
            if r.status_code == 201:
                return time.monotonic() - started
            time.sleep(0.01)

    def fault(base_url: str) -> list[dict[str, float]]:
        figures = []
        time.sleep(after)
        for i in range(times):
            if i:
                time.sleep(pause)
            before = answer(base_url)
            restart = cluster.restart_abruptly()
            figures.append({"answer_before_s": round(before, 3), "postgres_restart_s": round(restart, 3),
                            "serving_again_s": round(answer(base_url), 3)})
        return figures

    return fault
