"""``GET /metrics`` (Prometheus) and ``GET /api/v1/operator/overview`` (the operator page's figures).

Both need the operator's ``X-Operator-Key`` (``/metrics`` also takes the
metrics token, ``[server] metrics_token_sha256``, as ``Authorization: Bearer``,
which is how Prometheus sends a scrape's credentials); a demo server with
neither configured serves them openly (play money on the operator's own
machine). The operator page itself (``/operator.html``) is a static page that
holds no figures: it asks for the key and reads the overview with it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response

from reelforge.games.registry import get_game
from reelforge.server.api.common import Auth, Context, OperatorKey
from reelforge.server.clock import iso
from reelforge.server.errors import ApiError
from reelforge.server.metrics import CONTENT_TYPE
from reelforge.server.tally import open_rounds

OPEN_ROUNDS_SHOWN = 20


def _token(authorization: str | None) -> str | None:
    if authorization and authorization[:7].lower() == "bearer ":
        return authorization[7:].strip()
    return None


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add ``/metrics`` and the operator overview to ``app``."""
    config = ctx.config

    @app.get("/metrics", tags=["operator"], response_class=Response,
             responses={200: {"content": {CONTENT_TYPE: {}}, "description": "Prometheus text format"}})
    async def metrics(authorization: Auth = None, x_operator_key: OperatorKey = None) -> Response:
        """Operator: the server's figures in the Prometheus text format (docs/OPERATIONS.md)."""
        if not config.monitoring_open and not (config.check_metrics_token(_token(authorization))
                                               or config.check_api_key(x_operator_key)):
            supplied = authorization is not None or x_operator_key is not None
            raise ApiError(403 if supplied else 401, "metrics_token_required",
                           "/metrics needs the metrics token (Authorization: Bearer) or the operator's X-Operator-Key")
        # The scrape reads the database (the round totals and open rounds): on a thread, not the event loop.
        body = await asyncio.get_running_loop().run_in_executor(None, ctx.metrics.exposition)
        return Response(body, media_type=CONTENT_TYPE)

    @app.get("/api/v1/operator/overview", tags=["operator"])
    async def overview(x_operator_key: OperatorKey = None) -> JSONResponse:
        """Operator: per game, build, version and mode the rounds, stakes, wins, GGR and the RTP monitor's
        figures with their history; the open rounds and their age; the alarms (the operator page reads it)."""
        if not config.monitoring_open and not config.check_api_key(x_operator_key):
            raise ApiError(401 if x_operator_key is None else 403, "operator_key_required",
                           "operator endpoints need the operator's X-Operator-Key header")
        return JSONResponse(await asyncio.get_running_loop().run_in_executor(None, overview_json, ctx))


def _title(game_id: str) -> str:
    """A game's name as players and operators know it (the id itself for a game no longer registered)."""
    try:
        return get_game(game_id).title
    except KeyError:
        return game_id


def overview_json(ctx: Context) -> dict[str, Any]:
    """The operator page's figures (see :func:`add_routes`)."""
    monitor = ctx.monitor
    readings = monitor.check()
    now = time.time()
    builds = []
    for key, t in sorted(monitor.tally.current.items()):
        brand, currency, game, build, version, mode = key
        reading = readings.get(key)
        decimals = ctx.config.currencies.get(currency, 2)
        builds.append({
            "brand": brand, "currency": currency, "decimals": decimals,
            "game": game, "title": _title(game), "build": build, "build_version": version, "mode": mode,
            "rounds_started": t.started, "rounds_finished": t.finished, "rounds_open": t.open,
            "rounds_voided": t.voided, "rounds_completed_on_expiry": t.completed_on_expiry,
            # one row per currency: its minor units, never summed with another currency's
            "money": [{"currency": currency, "decimals": decimals, "stakes": t.stakes, "wins": t.wins,
                       "refunds": t.refunds, "ggr": t.ggr}],
            "rtp_all_time": t.wins / (t.stakes - t.refunds) if t.stakes - t.refunds else None,
            "monitor": reading.to_json() if reading else None,
            "history": [{"t": p[0], "rounds": p[1], "observed": p[2], "lower": p[3], "upper": p[4]}
                        for p in monitor.history.get(key, ())],
        })
    per_game, oldest = open_rounds(ctx.engine, OPEN_ROUNDS_SHOWN)
    settings = monitor.settings
    return {
        "now": now, "currency": ctx.config.currency, "mode": ctx.config.mode,
        "monitor": {"since": iso(settings.since) if settings.since else None, "confidence": settings.confidence,
                    "z": round(settings.z, 4), "min_rounds": settings.min_rounds,
                    "check_seconds": settings.check_seconds, "checked_at": monitor.checked_at},
        "builds": builds,
        "alarms": [a.to_json() for a in monitor.alarms.values()],
        "open_rounds": {
            "per_game": {g: {"count": n, "oldest_age_seconds": max(0.0, now - ts.timestamp())}
                         for g, (n, ts) in sorted(per_game.items())},
            "oldest": [{"round": ctx.service.ids.public(rid), "player": player, "game": game, "title": _title(game),
                        "build": build, "bet": bet, "currency": code, "decimals": ctx.config.currencies.get(code, 2),
                        "started_at": iso(ts), "age_seconds": max(0.0, now - ts.timestamp())}
                       for rid, player, game, build, bet, ts, code in oldest],
        },
        # The seamless wallet's health (issue "Operators plug in": call latency and failures by kind, the
        # outbox depth) goes here, from Context.wallet_health; None: transfer mode (the server holds balances).
        "wallet": ctx.wallet_health() if ctx.wallet_health is not None else None,
    }
