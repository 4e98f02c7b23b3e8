"""How a certification run's pieces are played: one at a time here (:class:`LocalPieces`), or at once across a
Ray cluster (:class:`RayPieces`), each stream's pieces merged in their order so the tallies are the same on
either (:func:`run_flows`; :func:`reelforge.analysis.certify.run` drives it)."""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reelforge.analysis.certify import (
    MIN_CHECKPOINTS,
    STATE,
    Log,
    Piece,
    Plan,
    Progress,
    Stream,
    half_width_pp,
    piece_seed,
    pilot_piece_rounds,
    sample_piece_rounds,
    stratified_piece,
    tally_path,
    write_json,
)
from reelforge.game.estimation import Sample


def ahead_rounds(plan: Plan, name: str, index: int) -> int | None:
    """Rounds of piece ``index`` of stream ``name`` where they do not depend on the tallies before it (the
    main stream's pilot pieces, every plain-sample piece), else None: such a piece may run before the
    pieces ahead of it are merged, and so in parallel with them."""
    if name == "sample":
        return sample_piece_rounds(plan, index)
    return pilot_piece_rounds(plan) if index < MIN_CHECKPOINTS else None


@dataclass
class Flow:
    """One stream of a run as it is scheduled: its merged pieces (``progress``'s list), the pieces in flight
    and those finished while an earlier one still runs (written to disk, merged when their turn comes)."""

    name: str
    stream: Stream
    next_rounds: Callable[[list[Piece], Any], int | None]
    pieces: list[Piece]
    early: list[Piece]
    merged: Sample | None = None
    last: tuple[int, float, float, float] | None = None
    flying: dict[int, int] = field(default_factory=dict)
    """Rounds of each piece in flight, by index."""
    ready: dict[int, tuple[Sample, Piece]] = field(default_factory=dict)

    def next_piece(self, plan: Plan) -> tuple[int, int] | None:
        """(index, rounds) of the next piece that may start now, or None (done, or waiting for a merge)."""
        i = len(self.pieces)
        while i in self.flying or i in self.ready:  # the first piece neither running nor written: a piece lost
            i += 1                                       # with its node or a stopped run leaves such a gap
        if not self.flying and not self.ready:
            n = self.next_rounds(self.pieces, self.last)  # the sequential rule, on everything before it
        else:
            n = ahead_rounds(plan, self.name, i)
        return None if n is None else (i, n)


Done = tuple[Flow, int, Sample, float, str | None]
"""A finished piece: its flow, index, tally, seconds and the Ray node it ran on (None: here)."""


class LocalPieces:
    """Pieces run here one at a time, each on the worker processes of :func:`simulate` (the order of an
    uninterrupted sequential run: a killed run loses at most the piece in flight)."""

    capacity = 1

    def __init__(self) -> None:
        self.done: list[Done] = []

    def submit(self, flow: Flow, index: int, rounds: int, seed: int, alone: bool) -> None:
        t0 = time.perf_counter()
        self.done.append((flow, index, flow.stream.simulate(rounds, seed), time.perf_counter() - t0, None))

    def wait(self) -> list[Done]:
        out, self.done = self.done, []
        return out


def piece_task(plan: Plan, kind: str, rounds: int, seed: int, workers: int | None) -> tuple[Sample, float, str]:
    """One whole piece on the Ray node that runs it (its worker processes there): the tally, its seconds
    and the node's id (top level: a Ray task)."""
    import ray

    from reelforge.games.registry import get_game

    t0 = time.perf_counter()
    if kind == "plain":
        game = get_game(plan.game)
        stream = Stream(game, plan.load_build(game), plan, kind, workers)
        sample = stream.simulate(rounds, seed)
    else:
        sample = stratified_piece(plan, rounds, seed, workers)
    return sample, time.perf_counter() - t0, ray.get_runtime_context().get_node_id()


PIECE_RETRIES = 3
"""Times Ray re-runs a piece whose node died under it (on another node; same seed, so the same tally)."""


