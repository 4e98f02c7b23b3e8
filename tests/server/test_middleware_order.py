"""The server's own middleware runs outermost (issue 33): a money request, answered by the money routes, never
passes through FastAPI's error, telemetry and body-limit layers (a call and a wrapped ``send`` each, per
request), and an answer from those layers, an unexpected error's 500 included, still gets the request id,
the security headers and its place in the metrics."""

from __future__ import annotations

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.middleware.errors import ServerErrorMiddleware

from reelforge.server.api.rounds import MoneyRoutes
from reelforge.server.app import create_app
from reelforge.server.fairshare import FairShare
from reelforge.server.hardening import Hardening
from reelforge.server.metrics import Observe

from .conftest import demo_config


def _layers(app) -> list[type]:
    """The app's middleware stack, outermost first, down to its first FastAPI layer."""
    layer, found = app.middleware_stack, []
    while layer is not None and type(layer) is not ServerErrorMiddleware:
        found.append(type(layer))
        layer = getattr(layer, "app", None)
    return [*found, type(layer)]


def test_the_servers_own_layers_run_before_fastapis(tmp_path, monkeypatch) -> None:
    calls: list[str] = []
    entered = ServerErrorMiddleware.__call__

    async def counted(self, scope, receive, send):
        if scope["type"] == "http":
            calls.append(scope["path"])
        await entered(self, scope, receive, send)

    monkeypatch.setattr(ServerErrorMiddleware, "__call__", counted)
    app = create_app(demo_config(), f"sqlite:///{tmp_path / 'order.db'}")
    with TestClient(app) as client:
        token = client.post("/api/v1/sessions", json={"player": "order"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        assert _layers(app) == [Observe, Hardening, FairShare, MoneyRoutes, ServerErrorMiddleware]
        started = client.post("/api/v1/games/forge-of-fortunes/rounds", json={"bet": 10},
                              headers={**auth, "Idempotency-Key": "order-1"})
        assert started.status_code == 201, started.text
        stepped = client.post(f"/api/v1/rounds/{started.json()['id']}/steps", json={},
                              headers={**auth, "Idempotency-Key": "order-2"})
        assert stepped.status_code in (200, 409), stepped.text  # 409: the round had ended on its paid spin
        assert client.get("/api/v1/games").status_code == 200
        # The session (an ordinary route) and the games went on to FastAPI; the two money requests did not.
        assert calls == ["/api/v1/sessions", "/api/v1/games"]


def test_an_unexpected_error_is_answered_with_the_request_id_and_security_headers(tmp_path) -> None:
    app = create_app(demo_config(), f"sqlite:///{tmp_path / 'error.db'}")

    def broken() -> None:
        raise RuntimeError("a bug")

    app.router.routes.insert(0, APIRoute("/api/v1/broken", broken))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/broken", headers={"X-Request-Id": "req-broken-1"})
        assert answer.status_code == 500
        assert answer.json()["error"] == "internal_error"
        assert answer.headers["x-request-id"] == "req-broken-1"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["cache-control"] == "no-store"
        metrics = client.get("/metrics").text
    assert 'route="/api/v1/broken"' in metrics and 'status="500"' in metrics
