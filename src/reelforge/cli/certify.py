"""``reelforge certify``: a certification package (run to a precision, resumable) and its verification."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from reelforge.cli.common import (
    ADDRESS_OPT,
    BACKEND_OPT,
    BUILD_OPT,
    LANG_OPT,
    PRECISION,
    SEED,
    WORKERS_OPT,
    Count,
    check_lang,
    fail,
    load,
)
from reelforge.cli.output import console

PILOT = Count("--pilot-rounds")
SAMPLE = Count("--sample-rounds")
MAX_ROUNDS = Count("--max-rounds")
PAR_ROUNDS = Count("--par-rounds")
FEATURES = Count("--features-per-piece")
CERTIFY_SEED = 2026
"""The seed of a certification run when none is given (a package says the seed it used)."""


def certify(
    game: str = typer.Argument(None, metavar="GAME", help="Game id (see `reelforge games`)."),
    build: str = BUILD_OPT,
    out: str = typer.Option(None, "--out", "-o", metavar="DIR", help="The package folder (new, or with --resume)."),
    mode: str = typer.Option("paid", "--mode", metavar="MODE", help="paid, or buy (the Feature Buy) where the game has one."),
    precision: float = typer.Option(None, "--precision", metavar="PP", parser=PRECISION,
                                    help="99% half-width of the RTP to reach, percentage points (default 0.05)."),
    resume: bool = typer.Option(False, "--resume", help="Continue the run kept in --out (same totals as uninterrupted)."),
    verify: str = typer.Option(None, "--verify", metavar="DIR", help="Verify a package: recompute every figure from "
                               "its tallies and check every hash (exit 1 on any problem)."),
    seed: int = typer.Option(None, "--seed", metavar="SEED", parser=SEED, help="Seed (default 2026)."),
    workers: int = WORKERS_OPT,
    backend: str = BACKEND_OPT,
    address: str = ADDRESS_OPT,
    pilot_rounds: int = typer.Option(None, "--pilot-rounds", metavar="N", parser=PILOT,
                                     help="Paid spins of the first ten pieces together (default: the game's pilot)."),
    sample_rounds: int = typer.Option(None, "--sample-rounds", metavar="N", parser=SAMPLE,
                                      help="Plain rounds behind the distribution and counts (default 1e7)."),
    max_rounds: int = typer.Option(None, "--max-rounds", metavar="N", parser=MAX_ROUNDS,
                                   help="Stop the precision run at this many paid spins (the report says if unmet)."),
    features_per_piece: int = typer.Option(None, "--features-per-piece", metavar="N", parser=FEATURES,
                                           help="Features beside each stratified piece (default: the estimator's share)."),
    par_rounds: int = typer.Option(None, "--par-rounds", metavar="N", parser=PAR_ROUNDS,
                                   help="Reference-engine rounds behind the PAR sheet's per-pay figures (default 200,000)."),
    pdf: bool = typer.Option(True, "--pdf/--no-pdf", help="Print the report to PDF with headless Chromium where present."),
    lang: str = LANG_OPT,
    rng_report: str = typer.Option(None, "--rng-report", metavar="DIR", help="The RNG test report to include (made by "
                                   "`reelforge rng-report --out DIR`; default: a quick one made here)."),
    dieharder: bool = typer.Option(False, "--dieharder", help="Refuse to certify without dieharder results in the "
                                   "RNG report (by default a report without them says why)."),
) -> None:
    """A certification package a test lab signs: a build run to a stated precision (resumable), its report,
    tallies and manifest; --verify DIR checks one.

    The package folder holds report.html (and report.pdf where Chromium is installed), figures.json, the
    piece and merged tallies under tallies/, state.json (the run's plan and checkpoints) and manifest.json.
    --backend ray computes the pieces on Ray (--address of a cluster, else a Ray started here), in parallel
    where their sizes allow: the same tallies and figures as local for the same seed. The package carries
    the RNG description and test report under rng/ (--rng-report DIR, else a quick one made here). --lang adds the help text as the game shows it to players in
    that language (help.LANG.json, and a section of the report), covered by the manifest and --verify."""
    from reelforge.analysis.certify import DEFAULT_PRECISION_PP, CertifyError, check_backend, choose_plan
    from reelforge.game.estimation import SampleError

    if verify is not None:
        if game is not None or out is not None or resume or backend != "local" or address is not None:
            fail("--verify DIR checks a package: give it alone")
        _verify(Path(verify))
        return
    if out is None:
        fail("give --out DIR (the package folder), or --verify DIR")
    target = Path(out)
    try:
        check_backend(backend, address)
        check_lang(lang)
        rng = _rng_choice(rng_report, dieharder)
        if resume:
            if game is not None or build is not None or seed is not None or precision is not None or lang is not None:
                fail("--resume continues the run kept in --out as it was planned: give --out and --resume alone")
            _finish(target, None, True, workers, par_rounds, pdf, backend, address, rng)
            return
        if game is None:
            fail("give GAME (see `reelforge games`)")
        g, b = load(game, build, mode)
        plan = choose_plan(g, b, mode, precision or DEFAULT_PRECISION_PP, CERTIFY_SEED if seed is None else seed,
                           pilot_rounds, sample_rounds, max_rounds, features_per_piece)
        plan.language = lang
        _finish(target, plan, False, workers, par_rounds, pdf, backend, address, rng)
    except (CertifyError, SampleError) as exc:
        fail(str(exc))


def _rng_choice(folder: str | None, dieharder: bool) -> dict:
    """How the package gets its RNG report, checked before the run: a report made before (its folder), or a
    quick one made after the run (dieharder required or not)."""
    from reelforge.ops.rng_report import RngReportError, dieharder_version, read_report

    if folder is None:
        if dieharder and dieharder_version() is None:
            fail("--dieharder: dieharder is not installed (Debian: apt-get install dieharder)")
        return {"make": "quick", "dieharder": "require" if dieharder else "auto"}
    try:
        report = read_report(Path(folder))
    except RngReportError as exc:
        fail(str(exc))
    if dieharder and not report["dieharder"]["ran"]:
        fail(f"--dieharder: the RNG report in {folder} has no dieharder results ({report['dieharder']['note']})")
    return {"copy": Path(folder)}


def _finish(out: Path, plan, resume: bool, workers: int | None, par_rounds: int | None, pdf: bool,
            backend: str = "local", address: str | None = None, rng: dict | None = None) -> None:
    """Run (or resume) the pieces, then write figures, report, PDF, the RNG report (``rng``: see
    :func:`_rng_choice`; None: none) and the manifest."""
    from reelforge.analysis import certify as cert
    from reelforge.analysis.certificate_report import print_pdf, write_certificate
    from reelforge.analysis.manifest import FIGURES, identity, write_manifest
    from reelforge.analysis.par import PAR_SAMPLE_ROUNDS
    from reelforge.games.registry import get_game

    progress = cert.run(out, plan, resume, workers, log=lambda line: console.print(line), backend=backend,
                        address=address)
    plan = progress.plan
    g = get_game(plan.game)
    b = g.load_build(plan.build)
    figures = cert.figures(out)
    (out / FIGURES).write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
    ident = identity(g, b, figures, progress)
    if rng is not None:  # before the report, so that its identity can cite it
        from reelforge.ops import rng_report

        if "copy" in rng:
            rng_report.copy_report(rng["copy"], out / rng_report.FOLDER)
        else:
            console.print("RNG report (quick): the engine's battery and dieharder on the live, provably fair and "
                          "simulation streams")
            rng_report.write_report(out / rng_report.FOLDER, rng_report.build_report(
                20_000, rng["dieharder"], quick=True, log=lambda line: console.print(line)))
        ident["rng_report"] = rng_report.reference(out)
    certified = None
    if plan.language is not None:
        from reelforge.analysis.help_text import certified_help, write_help_file

        certified = certified_help(g, b, plan.language)
        write_help_file(out, certified)
    html = write_certificate(out, g, b, figures, ident, par_rounds or PAR_SAMPLE_ROUNDS, certified)
    pdf_path = print_pdf(html) if pdf else None
    write_manifest(out, ident)
    h = figures["precision_reached_pp"]
    met = "exact" if h is None else f"+-{h:.4f} pp at 99% ({'met' if figures['precision_met'] else 'NOT met'})"
    s = figures["summary"]
    console.print(f"{g.title} build {b.name} ({plan.mode}): RTP {s['rtp'] * 100:.4f}% {met}; targets passed "
                  f"{sum(t['passed'] for t in figures['targets'])}/{len(figures['targets'])}")
    console.print(f"package written to {out} (report {html.name}{', ' + pdf_path.name if pdf_path else ''}, "
                  "manifest.json)")


def _verify(folder: Path) -> None:
    from reelforge.analysis.manifest import verify_package

    if not folder.is_dir():
        fail(f"{folder}: no such package folder")
    problems = verify_package(folder)
    if problems:
        for p in problems:
            console.print(f"[red]FAIL[/red] {p}")
        raise typer.Exit(1)
    console.print(f"{folder}: verified (every hash matches; every figure recomputed from the tallies is identical)")
