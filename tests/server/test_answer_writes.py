"""An answer leaves the server in one write on its socket, its head (status line and headers) with its body
(issue 33): uvicorn wrote them apart, two sends and two packets per answer. Served by uvicorn with the
server's own protocol and settings on a real socket; the socket transport's writes are recorded (and done)."""

from __future__ import annotations

import asyncio.selector_events
import socket
import threading
import time

import pytest
import uvicorn
from starlette.responses import Response, StreamingResponse

from reelforge.server import http


async def _app(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["path"] == "/stream":
        async def parts():
            yield b"first part;"
            yield b"second part"

        response = StreamingResponse(parts(), media_type="text/plain")
    else:
        response = Response(b'{"echo":' + body + b"}", media_type="application/json")
    await response(scope, receive, send)


@pytest.fixture
def served(monkeypatch):
    """A server on a free port, and the list of every write on its sockets' transports."""
    writes: list[bytes] = []
    transport = asyncio.selector_events._SelectorSocketTransport
    write = transport.write

    def recorded(self, data) -> None:
        writes.append(bytes(data))
        write(self, data)

    monkeypatch.setattr(transport, "write", recorded)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(_app, host="127.0.0.1", port=port, lifespan="off", loop="asyncio",
                                           **http.uvicorn_settings()))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        yield port, writes
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _answer(sock: socket.socket, ends: bytes) -> bytes:
    data = b""
    while not data.endswith(ends):
        chunk = sock.recv(65536)  # a held head ends in the keep-alive timeout's close: an empty read
        assert chunk, f"the connection was closed before the answer came in full: {data!r}"
        data += chunk
    return data


def test_an_answer_is_one_write_and_a_streamed_one_sends_its_head_with_its_first_part(served):
    """One write per answer on a kept-alive connection: a plain one, a streamed one (its head with its
    first part), a HEAD answer (its head, at once), and after a 100 Continue sent at once."""
    port, writes = served
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n42")
        answer = _answer(sock, b'{"echo":42}')
        assert writes == [answer] and answer.startswith(b"HTTP/1.1 200 OK\r\n")
        writes.clear()
        sock.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")  # the same connection, kept alive
        answer = _answer(sock, b"0\r\n\r\n")
        assert len(writes) == 3 and b"".join(writes) == answer
        assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and writes[0].endswith(b"first part;\r\n")
        writes.clear()
        sock.sendall(b"HEAD /echo HTTP/1.1\r\nHost: x\r\n\r\n")  # a head alone: written at once
        answer = _answer(sock, b"\r\n\r\n")
        assert writes == [answer] and answer.startswith(b"HTTP/1.1 200 OK\r\n")
        writes.clear()
        # A client that waits for 100 Continue gets it at once, on its own, before the answer.
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\n"
                     b"Expect: 100-continue\r\n\r\n")
        assert _answer(sock, b"\r\n\r\n") == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(b"7")
        answer = _answer(sock, b'{"echo":7}')
        assert writes == [b"HTTP/1.1 100 Continue\r\n\r\n", answer] and answer.startswith(b"HTTP/1.1 200 OK\r\n")


def test_pipelined_requests_are_answered_whole_and_in_order(served):
    """Two requests in one packet: the second waits for the first (uvicorn queues it), and each answer
    arrives whole, in order, the second in one write."""
    port, writes = served
    one = b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n1"
    two = b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n2"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(one + two)
        both = _answer(sock, b'{"echo":2}')
    first, _, second = both.partition(b'{"echo":1}')
    assert first.startswith(b"HTTP/1.1 200 OK\r\n") and second.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"".join(writes) == both and writes[-1] == second
