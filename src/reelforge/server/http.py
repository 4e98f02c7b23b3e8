"""The HTTP/1.1 connection limits the server runs under (uvicorn with httptools).

uvicorn's httptools protocol has no limit on a request's headers and no
timeout on a connection that sends nothing or sends its request slowly: one
request with a 32 MiB header was read whole into memory and answered 200,
and idle or slow connections stayed open for as long as their clients liked.
:class:`GuardedHttpTools` adds them (``serve`` runs uvicorn with it):

* headers (request line included) over :data:`MAX_HEADER_BYTES`, or more
  than :data:`MAX_HEADERS` of them: ``431`` and the connection closed; the
  size is checked on the raw bytes while the headers arrive, so an oversized
  header is refused before it is buffered whole;
* a request whose headers and body have not all arrived within
  :data:`REQUEST_TIMEOUT` seconds of its first byte (``request_timeout_seconds``
  in the configuration; :func:`set_request_timeout`): ``408`` and closed; a
  new connection that sends nothing in that time is closed;
* between requests, uvicorn's keep-alive timeout (5 s) closes idle connections;
* at most :data:`MAX_CONNECTIONS` open connections per process
  (``max_connections``, lowered at start to stay below the process's
  descriptor limit, with room for the database pool and files: see
  :func:`connection_limit`). A new connection beyond it closes the
  connection that has been quiet longest among those not running a request
  (a half-sent request gets ``503``); if every connection is running one,
  the new one is answered ``503`` and closed. So a flood of connections that
  send half a request can never take the last descriptor (with the limit at
  1,024 descriptors every accept failed, and the server answered no one for
  up to the 10 s request timeout): it only churns through its own stale
  connections, while connections that keep sending requests keep their
  place. (uvicorn's ``limit_concurrency`` was not enough: it answers 503 once
  a request's headers are in, which a half-sent request never gets to, and
  it keeps the connection's descriptor.)

Besides the limits, an answer leaves in one write on the socket (:class:`_OneWrite`): uvicorn writes an
answer's head (status line and headers) and its body apart, two sends per answer, and on loopback or a
local proxy each send does the receiver's TCP work and wakes it in the server's time.

(h11, uvicorn's other protocol, limits only the header size; hypercorn and
granian were not needed for three limits this small.)
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEADER_BYTES = 16 * 1024
MAX_HEADERS = 100
REQUEST_TIMEOUT = 10.0
MAX_CONNECTIONS = 1000
RESERVED_DESCRIPTORS = 64
"""Descriptors kept free beyond the connections and the database pool (files, the listening socket, logs)."""
on_refusal: Any = None
"""The metrics' counter of refusals by reason (``reelforge_connection_refusals_total``), set by the app."""
_OPEN: dict[GuardedHttpTools, None] = {}
"""This process's open connections, the one quiet longest first (a request moves its connection to the end)."""


def _count(reason: str) -> None:
    if on_refusal is not None:
        on_refusal.labels(reason).inc()


def _answer(status: int, reason: bytes, code: str, detail: str) -> bytes:
    body = json.dumps({"error": code, "detail": detail}).encode()
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
            % (status, reason, len(body))) + body


TOO_LARGE = _answer(431, b"Request Header Fields Too Large", "headers_too_large",
                    f"request headers are limited to {MAX_HEADER_BYTES} bytes and {MAX_HEADERS} fields")


def set_request_timeout(seconds: float) -> None:
    """This process's request timeout (every server process sets it from its configuration)."""
    global REQUEST_TIMEOUT
    REQUEST_TIMEOUT = float(seconds)


def _timed_out_answer() -> bytes:
    return _answer(408, b"Request Timeout", "request_timeout",
                   f"the request did not arrive in full within {REQUEST_TIMEOUT:g} s")


def connection_limit(configured: int, reserved: int) -> int:
    """The connection limit: ``configured``, lowered so that it and ``reserved`` descriptors (the database
    pool's and :data:`RESERVED_DESCRIPTORS`) stay below the process's descriptor limit."""
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return configured
    return max(1, min(configured, soft - reserved - RESERVED_DESCRIPTORS))


def set_connection_limit(limit: int) -> None:
    """This process's connection limit (every server process sets it from its configuration)."""
    global MAX_CONNECTIONS
    MAX_CONNECTIONS = int(limit)


BUSY = _answer(503, b"Service Unavailable", "too_many_connections",
               "the server has too many open connections; retry shortly")


class _Refused(Exception):
    """Stops the parser: the request was refused and answered."""


