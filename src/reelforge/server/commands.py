"""Command-line commands of the game server: ``serve``, ``verify``, ``expire``, ``verify-fair``, ``reconcile``,
``revenue``.

``register(app)`` adds them to the project's Typer app (``reelforge.cli``).
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
from pathlib import Path

import typer

from reelforge.server.config import DEFAULT_DATABASE, DEMO_DATABASE, ServerConfig, load_config
from reelforge.server.config_values import ConfigError

ENV_CONFIG = "REELFORGE_SERVER_CONFIG"
ENV_DB = "REELFORGE_SERVER_DB"
ENV_ALLOW_DEMO = "REELFORGE_ALLOW_DEMO_PLAYERS_WITH_REAL_MONEY"
ENV_LOG_FORMAT = "REELFORGE_LOG_FORMAT"


def _config(path: Path | None, demo: bool) -> ServerConfig:
    try:
        return load_config(None if demo else path)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--config") from exc


def _existing_database(url: str):
    """Open an existing database (verify and expire never create one; a typo would verify nothing)."""
    from sqlalchemy.engine import make_url

    from reelforge.server.db import DatabaseError, masked_url, open_database

    try:
        parsed = make_url(url)
    except Exception as exc:  # noqa: BLE001 - any unparsable URL is the user's typo
        raise typer.BadParameter(f"not a database URL: {masked_url(url)!r}", param_hint="--db") from exc
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise typer.BadParameter(f"no SQLite database at {parsed.database!r}", param_hint="--db")
    try:
        return open_database(url)
    except DatabaseError as exc:
        raise typer.BadParameter(str(exc), param_hint="--db") from exc


def _port_free(host: str, port: int) -> str | None:
    """None when ``host:port`` can be bound now, else why not in words (checked before anything says
    the page is ready)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no conflict
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (f"port {port} on {host} is already in use (another server running?); stop it, "
                        f"or choose another port: --port {port + 1}")
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


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
    log_format: str = typer.Option("auto", "--log-format",
                                   help="one line per request and round event: json (log pipelines), human, or "
                                        "auto (human with --demo, else json)"),
    stake: Path | None = typer.Option(None, "--stake", help="serve this Stake Engine math package (index.json, lookup "
                                      "tables, books) as a local Stake RGS instead of the game server"),
    stake_balance: float = typer.Option(1000.0, "--stake-balance", min=0,
                                        help="with --stake: what a new session starts with"),
    stake_currency: str = typer.Option("USD", "--stake-currency", help="with --stake: the sessions' currency"),
) -> None:
    """Run the game server (FastAPI under uvicorn), or with --stake DIR a local Stake RGS."""
    if stake is not None:
        if config is not None or demo:
            raise typer.BadParameter("--stake serves a math package alone; leave out --config and --demo",
                                     param_hint="--stake")
        _serve_stake(stake, db, host, port, stake_balance, stake_currency)
        return
    import shutil
    import tempfile

    import uvicorn

    from reelforge.server.app import create_app
    from reelforge.server.auth import demo_players, ensure_demo_player
    from reelforge.server.db import DatabaseError, masked_url, open_database
    from reelforge.server.http import uvicorn_settings
    from reelforge.server.logs import FORMATS, configure_logging, event_line
    from reelforge.server.metrics import MULTIPROC_ENV

    if config is None and not demo:
        raise typer.BadParameter("give --config FILE (operator configuration) or --demo", param_hint="--config")
    if log_format not in ("auto", *FORMATS):
        raise typer.BadParameter(f"choose auto, {', '.join(FORMATS)}", param_hint="--log-format")
    cfg = _config(config, demo)
    log_format = ("human" if cfg.demo else "json") if log_format == "auto" else log_format
    if busy := _port_free(host, port):  # before anything is set up or says the page is ready
        typer.echo(f"error: {busy}", err=True)
        raise typer.Exit(2)
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
        typer.echo(f"error: operator mode refused: {masked_url(url)} holds {mixed} demo player(s) with play money, which must "
                   "not mix with real money; give operator mode a database of its own (or "
                   "--allow-demo-players-with-real-money: they stay refused)", err=True)
        raise typer.Exit(2)
    limits = uvicorn_settings(cfg)
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    if log_format == "json":  # a log pipeline reads every line as JSON, the banner too (never a password)
        typer.echo(event_line("reelforge.server", {
            "event": "server_started", "mode": cfg.mode, "database": masked_url(url), "url": f"http://{shown}:{port}/",
            "workers": workers, "wallet": cfg.operator.wallet, "openapi": "/openapi.json",
            "operator_page": "/operator.html", "metrics": "/metrics"}))
    else:
        typer.echo(f"reelforge server ({cfg.mode} mode) on {masked_url(url)}")
        typer.echo(f"Open http://{shown}:{port}/ in your browser"
                   + (" and sign in with any player name." if cfg.demo else "."))
        if cfg.demo:
            typer.echo(f"Demo mode: a new player starts with {cfg.demo_balance / 100:,.2f} {cfg.currency} of play "
                       f"money (the player 'demo' has {demo_balance / 100:,.2f}).")
        typer.echo(f"API description: http://{shown}:{port}/openapi.json. Operator page: "
                   f"http://{shown}:{port}/operator.html; metrics: /metrics. One line per request below; Ctrl-C stops.")
    if workers == 1:
        configure_logging(log_format)
        app = create_app(cfg, url, allow_demo_players=allow_demo_players)
        uvicorn.run(app, host=host, port=port, **limits)
    else:
        os.environ[ENV_CONFIG] = "" if demo else str(Path(config).resolve())
        os.environ[ENV_DB] = url
        os.environ[ENV_ALLOW_DEMO] = "1" if allow_demo_players else ""
        os.environ[ENV_LOG_FORMAT] = log_format
        # prometheus_client's multi-process mode: every worker (spawned, so it imports the library afresh)
        # keeps its counts in files in this folder, and a scrape of any worker adds them all up.
        own_dir = None
        if not os.environ.get(MULTIPROC_ENV):
            own_dir = os.environ[MULTIPROC_ENV] = tempfile.mkdtemp(prefix="reelforge-metrics-")
        try:
            uvicorn.run("reelforge.server.commands:app_from_env", factory=True, host=host, port=port,
                        workers=workers, **limits)
        finally:
            if own_dir is not None:
                shutil.rmtree(own_dir, ignore_errors=True)
    typer.echo(event_line("reelforge.server", {"event": "server_stopped"}) if log_format == "json"
               else "reelforge server stopped. Goodbye.")
    sys.stdout.flush()


