"""``POST /sessions``: open a session; ``GET`` / ``POST /reality-check``: the session's reality check."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import Field, StrictStr

from reelforge.server import store
from reelforge.server.api.common import Auth, Context, OperatorKey, SessionRequest, _Strict
from reelforge.server.auth import bearer, open_session
from reelforge.server.clock import utcnow
from reelforge.server.launch import exchange_launch
from reelforge.server.limits import play_started, reality_check


class LaunchExchange(_Strict):
    token: StrictStr = Field(min_length=1, max_length=128, description="the launch URL's one-time token")
    lang: StrictStr | None = Field(None, max_length=64, description="the launch URL's lang, when it has one")


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the sessions routes to ``app``."""

    @app.post("/api/v1/launch", tags=["sessions"], status_code=201)
    def launch(body: LaunchExchange) -> JSONResponse:
        """Exchange a launch URL's one-time token for a session (401 when unknown, used or expired)."""
        wallet = ctx.service.wallet
        return JSONResponse(exchange_launch(ctx.engine, ctx.config, body.token,
                                            None if wallet is None else wallet.balance_or_none, body.lang),
                            status_code=201)

    @app.post("/api/v1/sessions", tags=["sessions"], status_code=201)
    def create_session(body: SessionRequest, x_operator_key: OperatorKey = None) -> JSONResponse:
        """Open a session: demo mode by player name; operator mode with the operator's X-Operator-Key."""
        return JSONResponse(open_session(ctx.engine, ctx.config, body.player, x_operator_key), status_code=201)

    def answer(authorization: str | None, acknowledge: bool) -> JSONResponse:
        who = ctx.principal(authorization)
        token = bearer(authorization)
        now = utcnow()
        checked = who.reality_checked_at
        if acknowledge:
            store.acknowledge_reality_check(ctx.engine, token.sha256, now)
            checked = now
        net = ctx.position(who, token)["session"]["net"]
        return JSONResponse(reality_check(who.rules(ctx.config), play_started(who), checked, now, net))

    @app.get("/api/v1/reality-check", tags=["sessions"])
    def get_reality_check(authorization: Auth = None) -> JSONResponse:
        """The session's reality check: ``due`` (round starts are refused with 409 ``reality_check_due`` until
        it is acknowledged), ``session_started_at``, ``next_due_at`` (null: reality checks are off),
        ``elapsed_seconds``, ``net_position`` (won minus staked this session, minor units) and
        ``session_ends_at`` (the session time limit; null: none)."""
        return answer(authorization, acknowledge=False)

    @app.post("/api/v1/reality-check", tags=["sessions"])
    def acknowledge_reality_check(authorization: Auth = None) -> JSONResponse:
        """Acknowledge the reality check: the next is due ``reality_check_minutes`` from now; answers as
        ``GET /reality-check``."""
        return answer(authorization, acknowledge=True)
