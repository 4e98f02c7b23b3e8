"""The mathematics commands: ``games``, ``summary``, ``simulate``, ``compare``, ``monitor-figures``."""

from __future__ import annotations

from typing import Any

import typer
from rich import box
from rich.table import Table

from reelforge.cli.common import (
    ADDRESS_OPT,
    BACKEND_OPT,
    BUILD_OPT,
    JSON_OPT,
    LANG_OPT,
    PRECISION_OPT,
    ROUNDS,
    SEED,
    WORKERS_OPT,
    Count,
    check_lang,
    emit_json,
    fail,
    load,
)
from reelforge.cli.output import console, pct, print_summary, progress_bar

PAR_ROUNDS = Count("--par-rounds")
COMPARE_SEED = 2026
"""The seed of ``compare``'s simulations when none is given (the same table every time)."""


def games(as_json: bool = typer.Option(False, "--json", help="One JSON object.")) -> None:
    """List the games and their builds."""
    from reelforge.game.contract import BuildError
    from reelforge.games.registry import all_games

    rows = []
    for g in all_games():
        names = g.build_names()
        try:  # a bad build file: one line naming it, the key and the problem
            versions = {n: g.build_versions(n) for n in names}
        except BuildError as exc:
            fail(str(exc))
        try:
            default = g.load_build(g.default_build())
        except BuildError as exc:
            fail(str(exc))
        found = g.published_max_win(default)
        rows.append({"id": g.id, "title": g.title, "game_id": g.reference_id,
                     "published_id": g.published_id, "version": g.version,
                     "max_win_x": g.cap_x(default), "max_win": found.to_json(), "max_win_words": found.words(),
                     "modes": list(g.modes), "builds": names,
                     # every build's published versions, oldest first: the last is offered, the older
                     # ones stay for the rounds played with them
                     "build_versions": versions})
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
        current = {n: v[-1] for n, v in r["build_versions"].items()}
        if len(set(current.values())) == 1:  # one version for every build: said once
            builds = " ".join(r["builds"]) + f" (v{next(iter(current.values()))})"
        else:
            builds = " ".join(f"{n} v{current[n]}" for n in r["builds"])
        how = {"exact": "exact", "constructed round": "reached", "bound": "bound"}[r["max_win"]["method"]]
        t.add_row(r["id"], r["title"], r["published_id"] or "none", r["version"],
                  f"{r['max_win_x']:,}x ({how})", "/".join(r["modes"]), builds)
    console.print(t)
    for r in rows:
        console.print(f"{r['title']}: maximum win {r['max_win_words']} ({r['max_win']['text']}).")
    for r in rows:
        if r["published_id"] is None:
            console.print(f"{r['title']}: no published game id (the rules it follows give none).")
    for r in rows:
        older = sorted({v for vs in r["build_versions"].values() for v in vs[:-1]})
        if older:
            console.print(f"{r['title']}: older build versions kept for the rounds played with them: "
                          f"{', '.join(older)}.")



def summary(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see `reelforge games`)."),
    build: str = BUILD_OPT,
    mode: str = typer.Option("paid", "--mode", metavar="MODE", help="Round mode: paid, or buy where the game has a feature buy."),
    rounds: int = typer.Option(None, "--rounds", "-n", metavar="N", parser=ROUNDS,
                               help="Simulate this many rounds instead of exact maths."),
    precision: float = PRECISION_OPT,
    seed: int = typer.Option(None, "--seed", metavar="SEED", parser=SEED, help="Seed for a simulation."),
    workers: int = WORKERS_OPT,
    backend: str = BACKEND_OPT,
    address: str = ADDRESS_OPT,
    out: str = typer.Option(None, "--out", "-o", metavar="FILE", help="Also write a report with plots and the PAR "
                            "sheet (.html or .md)."),
    par_rounds: int = typer.Option(None, "--par-rounds", metavar="N", parser=PAR_ROUNDS, help="With --out: rounds behind the PAR "
                                   "sheet's per-pay figures of simulated games, on the game's per-pay kernel where it "
                                   "has one, else on the reference engine (default 200,000)."),
    stratified: bool = typer.Option(False, "--stratified", help="Use the game's stratified estimate "
                                    "(paid spins + trigger rate x feature value); --rounds = paid spins; with "
                                    "--precision, paid spins grow until the target is met."),
    plain: bool = typer.Option(False, "--plain", help="Use the plain full-round simulation even where --precision "
                               "would pick the stratified estimate."),
    lang: str = LANG_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """The Game Rules Summary of a build: exact where the game allows, else simulated.

    With --lang, the help text the game shows players in that language follows it (in the report too, and
    as ``help_text`` in JSON).

    With --precision on a game that has a stratified estimator (paid rounds, no --out), a short
    stratified pilot prices both estimators and the one predicted to reach the target sooner is
    used; the output's ``estimator`` says which and why."""
    from reelforge.analysis.estimate import EstimateError, SummaryRequest, estimate

    if out is not None and not out.lower().endswith((".html", ".htm", ".md")):
        fail(f"--out must end in .html or .md, got {out!r}")
    if par_rounds is not None and out is None:
        fail("--par-rounds sizes the report's PAR sheet: give --out too")
    check_lang(lang)
    g, b = load(game, build, mode)
    request = SummaryRequest(rounds, precision, seed, workers, mode, stratified, plain, out is not None, backend,
                             address)
    try:
        result = estimate(g, b, request, None if as_json else progress_bar)
    except EstimateError as exc:
        fail(str(exc))
    emit_or_report(result.summary, g, b, out, mode, result.seed, workers, result.checkpoints, as_json, par_rounds,
                   lang)


