"""Support and reporting (docs/OPERATORS.md): the operator's round queries and round details, the support page,
signed replay links and the page they open, and the daily revenue report. Every call reads only; the operator's
key or the read-only support key opens them (:func:`reelforge.server.support.reader`)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import FastAPI, Header, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import Field, StrictInt

from reelforge.server.api.common import MAX_ID, Auth, Context, GameFilter, OperatorKey, RoundId, _Strict
from reelforge.server.api.operator import parse
from reelforge.server.auth import PLAYER_NAME_PATTERN
from reelforge.server.errors import ApiError
from reelforge.server.revenue import ReportError, parse_day, parse_rates_text, revenue_report
from reelforge.server.round_page import refusal_page, round_page
from reelforge.server.store import round_ids_key
from reelforge.server.support import (
    MAX_PAGE,
    REPLAY_LINK_DEFAULT_SECONDS,
    STATUSES,
    ReplayLinkRefused,
    RoundQuery,
    check_replay_link,
    find_round,
    issue_replay_link,
    parse_time,
    query_rounds,
    reader,
    replay_key,
    round_details,
)

SupportKey = Annotated[str | None, Header(alias="X-Support-Key", description="the support role's key (read-only)")]
_TIME = "ISO 8601 with a time zone (2026-12-04T10:00:00Z) or a date (its 00:00 UTC)"


class ReplayLinkRequest(_Strict):
    expires_in_seconds: StrictInt = Field(REPLAY_LINK_DEFAULT_SECONDS, ge=1, le=90 * 24 * 3600,
                                          description="how long the link works (default 7 days, at most 90)")


def _title(service: Any, game_id: str) -> str:
    active = service.games.get(game_id)
    return active.game.title if active is not None else game_id


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the support and reporting routes to ``app``."""
    service, config = ctx.service, ctx.config
    keys: dict[str, bytes] = {}

    def signing_key() -> bytes:
        if "replay" not in keys:  # the database's key of public round ids, read once
            keys["replay"] = replay_key(round_ids_key(ctx.engine))
        return keys["replay"]

    async def off_loop(fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    @app.get("/api/v1/operator/rounds", tags=["support"])
    async def rounds(
        player: Annotated[str | None, Query(min_length=1, max_length=64, pattern=PLAYER_NAME_PATTERN,
                                            description="only this player's rounds (the name as launched)")] = None,
        game: GameFilter = None,
        since: Annotated[str | None, Query(alias="from", max_length=40,
                                           description=f"rounds started at or after this time: {_TIME}")] = None,
        until: Annotated[str | None, Query(alias="to", max_length=40,
                                           description=f"rounds started before this time: {_TIME}")] = None,
        status: Annotated[str | None, Query(max_length=16, description=f"one of {', '.join(STATUSES)}")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description=f"page size (1-{MAX_PAGE})")] = 50,
        cursor: Annotated[int | None, Query(ge=1, le=MAX_ID, description="paging: the previous page's "
                                                                         "next_cursor")] = None,
        x_operator_key: OperatorKey = None, x_support_key: SupportKey = None, authorization: Auth = None,
    ) -> JSONResponse:
        """Operator or support: the brand's rounds by player, game, start time and status, newest first,
        ``limit`` a page; ``next_cursor`` pages on (the same filters with ``cursor``)."""
        who = reader(config, x_operator_key, x_support_key, authorization)
        query = RoundQuery(player, game, None if since is None else parse_time(since, "from"),
                           None if until is None else parse_time(until, "to"), status).check()
        return JSONResponse(await off_loop(query_rounds, service, who.brand, query, limit, cursor))

    @app.get("/api/v1/operator/rounds/{round_id}", tags=["support"])
    async def round_json(round_id: RoundId, x_operator_key: OperatorKey = None, x_support_key: SupportKey = None,
                         authorization: Auth = None) -> JSONResponse:
        """Operator or support: one round of the brand in full (steps, fair data, player, wallet calls or
        balance entries)."""
        who = reader(config, x_operator_key, x_support_key, authorization)
        return JSONResponse(await off_loop(lambda: round_details(service, find_round(service, who.brand, round_id))))

    @app.get("/support/rounds/{round_id}", tags=["support"], response_class=HTMLResponse)
    async def support_page(round_id: RoundId, x_operator_key: OperatorKey = None, x_support_key: SupportKey = None,
                           authorization: Auth = None) -> HTMLResponse:
        """Operator or support (or HTTP Basic with either key as the password): the round's support page."""
        try:
            who = reader(config, x_operator_key, x_support_key, authorization)
        except ApiError as exc:
            if exc.status == 401:  # a browser asks its user for the key
                exc.headers = {"WWW-Authenticate": 'Basic realm="reelforge support", charset="UTF-8"'}
            raise
        details = await off_loop(lambda: round_details(service, find_round(service, who.brand, round_id)))
        return HTMLResponse(round_page(details, _title(service, details["game"]), support=True),
                            headers={"Cache-Control": "no-store"})

    @app.post("/api/v1/operator/rounds/{round_id}/replay-links", tags=["support"], status_code=201,
              openapi_extra={"requestBody": {"required": False, "content": {
                  "application/json": {"schema": ReplayLinkRequest.model_json_schema()}}}})
    async def replay_link(round_id: RoundId, request: Request, x_operator_key: OperatorKey = None,
                          x_support_key: SupportKey = None, authorization: Auth = None) -> JSONResponse:
        """Operator or support: a signed link to a read-only replay of the round that works without a session
        until it expires (a player's dispute). Nothing is stored: the link carries its round, expiry and
        signature."""
        who = reader(config, x_operator_key, x_support_key, authorization)
        body = parse(ReplayLinkRequest, await request.body())
        rnd = await off_loop(find_round, service, who.brand, round_id)
        base = config.brand(who.brand).operator.launch_url or str(request.base_url)
        return JSONResponse(issue_replay_link(signing_key(), base, service.ids.public(rnd.id),
                                              body.expires_in_seconds), status_code=201)

    @app.get("/replay/{round_id}", tags=["support"], response_class=HTMLResponse)
    async def replay_page(round_id: RoundId, expires: Annotated[str | None, Query(max_length=20)] = None,
                          signature: Annotated[str | None, Query(max_length=128)] = None) -> HTMLResponse:
        """Anyone with a signed replay link: the round's read-only replay (403 altered, 410 expired)."""
        try:
            check_replay_link(signing_key(), round_id, expires, signature)
        except ReplayLinkRefused as exc:
            return HTMLResponse(refusal_page(exc.status, str(exc)), status_code=exc.status)
        details = await off_loop(lambda: round_details(service, find_round(service, None, round_id), False))
        return HTMLResponse(round_page(details, _title(service, details["game"]), support=False),
                            headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    @app.get("/api/v1/operator/reports/revenue", tags=["support"],
             responses={200: {"content": {"text/csv": {}}, "description": "JSON, or CSV with format=csv"}})
    async def revenue(
        day: Annotated[str, Query(alias="date", max_length=10, description="the day, YYYY-MM-DD (UTC)")],
        to: Annotated[str | None, Query(max_length=3, description="reporting currency (ISO 4217)")] = None,
        rates: Annotated[str | None, Query(max_length=2000, description="CODE:RATE,... (1 CODE = RATE of to), "
                                                                        "exact decimals")] = None,
        fmt: Annotated[str, Query(alias="format", pattern="^(json|csv)$", description="json or csv")] = "json",
        x_operator_key: OperatorKey = None, x_support_key: SupportKey = None, authorization: Auth = None,
    ) -> Response:
        """Operator or support: the brand's daily revenue per game, currency and kind of round (rounds, stakes,
        wins, refunds, GGR), converted into ``to`` at ``rates`` when given (the figures of ``/metrics``)."""
        who = reader(config, x_operator_key, x_support_key, authorization)
        try:
            report = await off_loop(revenue_report, ctx.engine, config.currencies, parse_day(day), who.brand, to,
                                    parse_rates_text(rates) if rates else None)
        except ReportError as exc:
            raise ApiError(422, "bad_report_request", str(exc)) from None
        if fmt == "csv":
            return Response(report.to_csv(), media_type="text/csv; charset=utf-8", headers={
                "Content-Disposition": f'attachment; filename="revenue-{who.brand}-{day}.csv"'})
        return JSONResponse(report.to_json())
