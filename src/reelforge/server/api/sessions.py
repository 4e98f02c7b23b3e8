"""``POST /sessions``: open a session."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from reelforge.server.api.common import Context, OperatorKey, SessionRequest
from reelforge.server.auth import open_session


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the sessions routes to ``app``."""

    @app.post("/api/v1/sessions", tags=["sessions"], status_code=201)
    def create_session(body: SessionRequest, x_operator_key: OperatorKey = None) -> JSONResponse:
        """Open a session: demo mode by player name; operator mode with the operator's X-Operator-Key."""
        return JSONResponse(open_session(ctx.engine, ctx.config, body.player, x_operator_key), status_code=201)