STAKE_STORE = "stake-rgs.sqlite"
"""The local Stake RGS's session store when --db is not given (in the working folder)."""


def _serve_stake(folder: Path, db: str | None, host: str, port: int, balance: float, currency: str) -> None:
    """``serve --stake DIR``: the local Stake RGS (:mod:`reelforge.server.stake_rgs`) on ``folder``."""
    from decimal import Decimal

    import uvicorn

    from reelforge.server.stake_package import StakePackageError, load_package
    from reelforge.server.stake_rgs import UNIT, RgsSettings, StakeRgs, create_stake_app

    store = (db or STAKE_STORE).removeprefix("sqlite:///")
    if "://" in store:
        raise typer.BadParameter(f"the Stake RGS keeps its sessions in SQLite: give a file (or sqlite:///FILE), not {db!r}",
                                 param_hint="--db")
    units = Decimal(str(balance)) * UNIT
    if units != int(units):
        raise typer.BadParameter(f"{balance} has more than six decimals", param_hint="--stake-balance")
    try:
        package = load_package(folder)
    except StakePackageError as exc:
        raise typer.BadParameter(str(exc), param_hint="--stake") from exc
    if busy := _port_free(host, port):
        typer.echo(f"error: {busy}", err=True)
        raise typer.Exit(2)
    rgs = StakeRgs(package, store, RgsSettings(balance=int(units), currency=currency))
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    modes = ", ".join(f"{m.name} (cost {float(m.cost):g}x, {len(m.ids):,} books)" for m in package.modes.values())
    typer.echo(f"local Stake RGS for {folder}: {modes}; sessions in {store}")
    typer.echo(f"Point the front end at rgs_url={shown}:{port} with any sessionID; a new session starts with "
               f"{Decimal(int(units)) / UNIT:,f} {currency}. Ctrl-C stops.")
    try:
        uvicorn.run(create_stake_app(rgs), host=host, port=port)
    finally:
        rgs.close()
    typer.echo("local Stake RGS stopped. Goodbye.")
    sys.stdout.flush()


def app_from_env():
    """App factory for multi-process serving (each uvicorn worker builds its own app)."""
    from reelforge.server.app import create_app
    from reelforge.server.http import configure
    from reelforge.server.logs import configure_logging

    path = os.environ.get(ENV_CONFIG) or None
    config = load_config(path)
    configure(config)  # this worker process's own limits
    configure_logging(os.environ.get(ENV_LOG_FORMAT) or "json")
    from reelforge.server.metrics import MULTIPROC_ENV

    return create_app(config, os.environ[ENV_DB], allow_demo_players=bool(os.environ.get(ENV_ALLOW_DEMO)),
                      metrics_multiprocess=bool(os.environ.get(MULTIPROC_ENV)))