def emit_or_report(s: dict[str, Any], g: Any, b: Any, out: str | None, mode: str, seed: int | None,
                   workers: int | None, checkpoints: list | None, as_json: bool, par_rounds: int | None = None,
                   lang: str | None = None) -> None:
    """Write the report (when ``out``; it adds the PAR sheet and, where the game has one, the Feature Buy
    figure to the summary) and print the summary; with ``lang``, the help text in that language after it."""
    certified = None
    if lang is not None:
        from reelforge.analysis.help_text import certified_help

        certified = s["help_text"] = certified_help(g, b, lang)
    if out is not None:
        from reelforge.analysis.par import PAR_SAMPLE_ROUNDS
        from reelforge.analysis.report import write_report

        write_report(out, g, b, s, mode=mode, seed=seed, workers=workers, checkpoints=checkpoints,
                     par_rounds=par_rounds or PAR_SAMPLE_ROUNDS)
        if not as_json:
            console.print(f"report written to {out}")
    if as_json:
        emit_json(s)
        return
    print_summary(s)
    if certified is not None:
        from reelforge.analysis.help_text import help_lines

        print("\n".join(help_lines(certified)))


def simulate(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see `reelforge games`)."),
    build: str = BUILD_OPT,
    rounds: int = typer.Option(None, "--rounds", "-n", metavar="N", parser=ROUNDS,
                               help="Rounds to simulate (e.g. 1e8); a ceiling with --precision."),
    precision: float = PRECISION_OPT,
    seed: int = typer.Option(None, "--seed", metavar="SEED", parser=SEED, help="Seed (default: random, reported)."),
    workers: int = WORKERS_OPT,
    mode: str = typer.Option("paid", "--mode", metavar="MODE", help="Round mode: paid, or buy where the game has one."),
    backend: str = BACKEND_OPT,
    address: str = ADDRESS_OPT,
    estimator: str = typer.Option(None, "--estimator", metavar="plain|best", help="Estimate the RTP with plain "
                                  "simulation or the game's best unbiased estimator and report its 99% half-width, "
                                  "CPU seconds and efficiency 1/(half-width^2 x CPU s); needs --rounds."),
    as_json: bool = JSON_OPT,
) -> None:
    """Simulate a build with the fast kernel; the same seed gives the same totals for any --workers or backend."""
    from reelforge.analysis.estimate import EstimateError, simulated_summary

    if rounds is None and precision is None:
        fail("give --rounds N or --precision P (or both: --rounds is then a ceiling)")
    g, b = load(game, build, mode)
    if estimator is not None:
        _estimate_rtp(g, b, estimator, rounds, precision, seed, workers, mode, backend, as_json)
        return
    try:
        s, _ = simulated_summary(g, b, rounds, seed, workers, mode, precision, backend, address,
                                 None if as_json else progress_bar)
    except EstimateError as exc:
        fail(str(exc))
    if as_json:
        emit_json(s)
        return
    print_summary(s)
    if "exact_rtp" in s:
        verdict = "inside" if s["exact_rtp_inside_ci99"] else "OUTSIDE"
        console.print(f"exact RTP {pct(s['exact_rtp'])} is {verdict} the simulation's 99% interval")
    if s["interrupted"]:
        console.print("[yellow]interrupted: figures cover the rounds simulated before Ctrl-C[/yellow]")


