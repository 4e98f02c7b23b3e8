"""The game server's HTTP API (FastAPI), versioned under ``/api/v1``.

Build it with :func:`create_app`. Every refusal is a 4xx JSON body
``{"error": code, "detail": message}``; money-changing requests need an
``Idempotency-Key`` header (a retry with the same key returns the first
answer; the same key with a different request is a 409).
"""

from __future__ import annotations

import json
import logging
import pathlib
import re
import threading
import time
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr, ValidationError
from sqlalchemy import Engine, func, select
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

import reelforge
from reelforge.games.registry import GAME_CLASSES
from reelforge.server.auth import (
    DEMO_REFUSED,
    PLAYER_NAME_PATTERN,
    Principal,
    authenticate,
    bearer,
    check_player_name,
    demo_players,
    invalid_player,
    open_session,
)
from reelforge.server.config import DEFAULT_DATABASE, MAX_BET, ConfigError, ServerConfig
from reelforge.server.db import Checkpointer, is_sqlite, open_database, read_transaction
from reelforge.server.errors import ApiError, database_errors, storage_error
from reelforge.server.hardening import Hardening, document_errors
from reelforge.server.rounds import ActiveGame, DrawFactory, RoundService, dumps, request_hash, to_jsonable
from reelforge.server.schema import ledger, players, sessions
from reelforge.server.store import parse_ts, transaction
from reelforge.server.verify import verify_round
from reelforge.server.wallet import iso, ledger_page, lock_player, post_entry, utcnow

log = logging.getLogger("reelforge.server")

MAX_BODY = 16 * 1024
WEB_DIR = pathlib.Path(__file__).resolve().parent.parent / "web"
"""The browser client's static files (``reelforge/web``)."""
MAX_ID = 2**62
CATCH_ALL = "/api/{rest:path}"
GAME_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
"""What a game id is (lower-case letters, digits and hyphens); anything else is no game."""
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]([\x20-\x7e]{0,198}[\x21-\x7e])?$"
"""An Idempotency-Key: 1-200 printable ASCII characters, not starting or ending with a space (HTTP strips
those), as the OpenAPI description states."""
_IDEM_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
GameId = Annotated[str, Path(min_length=1, max_length=64, pattern=GAME_ID_PATTERN,
                             description="game id, e.g. forge-of-fortunes")]
GameFilter = Annotated[str | None, Query(min_length=1, max_length=64, pattern=GAME_ID_PATTERN,
                                         description="only rounds of this game (a game id)")]
PlayerName = Annotated[str, Path(min_length=1, max_length=64, pattern=PLAYER_NAME_PATTERN,
                                 description="player name: letters, digits and _ . @ -")]
RoundId = Annotated[int, Path(ge=1, le=MAX_ID, description="round id")]
Limit = Annotated[int, Query(ge=1, le=100, description="page size (1-100)")]
Before = Annotated[int | None, Query(ge=1, le=MAX_ID, description="only entries with a smaller id (paging)")]
IdemKey = Annotated[str | None, Header(alias="Idempotency-Key",
                                       json_schema_extra={"pattern": IDEMPOTENCY_KEY_PATTERN, "maxLength": 200},
                                       description="unique per money-changing request (1-200 printable ASCII "
                                                   "characters, no space at either end)")]
Auth = Annotated[str | None, Header(alias="Authorization", description="Bearer <session token>")]
OperatorKey = Annotated[str | None, Header(alias="X-Operator-Key", description="the operator's API key")]


