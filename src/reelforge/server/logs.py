"""The server's logs: one line per request and per round event, as JSON (operators' log pipelines) or
for people (``make run``).

Loggers (all under ``reelforge``, configured by :func:`configure_logging`):

* ``reelforge.requests``: one line per request: ``request_id`` (the client's
  ``X-Request-Id`` when it is a plain token, else a new one; sent back in the
  answer's ``X-Request-Id``), method, path, route template, status,
  milliseconds, and the player and round the request acted on when it did;
* ``reelforge.rounds``: one line per round event (``round_started``,
  ``round_finished``, ``round_voided``, ``round_completed_on_expiry``): request
  id, player, the round's public id, game, build, version, mode, bet, cost,
  win, currency, outcome;
* ``reelforge.server`` and ``reelforge.monitor``: errors and alarms.

What is never logged: session tokens, the operator's key or metrics token,
Idempotency-Keys, headers, query strings, request or answer bodies, and
provably fair server seeds (a round event names the round, not its seed).
A test reads every line a session of play writes and looks for each of them.

When no handler is configured (tests, benchmarks) the request and round
loggers are off and cost one level check per line. In the JSON format the
request and round-event lines go straight to the configured handler's stream
(the same lines, without a log record each: they are the per-request cost);
everything else goes through ``logging`` as usual.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from contextvars import ContextVar
from typing import Any

REQUESTS = logging.getLogger("reelforge.requests")
ROUNDS = logging.getLogger("reelforge.rounds")
WALLET = logging.getLogger("reelforge.wallet")
INFO = logging.INFO
FORMATS = ("json", "human")
_REQUEST_ID = re.compile(rb"^[A-Za-z0-9._:-]{1,64}$")


class RequestInfo:
    """What the request log line tells about one request beyond its path (filled in as it runs)."""

    __slots__ = ("game", "id", "language", "player", "round")

    def __init__(self, request_id: str) -> None:
        self.id = request_id
        self.player: str | None = None
        self.round: int | None = None
        self.game: str | None = None
        self.language: str | None = None  # the session's language (its refusals speak it)


CURRENT: ContextVar[RequestInfo | None] = ContextVar("reelforge_request", default=None)
"""The request being answered (set by :class:`reelforge.server.metrics.Observe`; carried onto the database
threads by :meth:`reelforge.server.api.common.Context.call`)."""


def request_id(headers: list[tuple[bytes, bytes]]) -> str:
    """The request's id: the client's (or load balancer's) ``X-Request-Id`` when it is a plain token of up
    to 64 characters, else a new random one."""
    for name, value in headers:
        if name == b"x-request-id":
            if _REQUEST_ID.match(value):
                return value.decode()
            break
    return os.urandom(8).hex()


def note_player(player: str) -> None:
    """Name the player the current request acts for (in its log line)."""
    info = CURRENT.get()
    if info is not None:
        info.player = player


def note_language(language: str | None) -> None:
    """Name the language of the session the current request acts for (its error messages speak it)."""
    info = CURRENT.get()
    if info is not None and language:
        info.language = language


def request_language() -> str | None:
    """The language of the session the current request acts for (None: no session, or none chosen)."""
    info = CURRENT.get()
    return None if info is None else info.language


def log_request(info: RequestInfo, method: str, path: str, route: str, status: int, seconds: float) -> None:
    """The request's log line (callers check ``REQUESTS.isEnabledFor(INFO)`` first)."""
    fields = {"event": "request", "request_id": info.id, "method": method, "path": path, "route": route,
              "status": status, "ms": round(seconds * 1000, 2)}
    if info.player is not None:
        fields["player"] = info.player
    if info.round is not None:
        fields["round"] = info.round
    if _direct is not None:
        _direct.write("reelforge.requests", fields)
        return
    REQUESTS.info("%s %s  %s  %.0f ms", method, path, status or "no answer", seconds * 1000,
                  extra={"fields": fields, "static": not (path.startswith("/api/") or path in ("/", "/metrics"))})



def round_event(event: str, rnd: Any, public_id: int, player: str | None, currency: str) -> None:
    """Log a round event (``rnd`` a :class:`~reelforge.server.store.RoundRow`, after its transaction
    committed); callers check ``ROUNDS.isEnabledFor(INFO)`` first. Names the round in the request's line too."""
    info = CURRENT.get()
    if info is not None:
        info.round, info.game = public_id, rnd.game
        if player is not None:
            info.player = player
    started = event == "round_started"  # a round decided and ended by its first step logs its end next
    outcome = "staked" if started else "completed_on_expiry" if rnd.completed_on_expiry else rnd.status
    fields = {"event": event, "request_id": info.id if info is not None else None, "player": player,
              "player_id": rnd.player_id, "round": public_id, "game": rnd.game, "build": rnd.build,
              "build_version": rnd.build_version, "mode": rnd.mode, "bet": rnd.bet, "cost": rnd.cost,
              "win": None if started else rnd.win, "currency": currency, "outcome": outcome}
    if rnd.status == "void":
        fields["void_reason"] = rnd.void_reason
    if _direct is not None:
        _direct.write("reelforge.rounds", fields)
        return
    what = {"round_started": f"staked {rnd.cost}", "round_finished": f"won {rnd.win}",
            "round_voided": f"voided, {rnd.cost} refunded",
            "round_completed_on_expiry": f"completed on expiry, won {rnd.win}"}.get(event, event)
    ROUNDS.info("round %s %s %s v%s %s: %s %s (%s)", public_id, rnd.game, rnd.build, rnd.build_version,
                player or f"player #{rnd.player_id}", what, currency, outcome, extra={"fields": fields})


class _JsonLines:
    """The JSON log's request and round-event lines written straight to its handler's stream: the line
    :class:`JsonFormatter` would write, without a log record per line (their cost is the server's per
    request: about 16 us a line through ``logging``, 6 us here). Set by :func:`configure_logging` ("json")."""

    def __init__(self, handler: logging.StreamHandler) -> None:
        self.handler = handler
        self._second = -1
        self._stamp = ""

    def write(self, logger: str, fields: dict[str, Any]) -> None:
        now = time.time()
        second = int(now)
        if second != self._second:  # one strftime a second
            self._second, self._stamp = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        line = (f'{{"ts":"{self._stamp}.{int((now - second) * 1000):03d}Z","level":"info","logger":"{logger}",'
                + _encode(fields)[1:] + "\n")
        self.handler.acquire()
        try:
            self.handler.stream.write(line)
            self.handler.stream.flush()
        finally:
            self.handler.release()


_direct: _JsonLines | None = None
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str).encode
"""One encoder for every line (``json.dumps`` with options builds a new one per call)."""