def verify(
    db: str = typer.Option(DEFAULT_DATABASE, "--db", help="database URL"),
    round_id: int | None = typer.Option(None, "--round", min=1, help="verify one round"),
    all_rounds: bool = typer.Option(False, "--all", help="verify every stored round"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per round"),
) -> None:
    """Replay stored rounds through the rules engine and report every mismatch (exit 1 if any)."""
    from reelforge.server.verify import campaign_differences, verify_all, verify_round

    if (round_id is None) == (not all_rounds):
        raise typer.BadParameter("give exactly one of --round ID or --all")
    engine = _existing_database(db)
    if round_id is not None:
        result = verify_round(engine, round_id)
        if result is None:
            from reelforge.server.db import masked_url

            typer.echo(f"no round {round_id} in {masked_url(db)}", err=True)
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
    # --all: every player's free-round campaign against its rounds and credits too
    campaigns = campaign_differences(engine) if round_id is None else []
    if campaigns:
        bad += 1
        if as_json:
            typer.echo(json.dumps({"campaign_differences": campaigns}))
        else:
            typer.echo("free-round campaigns: MISMATCH")
            for d in campaigns:
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
    log_format: str = typer.Option("json", "--log-format",
                                   help="one line per completed round (round_completed_on_expiry): json or human"),
) -> None:
    """Complete every round unfinished longer than the expiry: its remaining steps revealed, its decided win
    credited (never refunded: rounds are decided when staked); each logged as a round event."""
    from dataclasses import replace

    from reelforge.server.logs import FORMATS, configure_logging, unconfigure_logging
    from reelforge.server.rounds import RoundService

    if log_format not in FORMATS:
        raise typer.BadParameter(f"choose {', '.join(FORMATS)}", param_hint="--log-format")

    cfg = _config(config, False) if config is not None else ServerConfig()
    cfg = replace(cfg, games={})  # expiry needs no game configuration
    if days is not None:
        cfg = replace(cfg, round_expiry_days=days)
    url = db or cfg.database or DEFAULT_DATABASE
    engine = _existing_database(url)
    handler = configure_logging(log_format, sys.stdout)
    try:
        n = RoundService(engine, cfg).expire()
    finally:
        unconfigure_logging(handler)
        engine.dispose()
    if log_format == "json":
        from reelforge.server.logs import event_line

        typer.echo(event_line("reelforge.server", {"event": "expiry_done", "completed": n,
                                                   "round_expiry_days": cfg.round_expiry_days}))
        return
    typer.echo(f"{n} round(s) unfinished for more than {cfg.round_expiry_days:g} days completed "
               "(decided wins credited)")


