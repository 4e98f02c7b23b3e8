"""HTTP hardening that every answer of the server gets (a plain ASGI middleware).

* A request body sent without ``Content-Length`` (chunked transfer encoding)
  is read here, at most ``MAX_BODY + 1`` bytes of it, and refused with a 413
  when it is longer; otherwise the app gets the buffered body. (Bodies with a
  ``Content-Length`` are checked against the limit before anything reads
  them.) Without this, a chunked body of any size was read into memory.
* Security headers on every answer: ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: DENY``, ``Referrer-Policy: no-referrer`` and a
  ``Content-Security-Policy`` under which the browser client works (its own
  origin only, no inline script; inline styles allowed). The interactive API
  docs (``/docs``, ``/redoc``; demo mode only: operator mode serves none)
  load FastAPI's scripts from a CDN and get a policy that allows that; API answers
  (``/api/``: balances, rounds, session tokens) also get
  ``Cache-Control: no-store`` so no cache keeps them.

There is deliberately no CORS middleware: browsers refuse cross-origin
reads of the API, and the browser client is served by the same process.
"""

from __future__ import annotations

import json
from typing import Any

CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                           "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
                           "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
DOCS_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
               "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: "
               "https://fastapi.tiangolo.com; connect-src 'self'; object-src 'none'; base-uri 'none'; "
               "frame-ancestors 'none'")
"""The demo's interactive API docs only (FastAPI's pages load Swagger UI / ReDoc from a CDN)."""
DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")
BASE_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                (b"referrer-policy", b"no-referrer")]
SECURITY_HEADERS = [*BASE_HEADERS, (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())]
DOCS_HEADERS = [*BASE_HEADERS, (b"content-security-policy", DOCS_POLICY.encode())]
NO_STORE = (b"cache-control", b"no-store")


class Hardening:
    """Body limit for chunked requests and security headers (see the module docstring)."""

    def __init__(self, app: Any, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        extra = (DOCS_HEADERS if path in DOCS_PATHS else SECURITY_HEADERS) + \
            ([NO_STORE] if path.startswith("/api/") else [])

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k, v) for k, v in extra if k not in present)]}
            await send(message)

        headers = scope.get("headers", [])
        if not any(k == b"content-length" for k, _ in headers) and \
                any(k == b"transfer-encoding" for k, _ in headers):
            body = bytearray()
            more = True
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > self.max_body:
                    await self._too_large(send_with_headers)
                    return
            sent = False

            async def replay() -> dict[str, Any]:
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": bytes(body), "more_body": False}
                return await receive()

            await self.app(scope, replay, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    async def _too_large(self, send: Any) -> None:
        payload = json.dumps({"error": "body_too_large",
                              "detail": f"request bodies are limited to {self.max_body} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})


ERROR_SCHEMA = {
    "title": "Error", "type": "object", "required": ["error", "detail"],
    "properties": {"error": {"type": "string", "description": "machine-readable code, e.g. bet_not_on_ladder"},
                   "detail": {"type": "string", "description": "what is wrong, for people"}},
}


def document_errors(app: Any) -> None:
    """Make the OpenAPI description tell the truth about refusals.

    FastAPI documents a 422 with its own ``HTTPValidationError`` shape (a list
    of validation errors), but this server answers every refusal, 422
    included, with ``{"error": code, "detail": message}``. Here every
    operation documents ``4XX`` and ``422`` with that shape instead, so
    clients and schema-driven tests (schemathesis) can rely on it.
    """
    original = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = original()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        components["Error"] = ERROR_SCHEMA
        error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        for item in schema.get("paths", {}).values():
            for operation in item.values():
                responses = operation.setdefault("responses", {})
                responses["422"] = {"description": "invalid request (the body or a parameter)", **error}
                responses["4XX"] = {"description": "refused; nothing changed", **error}
        app.openapi_schema = schema
        return schema

    app.openapi = openapi
