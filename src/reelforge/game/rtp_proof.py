"""How the RTP a game shows is known (issue 34): exact (every outcome enumerated), certified (a recorded
certification run whose whole 99% interval lies within +-0.05 pp of the build's name), or only declared
(the build's design figure, held to a simulation by check_game but not yet certified).

A certified record is data beside the game's module (``certified_figures.toml``), keyed by the build's
content hash, written by ``reelforge certify --record PACKAGE`` from a verified package and never by hand:
it names the package (its manifest's SHA-256, signer, engine commit, seed) so a lab can match the two."""

from __future__ import annotations

import json
import sys
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reelforge.game.contract import Build, Game

CERTIFIED_RECORD = "certified_figures.toml"
"""The file beside a game's module recording its builds' certified RTP intervals by content hash."""
CERTIFIED_BAND = Fraction(5, 10_000)
"""A simulated build's name tells the truth when its whole 99% interval lies within this of it (0.05 pp)."""
RECORD_KEYS = ("build", "version", "rtp", "rtp_low", "rtp_high", "confidence", "paid_spins", "estimator", "seed",
               "date", "manifest_sha256", "signer_fingerprint", "engine_commit")
"""The fields of a certified record entry (strings; the three RTP figures are decimal fractions of the stake)."""

_RECORDS: dict[Path, dict[str, Any]] = {}


@dataclass(frozen=True)
class RtpProof:
    """The RTP the help and the lobby show and how it is known."""

    method: str
    """``exact``, ``certified`` or ``declared``."""
    value: Fraction
    """The RTP shown (a fraction of the stake): the exact RTP, the certified interval's centre, or the declared one."""
    low: Fraction | None = None
    """The 99% interval of a certified RTP (None otherwise)."""
    high: Fraction | None = None
    rounds: int | None = None
    """Paid spins behind a certified RTP."""
    record: dict[str, str] = field(default_factory=dict)
    """The certified record (the package it came from), as stored."""

    def to_json(self) -> dict[str, Any]:
        """``method``, ``rtp`` (exact fraction string) and, where certified, ``interval`` [low, high] (fraction
        strings), ``confidence`` 0.99, ``rounds`` and ``package`` (manifest SHA-256, signer, engine commit, seed, date)."""
        out: dict[str, Any] = {"method": self.method, "rtp": str(self.value)}
        if self.method == "certified":
            out.update({"interval": [str(self.low), str(self.high)], "confidence": 0.99, "rounds": self.rounds,
                        "package": {k: self.record[k] for k in ("manifest_sha256", "signer_fingerprint",
                                                               "engine_commit", "seed", "date", "estimator")}})
        return out


def beside_game(game: Game, name: str) -> Path:
    """The file ``name`` beside ``game``'s module (where its recorded figures are kept)."""
    return Path(sys.modules[type(game).__module__].__file__ or ".").parent / name


def certified_record_path(game: Game) -> Path:
    """Where ``game``'s certified records are (beside its module, like its exact figures)."""
    return beside_game(game, CERTIFIED_RECORD)


def load_records(path: Path) -> dict[str, Any]:
    """The records of one file by content hash, exact or certified (empty where there is none); read once per
    process."""
    if path not in _RECORDS:
        _RECORDS[path] = tomllib.loads(path.read_text()) if path.exists() else {}
    return _RECORDS[path]


def write_records(path: Path, header: list[str], records: dict[str, dict[str, Any]], keys: tuple[str, ...]) -> None:
    """Write a game's records file: ``header`` (comment lines, without their ``#``), then each record by content
    hash (sorted by build name, then hash), its ``keys`` in order; read again next time (:func:`load_records`)."""
    lines = [f"# {line}" for line in header] + [""]
    for key, entry in sorted(records.items(), key=lambda kv: (kv[1]["build"], kv[0])):
        lines.append(f'["{key}"]')
        lines += [f"{k} = {json.dumps(entry[k])}" for k in keys]
        lines.append("")
    path.write_text("\n".join(lines))
    forget_records(path)


def forget_records(path: Path) -> None:
    """Read ``path`` again next time (after ``certify --record`` wrote it)."""
    _RECORDS.pop(path, None)


def certified_proof(entry: dict[str, str]) -> RtpProof:
    """The proof a certified record entry gives (its decimals read exactly)."""
    return RtpProof("certified", Fraction(entry["rtp"]), Fraction(entry["rtp_low"]), Fraction(entry["rtp_high"]),
                    int(entry["paid_spins"]), dict(entry))


def band_problem(name_rtp: Fraction, low: Fraction, high: Fraction) -> str | None:
    """Why an interval does not prove a build's name (None where its whole interval lies within 0.05 pp of it)."""
    if name_rtp - CERTIFIED_BAND <= low and high <= name_rtp + CERTIFIED_BAND:
        return None
    return (f"its 99% interval [{float(low) * 100:.4f}%, {float(high) * 100:.4f}%] does not lie within +-0.05 pp of "
            f"the build's RTP {float(name_rtp) * 100:.4f}%")


def rtp_proof(game: Game, build: Build) -> RtpProof:
    """The RTP ``game`` shows for ``build``: exact where the game is enumerable (computed where
    :attr:`Game.quick_exact`, else its recorded exact figures), else the certified interval's centre where a
    certification run is recorded for this build's content, else the build's declared RTP."""
    if game.capabilities.exact:
        if game.quick_exact:
            return RtpProof("exact", game.exact(build).rtp)
        recorded = game.recorded_exact(build)
        if recorded is not None:
            return RtpProof("exact", recorded["rtp"])
    entry = load_records(certified_record_path(game)).get(build.identity.content_hash)
    if entry is not None:
        return certified_proof(entry)
    return RtpProof("declared", Fraction(build.rtp))
