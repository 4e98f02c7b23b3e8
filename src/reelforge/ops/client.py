"""The game server's HTTP API seen from a client, on httpx: the one client of the tools (the soak, the
server benchmarks, the API fuzzer) and of the tests.

Each endpoint is written once, as a method that builds a :class:`Call`; :class:`ApiClient` sends it on a
blocking ``httpx.Client`` (FastAPI's ``TestClient`` is one) and :class:`AsyncApiClient` on an
``httpx.AsyncClient`` (its methods return awaitables). Money requests carry a fresh
``Idempotency-Key`` unless the caller gives one (to retry the same request after a lost answer).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

API = "/api/v1"


def new_key() -> str:
    """A fresh idempotency key."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Call:
    """One request to the API: method, path under ``/api/v1``, JSON body and extra headers."""

    method: str
    path: str
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def _money(key: str | None, headers: dict[str, str] | None = None) -> dict[str, str]:
    return {**(headers or {}), "Idempotency-Key": key or new_key()}


class Endpoints:
    """The endpoints, each building its :class:`Call` and handing it to ``send`` (sync or async)."""

    token: str | None = None
    operator_key: str | None = None

    def send(self, call: Call) -> Any:  # pragma: no cover - defined by the two clients
        raise NotImplementedError

    def headers(self, call: Call) -> dict[str, str]:
        """The call's headers plus the session token, when there is one."""
        return {"Authorization": f"Bearer {self.token}", **call.headers} if self.token else dict(call.headers)

    def _operator(self) -> dict[str, str]:
        if self.operator_key is None:
            raise ValueError("this client has no operator key")
        return {"X-Operator-Key": self.operator_key}

    def games(self) -> Any:
        return self.send(Call("GET", "/games"))

    def open_session(self, player: str, as_operator: bool = False) -> Any:
        """``POST /sessions`` (with the operator key in operator mode); the answer's token is the caller's
        to keep (:meth:`use_session`)."""
        return self.send(Call("POST", "/sessions", {"player": player}, self._operator() if as_operator else {}))

    def use_session(self, token: str) -> None:
        """Send later requests with this session token."""
        self.token = token

    def start_round(self, game: str, bet: int, key: str | None = None, **body: Any) -> Any:
        return self.send(Call("POST", f"/games/{game}/rounds", {"bet": bet, **body}, _money(key)))

    def step(self, round_id: int, action: str | None = None, key: str | None = None) -> Any:
        return self.send(Call("POST", f"/rounds/{round_id}/steps", {} if action is None else {"action": action},
                              _money(key)))

    def wallet(self) -> Any:
        return self.send(Call("GET", "/wallet"))

    def unfinished(self, game: str) -> Any:
        return self.send(Call("GET", f"/games/{game}/rounds/unfinished"))

    def deposit(self, player: str, amount: int, key: str | None = None) -> Any:
        return self.send(Call("POST", f"/operator/players/{player}/deposits", {"amount": amount},
                              _money(key, self._operator())))

    def withdraw(self, player: str, amount: int, key: str | None = None) -> Any:
        return self.send(Call("POST", f"/operator/players/{player}/withdrawals", {"amount": amount},
                              _money(key, self._operator())))


class ApiClient(Endpoints):
    """Blocking client; ``http`` is any ``httpx.Client`` (its ``base_url`` is the server's)."""

    def __init__(self, http: httpx.Client, token: str | None = None, operator_key: str | None = None) -> None:
        self.http, self.token, self.operator_key = http, token, operator_key

    @classmethod
    def connect(cls, base_url: str, timeout: float = 60.0, **options: Any) -> ApiClient:
        """A client on its own keep-alive connection pool to ``base_url``."""
        return cls(httpx.Client(base_url=base_url, timeout=timeout), **options)

    def send(self, call: Call) -> httpx.Response:
        return self.http.request(call.method, API + call.path, json=call.json, headers=self.headers(call))

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> ApiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncApiClient(Endpoints):
    """Asynchronous client; ``http`` is any ``httpx.AsyncClient``; every endpoint method returns an awaitable."""

    def __init__(self, http: httpx.AsyncClient, token: str | None = None, operator_key: str | None = None) -> None:
        self.http, self.token, self.operator_key = http, token, operator_key

    @classmethod
    def connect(cls, base_url: str, timeout: float = 60.0, connections: int | None = None,
                **options: Any) -> AsyncApiClient:
        """A client to ``base_url``; ``connections``: the most it opens at once (1: one keep-alive connection)."""
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        return cls(httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(timeout), limits=limits), **options)

    async def send(self, call: Call) -> httpx.Response:
        return await self.http.request(call.method, API + call.path, json=call.json, headers=self.headers(call))

    async def aclose(self) -> None:
        await self.http.aclose()


class Calls(Endpoints):
    """The endpoints as unsent :class:`Call` values: built once, sent (and after a lost answer resent, with the
    same idempotency key) by :meth:`AsyncApiClient.send` or :meth:`ApiClient.send`."""

    def send(self, call: Call) -> Call:
        return call


CALLS = Calls()
