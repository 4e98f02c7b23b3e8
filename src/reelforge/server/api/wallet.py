"""``GET /wallet``, ``GET /wallet/ledger``: the player's balance, session position and ledger."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from reelforge.server.api.common import Auth, Before, Context, Limit
from reelforge.server.auth import bearer
from reelforge.server.wallet import ledger_page


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the wallet routes to ``app``."""

    @app.get("/api/v1/wallet", tags=["wallet"])
    def wallet(authorization: Auth = None) -> JSONResponse:
        """The player's balance, and this session's start and net position (won minus staked)."""
        who = ctx.principal(authorization)
        return JSONResponse(ctx.position(who, bearer(authorization)))

    @app.get("/api/v1/wallet/ledger", tags=["wallet"])
    def wallet_ledger(authorization: Auth = None, limit: Limit = 50, before: Before = None) -> JSONResponse:
        """Every balance change, newest first, with the round it belongs to."""
        who = ctx.principal(authorization)
        return JSONResponse(ledger_page(ctx.engine, who.player_id, limit, before, ctx.service.ids.public))

