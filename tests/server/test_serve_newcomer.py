"""What a newcomer sees from ``reelforge serve --demo`` (``make run``): the address to open, one readable
line per request, a goodbye on Ctrl-C, and a port already in use reported before anything says the page
is ready."""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp_path, port: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "reelforge", "serve", "--demo", "--port", str(port),
                             "--db", f"sqlite:///{tmp_path / 'demo.db'}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def _lines(proc: subprocess.Popen) -> queue.Queue:
    """The server's output lines as they come (a thread reads the pipe: select() cannot see Python's buffer)."""
    q: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in proc.stdout:
            q.put(line)
        q.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return q


def _read_until(lines: queue.Queue, pattern: str, timeout: float = 30) -> str:
    """The output up to the first line matching ``pattern``."""
    seen = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        if line is None:
            break
        seen += line
        if re.search(pattern, line):
            return seen
    raise AssertionError(f"no line matching {pattern!r}; output so far:\n{seen}")


def test_serve_says_where_to_go_logs_each_request_and_says_goodbye(tmp_path):
    port = _free_port()
    proc = _serve(tmp_path, port)
    lines = _lines(proc)
    try:
        out = _read_until(lines, r"Open http://")
        assert f"Open http://127.0.0.1:{port}/ in your browser" in out
        assert "/docs" not in out  # the docs page loads its scripts from a CDN: not advertised
        _read_until(lines, r"One line per request")
        for _ in range(100):  # the server is listening once a request is answered
            try:
                assert httpx.get(f"http://127.0.0.1:{port}/api/v1/games", timeout=2).status_code == 200
                break
            except httpx.TransportError:
                time.sleep(0.1)
        line = _read_until(lines, r"GET /api/v1/games").splitlines()[-1]
        assert re.fullmatch(r"\d\d:\d\d:\d\d  GET /api/v1/games  200  \d+ ms", line), line
        proc.send_signal(signal.SIGINT)
        assert "Goodbye" in _read_until(lines, r"Goodbye")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_port_in_use_is_reported_before_anything_says_the_page_is_ready(tmp_path):
    from typer.testing import CliRunner

    from reelforge.cli import app

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--demo", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 2, result.output
    assert f"port {port} on 127.0.0.1 is already in use" in result.output and "--port" in result.output
    assert "Open http" not in result.output
    assert not (tmp_path / "x.db").exists()  # refused before anything was set up
