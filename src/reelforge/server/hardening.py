"""HTTP hardening that every answer of the server gets (a plain ASGI middleware).

* The one limit on request bodies (``max_body`` bytes, 413 beyond it): a
  ``Content-Length`` over it is refused before anything reads the body; a
  body without one (chunked transfer encoding) is counted as the app reads
  it, and refused as soon as it passes the limit, so no body of any size is
  read into memory.
* Security headers on every answer: ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: DENY``, ``Referrer-Policy: no-referrer`` and a
  ``Content-Security-Policy`` under which the browser client works (its own
  origin only, no inline script; inline styles allowed). The interactive API
  docs (``/docs``, ``/redoc``; off unless a demo configuration sets ``api_docs``)
  load FastAPI's scripts from a CDN and get a policy that allows that; API answers
  (``/api/``: balances, rounds, session tokens) also get
  ``Cache-Control: no-store`` so no cache keeps them.

There is deliberately no CORS middleware: browsers refuse cross-origin
reads of the API, and the browser client is served by the same process.
"""

from __future__ import annotations

import json
from typing import Any

from reelforge.server.errors import refusal_message

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
    """The request body limit and security headers (see the module docstring)."""

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
        too_large = False

        async def send_with_headers(message: dict[str, Any]) -> None:
            if too_large:
                return  # the app's answer to a body cut short: the 413 below goes instead
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k, v) for k, v in extra if k not in present)]}
            await send(message)

        length = next((v for k, v in scope.get("headers", []) if k == b"content-length"), None)
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await self._too_large(scope, send_with_headers)
            return
        received = 0

        async def limited_receive() -> dict[str, Any]:
            # Counted as the app reads (a chunked body has no Content-Length): past the limit the app
            # sees the client gone, and nothing it answers is sent.
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    too_large = True
                    return {"type": "http.disconnect"}
            return message

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except Exception:
            if not too_large:
                raise  # a body cut short fails the app's read of it: that is the 413 below
        if too_large:
            too_large = False
            await self._too_large(scope, send_with_headers)

    async def _too_large(self, scope: dict[str, Any], send: Any) -> None:
        payload = json.dumps({"error": "body_too_large",
                              "detail": f"request bodies are limited to {self.max_body} bytes",
                              "message": refusal_message("body_too_large", scope)}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})


ERROR_SCHEMA = {
    "title": "Error", "type": "object", "required": ["error", "detail"],
    "properties": {"error": {"type": "string", "description": "machine-readable code, e.g. bet_not_on_ladder"},
                   "detail": {"type": "string", "description": "what is wrong, for people"},
                   "message": {"type": "string", "description": "what it means for the player, in the session's "
                                                                "language (else Accept-Language's, else English)"}},
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
