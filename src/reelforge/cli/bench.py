"""``reelforge bench``: kernel rounds per second, or the game server's rounds per second through HTTP."""

from __future__ import annotations

import typer
from rich.table import Table

from reelforge.cli.common import BUILD_OPT, ROUNDS, emit_json, fail, load, register_game_class
from reelforge.cli.output import console


def bench(
    game: str = typer.Argument(None, help="Game id (default: every game)."),
    build: str = BUILD_OPT,
    mode: str = typer.Option("paid", "--mode", metavar="MODE", help="Round mode."),
    scaling_run: bool = typer.Option(False, "--scaling", help="Driver rounds/s with 1 and 2 workers instead."),
    ray_run: bool = typer.Option(False, "--ray", help="Same run on the local backend and on a local Ray instance."),
    rounds: int = typer.Option(None, "--rounds", "-n", metavar="N", parser=ROUNDS,
                               help="Rounds for --scaling / --ray (default 2e8)."),
    server_run: bool = typer.Option(False, "--server", help="Game-server benchmark instead: paid rounds/s "
                                    "through HTTP with concurrent clients, p50/p99 latency, CPU per round."),
    clients: int = typer.Option(16, "--clients", min=1, max=1000, help="--server: concurrent clients."),
    seconds: float = typer.Option(20.0, "--seconds", min=1.0, help="--server: measured seconds (after 3 s warm-up)."),
    server_workers: int = typer.Option(1, "--server-workers", min=1, max=64,
                                       help="--server: server processes (on SQLite one is best)."),
    db: str = typer.Option(None, "--db", help="--server: database URL (default: a fresh SQLite file)."),
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
    game_class: str = typer.Option(None, "--game-class", metavar="MODULE:CLASS",
                                   help="Register GAME's class for this run: a game outside the lobby, such as "
                                        "a benchmark game (reelforge.games.problab.demo_normal.game:DemoNormal)."),
) -> None:
    """Kernel rounds per second per core, with this machine's raw random-number rate from the same run
    (or, with --server, the game server's paid rounds per second through HTTP)."""
    from reelforge.bench import kernels as b
    from reelforge.games.registry import game_ids

    if game_class:
        if not game:
            fail("--game-class needs the GAME it registers")
        register_game_class(game, game_class)
    if server_run:
        _bench_server(game or game_ids()[0], clients, seconds, server_workers, db, as_json)
        return
    n = rounds or 200_000_000
    ids = [game] if game else game_ids()
    for gid in ids:
        load(gid, build if game else None, mode)
    if scaling_run or ray_run:
        if not game:
            fail("--scaling and --ray need a game")
        results = []
        if scaling_run:
            results.append(b.scaling(game, build, n))
        if ray_run:
            results.append(b.ray_overhead(game, build, n))
        if as_json:
            emit_json(results[0] if len(results) == 1 else results)
        else:
            for r in results:
                console.print(r)
        return
    results = [b.bench(gid, build if game else None, mode) for gid in ids]
    if as_json:
        emit_json(results[0] if game else results)
        return
    t = Table(title="reelforge bench (one core)")
    for col in ("game", "build", "mode", "rounds/s per core", "raw draws/s", "rounds per 10^6 raw draws"):
        t.add_column(col)
    for r in results:
        t.add_row(r["game"], r["build"], r["mode"], f"{r['rounds_per_second_per_core']:,.0f}",
                  f"{r['raw_draws_per_second']:,.0f}", f"{r['rounds_per_million_raw_draws']:,.0f}")
    console.print(t)


def _bench_server(game: str, clients: int, seconds: float, workers: int, db: str | None, as_json: bool) -> None:
    from reelforge.bench.server import run
    from reelforge.games.registry import game_ids

    if game not in game_ids():
        fail(f"unknown game {game!r}; games: {', '.join(game_ids())}")
    r = run(clients=clients, seconds=seconds, workers=workers, game=game, db=db)
    if as_json:
        emit_json(r)
    else:
        t = Table(title=f"reelforge bench --server ({r['clients']} clients, {r['workers']} server process(es), "
                        f"{r['database']}, {r['seconds']:g} s)")
        t.add_column("figure")
        t.add_column("value")
        lat = r["latency_ms"] or {}
        for name, value in (("paid rounds/s", r["rounds_per_s"]), ("requests/s", r["requests_per_s"]),
                            ("latency p50 / p99 / max (ms)", f"{lat.get('p50')} / {lat.get('p99')} / {lat.get('max')}"),
                            ("server CPU ms per round", r["server_cpu_ms_per_round"]),
                            ("client CPU ms per round", r["client_cpu_ms_per_round"]),
                            *((("request transactions per SQLite COMMIT",
                                f"{r['sqlite_commits']['per_commit']} ({r['sqlite_commits']['transactions']:,} in "
                                f"{r['sqlite_commits']['commits']:,})"),) if r.get("sqlite_commits") else ()),
                            ("load average (1 min)", r["load_average_1min"]),
                            ("errors", r["error_count"]), ("verify", r["verify"])):
            t.add_row(name, str(value))
        console.print(t)
    if r["error_count"] or not r["rounds_per_s"] or " 0 mismatched" not in r["verify"]:
        raise typer.Exit(1)
