"""``POST /operator/players/{player}/deposits`` and ``/withdrawals``: the operator's wallet transfers."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import Response

from reelforge.server.api.common import (
    AmountRequest,
    Context,
    IdemKey,
    OperatorKey,
    PlayerName,
    check_idempotency_key,
    json_text,
)
from reelforge.server.auth import check_player_name
from reelforge.server.errors import ApiError


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the operator routes to ``app``."""

    def transfer(player: str, amount: int, kind: str, key: str | None, operator_key: str | None) -> Response:
        if not ctx.config.check_api_key(operator_key):
            raise ApiError(401 if operator_key is None else 403, "operator_key_required",
                           "operator endpoints need the operator's X-Operator-Key header")
        check_player_name(player)
        return json_text(ctx.service.transfer(player, amount, kind, check_idempotency_key(key)))

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

