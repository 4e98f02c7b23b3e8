"""Real server processes on loopback that a test or the soak can SIGKILL and restart.

:class:`ServerSupervisor` binds a listening socket on 127.0.0.1 (a free port),
starts the launcher (:mod:`reelforge.ops.launcher`) and asks it for
server processes, which all accept on that one socket. Because the socket
outlives every server process, a client that connects while no server is
running waits in the kernel's backlog until the restarted server accepts it,
and a request in flight when its server is killed fails with a connection
error, which the client retries with the same idempotency key.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


class SupervisorError(RuntimeError):
    """A server process or the launcher did not start."""


class ServerSupervisor:
    """Server processes for ``db_url`` (demo configuration unless ``config_path``), logging to ``log_path``."""

    def __init__(self, db_url: str, log_path: str | Path, config_path: str | Path | None = None,
                 start_timeout: float = 180.0) -> None:
        self.db_url = db_url
        self.log_path = Path(log_path)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(2048)
        self.sock.set_inheritable(True)
        self.port = self.sock.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.pids: list[int] = []
        self.kills = 0
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in close()
        cmd = [sys.executable, "-m", "reelforge.ops.launcher", "--fd", str(self.sock.fileno()),
               "--db", db_url]
        if config_path is not None:
            cmd += ["--config", str(config_path)]
        self.launcher = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                         pass_fds=(self.sock.fileno(),), text=True, bufsize=1)
        line = self._read_line(start_timeout)
        if line != "ready":
            self.close()
            raise SupervisorError(f"the server launcher did not start (see {self.log_path}): {line!r}")

    def _read_line(self, timeout: float) -> str:
        import selectors

        assert self.launcher.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.launcher.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                return ""
        return self.launcher.stdout.readline().strip()

    def spawn(self) -> int:
        """Start one more server process; return its pid (it serves once its app is built)."""
        if self.launcher.poll() is not None:
            raise SupervisorError(f"the server launcher exited (see {self.log_path})")
        assert self.launcher.stdin is not None
        self.launcher.stdin.write("spawn\n")
        self.launcher.stdin.flush()
        line = self._read_line(30)
        if not line.isdigit():
            raise SupervisorError(f"the launcher did not fork a server: {line!r}")
        pid = int(line)
        self.pids.append(pid)
        return pid

    def start(self, processes: int = 1, timeout: float = 120.0) -> None:
        """Start ``processes`` server processes and wait until the API answers."""
        for _ in range(processes):
            self.spawn()
        self.wait_ready(timeout)

    def wait_ready(self, timeout: float = 120.0) -> float:
        """Block until a server answers ``GET /api/v1/games``; return the seconds waited."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        while time.monotonic() < deadline:
            try:
                r = httpx.get(self.base_url + "/api/v1/games", timeout=max(0.1, deadline - time.monotonic()))
                if r.status_code == 200:
                    return time.monotonic() - t0
            except httpx.TransportError:
                time.sleep(0.02)
            self._check_alive()
        raise SupervisorError(f"no server answered within {timeout:g} s (see {self.log_path})")

    def _check_alive(self) -> None:
        alive = [p for p in self.pids if _alive(p)]
        if self.pids and not alive:
            raise SupervisorError(f"every server process exited (see {self.log_path})")

    def kill(self, pid: int | None = None, rng: random.Random | None = None) -> int:
        """SIGKILL one server process (a random one unless ``pid``) and wait until it is gone."""
        if pid is None:
            pid = (rng or random).choice(self.pids)
        os.kill(pid, signal.SIGKILL)
        self.pids.remove(pid)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.002)
        self.kills += 1
        return pid

    def restart(self, timeout: float = 120.0) -> float:
        """Kill a random server process, start a fresh one, wait until it serves; return the downtime (s)."""
        t0 = time.monotonic()
        self.kill()
        self.spawn()
        self.wait_ready(timeout)
        return time.monotonic() - t0

    def close(self) -> None:
        """Kill every server process and stop the launcher."""
        for pid in list(self.pids):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.pids.clear()
        if self.launcher.poll() is None:
            try:
                assert self.launcher.stdin is not None
                self.launcher.stdin.write("quit\n")
                self.launcher.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            try:
                self.launcher.wait(10)
            except subprocess.TimeoutExpired:
                self.launcher.kill()
                self.launcher.wait()
        if self.launcher.stdout is not None:
            self.launcher.stdout.close()
        self.sock.close()
        self._log.close()

    def __enter__(self) -> ServerSupervisor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A killed child of the launcher is reaped at once (SIGCHLD ignored); a zombie would still be "alive".
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][:1] != "Z"
    except OSError:
        return False
