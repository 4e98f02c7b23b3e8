"""The game server's HTTP API (FastAPI), versioned under ``/api/v1``.

Build it with :func:`create_app`: a composition of the parts. The routes are
grouped by resource in :mod:`reelforge.server.api`; every refusal is a 4xx
JSON body ``{"error": code, "detail": message}``; money-changing requests
need an ``Idempotency-Key`` header (a retry with the same key returns the
first answer; the same key with a different request is a 409).
"""

from __future__ import annotations

import logging
import pathlib
import threading
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine

import reelforge
from reelforge.server import http
from reelforge.server.api import (
    campaigns,
    errors,
    fair,
    games,
    languages,
    monitoring,
    openapi,
    operator,
    rounds,
    sessions,
    support,
    wallet,
)
from reelforge.server.api.common import MAX_BODY, Context
from reelforge.server.auth import demo_players
from reelforge.server.brands import register_wallets
from reelforge.server.callbacks import SWEEP_SECONDS
from reelforge.server.config import DEFAULT_DATABASE, ServerConfig
from reelforge.server.config_values import ConfigError
from reelforge.server.db import Checkpointer, is_sqlite, open_database
from reelforge.server.errors import database_errors
from reelforge.server.fairshare import FairShare
from reelforge.server.hardening import Hardening, document_errors
from reelforge.server.launch import purge_nonces
from reelforge.server.metrics import (
    BuildInfoCollector,
    DatabaseCollector,
    Metrics,
    Observe,
    OutboxCollector,
    SqliteCommitCollector,
)
from reelforge.server.monitor import RtpMonitor, figures_for
from reelforge.server.rounds import DrawFactory, RoundService
from reelforge.server.tally import RoundTally, open_rounds, settle_seconds_for

log = logging.getLogger("reelforge.server")

WEB_DIR = pathlib.Path(__file__).resolve().parent.parent / "web"
"""The browser client's static files (``reelforge/web``)."""
OUTBOX_SECONDS = 0.5
"""How often each server process delivers the seamless wallet's due outbox calls."""
DESCRIPTION = ("Wallets, step-by-step rounds, history and audit replay. Amounts are integer minor units; "
               "multiples of the bet are exact fractions in fields ending in _x.")


class ServerApp(FastAPI):
    """The FastAPI app with the server's own middleware outermost: the request id, metrics and log line
    (:class:`Observe`), the hardening, fair share and the money routes run before FastAPI's own layers
    (its error, telemetry and body-limit middleware), so a money request, answered by
    :class:`~reelforge.server.api.rounds.MoneyRoutes`, never passes through them (each costs a call and a
    wrapped ``send`` per request; the money routes answer their own errors), and every other answer, a 500
    from FastAPI's error layer included, gets the security headers, the request id and its log line."""

    def build_middleware_stack(self) -> Any:
        own, self.user_middleware = self.user_middleware, []
        try:
            app = super().build_middleware_stack()
        finally:
            self.user_middleware = own
        for cls, args, kwargs in reversed(own):
            app = cls(app, *args, **kwargs)
        return app


