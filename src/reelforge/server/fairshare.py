"""Fair share under load: rate limits, one request at a time per session, and start answers whose timing
tells nothing of the round's unrevealed steps.

* :class:`FairShare` (ASGI middleware, every ``/api/`` request): a token
  bucket per client address (``ip_requests_per_second``) and per session
  token (``session_requests_per_second``), bursts of twice the rate, each
  answering ``429 rate_limited`` with ``Retry-After`` when empty; and a
  session's requests run one at a time, the others waiting their turn (at
  most :data:`MAX_WAITING`; beyond that ``429 too_many_requests``). So a
  player with many connections gets one request's share of the server, as
  every other player does: requests of different sessions interleave instead
  of queueing behind one player's burst. The limits are per server process.
  The client's address is the peer's own; ``X-Forwarded-For`` is believed
  only from the proxies listed in ``trusted_proxies`` (:class:`ClientAddress`;
  uvicorn's own proxy-header handling is off).
  A session token stands for its player (sessions are opened by the
  operator's platform in operator mode; in demo mode by name, where the
  per-address limit bounds many sessions from one client).
* :class:`StartPacer`: a round start whose round has unrevealed steps is
  answered at a whole multiple of a quantum after the request began, so the
  time spent deciding the whole round (which grows with its unrevealed
  steps: a Gemstones Gold buy of 55 steps took five times as long as one of
  10) does not show in the answer's latency. A round that finished on its
  first step hides nothing and is not padded. The quantum is
  ``round_start_quantum_ms``, raised with the recent deciding times when the
  machine is slow, so a round deciding for longer than its quantum (and
  landing on the next multiple) stays rare.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import ipaddress
import json
import math
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from reelforge.server.errors import refusal_message

MAX_WAITING = 16
"""A session's requests in the server at once (one running, the rest waiting their turn); more: 429."""
_PRUNE_AT = 50_000


class TokenBuckets:
    """A token bucket per key: ``rate`` tokens a second, holding at most ``burst`` (0 rate: no limit)."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, max(burst, 1.0), clock
        self.buckets: dict[Any, list[float]] = {}

    def take(self, key: Any) -> float:
        """Take a token for ``key``: 0 when there was one, else the seconds until there is."""
        if not self.rate:
            return 0.0
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= _PRUNE_AT:
                self._prune(now)
            bucket = self.buckets[key] = [self.burst, now]
        tokens = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
        bucket[1] = now
        if tokens >= 1:
            bucket[0] = tokens - 1
            return 0.0
        bucket[0] = tokens
        return (1 - tokens) / self.rate

    def _prune(self, now: float) -> None:
        """Forget the buckets that are full again (they are as good as new)."""
        full = (self.burst - 1) / self.rate
        self.buckets = {k: b for k, b in self.buckets.items() if now - b[1] < full}


class _Turn:
    """A session's turn: the lock its requests take in order, and how many are in the server."""

    __slots__ = ("lock", "count")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.count = 0


class ClientAddress:
    """The client's address of a request: the peer's, unless the peer is one of the operator's
    ``trusted_proxies``; then the last address of ``X-Forwarded-For`` that is not a trusted proxy (each
    proxy appends the address it got the request from, so the entries left of the last untrusted one are
    the client's to write, and are not believed)."""

    def __init__(self, trusted: tuple[str, ...] = ()) -> None:
        self.trusted = [ipaddress.ip_network(p, strict=False) for p in trusted]

    def _is_trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)

    def __call__(self, scope: dict[str, Any]) -> str:
        client = scope.get("client")
        peer = client[0] if client else ""
        if not self.trusted or not self._is_trusted(peer):
            return peer
        forwarded = b",".join(v for k, v in scope.get("headers", []) if k == b"x-forwarded-for")
        for hop in reversed([h.strip() for h in forwarded.decode("latin-1").split(",") if h.strip()]):
            if not self._is_trusted(hop):
                return hop
        return peer  # a trusted proxy that named no client: its own bucket


