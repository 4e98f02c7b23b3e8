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
    game: str = typer.Argument(None, metavar="GAME", help="Game id (see `reelforge games`), or keygen (with --out DIR: "
                               "a new signing key pair)."),
    build: str = BUILD_OPT,
    out: str = typer.Option(None, "--out", "-o", metavar="DIR", help="The package folder (new, or with --resume)."),
    mode: str = typer.Option("paid", "--mode", metavar="MODE", help="paid, or buy (the Feature Buy) where the game has one."),
    precision: float = typer.Option(None, "--precision", metavar="PP", parser=PRECISION,
                                    help="99% half-width of the RTP to reach, percentage points (default 0.05, or half "
                                    "the tightest RTP tolerance where narrower)."),
    exploratory: bool = typer.Option(False, "--exploratory", help="Allow a precision wider than half the tightest RTP "
                                     "tolerance; the package then says on every page it is not for certification."),
    key: str = typer.Option(None, "--key", metavar="FILE", help="The supplier's Ed25519 private key (certify keygen): "
                            "signs the manifest (manifest.sig)."),
    resume: bool = typer.Option(False, "--resume", help="Continue the run kept in --out (same totals as uninterrupted)."),
    sample_from: str = typer.Option(None, "--sample-from", metavar="DIR", help="Take the main pieces of the package DIR "
                                    "(another build of the game, the same seed and plan) that this run would draw "
                                    "itself: where the estimator's sample does not depend on what the builds differ "
                                    "in (Forge of Gems' GEMBOX weights), one run's pieces certify every build."),
    verify: str = typer.Option(None, "--verify", metavar="DIR", help="Verify a package: its signature, every hash, its "
                               "identity, every figure and the report recomputed, pieces re-simulated (exit 1 on any "
                               "problem)."),
    record: str = typer.Option(None, "--record", metavar="DIR", help="Verify a package and record its RTP interval "
                               "beside its game (certified_figures.toml), so the help and the lobby show it; refused "
                               "unless run for certification and its 99% interval lies within +-0.05 pp of the build's RTP."),
    resimulate: int = typer.Option(1, "--resimulate", metavar="K", help="With --verify: re-simulate K randomly chosen "
                                   "pieces from their seeds (default 1; 0: none)."),
    unsigned: bool = typer.Option(False, "--unsigned", help="With --verify: accept a package without a signature "
                                  "(said so)."),
    allow_dirty_engine: bool = typer.Option(False, "--allow-dirty-engine", help="With --verify: accept a running engine "
                                            "without a git commit or with local changes (said so)."),
    fingerprint: str = typer.Option(None, "--fingerprint", metavar="SHA256", help="With --verify: demand the signer's "
                                    "key of this SHA-256 fingerprint (the one the supplier declared)."),
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
                                   help="Rounds behind the PAR sheet's per-pay figures: the per-pay kernel's where "
                                   "the game has one (default: sized from the SD for a 0.25 pp half-width), else the "
                                   "reference engine's (default 200,000)."),
    pdf: bool = typer.Option(True, "--pdf/--no-pdf", help="Print the report to PDF with headless Chromium where present."),
    lang: str = LANG_OPT,
    rng_report: str = typer.Option(None, "--rng-report", metavar="DIR", help="The RNG test report to include (made by "
                                   "`reelforge rng-report --out DIR`; without it and --dieharder the package carries none)."),
    dieharder: bool = typer.Option(False, "--dieharder", help="Refuse to certify without dieharder results in the "
                                   "RNG report (by default a report without them says why)."),
) -> None:
    """A certification package a test lab signs: a build run to a stated precision (resumable), its report,
    tallies and manifest, signed with --key; --verify DIR checks one; --record DIR records a verified package's RTP
    interval beside its game for the help and the lobby; keygen --out DIR makes a signing key.

    The package folder holds report.html (and report.pdf where Chromium is installed), figures.json, the
    piece and merged tallies under tallies/, state.json (the run's plan and checkpoints) and manifest.json.
    --backend ray computes the pieces on Ray (--address of a cluster, else a Ray started here), in parallel
    where their sizes allow: the same tallies and figures as local for the same seed. The package carries
    the RNG description and test report under rng/ (--rng-report DIR, or a quick one made here with --dieharder). --lang adds the help text as the game shows it to players in
    that language (help.LANG.json, and a section of the report), covered by the manifest and --verify."""
    from reelforge.analysis.certify import CertifyError, check_backend, choose_plan
    from reelforge.analysis.signing import SigningKeyError, load_private_key
    from reelforge.game.estimation import SampleError

    if record is not None:
        if verify is not None or game is not None or out is not None or resume or key or resimulate != 1:
            fail("--record DIR records a package: give it alone (with --unsigned, --allow-dirty-engine)")
        _record(Path(record), unsigned, allow_dirty_engine)
        return
    if verify is not None:
        if game is not None or out is not None or resume or backend != "local" or address is not None or key:
            fail("--verify DIR checks a package: give it alone (with --resimulate, --unsigned, --allow-dirty-engine)")
        if resimulate < 0:
            fail(f"--resimulate must be a whole number of pieces, 0 or more, got {resimulate}")
        _verify(Path(verify), resimulate, unsigned, allow_dirty_engine, fingerprint)
        return
    if resimulate != 1 or unsigned or allow_dirty_engine or fingerprint is not None:
        fail("--resimulate, --unsigned, --allow-dirty-engine and --fingerprint go with --verify DIR")
    if game == "keygen":
        if build is not None or resume or key is not None or lang is not None or seed is not None or precision:
            fail("certify keygen takes --out DIR alone")
        _keygen(out)
        return
    if out is None:
        fail("give --out DIR (the package folder), or --verify DIR")
    target = Path(out)
    try:
        signing_key = load_private_key(Path(key), target) if key is not None else None
        check_backend(backend, address)
        check_lang(lang)
        rng = _rng_choice(rng_report, dieharder)
        if resume:
            if (game is not None or build is not None or seed is not None or precision is not None or lang is not None
                    or exploratory or sample_from is not None):
                fail("--resume continues the run kept in --out as it was planned: give --out and --resume alone "
                     "(with --key to sign)")
            _finish(target, None, True, workers, par_rounds, pdf, backend, address, signing_key, rng=rng)
            return
        if game is None:
            fail("give GAME (see `reelforge games`)")
        g, b = load(game, build, mode)
        plan = choose_plan(g, b, mode, precision, CERTIFY_SEED if seed is None else seed, pilot_rounds, sample_rounds,
                           max_rounds, features_per_piece, exploratory)
        plan.language = lang
        _finish(target, plan, False, workers, par_rounds, pdf, backend, address, signing_key, rng=rng,
                sample_from=None if sample_from is None else Path(sample_from))
    except (CertifyError, SampleError, SigningKeyError) as exc:
        fail(str(exc))


