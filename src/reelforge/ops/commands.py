"""Command-line command ``reelforge soak`` (registered into the project's Typer app by :func:`register`)."""

from __future__ import annotations

import json

import typer

from reelforge.ops.soak import MAX_CLIENTS, SoakError, run_soak

TABLE_ROWS = [
    ("backend", "database back end"), ("clients", "concurrent players"), ("seconds", "wall time (s)"),
    ("rounds", "rounds played to the end"), ("feature_rounds", "rounds with a feature (more than one step)"),
    ("steps", "steps played"), ("rounds_per_second", "rounds per second"), ("p50_ms", "latency p50 (ms)"),
    ("p99_ms", "latency p99 (ms)"), ("max_ms", "latency max (ms)"), ("errors_5xx", "5xx answers"),
    ("unexpected_answers", "unexpected answers"), ("kills", "server processes SIGKILLed"),
    ("restart_p50_ms", "restart until serving, p50 (ms)"),
    ("transport_errors_retried", "requests cut by a kill, retried (same key)"),
    ("rounds_verified", "rounds verified by replay"), ("verify_failures", "verify failures"),
    ("total_staked", "total staked (minor units)"), ("total_won", "total won (minor units)"),
    ("lost_or_duplicated_money", "lost or duplicated money (minor units)"),
    ("unfinishable_rounds", "unfinishable rounds"), ("reconciled", "ledger reconciles exactly"),
]


def soak(
    db: str | None = typer.Option(None, "--db", help="database URL (default: a fresh SQLite file, deleted after)"),
    clients: int = typer.Option(32, "--clients", min=1, max=MAX_CLIENTS, help="concurrent simulated players"),
    seconds: float = typer.Option(30.0, "--seconds", min=0.1, max=86400.0, help="how long players start rounds"),
    kill_every: float | None = typer.Option(None, "--kill-every", min=0.05,
                                            help="SIGKILL and restart the server every ~SECONDS (random)"),
    kills: int | None = typer.Option(None, "--kills", min=1, help="with --kill-every: end the run after N kills"),
    seed: int | None = typer.Option(None, "--seed", help="seed of the kill timing (not of the game's draws)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Load and crash soak: start the server, drive it over loopback, reconcile the ledger and verify every round.

    Exits 1 unless everything reconciles (no 5xx, no lost or duplicated money, every round finished and verified).
    """
    try:
        result = run_soak(db=db, clients=clients, seconds=seconds, kill_every=kill_every, max_kills=kills, seed=seed)
    except SoakError as exc:
        raise typer.BadParameter(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps(result, sort_keys=True))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title="reelforge soak")
        table.add_column("figure")
        table.add_column("value", justify="right")
        for key, label in TABLE_ROWS:
            table.add_row(label, str(result[key]))
        Console().print(table)
        for problem in result["problems"]:
            typer.echo(f"problem: {problem}", err=True)
    if not result["reconciled"]:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``soak`` to the project's CLI."""
    app.command("soak")(soak)


def wallet_soak(
    db: str | None = typer.Option(None, "--db", help="database URL (default: a fresh SQLite file, deleted after); "
                                                     "PostgreSQL: the wallet gets a database of its own beside it"),
    players: int = typer.Option(8, "--players", min=1, max=256, help="concurrent simulated players"),
    seconds: float = typer.Option(60.0, "--seconds", min=1.0, max=86400.0, help="how long players start rounds"),
    kill_every: float = typer.Option(4.0, "--kill-every", min=0.0,
                                     help="SIGKILL the game server or the wallet (in turn) every ~SECONDS; 0: never"),
    seed: int = typer.Option(1, "--seed", help="seed of the kill timing and of the wallet's faults"),
    no_faults: bool = typer.Option(False, "--no-faults", help="no injected wallet faults (kills only)"),
    brands: int = typer.Option(1, "--brands", min=1, max=8,
                               help="brands on the one database, each with its own wallet and server processes; "
                                    "each reconciled against its own wallet"),
    campaign_players: int = typer.Option(0, "--campaign-players", min=0, max=256,
                                         help="of the players, how many play free rounds of free-round campaigns "
                                              "(each kill then waits for a free round)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Seamless wallet soak: the game server and the reference operator wallet killed during play, faults
    injected; 0 money lost or duplicated on either side, the outbox drained, reconciliation clean.

    Exits 1 unless everything reconciles.
    """
    from reelforge.ops.wallet_soak import run_wallet_soak

    result = run_wallet_soak(db=db, players=players, seconds=seconds, kill_every=kill_every, seed=seed,
                             faults=not no_faults, brands=brands, campaign_players=min(campaign_players, players))
    if as_json:
        typer.echo(json.dumps(result, sort_keys=True))
    else:
        for key, value in result.items():
            if key not in ("problems", "unexpected"):
                typer.echo(f"{key}: {value}")
        for problem in result["problems"] + result["unexpected"]:
            typer.echo(f"problem: {problem}", err=True)
    if not result["reconciled"]:
        raise typer.Exit(1)


def wallet_check(
    url: str = typer.Argument(..., help="the wallet's base URL (the server's [operator] wallet_url)"),
    secret_file: str = typer.Option(..., "--secret-file", help="file holding the HMAC secret shared with the wallet"),
    brand: str = typer.Option("default", "--brand", help="the brand id sent with every call"),
    player: str = typer.Option("wallet-check", "--player",
                               help="a test player the wallet knows, holding at least 10 minor units"),
    currency: str = typer.Option("EUR", "--currency", help="the test player's currency"),
    signed_answers: bool = typer.Option(False, "--signed-answers",
                                        help="every answer must carry the wallet's signature"),
    timeout: float = typer.Option(10.0, "--timeout", min=0.1, max=300.0, help="seconds one call may take"),
) -> None:
    """Conformance check of an operator's seamless wallet: every call, retry and fault path of the wallet
    protocol (docs/WALLET_PROTOCOL.md); prints each thing the wallet does wrong, one line each.

    Exits 1 when the wallet has a defect, 2 when it cannot be checked (no secret, not reachable).
    """
    from pathlib import Path

    from reelforge.ops.wallet_check import WalletCheck, WalletUnreachable, run_wallet_check

    if not url.startswith(("http://", "https://")):
        raise typer.BadParameter(f"the wallet URL must be http(s), got {url!r}", param_hint="URL")
    try:
        secret = Path(secret_file).read_text().strip()
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {secret_file!r}: {exc.strerror}", param_hint="--secret-file") from exc
    if len(secret) < 16:
        raise typer.BadParameter("the secret must be at least 16 characters", param_hint="--secret-file")
    check = WalletCheck(url, secret, player, currency, brand, timeout, signed_answers)
    try:
        results = run_wallet_check(check)
    except WalletUnreachable as exc:
        typer.echo(f"error: the wallet at {url} gave no answer: {exc}", err=True)
        raise typer.Exit(2) from exc
    defects = 0
    for result in results:
        if not result.defects:
            typer.echo(f"ok      {result.name}: {result.what}")
        for defect in result.defects:
            typer.echo(f"DEFECT  {result.name}: {defect}")
            defects += 1
    typer.echo(f"{len(results)} checks, {defects} defect(s)")
    if defects:
        raise typer.Exit(1)
