"""Provably fair seed pairs (docs/FAIRNESS.md): ``GET /fair`` (the active pair's commitment, client seed and
next nonce), ``POST /fair/rotate`` (reveal the server seed, open a new pair) and ``GET /fair/seed-pairs``."""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import Field, StrictStr

from reelforge.server.api.common import Auth, Before, Context, Limit, _Strict
from reelforge.server.fair import CLIENT_SEED_PATTERN


class RotateRequest(_Strict):
    client_seed: Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=CLIENT_SEED_PATTERN)] | None = \
        Field(None, description="the new pair's client seed (1-64 printable ASCII characters, no spaces); "
                                "absent: a random one")


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the seed-pair routes to ``app``."""
    pairs = ctx.service.seed_pairs

    @app.get("/api/v1/fair", tags=["provably fair"])
    def current(authorization: Auth = None) -> JSONResponse:
        """The player's active seed pair: the SHA-256 of its server seed (the seed stays secret until
        rotation), its client seed and the nonce of the next round; ``enabled``: whether rounds draw from it."""
        who = ctx.principal(authorization)
        return JSONResponse(pairs.current(who.player_id))

    @app.post("/api/v1/fair/rotate", tags=["provably fair"])
    def rotate(body: RotateRequest | None = None, authorization: Auth = None) -> JSONResponse:
        """Reveal the active pair's server seed and open a new pair (409 while a round is unfinished)."""
        who = ctx.principal(authorization)
        return JSONResponse(pairs.rotate(who.player_id, body.client_seed if body else None))

    @app.get("/api/v1/fair/seed-pairs", tags=["provably fair"])
    def seed_pairs(authorization: Auth = None, limit: Limit = 20, before: Before = None) -> JSONResponse:
        """The player's seed pairs, newest first; revealed ones with their server seed."""
        who = ctx.principal(authorization)
        return JSONResponse(pairs.history(who.player_id, limit, before))