class RayPieces:
    """Pieces as Ray tasks, all that may run at once submitted together and spread over the cluster's
    nodes; a plain piece that is the only work left spreads its chunks over the cluster instead."""

    capacity = math.inf

    def __init__(self, plan: Plan, workers: int | None) -> None:
        import ray

        self.ray, self.plan, self.workers = ray, plan, workers
        self.remote = ray.remote(piece_task).options(max_retries=PIECE_RETRIES, retry_exceptions=False,
                                                     scheduling_strategy="SPREAD")
        self.refs: dict[Any, tuple[Flow, int]] = {}
        self.done: list[Done] = []

    def submit(self, flow: Flow, index: int, rounds: int, seed: int, alone: bool) -> None:
        if alone and flow.stream.kind == "plain":
            t0 = time.perf_counter()
            sample = flow.stream.simulate(rounds, seed)
            self.done.append((flow, index, sample, time.perf_counter() - t0, None))
            return
        ref = self.remote.remote(self.plan, flow.stream.kind, rounds, seed, self.workers)
        self.refs[ref] = (flow, index)

    def wait(self) -> list[Done]:
        out, self.done = self.done, []
        if self.refs and not out:
            ready, _ = self.ray.wait(list(self.refs), num_returns=1)
            for ref in ready:
                flow, index = self.refs.pop(ref)
                sample, seconds, node = self.ray.get(ref)
                out.append((flow, index, sample, seconds, node))
        return out


def _absorb(out: Path, progress: Progress, flow: Flow, log: Log) -> None:
    """Merge the flow's finished pieces that come next in order (a contiguous prefix), checkpointing each."""
    while (i := len(flow.pieces)) in flow.ready:
        sample, piece = flow.ready.pop(i)
        flow.merged = flow.stream.merge(flow.merged, sample)
        flow.merged.save(tally_path(out, flow.name))
        flow.pieces.append(piece)
        if piece in flow.early:
            flow.early.remove(piece)
        write_json(out / STATE, progress.to_json())  # the checkpoint: everything before it is on disk
        flow.last = flow.stream.point(flow.merged)
        n = flow.last[0]
        log(f"{flow.name} piece {i + 1}: {piece.rounds:,} -> {n:,} rounds, RTP {flow.last[1] * 100:.4f}% "
            f"+-{half_width_pp(flow.last):.4f} pp ({piece.seconds:.1f} s{', node ' + piece.node[:8] if piece.node else ''}"
            f"{', taken from ' + piece.taken_from if piece.taken_from else ''})")


SHARED_PLAN = ("game", "mode", "estimator", "seed", "pilot_rounds", "feature_rounds_per_piece")
"""What a run and the package whose pieces it takes (``certify --sample-from``) must have planned alike."""


@dataclass
class Source:
    """A finished package whose main pieces a run may take (``certify --sample-from``), checked by
    :func:`sample_source`."""

    folder: Path
    pieces: list[Piece]
    label: str
    """Its game and build and the SHA-256 of its manifest (each taken piece names it)."""
    files: dict[str, str]
    """The SHA-256 of each of its files, as its manifest lists them."""


def sample_source(folder: Path, plan: Plan, stream: Stream) -> Source:
    """The package ``folder`` as a source of main pieces for a run of ``plan`` (its main ``stream``): planned alike
    (:data:`SHARED_PLAN`) and of a build whose samples are this build's (the estimator's ``sample_design``: the
    two builds differ only in what the estimate reads). Raises :class:`CertifyError` naming what differs."""
    from reelforge.analysis.certify import CertifyError, load_progress
    from reelforge.analysis.manifest import MANIFEST

    folder = Path(folder)
    if not (folder / MANIFEST).exists():
        raise CertifyError(f"--sample-from {folder}: not a finished certification package (no {MANIFEST})")
    if plan.estimator != "stratified" or stream.estimator is None:
        raise CertifyError(f"--sample-from takes the pieces of a stratified estimator's sample; this run's RTP comes "
                           f"from the {plan.estimator} estimator")
    theirs = load_progress(folder)
    differ = [k for k in SHARED_PLAN if getattr(theirs.plan, k) != getattr(plan, k)]
    if differ:
        raise CertifyError(f"--sample-from {folder}: planned with another {', '.join(differ)} ("
                           + "; ".join(f"{k} {getattr(theirs.plan, k)!r} there, {getattr(plan, k)!r} here" for k in differ)
                           + "): its pieces are not this run's")
    their_build = theirs.plan.load_build(stream.game)
    if stream.estimator.sample_design(their_build) != stream.estimator.sample_design(stream.build):
        raise CertifyError(f"--sample-from {folder}: build {their_build.identity.label} and build "
                           f"{stream.build.identity.label} draw different samples (they differ in more than the "
                           "estimate reads), so its pieces cannot stand for this build's")
    raw = (folder / MANIFEST).read_bytes()
    label = (f"{stream.game.id} build {their_build.identity.label}, manifest SHA-256 "
             f"{hashlib.sha256(raw).hexdigest()}")
    return Source(folder, theirs.main, label, json.loads(raw).get("files", {}))


