"""The operator's calls: ``POST /operator/players/{player}/deposits`` and ``/withdrawals`` (the transfer
wallet, with the operator's key); ``POST /operator/launches``, ``POST /operator/players/{player}/end-session``
and ``GET /operator/rounds/{round}/transactions`` (signed with the operator's secret, docs/OPERATORS.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field, StrictStr, ValidationError

from reelforge.server.api.common import (
    MAX_ID,
    AmountRequest,
    Context,
    IdemKey,
    OperatorKey,
    PlayerName,
    _Strict,
    check_idempotency_key,
    json_text,
)
from reelforge.server.auth import PLAYER_NAME_PATTERN, check_player_name, key_brand
from reelforge.server.config_values import MAX_BET
from reelforge.server.errors import ApiError
from reelforge.server.launch import create_launch, end_sessions, verify_operator_call
from reelforge.server.seamless_reads import round_transactions

_BET = Annotated[int, Field(ge=1, le=MAX_BET)]


class LaunchRequest(_Strict):
    player: StrictStr = Field(min_length=1, max_length=64, pattern=PLAYER_NAME_PATTERN)
    currency: StrictStr = Field(min_length=3, max_length=3, pattern=r"^[A-Z]{3}$")
    language: StrictStr | None = Field(None, min_length=2, max_length=16, description="BCP 47 tag, e.g. en-GB "
                                                                                    "(default en)")
    lang: StrictStr | None = Field(None, max_length=64, description="the game's language, ISO 639-1 (ar de en es fi "
                                   "fr hi id ja ko pl pt ru tr vi zh) or a tag such as ja-JP; one the server does "
                                   "not know is English")
    profile: StrictStr | None = Field(None, max_length=32, description="jurisdiction profile (default: the server's)")
    jurisdiction: StrictStr | None = Field(None, max_length=32, description="the same as profile")
    device: StrictStr | None = Field(None, max_length=16, description="desktop, mobile or tablet")
    lobby_url: StrictStr | None = Field(None, max_length=2048, description="the operator's lobby (a button)")
    return_url: StrictStr | None = Field(None, max_length=2048, description="where the player leaves the game to")
    deposit_url: StrictStr | None = Field(None, max_length=2048, description="the operator's cashier (a button)")
    history_url: StrictStr | None = Field(None, max_length=2048, description="the operator's game history")
    min_bet: _BET | None = None
    max_bet: _BET | None = None
    max_stake: Annotated[int, Field(ge=1, le=2**62)] | None = Field(
        None, description="the most one round may take (a feature buy's price included), minor units")
    session_limit_minutes: Annotated[float, Field(gt=0, le=7 * 24 * 60)] | None = None
    reality_check_minutes: Annotated[float, Field(gt=0, le=24 * 60)] | None = None
    loss_limit: Annotated[int, Field(ge=1, le=2**62)] | None = Field(
        None, description="the most the player may lose (staked minus won) in the play session, minor units")
    game: StrictStr | None = Field(None, max_length=64)
    operator_session: StrictStr | None = Field(None, min_length=1, max_length=128,
                                               description="the operator's own session token, sent with every debit")


async def signed(ctx: Context, request: Request) -> tuple[bytes, str]:
    """The body of a call signed by the operator, and the brand that signed it (401 otherwise; see
    :func:`verify_operator_call`)."""
    body = await request.body()
    path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    brand = await ctx.call(verify_operator_call, ctx.engine, ctx.config, request.headers, request.method, path, body)
    return body, brand


def parse(model: type[_Strict], body: bytes) -> Any:
    try:
        return model.model_validate_json(body or b"{}")
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ApiError(422, "invalid_request", f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from exc


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the operator routes to ``app``."""

    def transfer(player: str, amount: int, kind: str, key: str | None, operator_key: str | None) -> Response:
        if ctx.config.seamless:  # the balance a transfer would change is nobody's: the operator's wallet holds it
            raise ApiError(403, "transfers_closed",
                           "this server plays on the operator's seamless wallet, which holds every balance: "
                           "deposits and withdrawals are not taken here")
        if operator_key is None:
            raise ApiError(401, "operator_key_required", "operator endpoints need the operator's X-Operator-Key header")
        try:
            brand = key_brand(ctx.config, operator_key)
        except ApiError:
            raise ApiError(403, "operator_key_required",
                           "operator endpoints need the operator's X-Operator-Key header") from None
        check_player_name(player)
        return json_text(ctx.service.transfer(player, amount, kind, check_idempotency_key(key), brand))

    @app.post("/api/v1/operator/players/{player}/deposits", tags=["operator"])
    def deposit(player: PlayerName, body: AmountRequest,
                x_operator_key: OperatorKey = None, idempotency_key: IdemKey = None) -> Response:
        """Operator: credit a player's wallet."""
        return transfer(player, body.amount, "deposit", idempotency_key, x_operator_key)

    @app.post("/api/v1/operator/players/{player}/withdrawals", tags=["operator"])
    def withdraw(player: PlayerName, body: AmountRequest,
                 x_operator_key: OperatorKey = None, idempotency_key: IdemKey = None) -> Response:
        """Operator: debit a player's wallet (never below zero)."""
        return transfer(player, body.amount, "withdrawal", idempotency_key, x_operator_key)


    @app.post("/api/v1/operator/launches", tags=["operator"], status_code=201, openapi_extra={"requestBody": {
        "required": True, "content": {"application/json": {"schema": LaunchRequest.model_json_schema()}}}})
    async def launch(request: Request) -> JSONResponse:
        """Operator (signed): a launch URL for a player (currency, language, jurisdiction profile, bet limits),
        holding a one-time token that lives ``launch_token_seconds``."""
        raw, brand = await signed(ctx, request)
        body = parse(LaunchRequest, raw)
        return JSONResponse(await ctx.call(create_launch, ctx.engine, ctx.config, body.model_dump(),
                                           str(request.base_url), brand), status_code=201)

    @app.post("/api/v1/operator/players/{player}/end-session", tags=["operator"])
    async def end_session(player: PlayerName, request: Request) -> JSONResponse:
        """Operator (signed): end every open session of the player now, and the player's play session (no
        round starts until its break has passed, whatever new launch)."""
        _, brand = await signed(ctx, request)
        return JSONResponse({"player": player, "ended": await ctx.call(end_sessions, ctx.engine, player, brand, ctx.config)})

    @app.get("/api/v1/operator/rounds/{round_id}/transactions", tags=["operator"])
    async def transactions(round_id: Annotated[int, Field(ge=1, le=MAX_ID)], request: Request) -> JSONResponse:
        """Operator (signed): a round's seamless wallet calls (debit, credit, rollback) and their status."""
        _, brand = await signed(ctx, request)
        found: list[Any] = []
        for internal in ctx.service.ids.candidates(round_id):  # its public id, or its id before the keyed ids
            found = await ctx.call(round_transactions, ctx.engine, internal, brand)
            if found:
                break
        return JSONResponse({"round_id": round_id, "transactions": found})
