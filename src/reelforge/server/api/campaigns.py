"""Free-round campaigns (docs/OPERATORS.md, "Free-round campaigns"): the operator creates, cancels and reads
them (``/operator/campaigns``, with its ``X-Operator-Key`` or a signed call); a player reads their offers
(``GET /campaigns``) and starts a free round (``POST /games/{game}/free-rounds``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BeforeValidator, Field, StrictStr

from reelforge.server import campaigns
from reelforge.server.api.common import (
    GAME_ID_PATTERN,
    Auth,
    Before,
    Context,
    GameId,
    IdemKey,
    Limit,
    WholeNumber,
    _Strict,
    _whole,
    check_idempotency_key,
    json_text,
)
from reelforge.server.api.operator import parse, signed
from reelforge.server.auth import PLAYER_NAME_PATTERN, bearer, key_brand
from reelforge.server.clock import utcnow
from reelforge.server.config_values import MAX_BET
from reelforge.server.errors import ApiError

CampaignKey = Annotated[str, Field(min_length=1, max_length=64, pattern=campaigns.CAMPAIGN_ID_PATTERN)]


_CURRENCY = r"^[A-Z]{3}$"
_BET = Annotated[int, Field(ge=1, le=MAX_BET), BeforeValidator(_whole)]  # its limits in the schema (2.0 is 2)


class CampaignRequest(_Strict):
    campaign_id: CampaignKey = Field(description="the operator's campaign id (unique per brand; a retry with it "
                                                 "and the same content answers the campaign again)")
    players: list[Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=PLAYER_NAME_PATTERN)]] = Field(
        min_length=1, max_length=campaigns.MAX_CAMPAIGN_PLAYERS, json_schema_extra={"uniqueItems": True},
        description="player names, as launched, each once")
    games: list[Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=GAME_ID_PATTERN)]] = Field(
        min_length=1, max_length=50, json_schema_extra={"uniqueItems": True}, description="game ids, each once")
    bets: dict[Annotated[str, Field(pattern=_CURRENCY)], _BET] = Field(
        min_length=1, max_length=50, description="the free rounds' bet per currency, minor units",
        json_schema_extra={"additionalProperties": False})  # keys: the codes of patternProperties only
    rounds: WholeNumber = Field(ge=1, le=1000, description="free rounds per player")
    valid_from: datetime | None = Field(None, description="ISO 8601 with its offset (default: now)")
    valid_until: datetime = Field(description="ISO 8601 with its offset: rounds not started by then lapse")
    wagering: dict[str, Any] | None = Field(None, description="the operator's wagering requirement, kept and "
                                                              "shown back untouched (this server applies none)")
    credit: Literal["end", "each_win"] = Field("end", description="end: one credit of the total after the last "
                                                                  "round; each_win: a credit per winning round")


class FreeRoundRequest(_Strict):
    # at most 2**53 - 1: the largest whole number a JSON reader (a browser, a schema tool) holds exactly
    campaign: Annotated[int, Field(ge=1, le=2**53 - 1), BeforeValidator(_whole)] = Field(
        description="the campaign's id (GET /campaigns)")
    bet: Annotated[int, Field(ge=1, le=MAX_BET), BeforeValidator(_whole)] | None = Field(
        None, description="the campaign's bet for the player's currency (checked when given)")


def _when(name: str, value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ApiError(422, "invalid_request", f"{name}: give the time with its UTC offset, e.g. 2027-01-31T23:59:59Z")
    return value


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the campaign routes to ``app``."""
    service = ctx.service

    async def operator_brand(request: Request) -> str:
        """The brand of an operator call: its X-Operator-Key's, or its signature's (docs/OPERATORS.md)."""
        key = request.headers.get("x-operator-key")
        if key is not None:
            return key_brand(ctx.config, key)
        if request.headers.get("x-signature") is None:
            raise ApiError(401, "operator_key_required",
                           "campaign calls need the operator's X-Operator-Key header or a signed call")
        return (await signed(ctx, request))[1]

    def checked(body: CampaignRequest, now: datetime) -> dict[str, Any]:
        """The campaign's content, checked (422: malformed; 404: a game not offered; 409: a bet the server's
        builds cannot pay in whole minor units, or a window that is empty or over)."""
        valid_from = _when("valid_from", body.valid_from) if body.valid_from is not None else now
        valid_until = _when("valid_until", body.valid_until)
        if len(set(body.players)) != len(body.players):
            raise ApiError(422, "invalid_request", "players: a player is named twice")
        if len(set(body.games)) != len(body.games):
            raise ApiError(422, "invalid_request", "games: a game is named twice")
        for game in body.games:
            active = service.games.get(game)
            if active is None:
                raise ApiError(404, "unknown_game", f"games: {game!r} is not offered by this server "
                                                    f"(offered: {', '.join(sorted(service.games))})")
            unit = active.game.win_unit(active.build)
            for currency, bet in body.bets.items():
                if bet % unit or service.cost(active, bet, "paid") is None:
                    raise ApiError(409, "price_not_whole", f"bets: {currency} {bet} on {game} would pay some wins "
                                                           f"in fractions of a minor unit; choose a multiple of {unit}")
        if valid_until <= valid_from:
            raise ApiError(409, "campaign_window", "valid_until: must be after valid_from")
        if valid_until <= now:
            raise ApiError(409, "campaign_window", "valid_until: must be in the future")
        spec = body.model_dump()
        spec.update(valid_from=valid_from, valid_until=valid_until,
                    request_sha256=campaigns.request_sha256(body.model_dump(mode="json")))
        return spec

    def campaign_json(found: tuple[campaigns.Campaign, list[campaigns.Progress]], now: datetime) -> dict[str, Any]:
        campaign, players = found
        return {**campaign.to_json(), "players": [p.to_json(now) for p in players],
                "totals": {"players": len(players), "played": sum(p.played for p in players),
                           "won": sum(p.won for p in players), "paid": sum(p.paid for p in players)}}

    @app.post("/api/v1/operator/campaigns", tags=["operator"], status_code=201, openapi_extra={"requestBody": {
        "required": True, "content": {"application/json": {"schema": CampaignRequest.model_json_schema()}}}})
    async def create(request: Request) -> JSONResponse:
        """Operator: create a free-round campaign (201; 200 with the campaign when it exists with the same
        content; 409 when its id is taken by other content)."""
        brand = await operator_brand(request)
        now = utcnow()
        spec = checked(parse(CampaignRequest, await request.body()), now)
        status, campaign = await ctx.call(campaigns.create, ctx.engine, brand, spec, now)
        found = await ctx.call(campaigns.read, ctx.engine, brand, campaign.key)
        return JSONResponse(campaign_json(found[0], now), status_code=status)

    @app.get("/api/v1/operator/campaigns", tags=["operator"])
    async def listing(request: Request, limit: Limit = 20, before: Before = None) -> JSONResponse:
        """Operator: the brand's campaigns, newest first, each with every player's progress (page with
        ``before=next_before``)."""
        brand = await operator_brand(request)
        found = await ctx.call(campaigns.read, ctx.engine, brand, None, limit, before)
        now = utcnow()
        return JSONResponse({"campaigns": [campaign_json(f, now) for f in found],
                             "next_before": found[-1][0].id if len(found) == limit else None})

    @app.get("/api/v1/operator/campaigns/{campaign_id}", tags=["operator"])
    async def one(campaign_id: CampaignKey, request: Request) -> JSONResponse:
        """Operator: one campaign with every player's progress."""
        brand = await operator_brand(request)
        found = await ctx.call(campaigns.read, ctx.engine, brand, campaign_id)
        return JSONResponse(campaign_json(found[0], utcnow()))

    @app.post("/api/v1/operator/campaigns/{campaign_id}/cancel", tags=["operator"])
    async def cancel(campaign_id: CampaignKey, request: Request) -> JSONResponse:
        """Operator: cancel a campaign: no round starts any more; rounds in progress finish; every player's
        accrued total is credited (at once, or when their round in progress ends). Again: no change."""
        brand = await operator_brand(request)
        await ctx.call(campaigns.cancel, ctx.engine, brand, campaign_id, utcnow())
        await ctx.call(service.settle_campaigns)
        found = await ctx.call(campaigns.read, ctx.engine, brand, campaign_id)
        return JSONResponse(campaign_json(found[0], utcnow()))

    @app.post("/api/v1/games/{game}/free-rounds", tags=["campaigns"], status_code=201)
    def free_round(game: GameId, body: FreeRoundRequest, authorization: Auth = None,
                   idempotency_key: IdemKey = None) -> Response:
        """Start one of the player's free rounds of a campaign on ``game`` (no debit; its later steps are played
        as any round's, ``POST /rounds/{id}/steps``)."""
        return json_text(service.start_free_round(bearer(authorization), game, body.bet, body.campaign,
                                                  check_idempotency_key(idempotency_key)))

    @app.get("/api/v1/campaigns", tags=["campaigns"])
    def offers(authorization: Auth = None) -> JSONResponse:
        """The player's free-round campaigns, newest first: the bet in their currency, the games, rounds left,
        won and paid so far."""
        return JSONResponse(service.campaign_offers(bearer(authorization)))