def _whole(value: Any) -> Any:
    """A JSON number that is an integer written with a fraction or an exponent (``10.0``, ``1e1``) as
    that integer: the OpenAPI description (JSON Schema 2020-12) counts it as one. Every other value is
    left to the strict integer check, which refuses it (``10.5``, ``1e400``, ``"10"``, ``true``)."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SessionRequest(_Strict):
    player: StrictStr = Field(min_length=1, max_length=64, pattern=PLAYER_NAME_PATTERN,
                              description="player name: letters, digits and _ . @ -")


class StartRoundRequest(_Strict):
    bet: WholeNumber = Field(ge=1, le=MAX_BET, description="total bet in minor units, a value of the game's bet ladder")
    auto_adjust_bet: StrictBool = Field(False, description="lower the bet to the highest the balance covers")
    buy_feature: StrictBool | Annotated[str, Field(max_length=32)] | None = Field(
        None, description="true (or the mode name) to buy the game's feature")


class StepRequest(_Strict):
    action: Annotated[str, Field(min_length=1, max_length=32)] | None = Field(
        None, description="optional step action (the game's step_actions)")


class AmountRequest(_Strict):
    amount: WholeNumber = Field(ge=1, le=MAX_BET, description="minor units")


def _idem_key(key: str | None) -> str:
    if key is None:
        raise ApiError(400, "missing_idempotency_key",
                       "money-changing requests need an Idempotency-Key header (a unique string per request)")
    if not _IDEM_KEY.fullmatch(key):
        raise ApiError(400, "bad_idempotency_key",
                       "Idempotency-Key must be 1-200 printable ASCII characters, without a space at either end")
    return key


def _validation_message(errors: list[dict[str, Any]]) -> str:
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


class BodyLimit:
    """Refuse request bodies over :data:`MAX_BODY` bytes with a 413 before anything reads them
    (a plain ASGI middleware: Starlette's ``BaseHTTPMiddleware`` costs too much per request)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            length = next((v for k, v in scope["headers"] if k == b"content-length"), None)
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                response = JSONResponse({"error": "body_too_large",
                                         "detail": f"request bodies are limited to {MAX_BODY} bytes"}, status_code=413)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class HotPath:
    """Serves the two money endpoints (start a round, play a step) straight from ASGI.

    FastAPI's request machinery (routing through every route, dependency
    solving, the exception-handling layers) costs about as much CPU per
    request as the round transaction itself, and these two endpoints carry
    nearly all the traffic. A well-formed request (the path, a JSON body
    that the endpoint's pydantic model accepts) is answered here by the same
    service calls the routes make; anything else (a malformed path, body or
    content type) goes on, body and all, to the FastAPI route, which gives
    the usual refusals. So the API, its validation and its error answers are
    those of the routes, which also keep documenting the endpoints (OpenAPI).
    This middleware runs inside the hardening layers (body limits, security
    headers) like every route.
    """

    START = re.compile(r"/api/v1/games/([^/]{1,64})/rounds")
    STEP = re.compile(r"/api/v1/rounds/([1-9][0-9]{0,18})/steps")

    def __init__(self, app: Any, start: Any, step: Any) -> None:
        self.app = app
        self.start = start
        self.step = step

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope.get("root_path"):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        start = self.START.fullmatch(path)
        step = None if start else self.STEP.fullmatch(path)
        if start is None and step is None:
            await self.app(scope, receive, send)
            return
        headers = dict(reversed(scope["headers"]))  # the first of a repeated header, as Starlette's .get
        content_type = headers.get(b"content-type", b"").partition(b";")[0].strip().lower()
        chunks = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        answer = None
        if content_type == b"application/json":
            answer = self._answer(start, step, body, headers)
        if answer is None:  # not a well-formed request: the route answers (and refuses) it
            sent = False

            async def replay() -> dict[str, Any]:
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await self.app(scope, replay, send)
            return
        status, text, extra = await answer
        payload = text.encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-length", str(len(payload)).encode()),
                                (b"content-type", b"application/json"), *extra]})
        await send({"type": "http.response.body", "body": payload})

    def _answer(self, start: re.Match | None, step: re.Match | None, body: bytes,
                headers: dict[bytes, bytes]) -> Any:
        """The coroutine answering a well-formed request, or None to leave the request to the route."""
        try:
            if start is not None:
                request = StartRoundRequest.model_validate(json.loads(body))
                args: tuple = (start.group(1), request)
                handler = self.start
            else:
                round_id = int(step.group(1))
                if round_id > MAX_ID:
                    return None
                action = StepRequest.model_validate(json.loads(body)).action if body else None
                args = (round_id, action)
                handler = self.step
        except (ValueError, ValidationError, RecursionError):  # JSONDecodeError, UnicodeDecodeError and
            return None  # too many digits are ValueErrors; RecursionError: nesting too deep for json.loads
        return self._guarded(handler, headers, args)

    @staticmethod
    async def _guarded(handler: Any, headers: dict[bytes, bytes], args: tuple) -> tuple[int, str, list]:
        try:
            status, text = await handler(_header(headers, b"authorization"), _header(headers, b"idempotency-key"),
                                         *args)
            return status, text, []
        except ApiError as exc:
            return exc.status, dumps(exc.body()), _extra_headers(exc)
        except database_errors() as exc:
            error = storage_error(exc)
            log_storage_error(error, exc)
            return error.status, dumps(error.body()), _extra_headers(error)


