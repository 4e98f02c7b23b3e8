"""Exception handlers: every refusal is a JSON body ``{"error": code, "detail": detail, "message": message}``
naming the problem: ``message`` says it to the player in the session's language (else the request's
``Accept-Language``, else English)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route

from reelforge.core.i18n import negotiate
from reelforge.server.auth import invalid_player
from reelforge.server.errors import ApiError, database_errors, player_message, storage_error
from reelforge.server.logs import request_language

log = logging.getLogger("reelforge.server")

CATCH_ALL = "/api/{rest:path}"


def validation_message(errors: list[dict[str, Any]]) -> str:
    """One line naming what is wrong with a request, from pydantic's errors."""
    parts = []
    for err in errors:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        if err.get("type") == "missing" and loc == "body":
            parts.append("request body: a JSON object is required")
            continue
        if err.get("type") == "extra_forbidden":
            parts.append(f"{loc}: unknown field")
            continue
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


def error_language(request: Request) -> str:
    """The language a refusal speaks: the session's (noted when its token was read), else the request's
    ``Accept-Language``, else English."""
    return negotiate(request_language(), request.headers.get("accept-language"))


def refusal(request: Request, code: str, detail: str, status: int, headers: Any = None) -> JSONResponse:
    """The JSON answer to a refusal: its code, its detail and the player's message."""
    return JSONResponse({"error": code, "detail": detail, "message": player_message(code, error_language(request))},
                        status_code=status, headers=headers)


def log_storage_error(error: ApiError, exc: BaseException) -> None:
    """One log line per request the database failed (no traceback: the cause is outside the code)."""
    log.error("%s: %s: %s", error.code, type(exc).__name__, " ".join(str(exc).split())[:300])


def count_storage_error(request: Request, code: str) -> None:
    """Count a request the database failed in the app's metrics (``reelforge_db_errors_total``)."""
    app = request.scope.get("app")
    metrics = getattr(getattr(app, "state", None), "metrics", None)
    if metrics is not None:
        metrics.db_errors.labels(code).inc()


async def api_error(request: Request, exc: ApiError) -> JSONResponse:
    if exc.status == 503:
        count_storage_error(request, exc.code)
    return refusal(request, exc.code, exc.detail, exc.status, getattr(exc, "headers", None))


async def storage_failure(request: Request, exc: Exception) -> JSONResponse:
    error = storage_error(exc)
    log_storage_error(error, exc)
    count_storage_error(request, error.code)
    return refusal(request, error.code, error.detail, error.status, error.headers)


async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = list(exc.errors())
    kind = "malformed_json" if any(e.get("type") == "json_invalid" for e in errors) else "invalid_request"
    detail = "the body is not valid JSON" if kind == "malformed_json" else validation_message(errors)
    if kind == "invalid_request" and any(e.get("type") == "string_pattern_mismatch" and
                                         e.get("loc", ())[-1:] == ("player",) for e in errors):
        refused = invalid_player()  # the same answer as every other place that checks a name
        return refusal(request, refused.code, refused.detail, refused.status)
    return refusal(request, kind, detail, 422)


async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
        # FastAPI's answer to a body its JSON parser gives up on (a 5,000-digit number, nesting over
        # the recursion limit, invalid UTF-8): the same refusal as any other unreadable JSON.
        return refusal(request, "malformed_json", "the body is not valid JSON", 422)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return refusal(request, code, str(exc.detail), exc.status_code, exc.headers)  # a 405's Allow


async def internal_error(request: Request, exc: Exception) -> JSONResponse:
    log.exception("internal error", exc_info=exc)
    return refusal(request, "internal_error", "internal server error", 500)


def handlers() -> list[tuple[type[BaseException], Any]]:
    """Each exception class the server answers and its handler, the most specific first."""
    return [(ApiError, api_error), *((cls, storage_failure) for cls in database_errors()),
            (RequestValidationError, invalid_request), (StarletteHTTPException, http_error),
            (Exception, internal_error)]


async def error_response(request: Request, exc: Exception) -> JSONResponse:
    """The answer to ``exc``, as the app's exception handlers give it (for routes served ahead of them)."""
    return await next(handler for cls, handler in handlers() if isinstance(exc, cls))(request, exc)


def install(app: FastAPI) -> None:
    """Answer every error as JSON: refusals, invalid requests, storage failures, unknown paths, bugs
    (database errors handled here keep the connection open: no 500 re-raise)."""
    for cls, handler in handlers():
        app.add_exception_handler(cls, handler)


def add_catch_all(app: FastAPI) -> None:
    """Under /api/ nothing falls through to the static files: a path an operation has, asked with
    another method, is a 405 naming that operation's methods; any other path a 404."""

    @app.api_route(CATCH_ALL, methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
                   include_in_schema=False)
    def not_an_operation(request: Request, rest: str) -> JSONResponse:
        allowed = sorted({m for route in app.routes if isinstance(route, Route) and route.path != CATCH_ALL
                          and route.methods and route.matches(request.scope)[0] is Match.PARTIAL
                          for m in route.methods})
        if allowed:
            return refusal(request, "method_not_allowed", "Method Not Allowed", 405, {"Allow": ", ".join(allowed)})
        return refusal(request, "not_found", "Not Found", 404)