def create_app(config: ServerConfig, database_url: str | None = None, *, engine: Engine | None = None,
               draw_source_factory: DrawFactory | None = None, allow_demo_players: bool = False,
               metrics_multiprocess: bool = False) -> FastAPI:
    """The server app for ``config`` on ``database_url`` (schema migrated on creation).

    In operator mode it refuses (:class:`ConfigError`) a database that holds
    demo players, whose play money must never mix with real money, unless
    ``allow_demo_players`` (``serve --allow-demo-players-with-real-money``);
    even then those players and their sessions are refused (403).

    ``draw_source_factory`` exists for tests only (a seeded source that
    reaches a feature deterministically); it is deliberately not settable
    from the configuration file, the environment or the command line, so a
    production server always draws from the OS CSPRNG, or from the player's
    provably fair seed pair (``[server] provably_fair``, the default).
    """
    owns_engine = engine is None
    engine = engine or open_database(database_url or config.database or DEFAULT_DATABASE, config)
    if not config.demo and not allow_demo_players and (n := demo_players(engine)):
        if owns_engine:
            engine.dispose()
        raise ConfigError(f"operator mode refused: the database holds {n} demo player(s) with play money, "
                          "which must not mix with real money; use a database of its own for operator mode "
                          "(or --allow-demo-players-with-real-money: they stay refused)")
    try:
        register_wallets(engine, config)
    except ConfigError:
        if owns_engine:
            engine.dispose()
        raise
    for brand in config.all_brands():  # a key set below a profile on purpose changes its rules: say which
        if brand.play.overrides:
            log.warning("brand %s: [responsible_play] %s override the %r profile's rules", brand.id,
                        ", ".join(brand.play.overrides), brand.play.profile)
    service = RoundService(engine, config, *([draw_source_factory] if draw_source_factory else []))
    metrics = Metrics(metrics_multiprocess)
    monitor = RtpMonitor(RoundTally(engine, config.monitor.since, settle_seconds_for(config.db_pool_timeout_seconds)),
                         config.monitor, figures_for(config.monitor))
    if config.database_metrics:  # one reporting process per database: a sum over instances counts it once
        metrics.add_collector(DatabaseCollector(monitor, lambda: open_rounds(engine, limit=0)[0]))
    if is_sqlite(engine) and "sqlite_commits" in engine.info:
        metrics.add_collector(SqliteCommitCollector(engine.info["sqlite_commits"]))
    metrics.add_collector(BuildInfoCollector([(g, a.build.identity.name, a.build.identity.version,
                                               a.build.identity.content_hash) for g, a in service.games.items()],
                                             reelforge.__version__))
    http.on_refusal = metrics.refusals  # the HTTP limits' refusals (this process's, whichever app)
    ctx = Context(engine, config, service, metrics, monitor)
    if service.wallet is not None:  # seamless: the wallet calls and the outbox in /metrics and on the operator page
        seamless = service.wallet
        seamless.stats.hooks.append(metrics.observe_wallet_call)
        if config.database_metrics:
            metrics.add_collector(OutboxCollector(seamless.outbox_by_brand))
        ctx.wallet_health = lambda: {"outbox_depth": seamless.outbox_depth(), **seamless.stats.snapshot()}
    # No OpenTelemetry: FastAPI's native telemetry would check for providers on every request.
    # No interactive docs unless a demo configuration asks for them (api_docs): FastAPI's pages load their
    # scripts from a CDN. /openapi.json stays.
    app = ServerApp(title="reelforge game server", version=reelforge.__version__, description=DESCRIPTION,
                  lifespan=_lifespan(ctx, owns_engine), telemetry={"tracing": False, "metrics": False, "logs": False},
                  **({} if config.demo and config.api_docs else {"docs_url": None, "redoc_url": None}))
    app.state.service, app.state.engine, app.state.config = service, engine, config
    app.state.metrics, app.state.monitor, app.state.context = metrics, monitor, ctx
    errors.install(app)
    # rounds first: most requests are theirs
    for resource in (rounds, sessions, games, wallet, operator, campaigns, fair, monitoring, support, languages):
        resource.add_routes(app, ctx)
    errors.add_catch_all(app)
    # Around every route, money routes included: the rate limits and one request at a time per session.
    app.add_middleware(FairShare, session_rate=config.session_requests_per_second,
                       ip_rate=config.ip_requests_per_second, trusted_proxies=config.trusted_proxies)
    # Outermost (added last): the one body limit and the security headers cover every answer.
    app.add_middleware(Hardening, max_body=MAX_BODY)
    # Around that: every answer's latency and status in the metrics, its request id and log line.
    app.add_middleware(Observe, metrics=metrics)
    # The browser client (static files, no build step), mounted last so the API routes win.
    if WEB_DIR.is_dir():
        app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")
    else:  # an installation without the client: point browsers at the API description
        target = "/docs" if config.demo and config.api_docs else "/openapi.json"
        app.add_api_route("/", lambda: RedirectResponse(target), include_in_schema=False)
    document_errors(app)  # OpenAPI: every refusal is {error, detail}
    openapi.describe_offered_games(app, service)
    return app


def _lifespan(ctx: Context, owns_engine: bool):
    """Start and stop what runs beside the requests: SQLite's WAL checkpointer, the periodic expiry check
    (expired rounds completed) and the housekeeping (old sessions and idempotency answers purged)."""
    engine, config, service = ctx.engine, ctx.config, ctx.service

    def guarded(what: str, work: Any) -> None:
        try:
            work()
        except database_errors() as exc:  # the check must survive a database hiccup
            log.error("%s failed: %s: %s", what, type(exc).__name__, " ".join(str(exc).split()))
        except Exception:  # noqa: BLE001
            log.exception("%s failed", what)

    def expire() -> None:
        if n := service.expire():
            log.info("completed %d expired round(s)", n)
        if n := service.settle_campaigns():  # cancelled and expired campaigns: their players' totals credited
            log.info("settled %d player(s) of ended free-round campaigns", n)

    def housekeeping() -> None:
        service.purge_sessions()
        purge_nonces(engine, config)
        if n := service.purge_idempotency():
            log.info("purged %d stored idempotency answer(s)", n)

    def monitor() -> None:
        ctx.monitor.check()

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        checkpointer = Checkpointer(engine) if is_sqlite(engine) else None
        if checkpointer is not None:
            checkpointer.start()
        stop, threads = threading.Event(), []
        # Two schedules: the expiry (optional, expiry_check_seconds) and the housekeeping (old sessions and
        # idempotency answers purged, always on: it bounds the database's growth).
        schedules = [("housekeeping", config.housekeeping_seconds, housekeeping)]
        if service.wallet is not None:  # the seamless wallet's outbox: credits and rollbacks until acknowledged
            schedules.append(("wallet outbox", OUTBOX_SECONDS, service.wallet.deliver_due))
        if service.callbacks.enabled:  # the operator's session-ended callbacks: expired sessions found, delivered
            schedules.append(("expired sessions", SWEEP_SECONDS, service.callbacks.sweep_expired))
            schedules.append(("operator callbacks", OUTBOX_SECONDS, service.callbacks.deliver_due))
        if config.expiry_check_seconds > 0:
            guarded("expiry check on start", expire)
            schedules.append(("periodic expiry check", config.expiry_check_seconds, expire))
        if config.monitor.check_seconds > 0:  # the RTP monitor (its first check reads every round: not at start)
            schedules.append(("RTP monitor", config.monitor.check_seconds, monitor))
        for what, every, work in schedules:
            def loop(what: str = what, every: float = every, work: Any = work) -> None:
                while not stop.wait(every):
                    guarded(what, work)

            threads.append(threading.Thread(target=loop, name=f"reelforge-{what.split()[-1]}", daemon=True))
            threads[-1].start()
        yield
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
        if checkpointer is not None:
            checkpointer.stop()
        ctx.close()
        if owns_engine:
            engine.dispose()  # closes the pool; SQLite folds and removes its WAL on the last close

    return lifespan
