"""The ``reelforge`` command line (one Typer app)."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from typing import Any, NoReturn

import typer
from rich import box
from rich.console import Console
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="reelforge: slot-game mathematics engine and game server.")
console = Console()
err_console = Console(stderr=True)


class CliError(Exception):
    """Bad input: reported as one line on stderr, exit status 2."""


def fail(message: str) -> NoReturn:
    raise CliError(message)


def parse_positive_int(value: str | None, name: str) -> int | None:
    """Accept 1000000, 1_000_000 or 1e6; reject anything not a positive integer."""
    if value is None:
        return None
    text = value.strip().replace("_", "")
    try:
        number = int(text)
    except ValueError:
        try:
            f = float(text)
        except ValueError:
            fail(f"{name} must be a positive integer, got {value!r}")
        if not math.isfinite(f) or f != int(f):
            fail(f"{name} must be a positive integer, got {value!r}")
        number = int(f)
    if number < 1:
        fail(f"{name} must be a positive integer (at least 1), got {value!r}")
    return number


def parse_seed(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        seed = int(value)
    except ValueError:
        fail(f"--seed must be a non-negative integer, got {value!r}")
    if seed < 0:
        fail(f"--seed must be a non-negative integer, got {value!r}")
    return seed


def load(game_id: str, build_name: str | None, mode: str = "paid") -> tuple[Any, Any]:
    """Game and build objects, or a clear error listing the valid ones."""
    from reelforge.game import BuildError, RulesError
    from reelforge.games.registry import UnknownGame, get_game

    try:
        game = get_game(game_id)
        build = game.load_build(build_name or game.default_build())
        game.check_mode(mode)
        if mode != "paid":
            game.stake_x(build, mode)
    except (UnknownGame, BuildError, RulesError) as exc:
        fail(str(exc))
    return game, build


def _json_default(o: Any) -> Any:
    if isinstance(o, Fraction):
        return float(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, default=_json_default, indent=2) + "\n")


def _pct(x: float | None) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * 100:.4f}%"


def print_summary(s: dict[str, Any]) -> None:
    """A Game Rules Summary as a readable table (the report's figures, in words, with intervals)."""
    from reelforge.analysis.figures import bucket_words, figure_rows, interval_text
    from reelforge.analysis.par import one_in, pct

    pid = s.get("published_id", s.get("game_id"))
    title = f"{s['title']} ({'game id ' + str(pid) if pid else 'no published game id'}, v{s['version']}) - build {s['build']}"
    if s.get("mode", "paid") != "paid":
        title += f" - mode {s['mode']}"
    t = Table(title=title, show_header=False, title_justify="left")
    t.add_column("figure", style="bold", ratio=3)
    t.add_column("value", ratio=4)
    t.add_column("99% interval", ratio=4)
    if s["method"] == "exact":
        method = "exact"
    elif s["method"] == "stratified":
        method = (f"stratified estimate, {s['rounds']:,} paid spins + {s.get('feature_rounds', 0):,} features "
                  f"(seed {s.get('seed')})")
    else:
        method = f"simulation, {s['rounds']:,} rounds (seed {s.get('seed')})"
    t.add_row("method", method, "")
    est = s.get("estimator")
    if est:
        t.add_row("estimator", f"{est['used']}: {est['reason']}", "")
        if "precision_reached" in est:
            t.add_row("precision", f"99% half-width {s['rtp_ci99_half_width_pp']:.4f} pp, asked "
                      f"{est['requested_precision_pp']} pp ({'reached' if est['precision_reached'] else 'NOT reached'})",
                      "")
    for label, value, interval in figure_rows(s):
        t.add_row(label, value, interval)
    console.print(t)
    if not s["distribution"]:
        return
    exact = s["method"] == "exact"
    d = Table(title="Win distribution (per round, x total bet)", title_justify="left")
    d.add_column("round win")
    d.add_column("probability", justify="right")
    d.add_column("99% interval" + ("" if exact else " (exact binomial)"), justify="right")
    d.add_column("1 in", justify="right")
    for row in s["distribution"]:
        p = row["probability"]
        d.add_row(bucket_words(row, s["max_win_x"]), pct(p, 6), "exact" if exact else interval_text(row.get("ci99"), 6),
                  one_in(p).removeprefix("1 in "))
    console.print(d)


def _progress_bar(total_rounds: int | None):
    """A rich progress callback (rounds, rounds/s, running RTP and interval) or None off a terminal."""
    if not sys.stdout.isatty():
        return None, None
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(TextColumn("[bold]simulating"), BarColumn(), TextColumn("{task.fields[done]}"),
                        TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[rtp]}"), TimeRemainingColumn(),
                        console=console, transient=True)
    task = progress.add_task("sim", total=total_rounds, rate="", rtp="", done="")
    of = f"/{total_rounds:,}" if total_rounds else ""
    import time

    t0 = time.perf_counter()

    def update(acc) -> None:
        lo, hi = acc.rtp_ci99()
        rate = acc.rounds / max(time.perf_counter() - t0, 1e-9)
        progress.update(task, completed=acc.rounds, done=f"{acc.rounds:,}{of} rounds", rate=f"{rate:,.0f} rounds/s",
                        rtp=f"RTP {acc.rtp * 100:.4f}% [{lo * 100:.4f}, {hi * 100:.4f}]")

    return progress, update


