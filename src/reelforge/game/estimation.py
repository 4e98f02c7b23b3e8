"""Stratified estimates, one way for every game that has one, and one sample file format.

A game's :class:`StratifiedEstimator` simulates a :class:`Sample` (its strata's sums: paid spins
alone, features alone...) and turns a sample into a :class:`~reelforge.game.results.StratifiedEstimate` of
a build. ``Game.stratified`` (and so ``reelforge summary --stratified/--precision``), the design
commands' ``verify`` and the tuners all go through it, and every kept sample is one kind of file:

* an ``.npz`` archive (numpy, no pickles) holding the sample's arrays and one entry ``__sample__``:
  JSON with the format tag, the game, the sample's kind, its settings (seeds, sizes) and its small
  values (scalar sums, exact figures), so a sample says what it is and where it came from.

Samples depend only on their seeds and sizes (chunked seed streams), never on the worker count.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from reelforge.game.results import StratifiedEstimate

FORMAT = "reelforge-sample/1"
META = "__sample__"


class SampleError(ValueError):
    """A sample file that is missing, unreadable, or of another game or kind; the message says which."""


Legacy = Callable[[Path, "dict[str, np.ndarray] | None"], "Sample"]
"""A game's reader of its samples kept in an earlier format: ``(path, arrays)`` (arrays None for a ``.json``)."""


@dataclass
class Sample:
    """Simulated sums that estimates are computed from."""

    game: str
    kind: str
    """What the sums are (each estimator or tuner reads its own kind)."""
    settings: dict[str, Any]
    """How it was made: seeds, sizes, the build it was simulated for (JSON-able)."""
    values: dict[str, Any] = field(default_factory=dict)
    """Small JSON-able results (scalar sums, exact figures); floats survive JSON exactly."""
    arrays: dict[str, np.ndarray] = field(default_factory=dict)

    def save(self, path: Path) -> Path:
        """Write the sample to ``path`` (an ``.npz`` file)."""
        path = Path(path)
        if path.suffix != ".npz":
            raise SampleError(f"{path}: a sample file is an .npz archive; name it {path.with_suffix('.npz').name}")
        meta = {"format": FORMAT, "game": self.game, "kind": self.kind, "settings": self.settings,
                "values": self.values}
        path.parent.mkdir(parents=True, exist_ok=True)
        write_npz(path, {META: np.array(json.dumps(meta, sort_keys=True)), **self.arrays})
        return path

    @classmethod
    def load(cls, path: Path, game: str, kind: str, legacy: Legacy | None = None) -> Sample:
        """Read a sample of ``game`` and ``kind`` from ``path``; a file of an earlier format (a ``.json``, or
        an ``.npz`` without metadata) only through the game's ``legacy`` reader, which raises
        :class:`SampleError` where the file is not one."""
        path = Path(path)
        if not path.exists():
            raise SampleError(f"{path}: no such sample file")
        if path.suffix == ".json":
            if legacy is None:
                raise SampleError(f"{path}: not a sample file: a {game} {kind!r} sample is an .npz archive")
            return legacy(path, None)
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError) as exc:
            raise SampleError(f"{path}: not a sample file (.npz): {exc}") from exc
        if META not in arrays:
            if legacy is None:
                raise SampleError(f"{path}: not a sample file of this format (no {META} entry)")
            return legacy(path, arrays)
        meta = json.loads(str(arrays.pop(META)))
        if meta.get("format") != FORMAT:
            raise SampleError(f"{path}: unknown sample format {meta.get('format')!r} (this version reads {FORMAT})")
        if meta["game"] != game or meta["kind"] != kind:
            raise SampleError(f"{path}: a {meta['game']} sample of kind {meta['kind']!r}, not a {game} {kind!r} sample")
        return cls(game=game, kind=kind, settings=meta["settings"], values=meta["values"], arrays=arrays)


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An ``.npz`` archive (what :func:`numpy.load` reads) whose bytes depend only on the arrays: entries
    in name order with a fixed time stamp (numpy's own writer stamps the current time), written to a
    temporary file and renamed, so a reader never sees half a file and equal samples are equal files."""
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asanyarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, buf.getvalue())
    os.replace(tmp, path)


class StratifiedEstimator(ABC):
    """A game's stratified estimator: rare features simulated apart from the paid spins that trigger
    them, combined with their (exact or simulated) probabilities."""

    game: ClassVar[str]
    kind: ClassVar[str]
    """The kind of :class:`Sample` it simulates and reads."""
    legacy: ClassVar[Legacy | None] = None
    """The game's reader of samples kept in an earlier format (:meth:`Sample.load`), if any."""

    @abstractmethod
    def feature_rounds(self, rounds: int) -> int:
        """Features simulated beside ``rounds`` paid spins when the caller gives no number."""

    @abstractmethod
    def sample(self, build: Any, rounds: int, feature_rounds: int, seed: int, workers: int | None = None,
               log: bool = False) -> Sample:
        """Simulate the strata for ``build`` from ``seed`` (the same for any worker count)."""

    @abstractmethod
    def estimate(self, sample: Sample, build: Any) -> StratifiedEstimate:
        """The estimate of ``build`` from ``sample`` (ValueError where the sample cannot estimate it)."""

    @abstractmethod
    def merge(self, first: Sample, second: Sample) -> Sample:
        """Two independent samples of this kind as one (sums added in this order, so merging the same
        samples in the same order always gives the same floats: a resumed run equals an uninterrupted one)."""

    def sample_design(self, build: Any) -> str:
        """A fingerprint of what this estimator's samples depend on in ``build``: two builds with the same one
        draw identical samples from the same seed and size, so a certification of one may take the other's
        pieces (``certify --sample-from``). By default the build's whole content hash: only the same maths."""
        return build.identity.content_hash

    def run(self, build: Any, rounds: int, seed: int, feature_rounds: int | None = None,
            workers: int | None = None, log: bool = False) -> StratifiedEstimate:
        """Simulate a sample and estimate ``build`` from it."""
        n = self.feature_rounds(rounds) if feature_rounds is None else feature_rounds
        return self.estimate(self.sample(build, rounds, n, seed, workers, log), build)

    def load(self, path: Path) -> Sample:
        """A kept sample of this estimator's kind."""
        return Sample.load(path, self.game, self.kind, type(self).legacy)


def interval(point: float, half_width: float) -> tuple[float, float]:
    """A symmetric interval ``point +- half_width``."""
    return (point - half_width, point + half_width)
