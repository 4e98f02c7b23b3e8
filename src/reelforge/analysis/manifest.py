"""The certification package's manifest (``manifest.json``), its signature and its verification.

The manifest names what was measured and with what: the provider, the game and its rules document (with
its SHA-256), the build (version, content hash, file), the SHA-256 of every source file of the game's
package and of the engine modules it runs, the engine's version and git commit, the Python, numpy and
numba versions, the date, the seeds, pieces and resumes, the estimator, the RNG and scaling statement,
the attested files (an RNG test report, ...) and the SHA-256 of every file of the package. ``certify
--key`` signs it (Ed25519, :mod:`reelforge.analysis.signing`).

:func:`check_package` ties the package to its data: the signature, every hash (no file unlisted, none
exempt), the identity recomputed from ``state.json``, the build and the running engine, every figure
recomputed from the tallies, the report re-rendered from them byte for byte, and pieces re-simulated
from their seeds.
"""

from __future__ import annotations

import hashlib
import json
import platform
import random
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import reelforge
from reelforge.game.contract import Build, Game

MANIFEST = "manifest.json"
FIGURES = "figures.json"
MANIFEST_FORMAT = "reelforge-certification-manifest/2"
NOT_FOR_CERTIFICATION = "EXPLORATORY RUN - NOT FOR CERTIFICATION"
ENGINE_PACKAGES = ("core", "mechanics", "game", "analysis")
"""The engine's layers a game runs on and the certification computes with (``reelforge/<layer>/``), hashed
beside ``reelforge/__init__.py`` and the game registry (``reelforge/games/*.py``)."""
CONTENT_HASH_DEFINITION = (
    "SHA-256 (hex) of the build's canonical data (every parameter, as JSON with sorted keys, without the file's "
    "comments and layout) together with its rules version: the same maths always has the same hash, and any "
    "change to it is a new build version")
VERSIONS_EXPLAINED = (
    "The game version is the version of the game's rules and presentation; the build version is the version of "
    "one build's maths (its strips, paytable and parameters): a published build never changes, so a change to its "
    "maths is a new build version under the same name, and every stored round replays with its own.")

RNG_STATEMENT = (
    "Simulation: numpy's PCG64 bit generator. A run's integer seed spawns one stream per piece "
    "(numpy SeedSequence([seed, stream, piece]) -> a 63-bit piece seed), and each piece's seed spawns one "
    "stream per chunk of rounds (SeedSequence(piece seed, spawn_key=(chunk,))), so results depend only on the "
    "seed and the sizes, never on the number of workers or machines; chunks and pieces are merged in order. "
    "Scaling: a uniform integer in [0, n) is drawn by Lemire's multiply-shift from a 32-bit word x "
    "(floor(x * n / 2**32), rejecting the few words whose low product would bias it; simulation words are "
    "the top half of each PCG64 output), the same mapping in the readable rules and the fast kernels. "
    "Live play draws from the operating system's CSPRNG (secrets.SystemRandom via "
    "the same [0, n) interface); each round's draws are stored and replayable."
)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def build_identity(game: Game, build: Build) -> dict[str, Any]:
    """The build's identity for the manifest: name, version, rules version and content hash (the
    build's own :class:`~reelforge.game.contract.BuildIdentity`), and its file with the file's SHA-256."""
    ident = build.identity
    folder = Path(game.build_files.folder)
    path = folder / f"{build.name}.toml"
    if not path.exists() or game.load_build(build.name).identity != ident:
        path = folder / "older" / build.name / f"{ident.version}.toml"
    entries = [{"path": str(path.relative_to(Path(reelforge.__file__).parent)), "sha256": sha256_file(path),
                "bytes": path.stat().st_size}] if path.exists() else []
    return {"name": build.name, "version": ident.version, "rules": ident.rules,
            "content_hash": ident.content_hash, "files": entries}