def parse_precision(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        p = float(value)
    except ValueError:
        fail(f"--precision must be a positive number of percentage points, got {value!r}")
    if not (math.isfinite(p) and p > 0):
        fail(f"--precision must be a positive number of percentage points, got {value!r}")
    return p


def parse_run_options(rounds: str | None, workers: str | None, precision: str | None,
                      seed: str | None) -> tuple[int | None, int | None, float | None, int | None]:
    """The numeric options shared by summary and simulate, checked."""
    return (parse_positive_int(rounds, "--rounds"), parse_positive_int(workers, "--workers"),
            parse_precision(precision), parse_seed(seed))


def run_simulation(game_id: str, build_name: str | None, rounds: int | None, seed: int | None,
                   workers: int | None, mode: str, quiet: bool, precision: float | None = None,
                   backend: str = "local", address: str | None = None) -> tuple[dict[str, Any], Any]:
    from reelforge.analysis.simulate import BACKENDS, simulate
    from reelforge.analysis.summary import simulation_summary

    if backend not in BACKENDS:
        fail(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        fail("--address needs --backend ray")
    game, build = load(game_id, build_name, mode)
    progress, update = (None, None) if quiet else _progress_bar(rounds)
    kwargs = dict(rounds=rounds, seed=seed, workers=workers, mode=mode, precision_pp=precision,
                  backend=backend, address=address)
    try:
        if progress:
            with progress:
                res = simulate(game.id, build.name, progress=update, **kwargs)
        else:
            res = simulate(game.id, build.name, **kwargs)
    except ConnectionError as exc:
        fail(f"cannot reach the Ray cluster: {exc}")
    s = simulation_summary(game, build, res.accumulator, mode, res.seed, res.seconds, res.interrupted)
    s.update({"workers": res.workers, "backend": res.backend, "precision_pp": res.precision_pp,
              "rounds_per_second": res.accumulator.rounds / res.seconds if res.seconds else None})
    if mode == "paid":
        ex = game.exact(build)
        if ex is not None:
            lo, hi = s["rtp_ci99"]
            s["exact_rtp"] = float(ex["rtp"])
            s["exact_rtp_inside_ci99"] = bool(lo <= ex["rtp"] <= hi)
    return s, res


@app.command()
def games(as_json: bool = typer.Option(False, "--json", help="One JSON object.")) -> None:
    """List the games and their builds."""
    from reelforge.games.registry import all_games

    rows = []
    for g in all_games():
        rows.append({"id": g.id, "title": g.title, "game_id": g.reference_id,
                     "published_id": getattr(g, "published_id", g.reference_id), "version": g.version,
                     "max_win_x": g.max_win_x, "modes": list(g.modes), "builds": g.build_names()})
    if as_json:
        emit_json({"games": rows})
        return
    # the id is what one types: never cut; the title wraps instead
    t = Table(title="reelforge games", box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False,
              collapse_padding=True)
    t.add_column("id", no_wrap=True, style="bold")
    t.add_column("title", ratio=1, min_width=8)
    t.add_column("game id", no_wrap=True)
    t.add_column("version", no_wrap=True)
    t.add_column("max win", justify="right", no_wrap=True)
    t.add_column("modes", no_wrap=True)
    t.add_column("builds", max_width=14, min_width=5)
    for r in rows:
        t.add_row(r["id"], r["title"], r["published_id"] or "none", r["version"],
                  f"{r['max_win_x']:,}x", "/".join(r["modes"]), " ".join(r["builds"]))
    console.print(t)
    for r in rows:
        if r["published_id"] is None:
            console.print(f"{r['title']}: no published game id (the rules it follows give none).")


BUILD_OPT = typer.Option(None, "--build", "-b", metavar="BUILD", help="Build name (default: the highest RTP).")
WORKERS_OPT = typer.Option(None, "--workers", "-w", metavar="N", help="Worker processes (default: all cores).")
JSON_OPT = typer.Option(False, "--json", help="One JSON object.")
BACKEND_OPT = typer.Option("local", "--backend", metavar="NAME", help="local (worker processes) or ray.")
ADDRESS_OPT = typer.Option(None, "--address", metavar="HOST:PORT", help="Ray cluster address (default: start a local Ray).")
PRECISION_OPT = typer.Option(None, "--precision", metavar="PP", help="Stop when the 99% RTP half-width is below this (pp).")


@app.command()
def summary(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see `reelforge games`)."),
    build: str = BUILD_OPT,
    mode: str = typer.Option("paid", "--mode", metavar="MODE", help="Round mode: paid, or buy where the game has a feature buy."),
    rounds: str = typer.Option(None, "--rounds", "-n", metavar="N", help="Simulate this many rounds instead of exact maths."),
    precision: str = PRECISION_OPT,
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed for a simulation."),
    workers: str = WORKERS_OPT,
    backend: str = BACKEND_OPT,
    address: str = ADDRESS_OPT,
    out: str = typer.Option(None, "--out", "-o", metavar="FILE", help="Also write a report with plots and the PAR "
                            "sheet (.html or .md)."),
    par_rounds: str = typer.Option(None, "--par-rounds", metavar="N", help="With --out: reference-engine rounds "
                                   "behind the PAR sheet's per-pay figures of simulated games (default 200,000)."),
    stratified: bool = typer.Option(False, "--stratified", help="Use the game's stratified estimate "
                                    "(paid spins + trigger rate x feature value); --rounds = paid spins; with "
                                    "--precision, paid spins grow until the target is met."),
    plain: bool = typer.Option(False, "--plain", help="Use the plain full-round simulation even where --precision "
                               "would pick the stratified estimate."),
    as_json: bool = JSON_OPT,
) -> None:
    """The Game Rules Summary of a build: exact where the game allows, else simulated.

    With --precision on a game that has a stratified estimator (paid rounds, no --out), a short
    stratified pilot prices both estimators and the one predicted to reach the target sooner is
    used; the output's ``estimator`` says which and why."""
    from reelforge.analysis.simulate import default_workers, new_seed
    from reelforge.analysis.summary import (
        choose_estimator,
        exact_summary,
        stratified_summary,
        stratified_to_precision,
    )

    n, w, p, s_seed = parse_run_options(rounds, workers, precision, seed)
    if out is not None and not out.lower().endswith((".html", ".htm", ".md")):
        fail(f"--out must end in .html or .md, got {out!r}")
    par_n = parse_positive_int(par_rounds, "--par-rounds")
    if par_n is not None and out is None:
        fail("--par-rounds sizes the report's PAR sheet: give --out too")
    if stratified and plain:
        fail("--stratified and --plain exclude each other: pick one estimator (or neither, to let --precision choose)")
    g, b = load(game, build, mode)
    if stratified:
        if mode != "paid":
            fail(f"--stratified estimates paid rounds; it has no --mode {mode}")
        if out is not None:
            fail("--stratified gives no win distribution or RTP convergence for a report; drop --out or --stratified")
        if backend != "local" or address is not None:
            fail("--stratified runs in this process; --backend and --address are for plain simulations")
        if not g.has_stratified:
            fail(f"{g.id} has no stratified estimate; use a plain simulation (drop --stratified)")
        sd_seed = 2026 if s_seed is None else s_seed
        try:
            if p is None:
                s = stratified_summary(g, b, n or 100_000_000, sd_seed)
            else:
                start = min(g.stratified_pilot_rounds, n) if n else g.stratified_pilot_rounds
                s, runs = stratified_to_precision(g, b, p, sd_seed, start, max_rounds=n)
        except ValueError as exc:
            fail(str(exc))
        if p is None:
            s["estimator"] = {"used": "stratified", "reason": "requested with --stratified"}
        else:
            s["estimator"] = {"used": "stratified", "reason": "requested with --stratified; paid spins grown until "
                              "the 99% half-width met --precision", "requested_precision_pp": p,
                              "precision_reached": bool(s["rtp_ci99_half_width_pp"] <= p), "runs": runs}
        emit_json(s) if as_json else print_summary(s)
        return
    checkpoints = None
    if n is None and p is None and mode == "paid" and g.exact(b) is not None and not plain:
        s = exact_summary(g, b)
        emit_or_report(s, g, b, out, mode, s_seed, w, checkpoints, as_json, par_n)
        return
    choice: dict[str, Any] | None = None
    if p is not None and not plain and mode == "paid" and g.has_stratified:
        if out is not None:
            choice = {"used": "plain", "reason": "the report (--out) needs the full-round simulation's win "
                      "distribution, RTP convergence and feature counters, which the stratified estimate lacks"}
        elif backend != "local":
            choice = {"used": "plain", "reason": f"--backend {backend}: the cluster runs the plain simulation "
                      "(the stratified estimate runs in this process)"}
        else:
            s_seed = new_seed() if s_seed is None else s_seed
            choice = choose_estimator(g, b, p, s_seed, w or default_workers(),
                                      min(g.stratified_pilot_rounds, n) if n else None)
            pilot = choice.pop("pilot_summary")
            if choice["used"] == "stratified":
                ps = choice["pilot"]["paid_spins"]
                s, runs = stratified_to_precision(g, b, p, s_seed, ps, max_rounds=n, first=pilot)
                choice["runs"] = [{"rounds": ps, "half_width_pp": choice["pilot"]["rtp_ci99_half_width_pp"],
                                   "seconds": choice["pilot"]["seconds"]}, *runs]
                choice["precision_reached"] = bool(s["rtp_ci99_half_width_pp"] <= p)
                s["estimator"] = choice
                emit_json(s) if as_json else print_summary(s)
                return
    s, res = run_simulation(g.id, b.name, n if (n or p) else 10_000_000, s_seed, w, mode, quiet=as_json,
                            precision=p, backend=backend, address=address)
    checkpoints = res.checkpoints
    if backend == "local":
        from reelforge.analysis.summary import add_feature_buy

        add_feature_buy(g, b, s, s["seed"], w)  # the RTP split's Feature Buy part, where the game has one
    if choice is None:
        choice = {"used": "plain", "reason": "requested with --plain" if plain else (
            "the game has no stratified estimator" if p is not None and mode == "paid" and not g.has_stratified
            else "no --precision: a plain simulation of the requested rounds" if p is None
            else f"--mode {mode}: the stratified estimate covers paid rounds only")}
    if p is not None:
        choice["requested_precision_pp"] = p
        choice["precision_reached"] = bool(s["rtp_ci99_half_width_pp"] <= p)
    s["estimator"] = choice
    emit_or_report(s, g, b, out, mode, s_seed, w, checkpoints, as_json, par_n)


def emit_or_report(s: dict[str, Any], g: Any, b: Any, out: str | None, mode: str, seed: int | None,
                   workers: int | None, checkpoints: list | None, as_json: bool, par_rounds: int | None = None) -> None:
    """Write the report (when ``out``; it adds the PAR sheet and, where the game has one, the Feature Buy
    figure to the summary) and print the summary."""
    if out is not None:
        from reelforge.analysis.par import PAR_SAMPLE_ROUNDS
        from reelforge.analysis.report import write_report

        write_report(out, g, b, s, mode=mode, seed=seed, workers=workers, checkpoints=checkpoints,
                     par_rounds=par_rounds or PAR_SAMPLE_ROUNDS)
        if not as_json:
            console.print(f"report written to {out}")
    emit_json(s) if as_json else print_summary(s)


@app.command()
def simulate(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see `reelforge games`)."),
    build: str = BUILD_OPT,
    rounds: str = typer.Option(None, "--rounds", "-n", metavar="N", help="Rounds to simulate (e.g. 1e8); a ceiling with --precision."),
    precision: str = PRECISION_OPT,
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed (default: random, reported)."),
    workers: str = WORKERS_OPT,
    mode: str = typer.Option("paid", "--mode", metavar="MODE", help="Round mode: paid, or buy where the game has one."),
    backend: str = BACKEND_OPT,
    address: str = ADDRESS_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Simulate a build with the fast kernel; the same seed gives the same totals for any --workers or backend."""
    n, w, p, s_seed = parse_run_options(rounds, workers, precision, seed)
    if n is None and p is None:
        fail("give --rounds N or --precision P (or both: --rounds is then a ceiling)")
    load(game, build, mode)
    s, _ = run_simulation(game, build, n, s_seed, w, mode, quiet=as_json, precision=p, backend=backend,
                          address=address)
    if as_json:
        emit_json(s)
        return
    print_summary(s)
    if "exact_rtp" in s:
        verdict = "inside" if s["exact_rtp_inside_ci99"] else "OUTSIDE"
        console.print(f"exact RTP {_pct(s['exact_rtp'])} is {verdict} the simulation's 99% interval")
    if s["interrupted"]:
        console.print("[yellow]interrupted: figures cover the rounds simulated before Ctrl-C[/yellow]")


@app.command()
def bench(
    game: str = typer.Argument(None, help="Game id (default: every game)."),
    build: str = BUILD_OPT,
    mode: str = typer.Option("paid", "--mode", metavar="MODE", help="Round mode."),
    scaling_run: bool = typer.Option(False, "--scaling", help="Driver rounds/s with 1 and 2 workers instead."),
    ray_run: bool = typer.Option(False, "--ray", help="Same run on the local backend and on a local Ray instance."),
    rounds: str = typer.Option(None, "--rounds", "-n", metavar="N", help="Rounds for --scaling / --ray (default 2e8)."),
    server_run: bool = typer.Option(False, "--server", help="Game-server benchmark instead: paid rounds/s "
                                    "through HTTP with concurrent clients, p50/p99 latency, CPU per round."),
    clients: int = typer.Option(16, "--clients", min=1, max=1000, help="--server: concurrent clients."),
    seconds: float = typer.Option(20.0, "--seconds", min=1.0, help="--server: measured seconds (after 3 s warm-up)."),
    server_workers: int = typer.Option(1, "--server-workers", min=1, max=64,
                                       help="--server: server processes (on SQLite one is best)."),
    db: str = typer.Option(None, "--db", help="--server: database URL (default: a fresh SQLite file)."),
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """Kernel rounds per second per core, with this machine's raw random-number rate from the same run
    (or, with --server, the game server's paid rounds per second through HTTP)."""
    from reelforge.analysis import bench as b
    from reelforge.games.registry import game_ids

    if server_run:
        _bench_server(game or "forge-of-fortunes", clients, seconds, server_workers, db, as_json)
        return
    n = parse_positive_int(rounds, "--rounds") or 200_000_000
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
    from reelforge.bench_server import run
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
                            ("load average (1 min)", r["load_average_1min"]),
                            ("errors", r["error_count"]), ("verify", r["verify"])):
            t.add_row(name, str(value))
        console.print(t)
    if r["error_count"] or not r["rounds_per_s"] or " 0 mismatched" not in r["verify"]:
        raise typer.Exit(1)


@app.command()
def compare(
    game: str = typer.Argument(..., help="Game id."),
    rounds: str = typer.Option(None, "--rounds", "-n", metavar="N", help="Rounds per build where a simulation is needed (default 1e7)."),
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed for simulations (default 2026)."),
    workers: str = WORKERS_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """All builds of a game side by side (exact where the game allows, else simulated)."""
    from reelforge.analysis.figures import COMPONENT_WORDS, words
    from reelforge.analysis.summary import exact_summary

    n = parse_positive_int(rounds, "--rounds")
    w = parse_positive_int(workers, "--workers")
    s_seed = parse_seed(seed)
    g, _ = load(game, None)
    rows = []
    for name in g.build_names():
        b = g.load_build(name)
        if n is None and g.exact(b) is not None:
            rows.append(exact_summary(g, b))
        else:
            rows.append(run_simulation(g.id, name, n or 10_000_000, 2026 if s_seed is None else s_seed, w, "paid",
                                       quiet=True)[0])
    if as_json:
        emit_json({"game": g.id, "builds": rows})
        return
    t = Table(title=f"{g.title}: all builds")
    t.add_column("figure", style="bold")
    for r in rows:
        t.add_column(r["build"], justify="right")

    def row(label: str, fn) -> None:
        t.add_row(label, *[fn(r) for r in rows])

    row("method", lambda r: r["method"] if r["method"] == "exact" else f"sim {r['rounds']:,}")
    row("RTP", lambda r: f"{r['rtp'] * 100:.4f}%")
    row("RTP 99% CI", lambda r: "exact" if r["method"] == "exact"
        else f"{r['rtp_ci99'][0] * 100:.3f}..{r['rtp_ci99'][1] * 100:.3f}")
    row("house edge", lambda r: f"{r['house_edge'] * 100:.3f}%")
    for comp in rows[0]["rtp_split"]:
        row(f"RTP from {words(comp, COMPONENT_WORDS)} (pp)", lambda r, c=comp: f"{r['rtp_split'][c] * 100:.3f}")
    row("hit rate", lambda r: f"{r['hit_rate'] * 100:.3f}%")
    row(f"{rows[0].get('feature_name', 'feature')} 1 in", lambda r: f"{r['feature_frequency_one_in']:,.1f}" if r.get("feature_frequency_one_in") else "-")
    row("SD (x bet)", lambda r: f"{r['sd']:.2f}")
    row("volatility", lambda r: str(r["volatility_level"]))
    row("max win 1 in", lambda r: f"{1 / r['max_win_probability']:,.0f}" if r.get("max_win_probability") else "-")
    console.print(t)


@app.command()
def tune(
    game: str = typer.Argument(..., help="Game id."),
    build: str = typer.Option(..., "--build", "-b", help="Name of the build to write (e.g. 96.2)."),
    target: list[str] = typer.Option(None, "--target", "-t", help="name=value, e.g. rtp=0.962 (repeatable)."),
    out: str = typer.Option(None, "--out", help="Output file (default: the game's builds folder)."),
    as_json: bool = typer.Option(False, "--json", help="Print the achieved figures as JSON."),
    sample: str = typer.Option(None, "--sample", help="Simulation-tuned games: keep the simulated sample in this "
                               "file, or reuse it when the file exists (candidates share it: common random "
                               "numbers)."),
) -> None:
    """Calibrate a build toward targets and write its data file (the generic tuner of tuning.py)."""
    from reelforge.games.registry import UnknownGame, get_game

    try:
        g = get_game(game)
    except UnknownGame as exc:
        fail(str(exc))
    targets: dict[str, float] = {}
    for item in target or []:
        name, sep, value = item.partition("=")
        try:
            if not sep:
                raise ValueError
            targets[name.strip()] = float(value)
        except ValueError:
            fail(f"--target must look like name=number, got {item!r}")
    tuner = getattr(g, "tune", None)
    if tuner is None:
        fail(f"{g.id} has no tuner yet")
    try:
        result = tuner(build, targets, out, sample=sample) if sample else tuner(build, targets, out)
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        emit_json(result)
    else:
        console.print(result)


from reelforge.server.commands import register as register_server  # noqa: E402

register_server(app)  # serve, verify, expire

from reelforge.reliability.commands import register as register_reliability  # noqa: E402

register_reliability(app)  # soak


def main() -> None:
    """Entry point: bad input is one line on stderr and exit status 2."""
    try:
        app()
    except CliError as exc:
        err_console.print(f"error: {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
