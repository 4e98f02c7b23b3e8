"""Limits on headers and on slow or silent connections, against real server processes (uvicorn with
:class:`~reelforge.server.http.GuardedHttpTools`), on both back ends."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

from reelforge.server.http import MAX_HEADER_BYTES, MAX_HEADERS

from .conftest import LIVE_REQUEST_TIMEOUT as REQUEST_TIMEOUT
from .conftest import LiveServers


def _connect(live: LiveServers) -> socket.socket:
    url = urlparse(live.base_url)
    sock = socket.create_connection((url.hostname, url.port), timeout=REQUEST_TIMEOUT + 10)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def _request(extra: bytes) -> bytes:
    return b"GET /api/v1/games HTTP/1.1\r\nHost: x\r\n" + extra + b"\r\n"


def test_oversized_or_too_many_headers_are_refused_431_before_they_are_buffered(live: LiveServers):
    for extra in (b"X-Big: " + b"a" * (MAX_HEADER_BYTES + 1) + b"\r\n",
                  b"".join(b"X-H%d: 1\r\n" % i for i in range(MAX_HEADERS + 1))):
        with _connect(live) as sock:
            sock.sendall(_request(extra))
            answer = _read_all(sock)  # the server closes the connection after the 431
        assert answer.startswith(b"HTTP/1.1 431 ") and b'"headers_too_large"' in answer, answer[:200]
    with _connect(live) as sock:  # 32 MiB sent in pieces: refused once the limit is passed
        sock.sendall(b"GET /api/v1/games HTTP/1.1\r\nHost: x\r\nX-Huge: ")
        sent = 0
        try:
            while sent < 32 * 2**20:
                sock.sendall(b"a" * 65536)
                sent += 65536
        except OSError:  # closed by the server: the rest is never read
            pass
        assert sent < 32 * 2**20
    with _connect(live) as sock:  # within the limits: answered, the connection kept
        sock.sendall(_request(b"X-Fine: " + b"a" * 1000 + b"\r\n"))
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")


def test_silent_and_slow_connections_are_closed_after_the_request_timeout(live: LiveServers):
    def silent() -> tuple[float, bytes]:
        with _connect(live) as sock:
            t0 = time.monotonic()
            answer = _read_all(sock)
            return time.monotonic() - t0, answer

    def slow_headers() -> tuple[float, bytes]:
        with _connect(live) as sock:
            t0 = time.monotonic()
            sock.sendall(b"GET /api/v1/games HTTP/1.1\r\nHost: x\r\n")
            try:
                for _ in range(int(REQUEST_TIMEOUT * 4) + 20):
                    time.sleep(0.25)
                    sock.sendall(b"X-Drip: 1\r\n")
            except OSError:
                pass
            answer = _read_all(sock)
            return time.monotonic() - t0, answer

    def slow_body() -> tuple[float, bytes]:
        with _connect(live) as sock:
            t0 = time.monotonic()
            sock.sendall(b"POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100\r\n\r\n{")
            answer = _read_all(sock)
            return time.monotonic() - t0, answer

    with ThreadPoolExecutor(3) as pool:
        results = [f.result() for f in [pool.submit(silent), pool.submit(slow_headers), pool.submit(slow_body)]]
    for waited, _answer in results:
        assert REQUEST_TIMEOUT - 0.25 <= waited <= REQUEST_TIMEOUT + 3, results
    assert results[0][1] == b""  # nothing asked, nothing answered
    assert results[1][1].startswith(b"HTTP/1.1 408 ") and results[2][1].startswith(b"HTTP/1.1 408 "), results


def test_answers_name_no_server_software(live: LiveServers):
    with live.client() as c:
        assert "server" not in c.get("/api/v1/games").headers