class FairShare:
    """The rate limits and the per-session turns of ``/api/`` requests (see the module docstring)."""

    def __init__(self, app: Any, session_rate: float, ip_rate: float, trusted_proxies: tuple[str, ...] = ()) -> None:
        self.app = app
        self.sessions = TokenBuckets(session_rate, 2 * session_rate)
        self.addresses = TokenBuckets(ip_rate, 2 * ip_rate)
        self.client_address = ClientAddress(trusted_proxies)
        self.turns: dict[bytes, _Turn] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith("/api/"):
            await self.app(scope, receive, send)
            return
        wait = self.addresses.take(self.client_address(scope))
        if wait:
            await _refuse(scope, send, "rate_limited", "too many requests from this address", wait)
            return
        authorization = next((v for k, v in scope.get("headers", []) if k == b"authorization"), None)
        if authorization is None:
            await self.app(scope, receive, send)
            return
        key = hashlib.sha256(authorization).digest()  # the token itself is not kept
        wait = self.sessions.take(key)
        if wait:
            await _refuse(scope, send, "rate_limited", "too many requests in this session", wait)
            return
        turn = self.turns.get(key)
        if turn is None:
            turn = self.turns[key] = _Turn()
        if turn.count >= MAX_WAITING:
            await _refuse(scope, send, "too_many_requests",
                          f"this session already has {MAX_WAITING} requests in the server; wait for their answers", 1)
            return
        turn.count += 1
        try:
            async with turn.lock:
                await self.app(scope, receive, send)
        finally:
            turn.count -= 1
            if not turn.count:
                del self.turns[key]


async def _refuse(scope: dict[str, Any], send: Any, code: str, detail: str, wait: float) -> None:
    retry_after = max(1, math.ceil(wait))
    body = json.dumps({"error": code, "detail": f"{detail}; retry in {retry_after} s",
                       "message": refusal_message(code, scope)}).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"retry-after", str(retry_after).encode())]})
    await send({"type": "http.response.body", "body": body})


def has_unrevealed_steps(status: int, text: str) -> bool:
    """Whether a round start's answer is of a round still open (its later steps decided, not shown).
    The first ``"status":`` of a round answer is the round's own (a key of the summary, which comes
    before the steps; within JSON strings a quote is escaped)."""
    if status != 201:
        return False
    at = text.find('"status":')
    return at >= 0 and text.startswith('"status":"open"', at)


class StartPacer:
    """Answers round starts with unrevealed steps on a quantum (see the module docstring).

    The quantum is ``round_start_quantum_ms``, or twice the 95th percentile of
    the last :data:`RECENT` such starts when that is more (a loaded machine
    decides every round more slowly): each start's quantum is set by the
    starts before it, never by its own round, and a start lands beyond its
    quantum only when it took twice as long as all but the slowest few of
    the last 200 (one stalled start, a lock wait, does not move it).
    """

    RECENT = 200

    def __init__(self, quantum: float) -> None:
        self.quantum = quantum
        self.recent: deque[float] = deque()
        """The last :data:`RECENT` deciding times, oldest first; :attr:`ordered` holds them sorted (kept in
        order as they come and go, instead of sorting all of them for every start)."""
        self.ordered: list[float] = []

    async def pace(self, began: float, status: int, text: str) -> None:
        """Wait until the next whole quantum since ``began`` (``time.monotonic()``) when the start's round
        has unrevealed steps."""
        if not self.quantum or not has_unrevealed_steps(status, text):
            return
        elapsed = time.monotonic() - began
        recent = self.ordered
        quantum = max(self.quantum, 2 * recent[int(0.95 * len(recent))]) if recent else self.quantum
        if len(self.recent) == self.RECENT:
            del recent[bisect.bisect_left(recent, self.recent.popleft())]
        self.recent.append(elapsed)
        bisect.insort(recent, elapsed)
        await asyncio.sleep(max(1, math.ceil(elapsed / quantum)) * quantum - elapsed)
