"""The certification package's manifest (``manifest.json``) and its verification.

The manifest names what was measured and with what: SHA-256 of every build file and of every file of
the package (report, figures, tallies, state), the engine's version and git commit, the Python, numpy
and numba versions, the date, the seeds and rounds, the estimator, and the RNG and scaling statement.
:func:`verify_package` recomputes every figure from the stored tallies and checks every hash.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import platform
import subprocess
from pathlib import Path
from typing import Any

import reelforge
from reelforge.game.contract import Build, Game

MANIFEST = "manifest.json"
FIGURES = "figures.json"

RNG_STATEMENT = (
    "Simulation: numpy's PCG64 bit generator. A run's integer seed spawns one stream per piece "
    "(numpy SeedSequence([seed, stream, piece]) -> a 63-bit piece seed), and each piece's seed spawns one "
    "stream per chunk of rounds (SeedSequence(piece seed, spawn_key=(chunk,))), so results depend only on the "
    "seed and the sizes, never on the number of workers or machines; chunks and pieces are merged in order. "
    "Scaling: a uniform integer in [0, n) is drawn by Lemire's nearly-divisionless method (a 64-bit draw "
    "times n, rejecting the few low products that would bias it), the same mapping in the readable rules "
    "and the fast kernels. Live play draws from the operating system's CSPRNG (secrets.SystemRandom via "
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
    """The engine's git commit (None outside a git checkout), with ``+changes`` when the tree is dirty."""
    root = Path(reelforge.__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+changes" if dirty else "")


def tool_versions() -> dict[str, str]:
    import numba
    import numpy

    return {"python": platform.python_version(), "numpy": numpy.__version__, "numba": numba.__version__,
            "platform": platform.platform()}


def package_files(out: Path) -> list[Path]:
    """Every file of the package but the manifest, in a fixed order."""
    return sorted(p for p in Path(out).rglob("*") if p.is_file() and p.name != MANIFEST and not p.name.endswith(".tmp"))


def estimator_words(game: Game, used: str) -> dict[str, Any]:
    """What the package says of a stratified estimator as it was when the package was made (the manifest
    keeps it; figures never depend on it): its method in words and its measured efficiency against plain
    simulation, where the game's estimator states them (``description``, ``efficiency_vs_plain``)."""
    if used != "stratified":
        return {}
    est = game.stratified_estimator()
    return {k: getattr(est, k) for k in ("description", "efficiency_vs_plain") if getattr(est, k, None) is not None}


def identity(game: Game, build: Build, figures: dict[str, Any], progress: Any) -> dict[str, Any]:
    """Everything the manifest says but the files' hashes (the report's identity block shows it)."""
    plan = progress.plan
    pieces = {name: [{"index": p.index, "seed": p.seed, "rounds": p.rounds, "seconds": round(p.seconds, 3),
                      "backend": p.backend, "address": p.address}
                     for p in getattr(progress, name)] for name in ("main", "sample")}
    return {
        "format": "reelforge-certification-manifest/1",
        "date": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "game": {"id": game.id, "title": game.title, "published_id": game.published_id, "version": game.version},
        "build": build_identity(game, build),
        "mode": plan.mode,
        "engine": {"name": "reelforge", "version": reelforge.__version__, "git_commit": git_commit()},
        "tools": tool_versions(),
        "estimator": plan.estimator,
        "estimator_method": estimator_words(game, plan.estimator),
        "precision_requested_pp": plan.precision_pp,
        "precision_reached_pp": figures.get("precision_reached_pp"),
        "seed": plan.seed,
        "rounds": {name: sum(p["rounds"] for p in ps) for name, ps in pieces.items()},
        "seconds": {name: round(sum(p["seconds"] for p in ps), 1) for name, ps in pieces.items()},
        "pieces": pieces,
        "rng_and_scaling": RNG_STATEMENT,
    }


def write_manifest(out: Path, ident: dict[str, Any]) -> Path:
    """``manifest.json`` of a finished package: ``ident`` plus the SHA-256 of every other file (write it last)."""
    out = Path(out)
    manifest = {**ident, "files": {str(p.relative_to(out)): sha256_file(p) for p in package_files(out)}}
    path = out / MANIFEST
    path.write_text(json.dumps(manifest, indent=1) + "\n")
    return path


def verify_package(out: Path) -> list[str]:
    """Every problem found in a package (empty: it verifies): each manifest hash against its file, each
    build file against the shipped one, files not in the manifest, and every figure recomputed from the
    stored tallies against ``figures.json``."""
    from reelforge.analysis.certify import CertifyError, figures, load_progress
    from reelforge.games.registry import get_game

    out = Path(out)
    problems: list[str] = []
    try:
        manifest = json.loads((out / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        return [f"{out / MANIFEST}: unreadable: {exc}"]
    listed = manifest.get("files", {})
    for rel, digest in listed.items():
        path = out / rel
        if not path.exists():
            problems.append(f"{rel}: listed in the manifest but missing")
        elif sha256_file(path) != digest:
            problems.append(f"{rel}: SHA-256 differs from the manifest's")
    for p in package_files(out):
        if str(p.relative_to(out)) not in listed:
            problems.append(f"{p.relative_to(out)}: not in the manifest")
    try:
        progress = load_progress(out)
        game = get_game(progress.plan.game)
        build = game.load_build(progress.plan.build)
        now = build_identity(game, build)["files"]
        if now != manifest["build"]["files"]:
            problems.append("the build file differs from the one the package measured (its SHA-256 changed)")
        problems += _help_text_problems(out, game, build, progress.plan.language)
        recomputed = figures(out)
        stored = json.loads((out / FIGURES).read_text())
        if _canonical(recomputed) != _canonical(stored):
            diff = _first_difference(recomputed, stored)
            problems.append(f"{FIGURES}: the figures recomputed from the tallies differ ({diff})")
    except CertifyError as exc:
        problems.append(str(exc))
    except (OSError, ValueError, KeyError) as exc:
        problems.append(f"cannot recompute the figures: {exc}")
    return problems


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