def _keygen(out: str | None) -> None:
    """``certify keygen --out DIR``: a new Ed25519 key pair for signing packages."""
    from reelforge.analysis.signing import SigningKeyError, fingerprint, generate_key, load_private_key

    if out is None:
        fail("certify keygen needs --out DIR (the folder for the new key pair)")
    try:
        private, public = generate_key(Path(out))
    except (SigningKeyError, OSError) as exc:
        fail(str(exc))
    console.print(f"private key {private} (mode 600: keep it to yourself, never in a package)")
    console.print(f"public key {public}; SHA-256 fingerprint "
           f"{fingerprint(load_private_key(private).public_key())} (give it to the test lab)")


def _rng_choice(folder: str | None, dieharder: bool) -> dict | None:
    """How the package gets its RNG report, checked before the run: a report made before (its folder), a
    quick one with dieharder made after the run (``--dieharder`` alone), or none (neither given: the
    report's identity then says the package carries no RNG test report)."""
    from reelforge.ops.rng_report import RngReportError, dieharder_version, read_report

    if folder is None:
        if not dieharder:
            return None
        if dieharder_version() is None:
            fail("--dieharder: dieharder is not installed (Debian: apt-get install dieharder)")
        return {"make": "quick", "dieharder": "require"}
    try:
        report = read_report(Path(folder))
    except RngReportError as exc:
        fail(str(exc))
    if dieharder and not report["dieharder"]["ran"]:
        fail(f"--dieharder: the RNG report in {folder} has no dieharder results ({report['dieharder']['note']})")
    return {"copy": Path(folder)}