def _extra_headers(exc: ApiError) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode(), v.encode()) for k, v in getattr(exc, "headers", {}).items()]


def log_storage_error(error: ApiError, exc: BaseException) -> None:
    """One log line per request the database failed (no traceback: the cause is outside the code)."""
    log.error("%s: %s: %s", error.code, type(exc).__name__, " ".join(str(exc).split())[:300])


def _header(headers: dict[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


def create_app(config: ServerConfig, database_url: str | None = None, *, engine: Engine | None = None,
               draw_source_factory: DrawFactory | None = None, allow_demo_players: bool = False) -> FastAPI:
    """The server app for ``config`` on ``database_url`` (schema migrated on creation).

    In operator mode it refuses (:class:`ConfigError`) a database that holds
    demo players, whose play money must never mix with real money, unless
    ``allow_demo_players`` (``serve --allow-demo-players-with-real-money``);
    even then those players and their sessions are refused (403).

    ``draw_source_factory`` exists for tests only (a seeded source that
    reaches a feature deterministically); it is deliberately not settable
    from the configuration file, the environment or the command line, so a
    production server always draws from the OS CSPRNG.
    """
    owns_engine = engine is None
    engine = engine or open_database(database_url or config.database or DEFAULT_DATABASE, config)
    if not config.demo and not allow_demo_players and (n := demo_players(engine)):
        if owns_engine:
            engine.dispose()
        raise ConfigError(f"operator mode refused: the database holds {n} demo player(s) with play money, "
                          "which must not mix with real money; use a database of its own for operator mode "
                          "(or --allow-demo-players-with-real-money: they stay refused)")
    service = RoundService(engine, config, draw_source_factory) if draw_source_factory else \
        RoundService(engine, config)
    stop = threading.Event()

    def expiry_loop() -> None:
        while not stop.wait(config.expiry_check_seconds):
            try:
                n = service.expire()
                if n:
                    log.info("completed %d expired round(s)", n)
                service.purge_sessions()
                service.purge_idempotency()
            except database_errors() as exc:  # the periodic check must survive a database hiccup
                log.error("periodic expiry check failed: %s: %s", type(exc).__name__, " ".join(str(exc).split()))
            except Exception:  # noqa: BLE001
                log.exception("periodic expiry check failed")

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        checkpointer = Checkpointer(engine) if is_sqlite(engine) else None
        if checkpointer is not None:
            checkpointer.start()
        thread = None
        if config.expiry_check_seconds > 0:
            try:
                service.expire()
            except database_errors() as exc:
                log.error("expiry check on start failed: %s: %s", type(exc).__name__, " ".join(str(exc).split()))
            except Exception:  # noqa: BLE001
                log.exception("expiry check on start failed")
            thread = threading.Thread(target=expiry_loop, name="reelforge-expiry", daemon=True)
            thread.start()
        yield
        stop.set()
        if thread is not None:
            thread.join(timeout=5)
        if checkpointer is not None:
            checkpointer.stop()
        if owns_engine:
            engine.dispose()  # closes the pool; SQLite folds and removes its WAL on the last close

    # No OpenTelemetry here: FastAPI's native telemetry would check for providers on every request.
    # Operator mode serves no interactive docs: FastAPI's load their scripts from a CDN. /openapi.json stays.
    docs = {} if config.demo else {"docs_url": None, "redoc_url": None}
    app = FastAPI(title="reelforge game server", version=reelforge.__version__, lifespan=lifespan, **docs,
                  telemetry={"tracing": False, "metrics": False, "logs": False},
                  description="Wallets, step-by-step rounds, history and audit replay. Amounts are integer minor "
                              "units; multiples of the bet are exact fractions in fields ending in _x.")
    inline = is_sqlite(engine)

    async def call(fn: Any, *args: Any) -> Any:
        """Run a database call: inline on SQLite, in the thread pool on PostgreSQL.

        SQLite serialises writers anyway and a request's transaction takes
        about a millisecond, so running it on the event loop saves the thread
        hand-off (and the GIL ping-pong between loop and worker threads); on
        PostgreSQL requests of different players proceed in parallel, so they
        go to threads. Either way more processes (``--workers``) add capacity.
        """
        if inline:
            return fn(*args)
        return await run_in_threadpool(retry_transient, fn, *args)

    def retry_transient(fn: Any, *args: Any) -> Any:
        """``fn(*args)``, run again while PostgreSQL fails it transiently (restarting, a connection cut, out
        of connections), for at most the pool timeout. Safe for money: the idempotency record commits with
        the money, so a request whose COMMIT did reach the database finds its stored answer when run again."""
        deadline = time.monotonic() + config.db_pool_timeout_seconds
        delay = 0.05
        while True:
            try:
                return fn(*args)
            except database_errors():
                if time.monotonic() + delay > deadline:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)

    async def start_answer(authorization: str | None, key: str | None, game: str,
                           body: StartRoundRequest) -> tuple[int, str]:
        token = bearer(authorization)
        key = _idem_key(key)
        return await call(service.start_round, token, game, body.bet, body.auto_adjust_bet, body.buy_feature, key)

    async def step_answer(authorization: str | None, key: str | None, round_id: int,
                          action: str | None) -> tuple[int, str]:
        token = bearer(authorization)
        key = _idem_key(key)
        return await call(service.play_step, token, round_id, action, key)

    # The hot path answers well-formed round requests itself (see HotPath); innermost, so the
    # body limits and security headers apply to it as to every route.
    app.add_middleware(HotPath, start=start_answer, step=step_answer)
    app.add_middleware(BodyLimit)
    app.state.service = service
    app.state.engine = engine
    app.state.config = config
    app.add_middleware(Hardening, max_body=MAX_BODY)  # chunked-body limit, security headers
    document_errors(app)  # OpenAPI: every refusal is {error, detail}

    # -- errors: always JSON, always naming the problem ---------------------------------
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status, headers=getattr(exc, "headers", None))

    async def _storage(_request: Request, exc: Exception) -> JSONResponse:
        error = storage_error(exc)
        log_storage_error(error, exc)
        return JSONResponse(error.body(), status_code=error.status, headers=error.headers)

    for error_class in database_errors():  # handled here, the connection stays open (no 500 re-raise)
        app.add_exception_handler(error_class, _storage)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        kind = "malformed_json" if any(e.get("type") == "json_invalid" for e in errors) else "invalid_request"
        detail = "the body is not valid JSON" if kind == "malformed_json" else _validation_message(errors)
        if kind == "invalid_request" and any(e.get("type") == "string_pattern_mismatch" and
                                             e.get("loc", ())[-1:] == ("player",) for e in errors):
            refusal = invalid_player()  # the same answer as every other place that checks a name
            return JSONResponse(refusal.body(), status_code=refusal.status)
        return JSONResponse({"error": kind, "detail": detail}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
            # FastAPI's answer to a body its JSON parser gives up on (a 5,000-digit number, nesting over
            # the recursion limit, invalid UTF-8): the same refusal as any other unreadable JSON.
            return JSONResponse({"error": "malformed_json", "detail": "the body is not valid JSON"}, status_code=422)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse({"error": code, "detail": str(exc.detail)}, status_code=exc.status_code,
                            headers=exc.headers)  # a 405's Allow

    @app.exception_handler(Exception)
    async def _internal(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error", exc_info=exc)
        return JSONResponse({"error": "internal_error", "detail": "internal server error"}, status_code=500)

    def principal(authorization: str | None) -> Principal:
        return authenticate(engine, authorization, operator=not config.demo)

    def respond(answer: tuple[int, str]) -> Response:
        status, text = answer
        return Response(text, status_code=status, media_type="application/json")

    # -- sessions ------------------------------------------------------------------------
    @app.post("/api/v1/sessions", tags=["sessions"], status_code=201)
    def create_session(body: SessionRequest, x_operator_key: OperatorKey = None) -> JSONResponse:
        """Open a session: demo mode by player name; operator mode with the operator's X-Operator-Key."""
        return JSONResponse(open_session(engine, config, body.player, x_operator_key), status_code=201)

    # -- games ----------------------------------------------------------------------------
    game_list = []
    for gid, active in service.games.items():
        help_ = active.game.help(active.build)
        game_list.append({
            "id": gid, "title": active.game.title, "version": active.game.version, "build": active.config.build,
            "rtp": float(help_.rtp),
            "bet_ladder": list(active.config.bet_ladder), "max_win_x": active.game.max_win_x,
            "modes": list(active.game.modes), "step_actions": list(active.game.step_actions),
            "feature_buy_price_x": (None if (p := active.game.feature_buy_price_x(active.build)) is None
                                    else str(p)),
            "currency": config.currency,
            # Whether floor(bet * win_x) is exact for every bet of the ladder (see rounds.money).
            "exact_wins": all(b % active.game.win_unit(active.build) == 0 for b in active.config.bet_ladder),
        })
    game_list_json = dumps(game_list)

    @app.get("/api/v1/games", tags=["games"])
    def list_games() -> Response:
        """Games offered: active build, RTP, bet ladder (total bets, minor units), max win, feature-buy price."""
        return Response(game_list_json, media_type="application/json")

    @app.get("/api/v1/games/{game}/help", tags=["games"])
    def game_help(game: GameId) -> JSONResponse:
        """Help: title, game id, version, active build and RTP, rules, paytable, bet ladder, max win."""
        active = service.active(game)
        help_ = active.game.help(active.build)
        body = help_.to_json()
        # rtp stays a number in the API (a fraction of the stake); rtp_exact is the exact fraction
        body.update({"rtp": float(help_.rtp), "rtp_exact": str(help_.rtp),
                     "bet_ladder": list(active.config.bet_ladder), "currency": config.currency})
        body["page"].setdefault("sections", []).append(unfinished_section)
        return JSONResponse(body)

    # The platform's rule for interrupted rounds, the same in every game's help.
    unfinished_section = {"title": "Unfinished rounds", "text": [
        "A round is decided when it is staked. If you leave or lose the connection, the game continues "
        "from where you stopped when you open it again.",
        f"A round left unfinished for {config.round_expiry_days:g} days is completed and its win paid; "
        "it is never refunded.",
        "A malfunction voids the round and refunds its stake (malfunction voids all pays and plays)."]}

    @app.get("/api/v1/settings", tags=["games"])
    def settings() -> JSONResponse:
        """The operator's responsible-play rules the client shows and keeps to: reality check interval
        (minutes, 0 off), whether Turbo is offered, the least time between round starts, the maximum bet."""
        return JSONResponse({"currency": config.currency, **config.play.public()})

    # -- wallet --------------------------------------------------------------------------------
    @app.get("/api/v1/wallet", tags=["wallet"])
    def wallet(authorization: Auth = None) -> JSONResponse:
        """The player's balance, and this session's start and net position (won minus staked)."""
        who = principal(authorization)
        with read_transaction(engine) as conn:
            row = conn.execute(select(players.c.balance, players.c.currency)
                               .where(players.c.id == who.player_id)).one()
            started = conn.execute(select(sessions.c.created_at).where(
                sessions.c.token_sha256 == bearer(authorization).sha256)).scalar_one()
            started = parse_ts(started)
            moves = dict(conn.execute(
                select(ledger.c.kind, func.coalesce(func.sum(ledger.c.amount), 0))
                .where(ledger.c.player_id == who.player_id, ledger.c.created_at >= started,
                       ledger.c.kind.in_(("stake", "feature_buy", "refund", "win")))
                .group_by(ledger.c.kind)).all())
        staked = -int(moves.get("stake", 0)) - int(moves.get("feature_buy", 0)) - int(moves.get("refund", 0))
        won = int(moves.get("win", 0))
        return JSONResponse({"player": who.player, "balance": row.balance, "currency": row.currency,
                             "session": {"started_at": iso(started),
                                         "elapsed_seconds": max(0.0, (utcnow() - started).total_seconds()),
                                         "staked": staked, "won": won, "net": won - staked}})

    @app.get("/api/v1/wallet/ledger", tags=["wallet"])
    def wallet_ledger(authorization: Auth = None, limit: Limit = 50, before: Before = None) -> JSONResponse:
        """Every balance change, newest first, with the round it belongs to."""
        who = principal(authorization)
        with read_transaction(engine) as conn:
            return JSONResponse(ledger_page(conn, who.player_id, limit, before))

    # -- rounds --------------------------------------------------------------------------------
    # The two hot endpoints read their headers from the request: FastAPI's header parameters cost
    # about as much per request as the whole round transaction. The OpenAPI description still lists them.
    money_headers = {"parameters": [
        {"name": "Authorization", "in": "header", "required": True, "schema": {"type": "string"},
         "description": "Bearer <session token>"},
        {"name": "Idempotency-Key", "in": "header", "required": True,
         "schema": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": IDEMPOTENCY_KEY_PATTERN},
         "description": "unique per money-changing request (1-200 printable ASCII characters, no space at either "
                        "end); "
                        "a retry with the same key returns the first answer"},
    ]}

    @app.post("/api/v1/games/{game}/rounds", tags=["rounds"], status_code=201, openapi_extra=money_headers)
    async def start_round(game: GameId, body: StartRoundRequest, request: Request) -> Response:
        """Start a round: debit the stake (or feature-buy price) and play the paid spin."""
        status, text = await start_answer(request.headers.get("authorization"),
                                          request.headers.get("idempotency-key"), game, body)
        return Response(text, status_code=status, media_type="application/json")

    @app.post("/api/v1/rounds/{round_id}/steps", tags=["rounds"], openapi_extra=money_headers)
    async def play_step(round_id: RoundId, request: Request, body: StepRequest | None = None) -> Response:
        """Play the next step of an unfinished round (re-spin, free spin, GEMBOX...)."""
        status, text = await step_answer(request.headers.get("authorization"),
                                         request.headers.get("idempotency-key"), round_id,
                                         body.action if body else None)
        return Response(text, status_code=status, media_type="application/json")

    @app.get("/api/v1/games/{game}/rounds/unfinished", tags=["rounds"])
    def unfinished(game: GameId, authorization: Auth = None) -> JSONResponse:
        """The player's unfinished round of a game, to resume it (404 when none)."""
        who = principal(authorization)
        return JSONResponse(service.unfinished(who.player_id, game))

    @app.get("/api/v1/rounds/unfinished", tags=["rounds"])
    def unfinished_rounds(authorization: Auth = None, game: GameFilter = None) -> JSONResponse:
        """The player's unfinished rounds (of one game with ``game``), each in full: an empty list, not an
        error, when there is none (the lobby asks this on every load)."""
        who = principal(authorization)
        ids = [game] if game is not None else list(service.games)
        found = []
        for gid in ids:
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
        who = principal(authorization)
        if game is not None and game not in service.games and game not in GAME_CLASSES:
            service.active(game)  # 404 unknown_game (a game that is no longer offered still has its history)
        return JSONResponse(service.history(who.player_id, limit, before, game))

    @app.get("/api/v1/rounds/{round_id}", tags=["rounds"])
    def get_round(round_id: RoundId, authorization: Auth = None) -> JSONResponse:
        """One round in full: every step with its draws, events, win and state."""
        who = principal(authorization)
        return JSONResponse(service.get_round(who.player_id, round_id))

    @app.get("/api/v1/rounds/{round_id}/verify", tags=["rounds"])
    def verify(round_id: RoundId, authorization: Auth = None) -> JSONResponse:
        """Replay the round's draws through the rules and compare with what was stored and paid."""
        who = principal(authorization)
        result = verify_round(engine, round_id, who.player_id)
        if result is None:
            raise ApiError(404, "round_not_found", f"no round {round_id} for this player")
        return JSONResponse(result)

    # -- operator ---------------------------------------------------------------------------------
    integrity_errors = (IntegrityError, engine.dialect.loaded_dbapi.IntegrityError)

    def operator_transfer(player: str, amount: int, kind: str, key: str | None,
                          x_operator_key: str | None) -> Response:
        if not config.check_api_key(x_operator_key):
            raise ApiError(401 if x_operator_key is None else 403, "operator_key_required",
                           "operator endpoints need the operator's X-Operator-Key header")
        check_player_name(player)
        key = _idem_key(key)
        req = request_hash(kind, player, amount)
        try:
            with transaction(engine) as tx:
                row = tx.one("player_by_name", {"name": player})
                if row is None:
                    raise ApiError(404, "player_not_found", f"no player {player!r} (open a session for it first)")
                if row[4] and not config.demo:
                    raise DEMO_REFUSED
                player_id, balance, currency = lock_player(tx, row[0])

                def act() -> tuple[int, str]:
                    if kind == "deposit" and balance + amount > config.max_balance:
                        raise ApiError(409, "balance_cap_exceeded",
                                       f"a deposit of {amount} would take the balance {balance} over the cap of "
                                       f"{config.max_balance} minor units")
                    new_balance = post_entry(tx, player_id, balance, kind,
                                             amount if kind == "deposit" else -amount, None, utcnow())
                    return 200, dumps({"player": player, "balance": new_balance, "currency": currency})

                return respond(service._idempotent(tx, "operator", key, req, act))
        except integrity_errors:
            # The operator's keys are one scope for all players, but the lock is per player: the same
            # key used at once for two players' transfers collides on the key's primary key (PostgreSQL;
            # SQLite serialises all writers). Everything was rolled back; answer as a retry would.
            with transaction(engine, write=False) as tx:
                stored = tx.one("idem_get", {"scope": "operator", "key": key})
                if stored is None:
                    raise
                return respond(service._stored_answer(tx, stored, req))

    @app.post("/api/v1/operator/players/{player}/deposits", tags=["operator"])
    def deposit(player: PlayerName, body: AmountRequest,
                x_operator_key: OperatorKey = None, idempotency_key: IdemKey = None) -> Response:
        """Operator: credit a player's wallet."""
        return operator_transfer(player, body.amount, "deposit", idempotency_key, x_operator_key)

    @app.post("/api/v1/operator/players/{player}/withdrawals", tags=["operator"])
    def withdraw(player: PlayerName, body: AmountRequest,
                 x_operator_key: OperatorKey = None, idempotency_key: IdemKey = None) -> Response:
        """Operator: debit a player's wallet (never below zero)."""
        return operator_transfer(player, body.amount, "withdrawal", idempotency_key, x_operator_key)

    @app.api_route(CATCH_ALL, methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
                   include_in_schema=False)
    def not_an_operation(request: Request, rest: str) -> JSONResponse:
        """Under /api/ nothing falls through to the static files: a path an operation has, asked with
        another method, is a 405 naming that operation's methods; any other path a 404."""
        allowed = sorted({m for route in app.routes if isinstance(route, APIRoute) and route.path != CATCH_ALL
                          and route.matches(request.scope)[0] is Match.PARTIAL for m in route.methods})
        if allowed:
            return JSONResponse({"error": "method_not_allowed", "detail": "Method Not Allowed"}, status_code=405,
                                headers={"Allow": ", ".join(allowed)})
        return JSONResponse({"error": "not_found", "detail": "Not Found"}, status_code=404)

    # The browser client (static files, no build step), mounted last so the API routes win.
    if WEB_DIR.is_dir():
        app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")
    else:  # an installation without the client: point browsers at the API docs
        @app.get("/", include_in_schema=False)
        def root() -> RedirectResponse:
            return RedirectResponse("/docs")

    describe_offered_games(app, service)
    _ = to_jsonable
    return app


def describe_offered_games(app: FastAPI, service: RoundService) -> None:
    """Make the OpenAPI description state what the server checks per game.

    A round request is valid only with a bet of its game's ladder and a
    feature buy the game has; a ``{game}`` path template cannot say so. So
    each ``/games/{game}/...`` operation is described once per offered game
    (its path spelled out), the round request with that game's bet ladder as
    an ``enum`` and its feature buys; the history filter and the step
    ``action`` list what exists. A request the description allows is then
    refused only for the state it meets (balance, an unfinished round, a used
    key: 402 and 409), never as invalid.
    """
    original = app.openapi
    cache: dict[str, Any] = {}

    def openapi() -> dict[str, Any]:
        if "schema" in cache:
            return cache["schema"]
        schema = original()
        paths = schema["paths"]
        for template in [p for p in paths if "{game}" in p]:
            item = paths.pop(template)
            for game_id, active in service.games.items():
                concrete = {}
                for method, operation in item.items():
                    operation = json.loads(json.dumps(operation))
                    operation["operationId"] = f"{operation['operationId']}_{game_id.replace('-', '_')}"
                    operation["parameters"] = [q for q in operation.get("parameters", []) if q["name"] != "game"]
                    if "requestBody" in operation:
                        operation["requestBody"]["content"]["application/json"]["schema"] = \
                            _round_request_schema(service, active)
                    concrete[method] = operation
                paths[template.replace("{game}", game_id)] = concrete
        actions = sorted({a for active in service.games.values() for a in active.game.step_actions})
        for item in paths.values():
            for operation in item.values():
                for parameter in operation.get("parameters", []):
                    if parameter["name"] == "Idempotency-Key":
                        parameter["required"] = True  # refused (400) without one
                        parameter["schema"] = {"type": "string", "minLength": 1, "maxLength": 200,
                                               "pattern": IDEMPOTENCY_KEY_PATTERN}
                    if parameter["name"] == "game" and parameter["in"] == "query":
                        parameter["schema"] = {"anyOf": [{"type": "string", "enum": sorted(GAME_CLASSES)},
                                                         {"type": "null"}]}
        step = schema["components"]["schemas"].get("StepRequest")
        if step is not None:
            step["properties"]["action"] = {"anyOf": [{"type": "string", "enum": actions}, {"type": "null"}],
                                            "description": "a step action of the round's game (GET /games: "
                                                           "step_actions); refused (409) where its step takes none"}
        cache["schema"] = app.openapi_schema = schema
        return schema

    app.openapi = openapi


def _round_request_schema(service: RoundService, active: ActiveGame) -> dict[str, Any]:
    """The body of a round request of one game: its bet ladder, and its feature buys if it has any."""
    buys = [m for m in active.game.modes if m != "paid"] if active.game.feature_buy_price_x(active.build) else []
    buy: dict[str, Any] = {"anyOf": [{"type": "boolean", "enum": [False]}, {"type": "null"}]}
    if buys:
        buy["anyOf"].append({"type": "string", "enum": buys})
    if len(buys) == 1:  # true names the feature buy only where there is one
        buy["anyOf"].append({"type": "boolean", "enum": [True]})
    return {"type": "object", "additionalProperties": False, "required": ["bet"], "title": "StartRoundRequest",
            "properties": {
                "bet": {"type": "integer", "enum": list(active.config.bet_ladder),
                        "description": "total bet in minor units, a value of the game's bet ladder"},
                "auto_adjust_bet": {"type": "boolean", "default": False,
                                    "description": "lower the bet to the highest the balance covers"},
                "buy_feature": {**buy, "description": "true (or the mode name) to buy the game's feature"}}}
