"""Command-line commands of the game server: ``serve``, ``verify``, ``expire``.

``register(app)`` adds them to the project's Typer app (``reelforge.cli``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

from reelforge.server.config import DEFAULT_DATABASE, DEMO_DATABASE, ConfigError, ServerConfig, load_config

ENV_CONFIG = "REELFORGE_SERVER_CONFIG"
ENV_DB = "REELFORGE_SERVER_DB"
ENV_ALLOW_DEMO = "REELFORGE_ALLOW_DEMO_PLAYERS_WITH_REAL_MONEY"


def _config(path: Path | None, demo: bool) -> ServerConfig:
    try:
        return load_config(None if demo else path)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--config") from exc


def _existing_database(url: str):
    """Open an existing database (verify and expire never create one; a typo would verify nothing)."""
    from sqlalchemy.engine import make_url

    from reelforge.server.db import DatabaseError, open_database

    try:
        parsed = make_url(url)
    except Exception as exc:  # noqa: BLE001 - any unparsable URL is the user's typo
        raise typer.BadParameter(f"not a database URL: {url!r}", param_hint="--db") from exc
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise typer.BadParameter(f"no SQLite database at {parsed.database!r}", param_hint="--db")
    try:
        return open_database(url)
    except DatabaseError as exc:
        raise typer.BadParameter(str(exc), param_hint="--db") from exc


def serve(
    config: Path | None = typer.Option(None, "--config", help="operator configuration (TOML)"),
    demo: bool = typer.Option(False, "--demo", help="use the packaged demo configuration (demo sessions)"),
    db: str | None = typer.Option(None, "--db", help=f"database URL (default: the config's, else {DEFAULT_DATABASE}; "
                                                 f"with --demo {DEMO_DATABASE})"),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8000, "--port", min=1, max=65535),
    workers: int = typer.Option(1, "--workers", min=1, max=64, help="server processes (they share the database)"),
    allow_demo_players: bool = typer.Option(
        False, "--allow-demo-players-with-real-money",
        help="operator mode: start even though the database holds demo players (play money); they stay refused"),
) -> None:
    """Run the game server (FastAPI under uvicorn)."""
    import uvicorn

    from reelforge.server.app import create_app
    from reelforge.server.auth import demo_players, ensure_demo_player
    from reelforge.server.db import DatabaseError, open_database
    from reelforge.server.http import uvicorn_settings

    if config is None and not demo:
        raise typer.BadParameter("give --config FILE (operator configuration) or --demo", param_hint="--config")
    cfg = _config(config, demo)
    # The demo's play money lives in a file of its own, never the operator's default database.
    url = db or cfg.database or (DEMO_DATABASE if demo else DEFAULT_DATABASE)
    try:
        engine = open_database(url, cfg)  # create or migrate once before any worker starts
    except DatabaseError as exc:
        raise typer.BadParameter(str(exc), param_hint="--db") from exc
    demo_balance = ensure_demo_player(engine, cfg) if cfg.demo else None
    mixed = 0 if cfg.demo or allow_demo_players else demo_players(engine)
    engine.dispose()
    if mixed:
        typer.echo(f"error: operator mode refused: {url} holds {mixed} demo player(s) with play money, which must "
                   "not mix with real money; give operator mode a database of its own (or "
                   "--allow-demo-players-with-real-money: they stay refused)", err=True)
        raise typer.Exit(2)
    limits = uvicorn_settings(cfg)
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    typer.echo(f"reelforge server ({cfg.mode} mode) on {url}")
    typer.echo(f"Open http://{shown}:{port}/  (API: http://{shown}:{port}/docs, OpenAPI: /openapi.json)")
    if cfg.demo:
        typer.echo(f"Demo player 'demo' (balance {demo_balance} minor units): "
                   f"POST http://{shown}:{port}/api/v1/sessions with {{\"player\": \"demo\"}}")
    if workers == 1:
        uvicorn.run(create_app(cfg, url, allow_demo_players=allow_demo_players), host=host, port=port, **limits)
        return
    os.environ[ENV_CONFIG] = "" if demo else str(Path(config).resolve())
    os.environ[ENV_DB] = url
    os.environ[ENV_ALLOW_DEMO] = "1" if allow_demo_players else ""
    uvicorn.run("reelforge.server.commands:app_from_env", factory=True, host=host, port=port, workers=workers,
                **limits)


def app_from_env():
    """App factory for multi-process serving (each uvicorn worker builds its own app)."""
    from reelforge.server.app import create_app
    from reelforge.server.http import configure

    path = os.environ.get(ENV_CONFIG) or None
    config = load_config(path)
    configure(config)  # this worker process's own limits
    return create_app(config, os.environ[ENV_DB], allow_demo_players=bool(os.environ.get(ENV_ALLOW_DEMO)))


def verify(
    db: str = typer.Option(DEFAULT_DATABASE, "--db", help="database URL"),
    round_id: int | None = typer.Option(None, "--round", min=1, help="verify one round"),
    all_rounds: bool = typer.Option(False, "--all", help="verify every stored round"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per round"),
) -> None:
    """Replay stored rounds through the rules engine and report every mismatch (exit 1 if any)."""
    from reelforge.server.verify import verify_all, verify_round

    if (round_id is None) == (not all_rounds):
        raise typer.BadParameter("give exactly one of --round ID or --all")
    engine = _existing_database(db)
    if round_id is not None:
        result = verify_round(engine, round_id)
        if result is None:
            typer.echo(f"no round {round_id} in {db}", err=True)
            raise typer.Exit(2)
        results = [result]
    else:
        results = verify_all(engine)
    checked = bad = 0
    for r in results:
        checked += 1
        bad += not r["ok"]
        if as_json:
            typer.echo(json.dumps(r))
        elif not r["ok"]:
            typer.echo(f"round {r['round']}: MISMATCH")
            for d in r["differences"]:
                typer.echo(f"  - {d}")
    engine.dispose()
    if not as_json:
        typer.echo(f"{checked} round(s) verified: {checked - bad} ok, {bad} mismatched")
    if bad:
        raise typer.Exit(1)


def expire(
    db: str | None = typer.Option(None, "--db", help=f"database URL (default: the config's, else {DEFAULT_DATABASE})"),
    config: Path | None = typer.Option(None, "--config", help="operator configuration (for round_expiry_days)"),
    days: float | None = typer.Option(None, "--days", min=0.0, help="override the expiry (days)"),
) -> None:
    """Complete every round unfinished longer than the expiry: its remaining steps revealed, its decided win
    credited (never refunded: rounds are decided when staked)."""
    from dataclasses import replace

    from reelforge.server.rounds import RoundService

    cfg = _config(config, False) if config is not None else ServerConfig()
    cfg = replace(cfg, games={})  # expiry needs no game configuration
    if days is not None:
        cfg = replace(cfg, round_expiry_days=days)
    url = db or cfg.database or DEFAULT_DATABASE
    engine = _existing_database(url)
    n = RoundService(engine, cfg).expire()
    engine.dispose()
    typer.echo(f"{n} round(s) unfinished for more than {cfg.round_expiry_days:g} days completed "
               "(decided wins credited)")


def register(app: typer.Typer) -> None:
    """Add the server commands to the project's CLI."""
    app.command("serve")(serve)
    app.command("verify")(verify)
    app.command("expire")(expire)