def _finish(out: Path, plan, resume: bool, workers: int | None, par_rounds: int | None, pdf: bool,
            backend: str = "local", address: str | None = None, key=None, rng: dict | None = None,
            attested: list[dict[str, str]] | None = None, sample_from: Path | None = None) -> None:
    """Run (or resume) the pieces, then write figures, the RNG report (``rng``: see :func:`_rng_choice`;
    None: none), report, PDF and manifest (signed with ``key`` where given); the manifest attests the RNG
    report's files and ``attested`` (files already in the package, ``[{"path", "what"}]``) by name and purpose."""
    from reelforge.analysis import certify as cert
    from reelforge.analysis.certificate_report import print_pdf, write_certificate
    from reelforge.analysis.manifest import FIGURES, identity, write_manifest
    from reelforge.analysis.par import default_par_rounds
    from reelforge.analysis.signing import signer
    from reelforge.games.registry import get_game

    progress = cert.run(out, plan, resume, workers, log=lambda line: console.print(line), backend=backend,
                        address=address, sample_from=sample_from)
    plan = progress.plan
    g = get_game(plan.game)
    b = plan.load_build(g)
    (out / FIGURES).write_text(json.dumps(cert.figures(out), indent=1, sort_keys=True) + "\n")
    figures = json.loads((out / FIGURES).read_text())  # the report is a function of the file (verify re-renders it)
    par_rounds = par_rounds or default_par_rounds(g, figures)
    attested = list(attested or [])
    if rng is not None:  # before the identity, so that the manifest attests it and the report cites it
        from reelforge.ops import rng_report

        if "copy" in rng:
            rng_report.copy_report(rng["copy"], out / rng_report.FOLDER)
        else:
            console.print("RNG report (quick): the engine's battery and dieharder on the live, provably fair and "
                          "simulation streams")
            rng_report.write_report(out / rng_report.FOLDER, rng_report.build_report(
                20_000, rng["dieharder"], quick=True, log=lambda line: console.print(line)))
        attested += [{"path": str(p.relative_to(out)), "what": "RNG description and test report"}
                     for p in rng_report.attested_files(out)]
    ident = json.loads(json.dumps(identity(g, b, figures, progress, par_rounds, None if key is None else signer(key),
                                           attested)))
    certified = None
    if plan.language is not None:
        from reelforge.analysis.help_text import certified_help, write_help_file

        certified = certified_help(g, b, plan.language)
        write_help_file(out, certified)
    html = write_certificate(out, g, b, figures, ident, par_rounds, certified)
    pdf_path = print_pdf(html) if pdf else None
    write_manifest(out, ident, key)
    h = figures["precision_reached_pp"]
    met = "exact" if h is None else f"+-{h:.4f} pp at 99% ({'met' if figures['precision_met'] else 'NOT met'})"
    s = figures["summary"]
    console.print(f"{g.title} build {b.name} ({plan.mode}): RTP {s['rtp'] * 100:.4f}% {met}; targets passed "
                  f"{sum(t['passed'] for t in figures['targets'])}/{len(figures['targets'])}")
    console.print(f"package written to {out} (report {html.name}{', ' + pdf_path.name if pdf_path else ''}, "
                  f"manifest.json{', signed' if key is not None else ', NOT signed (give --key)'})"
                  + ("; EXPLORATORY: not for certification" if plan.exploratory else ""))


def _record(folder: Path, unsigned: bool, allow_dirty_engine: bool) -> None:
    from reelforge.analysis.certified_record import RecordError, record_package

    if not folder.is_dir():
        fail(f"{folder}: no such package folder")
    try:
        path, entry = record_package(folder, unsigned=unsigned, allow_dirty_engine=allow_dirty_engine)
    except RecordError as exc:
        fail(str(exc))
    low, high = (float(entry[k]) * 100 for k in ("rtp_low", "rtp_high"))
    console.print(f"{entry['build']} v{entry['version']}: certified RTP {float(entry['rtp']) * 100:.4f}% "
                  f"[{low:.4f}%, {high:.4f}%] at 99% ({int(entry['paid_spins']):,} paid spins) recorded in {path}",
                  markup=False, highlight=False)


def _verify(folder: Path, resimulate: int, unsigned: bool, allow_dirty_engine: bool, fingerprint: str | None) -> None:
    from rich.markup import escape

    from reelforge.analysis.manifest import check_package

    if not folder.is_dir():
        fail(f"{folder}: no such package folder")
    result = check_package(folder, unsigned=unsigned, allow_dirty_engine=allow_dirty_engine, resimulate=resimulate,
                           fingerprint=fingerprint)
    for note in result.notes:
        console.print(note, markup=False, highlight=False)
    if result.problems:
        for p in result.problems:
            console.print(f"[red]FAIL[/red] {escape(p)}")
        raise typer.Exit(1)
    console.print(f"{folder}: verified (signature, every hash, the identity, every figure and the report recomputed "
                  f"from the tallies, {resimulate} piece(s) re-simulated)")