def take_pieces(out: Path, progress: Progress, flow: Flow, source: Source, log: Log) -> int:
    """Take the source's main pieces in order while this run's own sizing rule (on this build's estimate) asks for
    more: each has this run's seed for its index and a sample that does not depend on the build, so its tally is
    the one this run draws for that seed and size (while the two rules ask for the same sizes, byte for byte this
    run's own pieces; a narrower build's rule would end with a smaller last piece, and takes the source's, which
    only narrows its interval). Each file is checked against the source's manifest, copied, merged and
    checkpointed as a simulated piece is; the run then goes on by its own rule. Returns the pieces taken."""
    import shutil

    from reelforge.analysis.certify import CertifyError
    from reelforge.analysis.manifest import sha256_file

    for piece in source.pieces:
        if flow.next_rounds(flow.pieces, flow.last) is None:  # this build's precision is reached
            break
        path = tally_path(source.folder, "main", piece.index)
        rel = str(path.relative_to(source.folder))
        if source.files.get(rel) != sha256_file(path):
            raise CertifyError(f"--sample-from {source.folder}: {rel} is not the file its manifest lists")
        shutil.copyfile(path, tally_path(out, "main", piece.index))
        taken = Piece(piece.index, piece.seed, piece.rounds, piece.seconds, piece.backend, piece.address, piece.node,
                      taken_from=source.label)
        flow.ready[piece.index] = (flow.stream.load(tally_path(out, "main", piece.index)), taken)
        _absorb(out, progress, flow, log)
    return len(flow.pieces)


def run_flows(out: Path, progress: Progress, flows: list[Flow], runner: LocalPieces | RayPieces, log: Log) -> None:
    """Run every flow's pieces on ``runner``: each piece is written when it finishes and merged in piece
    order, so the tallies do not depend on which piece finished first or where it ran."""
    plan = progress.plan
    for flow in flows:  # pieces an interrupted run finished ahead of an earlier one: kept, not re-run
        for piece in flow.early:
            flow.ready[piece.index] = (flow.stream.load(tally_path(out, flow.name, piece.index)), piece)
        _absorb(out, progress, flow, log)
    flying = 0
    while True:
        for flow in flows:
            while flying < runner.capacity and (nxt := flow.next_piece(plan)) is not None:
                index, rounds = nxt
                alone = (flying == 0 and ahead_rounds(plan, flow.name, index + 1) is None
                         and all(f is flow or f.next_piece(plan) is None for f in flows))  # the only work left
                flow.flying[index] = rounds
                runner.submit(flow, index, rounds, piece_seed(plan.seed, flow.name, index), alone)
                flying += 1
        if flying == 0:
            return
        for flow, index, sample, seconds, node in runner.wait():
            flying -= 1
            sample.save(tally_path(out, flow.name, index))
            piece = Piece(index, piece_seed(plan.seed, flow.name, index), flow.flying.pop(index), seconds,
                          flow.stream.backend, flow.stream.address, node)
            flow.ready[index] = (sample, piece)
            if index != len(flow.pieces):  # finished before an earlier piece: say so, so a resume keeps it
                flow.early[:] = [p for p in flow.early if p.index != index] + [piece]
                write_json(out / STATE, progress.to_json())
            _absorb(out, progress, flow, log)