def verify_fair(
    export: Path = typer.Argument(..., help="a round exported as JSON (GET /api/v1/rounds/{id}), a list of rounds, "
                                            "or {\"rounds\": [...]}"),
    server_seed: str | None = typer.Option(None, "--server-seed",
                                           help="the revealed server seed, for a round exported before rotation"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per round"),
) -> None:
    """Verify provably fair rounds offline from their seeds alone: the server seed against the commitment, then
    every draw made again and the round replayed through the rules engine (exit 1 if any round differs)."""
    from reelforge.server.fair_verify import ExportError, nonce_differences, rounds_of, verify_export

    def refuse(message: str) -> None:
        typer.echo(f"error: {message}", err=True)
        raise typer.Exit(2)

    try:
        data = json.loads(export.read_text(encoding="utf-8"))
    except OSError as exc:
        refuse(f"cannot read {export}: {exc.strerror}")
    except ValueError as exc:
        refuse(f"{export} is not JSON: {exc}")
    bad = 0
    rounds = rounds_of(data)
    sequence = nonce_differences(rounds)
    for i, item in enumerate(rounds):
        try:
            result = verify_export(item, server_seed)
        except ExportError as exc:
            refuse(str(exc))
        if i in sequence:
            result.update(ok=False, differences=result["differences"] + sequence[i])
        bad += not result["ok"]
        if as_json:
            typer.echo(json.dumps(result))
            continue
        verdict = "OK" if result["ok"] else "MISMATCH"
        typer.echo(f"round {result['round']} (nonce {result['nonce']}): {verdict}: {result['steps_checked']} "
                   f"step(s), {result['draws_checked']} draw(s) recomputed from the seeds")
        for d in result["differences"]:
            typer.echo(f"  - {d}")
    if not as_json:
        typer.echo(f"{len(rounds)} round(s) verified from their seeds: {len(rounds) - bad} ok, {bad} mismatched")
    if bad:
        raise typer.Exit(1)


def reconcile(
    config_path: Path = typer.Option(..., "--config", exists=True, dir_okay=False,
                                     help="the server configuration ([operator] wallet_url and secret)"),
    db: str | None = typer.Option(None, "--db", help="database URL (default: the configuration's)"),
    brand: str | None = typer.Option(None, "--brand", help="the brand whose wallet to reconcile (default: the "
                                                           "configuration's [operator] brand)"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object"),
    max_pending_seconds: float = typer.Option(300.0, "--max-pending-seconds", min=0,
                                              help="a wallet call unsettled longer than this is overdue (exit 1)"),
) -> None:
    """Compare a brand's seamless wallet ledger with our rounds and wallet calls of that brand; name every
    difference and every call unsettled longer than --max-pending-seconds (exit 1 if any)."""
    from reelforge.server.reconcile import operator_ledger, print_report
    from reelforge.server.reconcile import reconcile as compare

    config = _config(config_path, False)
    if not config.seamless:
        raise typer.BadParameter("the configuration's [operator] wallet is not 'seamless'", param_hint="--config")
    if brand is not None and brand not in {b.id for b in config.all_brands()}:
        raise typer.BadParameter(f"the configuration has no brand {brand!r}; brands: "
                                 f"{', '.join(b.id for b in config.all_brands())}", param_hint="--brand")
    brand = brand or config.operator.brand
    engine = _existing_database(db or config.database or DEFAULT_DATABASE)
    try:
        theirs = operator_ledger(config, brand=brand)
    except Exception as exc:  # noqa: BLE001 - any failure to read their ledger is reported, not a traceback
        engine.dispose()
        typer.echo(f"cannot read the operator's ledger: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(2) from exc
    report = compare(engine, theirs, brand, max_pending_seconds)
    engine.dispose()
    print_report(report, as_json, typer.echo)
    if not report["clean"]:
        raise typer.Exit(1)


def revenue(
    day: str = typer.Option(..., "--date", help="the day, YYYY-MM-DD (UTC): rounds staked on it"),
    config_path: Path | None = typer.Option(None, "--config", exists=True, dir_okay=False,
                                            help="the server configuration (its currencies and database)"),
    db: str | None = typer.Option(None, "--db", help="database URL (default: the configuration's)"),
    brand: str | None = typer.Option(None, "--brand", help="only this brand's rounds (default: every brand)"),
    to: str | None = typer.Option(None, "--to", help="reporting currency (ISO 4217): convert at --rates"),
    rates_file: Path | None = typer.Option(None, "--rates", exists=True, dir_okay=False,
                                           help='JSON file {"GBP": "1.1650", ...}: 1 unit of each = RATE of --to'),
    fmt: str = typer.Option("csv", "--format", help="csv or json"),
) -> None:
    """The daily revenue report per brand, game, currency and kind of round (the figures of /metrics), converted
    into a reporting currency at the operator's rates; CSV or JSON.

    Rounds, stakes, wins, refunds and GGR of the rounds staked on --date (UTC); --to and --rates convert them
    (exact decimals, each amount rounded once to the minor unit, half to even)."""
    from decimal import Decimal

    from reelforge.server.revenue import ReportError, parse_day, revenue_report

    if fmt not in ("csv", "json"):
        raise typer.BadParameter("csv or json", param_hint="--format")
    if (to is None) != (rates_file is None):
        raise typer.BadParameter("give --to and --rates together (or neither: no conversion)", param_hint="--to")
    config = _config(config_path, config_path is None)
    rates = None
    if rates_file is not None:
        try:  # numbers as written (1.1650 exactly), never binary floating point
            rates = json.loads(rates_file.read_text(), parse_float=Decimal)
        except (ValueError, UnicodeDecodeError) as exc:
            raise typer.BadParameter(f"{rates_file} is not JSON: {exc}", param_hint="--rates") from exc
    try:
        report_day = parse_day(day)
    except ReportError as exc:
        raise typer.BadParameter(str(exc), param_hint="--date") from exc
    engine = _existing_database(db or config.database or DEFAULT_DATABASE)
    try:
        report = revenue_report(engine, config.currencies, report_day, brand, to, rates)
    except ReportError as exc:
        raise typer.BadParameter(str(exc), param_hint="--rates") from exc
    finally:
        engine.dispose()
    typer.echo(json.dumps(report.to_json(), indent=2) if fmt == "json" else report.to_csv(), nl=fmt == "json")


def register(app: typer.Typer) -> None:
    """Add the server commands to the project's CLI."""
    app.command("reconcile")(reconcile)
    app.command("revenue")(revenue)
    app.command("serve")(serve)
    app.command("verify")(verify)
    app.command("expire")(expire)
    app.command("verify-fair")(verify_fair)