class _OneWrite:
    """A connection's transport as its answers' cycles write on it: an answer's head (the cycle's first
    write once its response has started) is held and written with the cycle's next write (the body, or a
    streamed body's first part), one send instead of two. Anything else goes straight through; closing
    writes a held head first. One per connection, pointed at each request's cycle in turn (not for HEAD,
    whose head is all there is)."""

    __slots__ = ("transport", "cycle", "head")

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.cycle: Any = None
        self.head: bytes | None = None

    def write(self, data: bytes) -> None:
        head = self.head
        if head is not None:
            self.head = None
            data = head + data
        elif self.cycle is not None and self.cycle.response_started:
            self.cycle, self.head = None, data  # the head (an earlier write, 100 Continue, went straight out)
            return
        self.transport.write(data)

    def close(self) -> None:
        if self.head is not None:  # a head whose body never came (the app failed after starting its answer)
            self.transport.write(self.head)
            self.head = None
        self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with header limits and request timeouts (see the module docstring)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._refused = False
        self._in_headers = False
        self._raw = self._sizes = self._count = 0
        self._deadline: asyncio.TimerHandle | None = None
        if len(_OPEN) >= MAX_CONNECTIONS and not self._make_room():
            self._refused = True
            _count("too_many_connections")
            transport.write(BUSY)
            transport.close()
            return
        _OPEN[self] = None
        self._one_write = _OneWrite(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        _OPEN.pop(self, None)
        self._disarm()
        super().connection_lost(exc)

    def _running(self) -> bool:
        """Whether the app is running a request of this connection that has arrived in full."""
        return self.cycle is not None and not self.cycle.response_complete and not self._in_headers \
            and not self.cycle.more_body

    def _make_room(self) -> bool:
        """Close the connection quiet longest that is not running a request; False when all are."""
        victim = next((c for c in _OPEN if not c._running()), None)
        if victim is None:
            return False
        _OPEN.pop(victim)
        if victim._in_headers or (victim.cycle is not None and victim.cycle.more_body):
            victim._refuse(BUSY)  # a half-sent request is told why
        else:
            victim._disarm()
            victim.transport.close()
        return True

    def _touch(self) -> None:
        if self in _OPEN:  # the most recently active connection goes to the end
            del _OPEN[self]
            _OPEN[self] = None

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(REQUEST_TIMEOUT, self._timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:  # between requests, or nothing sent yet
            if self._in_headers or (self.cycle is not None and self.cycle.more_body):
                _count("request_timeout")
                self.transport.write(_timed_out_answer())
            self.transport.close()
        elif self._in_headers or self.cycle.more_body:  # the app waits for a body that does not come
            self._refuse(_timed_out_answer())

    def _refuse(self, answer: bytes) -> None:
        self._refused = True
        _count("headers_too_large" if answer is TOO_LARGE else "too_many_connections" if answer is BUSY
               else "request_timeout")
        self._disarm()
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True  # the app stops waiting for the rest of the body
            self.cycle.message_event.set()
        self.transport.write(answer)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        self._unset_keepalive_if_required()
        if self._in_headers:
            self._raw += len(data)
        try:
            self.parser.feed_data(data)
        except _Refused:
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError as exc:
            if self._refused or isinstance(exc.__context__, _Refused):
                return
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        if self._in_headers and self._raw > MAX_HEADER_BYTES:
            self._refuse(TOO_LARGE)

    def on_message_begin(self) -> None:
        self._touch()
        super().on_message_begin()
        self._in_headers = True
        self._raw = self._sizes = self._count = 0
        self._arm()

    def on_url(self, url: bytes) -> None:
        self._sizes += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._sizes += len(name) + len(value) + 4
        self._count += 1
        if self._sizes > MAX_HEADER_BYTES or self._count > MAX_HEADERS:
            self._refuse(TOO_LARGE)
            raise _Refused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_headers = False
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None and cycle.transport is self.transport and self.scope["method"] != "HEAD":
            writer = self._one_write
            if writer.head is not None:  # the previous answer's head, its body never written: out first
                writer.transport.write(writer.head)
                writer.head = None
            writer.cycle = cycle
            cycle.transport = writer

    def on_message_complete(self) -> None:
        self._disarm()
        self._touch()
        super().on_message_complete()


def configure(config: Any) -> None:
    """This process's limits from its :class:`~reelforge.server.config.ServerConfig` (every server process
    calls it): the request timeout and the connection limit."""
    set_request_timeout(config.request_timeout_seconds)
    set_connection_limit(connection_limit(config.max_connections, config.db_pool_size + config.db_max_overflow))


def uvicorn_settings(config: Any = None) -> dict:
    """The uvicorn settings every server process runs with (``serve``, the reliability launcher): these
    limits (from ``config``, a :class:`~reelforge.server.config.ServerConfig`; None: the defaults), no
    ``server`` header, a 5 s keep-alive, no access log, and no proxy headers (uvicorn would believe
    ``X-Forwarded-For`` from loopback; the server believes it only from ``trusted_proxies``)."""
    if config is not None:
        configure(config)
    return {"http": GuardedHttpTools, "server_header": False, "timeout_keep_alive": 5, "log_level": "warning",
            "access_log": False, "proxy_headers": False}
