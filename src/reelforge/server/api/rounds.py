"""Rounds: start one, play its steps, resume it, history, one round, its audit replay.

The two money requests (start a round, play a step) carry nearly all the
traffic, and FastAPI's per-request machinery (its middleware layers, router,
dependency solving, parameter and body models) cost about as much CPU as the
round transaction. So their endpoints are plain ``request -> response``
coroutines that read their headers, check their path and body with the same
pydantic models and refuse exactly as FastAPI's validation would (the same
:class:`~fastapi.exceptions.RequestValidationError`, answered by the same
handler), served by ordinary Starlette routes ahead of FastAPI's router
(:class:`MoneyRoutes`), inside the body limit and security headers. Each is
declared once, as a :class:`PlainRoute` in the app's routes: that one route is
what :class:`MoneyRoutes` serves and what the OpenAPI description lists, its
parameters and body described from the same :class:`MoneyRequest` its endpoint
checks. Everything else is an ordinary FastAPI route.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match

from reelforge.games.registry import GAME_CLASSES
from reelforge.server.api.common import (
    GAME_ID_PATTERN,
    IDEMPOTENCY_KEY_PATTERN,
    MAX_ID,
    Auth,
    Before,
    Context,
    GameFilter,
    GameId,
    Limit,
    RoundId,
    StartRoundRequest,
    StepRequest,
    check_idempotency_key,
    json_text,
)
from reelforge.server.api.errors import error_response
from reelforge.server.auth import SessionToken, bearer
from reelforge.server.errors import ApiError
from reelforge.server.verify import verify_round

_GAME = TypeAdapter(Annotated[str, Field(min_length=1, max_length=64, pattern=GAME_ID_PATTERN)])
_ROUND = TypeAdapter(Annotated[int, Field(ge=1, le=MAX_ID)])
_GAMES_SEEN: set[str] = set()
"""Game ids in paths that :data:`_GAME` took (a few: valid ids only, and at most 1024 are kept)."""


class PlainRoute(APIRoute):
    """A FastAPI route whose endpoint takes the :class:`Request` and returns the :class:`Response`
    itself: listed, matched and documented like every route (its parameters and body described in
    ``openapi_extra``), and run as a plain Starlette endpoint (no dependency solving, no per-request
    exit stacks; errors answered as the app's exception handlers answer them, since :class:`MoneyRoutes`
    serves it ahead of the app's router and its exception middleware)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        endpoint = self.endpoint

        async def answer(scope: dict[str, Any], receive: Any, send: Any) -> None:
            request = Request(scope, receive)
            try:
                response = await endpoint(request)
            except Exception as exc:  # noqa: BLE001 - answered as the app's handlers answer it
                response = await error_response(request, exc)
            await response(scope, receive, send)

        self.app = answer


class MoneyRoutes:
    """ASGI middleware: a POST that one of ``routes`` (the app's own :class:`PlainRoute` objects) matches is
    answered by it; every other request goes on to the app."""

    def __init__(self, app: Any, routes: list[PlainRoute]) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            for route in self.routes:
                match, child_scope = route.matches(scope)
                if match is Match.FULL:
                    scope.update(child_scope)
                    scope["route"] = route  # its template names the request in the metrics and logs
                    await route.handle(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def _path(adapter: TypeAdapter, name: str, value: str, errors: list[dict[str, Any]]) -> Any:
    if adapter is _ROUND and value.isascii() and value.isdigit() and 1 <= (number := int(value)) <= MAX_ID:
        return number  # what the adapter gives a plain decimal id in range, without its machinery
    if adapter is _GAME and value in _GAMES_SEEN:
        return value  # a game id the adapter took before: it takes it again
    try:
        valid = adapter.validate_python(value)
        if adapter is _GAME and len(_GAMES_SEEN) < 1024:
            _GAMES_SEEN.add(valid)
        return valid
    except ValidationError as exc:
        errors.extend({**e, "loc": ("path", name, *e["loc"])} for e in exc.errors())
        return None


async def _read(request: Request) -> bytes:
    """The request's body, read from its messages as :meth:`Request.body` reads it (without that method's
    async generator and its closing context: a money request's body is one small message)."""
    receive, chunks = request.receive, []
    while True:
        message = await receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)
        elif message["type"] == "http.disconnect":
            raise ClientDisconnect()


async def _body(request: Request, model: type[BaseModel], required: bool, errors: list[dict[str, Any]]) -> Any:
    """The request's body as ``model``, read and checked as FastAPI reads a body parameter: JSON only
    with a JSON content type (anything else is validated as the raw bytes, and refused); an empty body
    (or ``null``) is missing, an error only where ``required``."""
    try:
        raw = await _read(request)
    except Exception as exc:  # the client went away, or the body limit cut it off: as FastAPI answers it
        raise StarletteHTTPException(400, "There was an error parsing the body") from exc
    if not raw:
        data = None
    else:
        content_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
        main, _, sub = content_type.partition("/")
        data = raw
        if main == "application" and (sub == "json" or sub.endswith("+json")):
            try:
                data = json.loads(raw)
            except (ValueError, RecursionError) as exc:  # also invalid UTF-8 and over-long numbers
                raise RequestValidationError([{"type": "json_invalid", "loc": ("body", getattr(exc, "pos", 0)),
                                               "msg": "JSON decode error", "input": {}}]) from exc
    if data is None:
        if required:
            errors.append({"type": "missing", "loc": ("body",), "msg": "Field required", "input": None})
        return None
    try:
        return model.model_validate(data, from_attributes=True)
    except ValidationError as exc:
        errors.extend({**e, "loc": ("body", *e["loc"])} for e in exc.errors())
        return None


@dataclass(frozen=True)
class MoneyRequest:
    """What a money request carries beside its headers: one path parameter and a JSON body. Its endpoint
    checks a request with :meth:`read` and its route is documented with :meth:`described`, from this one
    statement."""

    name: str
    """The path parameter."""
    path: TypeAdapter
    """Its type and limits."""
    model: type[BaseModel]
    """The body."""
    required: bool
    """Whether the body may be left out."""

    async def read(self, request: Request) -> tuple[Any, Any, SessionToken, str]:
        """The request's path parameter, body, session token and Idempotency-Key, checked in FastAPI's
        order: the JSON, then the path and the body together (422), then the token (401) and the key."""
        errors: list[dict[str, Any]] = []
        value = _path(self.path, self.name, request.path_params[self.name], errors)
        body = await _body(request, self.model, self.required, errors)
        if errors:
            raise RequestValidationError(errors)
        headers = request.headers
        return (value, body, bearer(headers.get("authorization")),
                check_idempotency_key(headers.get("idempotency-key")))

    def described(self) -> dict[str, Any]:
        """The OpenAPI description of the request (what FastAPI would derive from a signature)."""
        return {
            "parameters": [
                {"name": self.name, "in": "path", "required": True, "schema": self.path.json_schema()},
                {"name": "Authorization", "in": "header", "required": True, "schema": {"type": "string"},
                 "description": "Bearer <session token>"},
                {"name": "Idempotency-Key", "in": "header", "required": True,
                 "schema": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": IDEMPOTENCY_KEY_PATTERN},
                 "description": "unique per money-changing request (1-200 printable ASCII characters, no "
                                "space at either end); a retry with the same key returns the first answer"}],
            "requestBody": {"required": self.required, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{self.model.__name__}"}}}},
        }


START = MoneyRequest("game", _GAME, StartRoundRequest, required=True)
STEP = MoneyRequest("round_id", _ROUND, StepRequest, required=False)


MONEY_MODELS = tuple(request.model for request in (START, STEP))
"""Request models the plain routes describe by reference (added to the OpenAPI components)."""


def _money_route(app: FastAPI, path: str, endpoint: Any, request: MoneyRequest, **kwargs: Any) -> PlainRoute:
    """Add the POST route of a money request to ``app``'s routes, documented from ``request``; return it."""
    app.router.add_api_route(path, endpoint, methods=["POST"], tags=["rounds"], route_class_override=PlainRoute,
                             openapi_extra=request.described(), **kwargs)
    route = app.router.routes[-1]
    assert isinstance(route, PlainRoute)
    return route


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the rounds routes to ``app``."""
    service = ctx.service

    async def start_round(request: Request) -> Response:
        """Start a round: debit the stake (or feature-buy price) and play the paid spin."""
        began = time.monotonic()
        game, body, token, key = await START.read(request)
        status, text = await ctx.call(service.start_round, token, game, body.bet, body.auto_adjust_bet,
                                      body.buy_feature, key)
        await ctx.pacer.pace(began, status, text)  # no timing tell
        return json_text((status, text))

    async def play_step(request: Request) -> Response:
        """Play the next step of an unfinished round (re-spin, free spin, GEMBOX...)."""
        round_id, body, token, key = await STEP.read(request)
        return json_text(await ctx.call(service.play_step, token, round_id, body and body.action, key))

    # Each money route once: the app lists and documents it, MoneyRoutes serves it.
    money = [_money_route(app, "/api/v1/games/{game}/rounds", start_round, START, status_code=201),
             _money_route(app, "/api/v1/rounds/{round_id}/steps", play_step, STEP)]
    app.add_middleware(MoneyRoutes, routes=money)

    @app.get("/api/v1/games/{game}/rounds/unfinished", tags=["rounds"])
    def unfinished(game: GameId, authorization: Auth = None) -> JSONResponse:
        """The player's unfinished round of a game, to resume it (404 when none)."""
        who = ctx.principal(authorization)
        return JSONResponse(service.unfinished(who.player_id, game))

    @app.get("/api/v1/rounds/unfinished", tags=["rounds"])
    def unfinished_rounds(authorization: Auth = None, game: GameFilter = None) -> JSONResponse:
        """The player's unfinished rounds (of one game with ``game``), each in full: an empty list, not an
        error, when there is none (the lobby asks this on every load)."""
        who = ctx.principal(authorization)
        found = []
        for gid in [game] if game is not None else list(service.games):
            try:
                found.append(service.unfinished(who.player_id, gid))
            except ApiError as exc:
                if exc.code != "no_unfinished_round":
                    raise
        return JSONResponse({"rounds": found})

    @app.get("/api/v1/rounds", tags=["rounds"])
    def history(authorization: Auth = None, limit: Limit = 20, before: Before = None,
                game: GameFilter = None) -> JSONResponse:
        """The player's rounds, newest first (page with ``before=next_before``)."""
        who = ctx.principal(authorization)
        if game is not None and game not in service.games and game not in GAME_CLASSES:
            service.active(game)  # 404 unknown_game (a game that is no longer offered still has its history)
        return JSONResponse(service.history(who.player_id, limit, before, game))

    @app.get("/api/v1/rounds/{round_id}", tags=["rounds"])
    def get_round(round_id: RoundId, authorization: Auth = None) -> JSONResponse:
        """One round in full: every step with its draws, events, win and state."""
        who = ctx.principal(authorization)
        return JSONResponse(service.get_round(who.player_id, round_id))

    @app.get("/api/v1/rounds/{round_id}/verify", tags=["rounds"])
    def verify(round_id: RoundId, authorization: Auth = None) -> JSONResponse:
        """Replay the round's draws through the rules and compare with what was stored and paid."""
        who = ctx.principal(authorization)
        result = verify_round(ctx.engine, service.own_round(who.player_id, round_id), who.player_id)
        if result is None:
            raise ApiError(404, "round_not_found", f"no round {round_id} for this player")
        return JSONResponse({**result, "round": round_id})  # the public id, as the player knows the round

