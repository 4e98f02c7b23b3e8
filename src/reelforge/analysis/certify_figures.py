"""A certification package's figures, recomputed from its stored piece tallies and its build: the merged tally
checked against its pieces, the convergence checkpoint after each piece, and a stratified SD's interval from the
pieces (what ``figures.json`` holds and ``certify --verify`` recomputes; :mod:`reelforge.analysis.certify` runs
the pieces)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from reelforge.analysis.certify import CertifyError, Piece, Stream, load_progress, same_sample, tally_path
from reelforge.game.estimation import Sample


def merged_points(stream: Stream, out: Path, name: str,
                   pieces: list[Piece]) -> tuple[Sample | None, list, list[Sample]]:
    """The merged tally rebuilt from the piece files, the convergence checkpoint after each piece, and the pieces'
    own tallies."""
    merged = None
    points = []
    own = []
    for p in pieces:
        own.append(stream.load(tally_path(out, name, p.index)))
        merged = stream.merge(merged, own[-1])
        points.append(list(stream.point(merged)))
    return merged, points, own


def piece_sd_interval(stream: Stream, merged: Sample, own: list[Sample], pieces: list[Piece]) -> dict[str, Any] | None:
    """The 99% interval of a stratified estimate's round SD (the estimator gives none): the SD recomputed with
    each piece left out, :mod:`reelforge.analysis.jackknife`; None with too few pieces."""
    from reelforge.analysis.jackknife import METHOD, statistic_interval

    estimator = stream.estimator
    assert estimator is not None
    found = statistic_interval(own, [p.rounds for p in pieces], stream.merge,
                               lambda s: estimator.estimate(s, stream.build).sd, merged)
    if found is None:
        return None
    lo, hi = found["ci99"]
    return {"sd_ci99": [max(lo, 0.0), hi], "se": found["se"], "df": found["df"], "pieces": len(own),
            "method": METHOD}


def package_figures(out: Path) -> dict[str, Any]:
    """Every figure of the package, from its stored piece tallies and the build (what ``figures.json``
    holds and ``--verify`` recomputes). Raises :class:`CertifyError` where a merged tally differs from
    its pieces."""
    from reelforge.analysis import certificate
    from reelforge.games.registry import get_game

    progress = load_progress(out)
    plan = progress.plan
    if not progress.finished:
        raise CertifyError(f"{out}: the run is not finished; resume it with --resume")
    game = get_game(plan.game)
    build = plan.load_build(game)
    merged: dict[str, Sample | None] = {"main": None, "sample": None}
    points: dict[str, list] = {"main": [], "sample": []}
    sd_interval = None
    for name, kind in (("main", plan.estimator), ("sample", "plain")):
        pieces = getattr(progress, name)
        if not pieces:
            continue
        stream = Stream(game, build, plan, kind, None)
        merged[name], points[name], own = merged_points(stream, out, name, pieces)
        stored = stream.load(tally_path(out, name))
        if not same_sample(stored, merged[name]):
            raise CertifyError(f"{tally_path(out, name)} is not the merge of its {len(pieces)} pieces")
        if kind == "stratified":
            sd_interval = piece_sd_interval(stream, merged[name], own, pieces)
    return certificate.figures_of(game, build, plan, merged["main"], merged["sample"], points,
                                  [asdict(p) for p in progress.main], [asdict(p) for p in progress.sample], sd_interval)