def git_commit() -> str | None:
    """The engine's git commit (None outside a git checkout), with ``+changes`` when its sources (``src``,
    untracked files included, or ``pyproject.toml``) differ from the commit."""
    root = Path(reelforge.__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all", "--",
                                "src", "pyproject.toml"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+changes" if dirty else "")


def engine_problem(commit: str | None, allow_dirty: bool) -> str | None:
    """Why the running engine (git commit ``commit``) cannot verify a package, or None: an engine without a
    commit or with local changes is refused unless ``allow_dirty`` (``--allow-dirty-engine``)."""
    if allow_dirty:
        return None
    if commit is None:
        return ("the running engine has no git commit (not a git checkout): its sources cannot be tied to a "
                "revision; verify from a checkout, or pass --allow-dirty-engine")
    if commit.endswith("+changes"):
        return (f"the running engine has local changes (commit {commit}): verify from a clean checkout, or pass "
                "--allow-dirty-engine")
    return None


def tool_versions() -> dict[str, str]:
    import numba
    import numpy

    return {"python": platform.python_version(), "numpy": numpy.__version__, "numba": numba.__version__,
            "platform": platform.platform()}


def _hashes(root: Path, files: list[Path]) -> dict[str, str]:
    return {str(p.relative_to(root)): sha256_file(p) for p in sorted(files)}


def _sources(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and p.suffix not in (".pyc", ".nbi", ".nbc")]


def game_source_hashes(game: Game) -> dict[str, str]:
    """SHA-256 of every file of the game's package (``reelforge/games/<game>/``: code, builds, pictures),
    by path inside ``reelforge/``."""
    import importlib

    folder = Path(importlib.import_module(type(game).__module__).__file__).parent
    return _hashes(Path(reelforge.__file__).parent, _sources(folder))


def engine_source_hashes() -> dict[str, str]:
    """SHA-256 of every engine module a game runs on (:data:`ENGINE_PACKAGES`), by path inside ``reelforge/``."""
    root = Path(reelforge.__file__).parent
    files = [root / "__init__.py", *(root / "games").glob("*.py"), *(root / "games").glob("*.toml")]
    for layer in ENGINE_PACKAGES:
        files += [p for p in _sources(root / layer) if p.suffix == ".py"]
    return _hashes(root, files)


def package_files(out: Path) -> list[Path]:
    """Every file of the package but the manifest and its signature, in a fixed order (none exempt)."""
    from reelforge.analysis.signing import SIGNATURE

    out = Path(out)
    return sorted(p for p in out.rglob("*") if (p.is_file() or p.is_symlink())
                  and str(p.relative_to(out)) not in (MANIFEST, SIGNATURE))


def estimator_words(game: Game, used: str) -> dict[str, Any]:
    """What the package says of a stratified estimator as it was when the package was made (the manifest
    keeps it; figures never depend on it): its method in words and its measured efficiency against plain
    simulation, where the game's estimator states them (``description``, ``efficiency_vs_plain``)."""
    if used != "stratified":
        return {}
    est = game.stratified_estimator()
    return {k: getattr(est, k) for k in ("description", "efficiency_vs_plain") if getattr(est, k, None) is not None}


def identity(game: Game, build: Build, figures: dict[str, Any], progress: Any, par_rounds: int,
             signer: dict[str, str] | None = None, attested: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """Everything the manifest says but the files' hashes (the report's identity block shows it): a pure
    function of the run's state, the build, the running engine, the report's PAR rounds, the signer and the
    attested files (``[{"path", "what"}]``, files of the package such as an RNG test report)."""
    plan = progress.plan
    pieces = {name: [{"index": p.index, "seed": p.seed, "rounds": p.rounds, "seconds": round(p.seconds, 3),
                      "backend": p.backend, "address": p.address, "node": getattr(p, "node", None),
                      **({"taken_from": p.taken_from} if getattr(p, "taken_from", None) else {})}
                     for p in getattr(progress, name)] for name in ("main", "sample")}
    rules = game.rules_document
    return {
        "format": MANIFEST_FORMAT,
        "for_certification": not plan.exploratory,
        "date": progress.finished_at,
        "provider": game.provider,
        "game": {"id": game.id, "title": game.title, "published_id": game.published_id, "version": game.version,
                 "versions_explained": VERSIONS_EXPLAINED},
        "rules_document": None if rules is None else {"reference": rules.reference, "sha256": rules.sha256},
        "build": {**build_identity(game, build), "content_hash_definition": CONTENT_HASH_DEFINITION},
        "mode": plan.mode,
        "engine": {"name": "reelforge", "version": reelforge.__version__, "git_commit": git_commit(),
                   "modules_sha256": engine_source_hashes()},
        "game_sources_sha256": game_source_hashes(game),
        "tools": tool_versions(),
        "estimator": plan.estimator,
        "estimator_method": estimator_words(game, plan.estimator),
        "precision_requested_pp": plan.precision_pp,
        "precision_reached_pp": figures.get("precision_reached_pp"),
        "seed": plan.seed,
        "rounds": {name: sum(p["rounds"] for p in ps) for name, ps in pieces.items()},
        "seconds": {name: round(sum(p["seconds"] for p in ps), 1) for name, ps in pieces.items()},
        "pieces": pieces,
        "resumes": list(progress.resumes),
        "report": {"par_rounds": par_rounds, "help_language": plan.language},
        "rng_and_scaling": RNG_STATEMENT,
        "attested": [dict(a) for a in attested or []],
        "signer": signer,
    }


def write_manifest(out: Path, ident: dict[str, Any], key: Any = None) -> Path:
    """``manifest.json`` of a finished package: ``ident`` plus the SHA-256 of every other file (write it last),
    and its signature ``manifest.sig`` where the supplier's private ``key`` is given."""
    from reelforge.analysis import signing

    out = Path(out)
    manifest = {**ident, "files": {str(p.relative_to(out)): sha256_file(p) for p in package_files(out)}}
    for a in manifest["attested"]:
        a["sha256"] = manifest["files"].get(a["path"])
        if a["sha256"] is None:
            raise ValueError(f"attested file {a['path']} is not in the package")
    path = out / MANIFEST
    data = (json.dumps(manifest, indent=1) + "\n").encode()
    path.write_bytes(data)
    if key is not None:
        (out / signing.SIGNATURE).write_text(signing.sign(data, key) + "\n")
    else:  # a resumed run finished without --key: an earlier signature is no longer the manifest's
        (out / signing.SIGNATURE).unlink(missing_ok=True)
    return path


@dataclass
class Verification:
    """What :func:`check_package` found: the problems (none: the package verifies) and what it says besides
    (the signer's fingerprint, the pieces re-simulated, what was skipped at the caller's request)."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def verify_package(out: Path, **options: Any) -> list[str]:
    """The problems :func:`check_package` finds (empty: the package verifies)."""
    return check_package(out, **options).problems


def check_package(out: Path, *, unsigned: bool = False, allow_dirty_engine: bool = False, resimulate: int = 1,
                  rng: random.Random | None = None, fingerprint: str | None = None) -> Verification:
    """Check a package against its data: the manifest's signature (a package without one fails unless
    ``unsigned``; by the key of SHA-256 ``fingerprint`` where given), each hash against its file and no file unlisted, the identity recomputed from
    ``state.json``, the build and the running engine (refused without a commit or with local changes unless
    ``allow_dirty_engine``), every figure recomputed from the tallies, report.html re-rendered from them byte
    for byte, and ``resimulate`` pieces (chosen by ``rng``, default the system's randomness) re-simulated
    from their seeds."""
    from reelforge.analysis.certify import CertifyError, figures, load_progress
    from reelforge.games.registry import get_game

    out = Path(out)
    v = Verification()
    try:
        raw = (out / MANIFEST).read_bytes()
        manifest = json.loads(raw)
    except (OSError, ValueError) as exc:
        v.problems.append(f"{out / MANIFEST}: unreadable: {exc}")
        return v
    if not isinstance(manifest, dict):
        v.problems.append(f"{out / MANIFEST}: not a manifest (a JSON object is expected)")
        return v
    _check_signature(out, raw, manifest, unsigned, v)
    got = (manifest.get("signer") or {}).get("fingerprint_sha256")
    if fingerprint is not None and got != fingerprint.lower():
        v.problems.append(f"{MANIFEST}: signed by the key with fingerprint {got}, not {fingerprint.lower()} (the key "
                          "the lab was given)")
    listed = manifest.get("files", {})
    for rel, digest in listed.items():
        path = out / rel
        if not path.exists():
            v.problems.append(f"{rel}: listed in the manifest but missing")
        elif sha256_file(path) != digest:
            v.problems.append(f"{rel}: SHA-256 differs from the manifest's")
    for p in package_files(out):
        if str(p.relative_to(out)) not in listed:
            v.problems.append(f"{p.relative_to(out)}: not in the manifest (every file of a package must be listed)")
    if (problem := engine_problem(git_commit(), allow_dirty_engine)) is not None:
        v.problems.append(problem)
    elif allow_dirty_engine:
        v.notes.append("--allow-dirty-engine: the running engine's git state was not required to be clean")
    try:
        progress = load_progress(out)
        game = get_game(progress.plan.game)
        build = progress.plan.load_build(game)
        v.problems += _help_text_problems(out, game, build, progress.plan.language)
        recomputed = figures(out)
        stored = json.loads((out / FIGURES).read_text())
        if _canonical(recomputed) != _canonical(stored):
            diff = _first_difference(recomputed, stored)
            v.problems.append(f"{FIGURES}: the figures recomputed from the tallies differ ({diff})")
        v.problems += _identity_problems(manifest, game, build, stored, progress)
        v.problems += _report_problems(out, game, build, stored, manifest, progress.plan.language, v.notes)
        v.problems += _resimulation_problems(out, game, build, progress, resimulate, rng or random.SystemRandom(), v)
    except CertifyError as exc:
        v.problems.append(str(exc))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        v.problems.append(f"cannot check the package against its data ({type(exc).__name__}: {exc})")
    return v


def _check_signature(out: Path, raw: bytes, manifest: dict[str, Any], unsigned: bool, v: Verification) -> None:
    from reelforge.analysis import signing

    sig = out / signing.SIGNATURE
    if not sig.exists():
        if unsigned:
            v.notes.append(f"--unsigned: the package has no signature ({signing.SIGNATURE}); nothing proves who "
                           "produced it")
        else:
            v.problems.append(f"{signing.SIGNATURE}: missing: the package is not signed (certify --key signs it; "
                              "--verify DIR --unsigned checks an unsigned package and says so)")
        return
    problem = signing.check(raw, sig.read_text(errors="replace"), manifest.get("signer"))
    if problem is not None:
        v.problems.append(problem)
    else:
        v.notes.append(f"signature: valid, {signing.ALGORITHM} key with SHA-256 fingerprint "
                       f"{manifest['signer']['fingerprint_sha256']} (compare it with the one the supplier declared)")


def _identity_problems(manifest: dict[str, Any], game: Game, build: Build, figures: dict[str, Any],
                       progress: Any) -> list[str]:
    """The manifest's identity against the one recomputed from ``state.json``, the build and the running
    engine (the tools' versions apart: they are stated, not required)."""
    report = manifest.get("report") or {}
    expected = identity(game, build, figures, progress, report.get("par_rounds"), manifest.get("signer"),
                        [{"path": a.get("path"), "what": a.get("what")} for a in manifest.get("attested") or []])
    problems = []
    for key in sorted(set(expected) | set(manifest)):
        if key in ("files", "tools", "attested"):
            continue
        if _canonical(expected.get(key)) != _canonical(manifest.get(key)):
            diff = _first_difference(expected.get(key), manifest.get(key), key)
            problems.append(f"{MANIFEST}: its identity differs from the run's state, the build or the running "
                            f"engine ({diff})")
    for a in manifest.get("attested") or []:
        if a.get("sha256") != (manifest.get("files") or {}).get(a.get("path")):
            problems.append(f"{MANIFEST}: the attested file {a.get('path')} is not the package's file of that hash")
    return problems


def _report_problems(out: Path, game: Game, build: Build, figures: dict[str, Any], manifest: dict[str, Any],
                     lang: str | None, notes: list[str]) -> list[str]:
    """report.html re-rendered from figures.json and the manifest's identity, compared byte for byte (and
    report.pdf's text with the re-rendered report's, printed again)."""
    from reelforge.analysis.certificate_report import PDF, REPORT, write_certificate

    ident = {k: v for k, v in manifest.items() if k != "files"}
    help_text = None
    if lang is not None:
        from reelforge.analysis.help_text import certified_help

        help_text = certified_help(game, build, lang)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        html = write_certificate(Path(tmp), game, build, figures, ident, manifest["report"]["par_rounds"], help_text)
        fresh = html.read_bytes()
        stored = (out / REPORT).read_bytes() if (out / REPORT).exists() else b""
        if fresh != stored:
            problems.append(f"{REPORT}: differs from the report re-rendered from {FIGURES} and the tallies "
                            f"(first difference at byte {_first_byte_difference(fresh, stored):,})")
        if (out / PDF).exists():
            problems += _pdf_problems(out / PDF, html, notes)
    return problems


def _pdf_problems(stored: Path, fresh_html: Path, notes: list[str]) -> list[str]:
    """report.pdf's text against the text of the re-rendered report printed again (where Chromium and
    pdftotext are installed; else said so): a PDF's bytes carry its printing date, its text does not."""
    from reelforge.analysis.certificate_report import PDF, print_pdf

    if shutil.which("pdftotext") is None or (fresh := print_pdf(fresh_html)) is None:
        notes.append(f"{PDF}: not re-printed (no Chromium or pdftotext here): its hash and the signature cover it")
        return []

    def text(pdf: Path) -> str:
        return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                              timeout=120).stdout

    if text(stored) != text(fresh):
        return [f"{PDF}: its text differs from the re-rendered report printed again"]
    return []


def _first_byte_difference(a: bytes, b: bytes) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _resimulation_problems(out: Path, game: Game, build: Build, progress: Any, k: int, rng: random.Random,
                           v: Verification) -> list[str]:
    """Every piece's seed the one the plan's seed gives, and ``k`` pieces chosen by ``rng`` re-simulated from
    their seeds, each tally identical to the stored one."""
    from reelforge.analysis.certify import Stream, piece_seed, same_sample, tally_path

    plan = progress.plan
    problems = [f"state.json: {name} piece {p.index}'s seed is not the one the run's seed gives"
                for name in ("main", "sample") for p in getattr(progress, name)
                if p.seed != piece_seed(plan.seed, name, p.index)]
    chosen = choose_pieces(progress, k, rng)
    for name, p in chosen:
        kind = plan.estimator if name == "main" else "plain"
        fresh = Stream(game, build, plan, kind, None).simulate(p.rounds, p.seed)
        stored = Stream(game, build, plan, kind, None).load(tally_path(out, name, p.index))
        if not same_sample(fresh, stored):
            problems.append(f"{tally_path(out, name, p.index).relative_to(out)}: re-simulated from its seed "
                            f"{p.seed} ({p.rounds:,} rounds), the tally differs from the stored one")
    if chosen:
        v.notes.append("re-simulated from their seeds: " + ", ".join(f"{name} piece {p.index}" for name, p in chosen))
    return problems


def choose_pieces(progress: Any, k: int, rng: random.Random) -> list[tuple[str, Any]]:
    """``k`` pieces of the run drawn by ``rng`` without repeats (all of them where ``k`` is more), as
    (stream, piece) in the run's order."""
    pieces = [(name, p) for name in ("main", "sample") for p in getattr(progress, name)]
    return [pieces[i] for i in sorted(rng.sample(range(len(pieces)), min(k, len(pieces))))]


def _help_text_problems(out: Path, game: Game, build: Build, lang: str | None) -> list[str]:
    """Where the package certifies a help text (``certify --lang``): its file is there and is the help the game
    shows now in that language (a changed text or translation is no longer the one certified)."""
    from reelforge.analysis.help_text import certified_help, help_file

    if lang is None:
        return []
    path = out / help_file(lang)
    if not path.exists():
        return [f"{help_file(lang)}: the plan certifies the help text in {lang!r} but the file is missing"]
    if _canonical(json.loads(path.read_text(encoding="utf-8"))) != _canonical(certified_help(game, build, lang)):
        return [f"{help_file(lang)}: the help text the game shows now in {lang!r} differs from the certified one"]
    return []


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True)


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if _canonical(a.get(k)) != _canonical(b.get(k)):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if _canonical(x) != _canonical(y):
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path or 'top'}: {str(a)[:60]} != {str(b)[:60]}"