def event_line(logger: str, fields: dict[str, Any]) -> str:
    """One JSON log line, as :class:`JsonFormatter` writes it, for an event written outside ``logging`` (the
    startup banner)."""
    now = time.time()
    return _encode({"ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z",
                    "level": "info", "logger": logger, **fields})


def wallet_event(level: int, event: str, message: str, **fields: Any) -> None:
    """A wallet event (``reelforge.wallet``): in the JSON log a line with ``event`` and its fields
    (``transaction``, ``kind``, ``round``, ``attempt``, ``error``...), in the human log ``message``."""
    WALLET.log(level, "%s", message, extra={"fields": {"event": event, **fields, "message": message}})


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts`` (UTC, ISO 8601), ``level``, ``logger``, then the record's fields (or
    its ``message``)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                               + f".{int(record.msecs):03d}Z", "level": record.levelname.lower(),
                               "logger": record.name}
        fields = getattr(record, "fields", None)
        if fields is not None:
            out.update(fields)
        else:
            out["message"] = record.getMessage()
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, separators=(",", ":"), ensure_ascii=False, default=str)


class HumanFormatter(logging.Formatter):
    """``12:04:31  POST /api/v1/games/forge-of-gems/rounds  201  14 ms``: the time and the message."""

    def format(self, record: logging.LogRecord) -> str:
        level = "" if record.levelno == INFO else f"{record.levelname}: "
        line = f"{time.strftime('%H:%M:%S', time.localtime(record.created))}  {level}{record.getMessage()}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _not_static(record: logging.LogRecord) -> bool:
    """The human log leaves out the client's static files (scripts, styles): they say nothing about play."""
    return not getattr(record, "static", False)


def configure_logging(fmt: str, stream: Any = None) -> logging.Handler:
    """Send the ``reelforge`` loggers' lines (INFO and up) to ``stream`` (standard output) in ``fmt``
    (``json`` or ``human``); return the handler."""
    global _direct
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    handler = logging.StreamHandler(stream or sys.stdout)
    _direct = _JsonLines(handler) if fmt == "json" else None
    handler.setFormatter(JsonFormatter() if fmt == "json" else HumanFormatter())
    if fmt == "human":
        handler.addFilter(_not_static)
    root = logging.getLogger("reelforge")
    for old in [h for h in root.handlers if getattr(h, "reelforge_log", False)]:
        root.removeHandler(old)
    handler.reelforge_log = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(INFO)
    root.propagate = False
    return handler


def unconfigure_logging(handler: logging.Handler) -> None:
    """Undo :func:`configure_logging` (tests): the handler off, the loggers back to their defaults."""
    global _direct
    _direct = None
    handler.close()
    root = logging.getLogger("reelforge")
    root.removeHandler(handler)
    root.setLevel(logging.NOTSET)
    root.propagate = True
