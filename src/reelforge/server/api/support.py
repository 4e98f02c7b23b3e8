"""Support and reporting (docs/OPERATORS.md): the operator's round queries and round details, the support page,
signed replay links and the page they open, and the daily revenue report. Every call reads only; the operator's
key or the read-only support key opens them (:func:`reelforge.server.support.reader`)."""

from __future__ import annotations

import asyncio
from datetime import date, datetime
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Header, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import Field

from reelforge.server.api.common import Auth, Context, GameFilter, OperatorKey, RoundId, WholeNumber, _Strict
from reelforge.server.api.operator import parse
from reelforge.server.auth import PLAYER_NAME_PATTERN
from reelforge.server.errors import ApiError
from reelforge.server.revenue import ReportError, parse_rates_text, revenue_report
from reelforge.server.round_page import refusal_page, round_page
from reelforge.server.roundids import LIMIT
from reelforge.server.store import round_ids_key
from reelforge.server.support import (
    MAX_PAGE,
    REPLAY_LINK_DEFAULT_SECONDS,
    ReplayLinkRefused,
    RoundQuery,
    as_utc,
    check_replay_link,
    find_round,
    issue_replay_link,
    query_rounds,
    reader,
    replay_key,
    round_details,
)

SupportKey = Annotated[str | None, Header(alias="X-Support-Key", description="the support role's key (read-only)")]
_RATE = r"[A-Z]{3}:([1-9][0-9]{0,11}(\.[0-9]{1,12})?|0\.[0-9]{0,11}[1-9][0-9]{0,11})"
"""A rate of the report's query: a currency code and a positive decimal."""
_TIME = "ISO 8601 (2026-12-04T10:00:00Z; without a zone: UTC) or a date (its 00:00 UTC)"


class ReplayLinkRequest(_Strict):
    expires_in_seconds: WholeNumber = Field(REPLAY_LINK_DEFAULT_SECONDS, ge=1, le=90 * 24 * 3600,
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
        since: Annotated[datetime | None, Query(alias="from", description=f"rounds started at or after: {_TIME}")] = None,
        until: Annotated[datetime | None, Query(alias="to", description=f"rounds started before: {_TIME}")] = None,
        status: Annotated[Literal["open", "finished", "void"] | None, Query(description="the rounds' status")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description=f"page size (1-{MAX_PAGE})")] = 50,
        cursor: Annotated[int | None, Query(ge=1, le=LIMIT, description="paging: the previous page's "
                                                                        "next_cursor")] = None,
        x_operator_key: OperatorKey = None, x_support_key: SupportKey = None, authorization: Auth = None,
    ) -> JSONResponse:
        """Operator or support: the brand's rounds by player, game, start time and status, newest first,
        ``limit`` a page; ``next_cursor`` pages on (the same filters with ``cursor``)."""
        who = reader(config, x_operator_key, x_support_key, authorization)
        query = RoundQuery(player, game, as_utc(since, True), as_utc(until, False), status)
        return JSONResponse(await off_loop(query_rounds, service, who.brand, query, limit, cursor))

    @app.get("/api/v1/operator/rounds/{round_id}", tags=["support"])
    async def round_json(round_id: RoundId, x_operator_key: OperatorKey = None, x_support_key: SupportKey = None,
                         authorization: Auth = None) -> JSONResponse:
        """Operator or support: one round of the brand in full (steps, fair data, player, wallet calls or
        balance entries)."""
        who = reader(config, x_operator_key, x_support_key, authorization)
        return JSONResponse(await off_loop(lambda: round_details(service, find_round(service, who.brand, round_id))))

    # The two pages are for browsers (HTML, documented in docs/OPERATORS.md), not operations of the JSON API.
    @app.get("/support/rounds/{round_id}", include_in_schema=False, response_class=HTMLResponse)
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

    @app.get("/replay/{round_id}", include_in_schema=False, response_class=HTMLResponse)
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
        day: Annotated[date, Query(alias="date", description="the day, YYYY-MM-DD (UTC)")],
        to: Annotated[str | None, Query(pattern="^[A-Z]{3}$", description="reporting currency (ISO 4217)")] = None,
        rates: Annotated[str | None, Query(pattern=f"^{_RATE}(,{_RATE}){{0,49}}$",
                                           description="CODE:RATE,... (1 CODE = RATE of to): positive decimals")] = None,
        fmt: Annotated[Literal["json", "csv"], Query(alias="format", description="json or csv")] = "json",
        x_operator_key: OperatorKey = None, x_support_key: SupportKey = None, authorization: Auth = None,
    ) -> Response:
        """Operator or support: the brand's daily revenue per game, currency and kind of round (rounds, stakes,
        wins, refunds, GGR), converted into ``to`` at ``rates`` when given (the figures of ``/metrics``).
        Rates that cannot convert the day (a currency without a rate or unknown here, ``to``'s own rate other
        than 1, rates without ``to``) are 409 ``rates_not_usable``."""
        who = reader(config, x_operator_key, x_support_key, authorization)
        try:
            report = await off_loop(revenue_report, ctx.engine, config.currencies, day, who.brand, to,
                                    parse_rates_text(rates) if rates else None)
        except ReportError as exc:
            raise ApiError(409, "rates_not_usable", str(exc)) from None
        if fmt == "csv":
            return Response(report.to_csv(), media_type="text/csv; charset=utf-8", headers={
                "Content-Disposition": f'attachment; filename="revenue-{who.brand}-{day.isoformat()}.csv"'})
        return JSONResponse(report.to_json())
