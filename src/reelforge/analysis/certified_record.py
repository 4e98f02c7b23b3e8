"""``reelforge certify --record PACKAGE``: a verified certification package's RTP interval recorded beside its
game (``certified_figures.toml``), so that the help and the lobby show the certified RTP with its interval
(issue 34: a simulated build's name is proven when its whole 99% interval lies within +-0.05 pp of it).

Only a package that verifies, was run for certification (not ``--exploratory``), in paid mode, reached its
precision and whose interval proves the build's name is recorded; anything else is refused with the reason."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from reelforge.analysis.manifest import FIGURES, MANIFEST, check_package
from reelforge.game.rtp_proof import RECORD_KEYS, band_problem, certified_record_path, forget_records, load_records
from reelforge.game.rtp_proof import write_records as write_record_file


class RecordError(ValueError):
    """A package that cannot be recorded, with the reason in one line."""


def decimal(x: float) -> str:
    """A fraction of the stake as the decimal a record keeps (12 places: far below any interval's width)."""
    return f"{x:.12f}"


def certified_entry(manifest: dict[str, Any], figures: dict[str, Any], build_rtp: Fraction,
                    manifest_sha256: str) -> dict[str, str]:
    """The record of a verified package (its ``manifest.json`` and ``figures.json``) for a build whose declared
    RTP is ``build_rtp``; raises :class:`RecordError` naming why it proves nothing."""
    where = f"{manifest.get('game', {}).get('id')} build {manifest.get('build', {}).get('name')}"
    if not manifest.get("for_certification"):
        raise RecordError(f"{where}: an exploratory package (not for certification) is never recorded")
    if manifest.get("mode") != "paid":
        raise RecordError(f"{where}: only a paid-mode package gives the RTP players are shown, not "
                          f"{manifest.get('mode')!r}")
    if figures.get("precision_reached_pp") is None:
        raise RecordError(f"{where}: the package gives an exact RTP; exact figures are recorded by `reelforge exact`")
    if not figures.get("precision_met"):
        raise RecordError(f"{where}: the run did not reach its precision ({figures['precision_reached_pp']:.4f} pp "
                          f"against {figures.get('precision_requested_pp')} pp)")
    low_text, high_text = (decimal(v) for v in figures["summary"]["rtp_ci99"])
    low, high = Fraction(low_text), Fraction(high_text)
    problem = band_problem(build_rtp, low, high)
    if problem:
        raise RecordError(f"{where}: {problem}, so it does not prove the build's name")
    signer = manifest.get("signer") or {}
    entry = {"build": manifest["build"]["name"], "version": manifest["build"]["version"],
             "rtp": decimal(figures["summary"]["rtp"]), "rtp_low": low_text, "rtp_high": high_text,
             "confidence": "0.99", "paid_spins": str(manifest["rounds"]["main"]), "estimator": manifest["estimator"],
             "seed": str(manifest["seed"]), "date": str(manifest["date"]), "manifest_sha256": manifest_sha256,
             "signer_fingerprint": signer.get("fingerprint_sha256") or "unsigned",
             "engine_commit": str(manifest["engine"]["git_commit"])}
    return entry


def record_package(folder: Path, *, unsigned: bool = False, allow_dirty_engine: bool = False) -> tuple[Path, dict]:
    """Verify ``folder`` (as ``certify --verify``, one piece re-simulated) and record its RTP interval beside its
    game; returns the record file and the entry. Raises :class:`RecordError` on any problem (nothing written)."""
    from reelforge.games.registry import get_game

    checked = check_package(folder, unsigned=unsigned, allow_dirty_engine=allow_dirty_engine, resimulate=1)
    if checked.problems:
        raise RecordError(f"{folder}: the package does not verify ({checked.problems[0]}); "
                          f"see `reelforge certify --verify {folder}`")
    raw = (folder / MANIFEST).read_bytes()
    manifest, figures = json.loads(raw), json.loads((folder / FIGURES).read_text())
    game = get_game(manifest["game"]["id"])
    build = game.load_build(manifest["build"]["name"])
    if build.identity.content_hash != manifest["build"]["content_hash"]:
        raise RecordError(f"{folder}: the package is of build content {manifest['build']['content_hash']}, not the "
                          f"shipped {build.name}'s {build.identity.content_hash}")
    entry = certified_entry(manifest, figures, Fraction(build.rtp), hashlib.sha256(raw).hexdigest())
    path = certified_record_path(game)
    records = dict(load_records(path))
    records[build.identity.content_hash] = entry
    write_records(path, game.id, records)
    forget_records(path)
    return path, entry


def write_records(path: Path, game_id: str, records: dict[str, dict[str, str]]) -> None:
    """Write a game's certified records (sorted by build name, then content hash)."""
    header = [f"{game_id}: certified RTP intervals of its builds by content hash, written by `reelforge certify "
              "--record PACKAGE` from", "verified certification packages (never by hand). The help and the lobby "
              "show the interval's centre and the interval."]
    write_record_file(path, header, records, RECORD_KEYS)