def _estimate_rtp(g: Any, b: Any, which: str, rounds: int | None, precision: float | None, seed: int | None,
                  workers: int | None, mode: str, backend: str, as_json: bool) -> None:
    """``simulate --estimator``: one estimator's RTP, half-width, CPU seconds and efficiency."""
    from reelforge.analysis.efficiency import ESTIMATORS, measure
    from reelforge.analysis.simulate import new_seed

    if which not in ESTIMATORS:
        fail(f"--estimator must be one of {', '.join(ESTIMATORS)}, got {which!r}")
    if rounds is None or precision is not None:
        fail("--estimator takes --rounds N (the paid rounds to simulate), not --precision")
    if mode != "paid" or backend != "local":
        fail("--estimator measures paid rounds on local workers: leave out --mode and --backend")
    r = measure(g, b, which, rounds, new_seed() if seed is None else seed, workers)
    if as_json:
        emit_json(r)
        return
    eff = "exact: no simulation needed" if r["efficiency"] is None else f"{r['efficiency']:.4g}"
    console.print(f"{g.title} {b.name}, {which} estimator ({r['description']})")
    console.print(f"RTP {pct(r['rtp'])} +- {r['half_width_pp']:.4f} pp (99%), {r['rounds']:,} paid rounds"
                  + (f" + {r['feature_rounds']:,} features" if r["feature_rounds"] else "")
                  + f", seed {r['seed']}")
    console.print(f"CPU {r['cpu_seconds']:.2f} s (wall {r['wall_seconds']:.2f} s); efficiency 1/(half-width^2 x CPU s) = {eff}")


def compare(
    game: str = typer.Argument(..., help="Game id."),
    rounds: int = typer.Option(None, "--rounds", "-n", metavar="N", parser=ROUNDS,
                               help="Rounds per build where a simulation is needed (default 1e7)."),
    seed: int = typer.Option(None, "--seed", metavar="SEED", parser=SEED, help="Seed for simulations (default 2026)."),
    workers: int = WORKERS_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """All builds of a game side by side (exact where the game allows, else simulated)."""
    from reelforge.analysis.estimate import PLAIN_ROUNDS, simulated_summary
    from reelforge.analysis.figures import component_words, words
    from reelforge.analysis.summary import exact_summary
    from reelforge.game.contract import BuildError

    g, _ = load(game, None)
    rows = []
    for name in g.build_names():
        try:
            b = g.load_build(name)
        except BuildError as exc:
            fail(str(exc))
        if rounds is None and g.capabilities.exact:
            rows.append(exact_summary(g, b))
        else:
            rows.append(simulated_summary(g, b, rounds or PLAIN_ROUNDS, COMPARE_SEED if seed is None else seed,
                                          workers)[0])
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
        row(f"RTP from {words(comp, component_words(rows[0]))} (pp)", lambda r, c=comp: f"{r['rtp_split'][c] * 100:.3f}")
    row("hit rate", lambda r: f"{r['hit_rate'] * 100:.3f}%")
    row(f"{rows[0].get('feature_name', 'feature')} 1 in", lambda r: f"{r['feature_frequency_one_in']:,.1f}" if r.get("feature_frequency_one_in") else "-")
    row("SD (x bet)", lambda r: f"{r['sd']:.2f}")
    row("volatility", lambda r: str(r["volatility_level"]))
    row("max win 1 in", lambda r: f"{1 / r['max_win_probability']:,.0f}" if r.get("max_win_probability") else "-")
    console.print(t)




def monitor_figures(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see `reelforge games`)."),
    rounds: int = typer.Option("10000000", "--rounds", "-n", metavar="N", parser=ROUNDS,
                               help="Kernel rounds per build and mode without exact figures (e.g. 2e7 where the "
                                    "SD rests on rare wins)."),
    seed: int = typer.Option("26", "--seed", metavar="SEED", parser=SEED, help="Seed of the first chunk of rounds."),
) -> None:
    """Write a game's live-monitor figures beside its builds (its RTP and SD per build and mode: exact where the
    game allows, else a kernel simulation).

    The file is monitor_figures.toml in the game's folder; the server's RTP monitor judges its builds by it."""
    from reelforge.analysis.monitor_figures import write_game_figures

    g, _ = load(game, None)
    console.print(f"wrote {write_game_figures(g, rounds, seed)}")
