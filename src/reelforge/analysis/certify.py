"""Certification runs: a build measured to a stated precision, resumable, kept as a package a test lab signs.

A run is a sequence of *pieces*, each an independent seeded sample (piece ``i`` of stream ``s`` draws
from the integer seed :func:`piece_seed` ``(seed, s, i)``), merged in piece order:

* the **main** stream gives the RTP to the precision asked: the game's stratified estimator where it
  has one (paid rounds), else the plain simulation (Feature Buy, or games without one); none for a game
  whose figures are exact. Its first :data:`MIN_CHECKPOINTS` pieces share the pilot's paid spins; then
  each piece is sized from the merged half-width h as ``done (h/P)^2`` with a margin, at most doubling
  what is done (so the convergence checkpoints spread evenly on a log axis), until h <= P;
* the **sample** stream is a plain simulation of whole rounds (:data:`SAMPLE_ROUNDS`, in
  :data:`MIN_CHECKPOINTS` pieces) behind the win distribution, the top award's observed count and the
  game's own counters (exact and stratified estimators; for the plain estimator the main stream is that
  sample). A stratified estimate's SD gets its interval from the main stream's pieces
  (:func:`piece_sd_interval`: the delete-a-piece jackknife).

After every piece the piece's tally, the merged tally and ``state.json`` are written (each file
replaced atomically): a run killed at any moment and started again with ``--resume`` redoes at most
the piece in flight, from the same seed, so its merged totals are byte-identical to an uninterrupted
run's. The figures (``figures.json``) are a pure function of the stored tallies and the build:
:func:`verify` recomputes them and the hashes of :mod:`reelforge.analysis.manifest`.

The pieces run on this machine one at a time (``backend="local"``, each on all its cores) or on Ray
(``"ray"``, a cluster at ``address`` or a Ray started here), where every piece whose size does not depend
on the tallies before it (:func:`ahead_rounds`: the pilot and the plain sample) runs at once, one Ray task
a piece spread over the nodes; a piece lost with its node is re-run by Ray. Each piece is written as it
finishes and merged in piece order only (one finished ahead waits, listed under ``early`` in
``state.json``, and a resume keeps it). A piece's tally depends only on its seed and size, so both back
ends (any address, any number of nodes, a resume on the other one) write byte-identical tallies and
figures; each piece records where it ran (back end, address, Ray node) in ``state.json`` and the manifest.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.analysis.simulate import simulate
from reelforge.core.chunks import BACKENDS, start_ray
from reelforge.core.stats import Accumulator
from reelforge.game.contract import Build, Game
from reelforge.game.estimation import Sample, SampleError

FORMAT = "reelforge-certification/1"
DEFAULT_PRECISION_PP = 0.05
"""The RTP precision asked by default: 99% half-width of 0.05 percentage points."""
MIN_CHECKPOINTS = 10
"""Pieces of the pilot and of the plain sample: the convergence plots have at least this many points."""
SAMPLE_ROUNDS = 10_000_000
"""Plain rounds behind the distribution and the observed top award (default)."""
PLAIN_PILOT_ROUNDS = 2_000_000
"""The plain estimator's pilot (its first ten pieces together)."""
GROWTH_MARGIN = 1.02
"""The main stream's next piece is sized 2% above the 1/sqrt(n) prediction. Pieces add to what is done, so
one that falls just short costs only a small top-up piece: a wide margin would spend its whole width on
every run (at 1.15, Gemstones Gold's last piece overshot +-0.025 pp to +-0.0233, 13% more boards)."""
STREAMS = {"main": 1, "sample": 2}
STATE = "state.json"
TALLIES = "tallies"


class CertifyError(ValueError):
    """A request or a package that cannot be honoured; the message says why."""


def piece_seed(seed: int, stream: str, index: int) -> int:
    """The 63-bit seed of piece ``index`` of ``stream`` (independent streams for every piece)."""
    state = np.random.SeedSequence([seed, STREAMS[stream], index]).generate_state(2, np.uint64)
    return int(state[0] >> np.uint64(1))


@dataclass
class Plan:
    """What a run measures and how; written to ``state.json`` before the first piece, read on resume."""

    game: str
    build: str
    mode: str
    estimator: str
    """``exact``, ``stratified`` or ``plain``: what gives the RTP."""
    precision_pp: float
    seed: int
    pilot_rounds: int
    """Paid spins (or rounds) of the main stream's first :data:`MIN_CHECKPOINTS` pieces together."""
    sample_rounds: int
    max_rounds: int | None = None
    """Ceiling on the main stream's paid spins (None: until the precision is reached)."""
    feature_rounds_per_piece: int | None = None
    """Features simulated beside each stratified piece (None: the estimator's share)."""
    language: str | None = None
    """The language of the help text the package certifies beside the English report (``--lang``), or None."""
    exploratory: bool = False
    """A run at a precision too wide to judge the targets by (``--exploratory``): its package says on every
    page and in its manifest that it is not for certification."""
    build_version: str | None = None
    """The build's version: a package of an older version still reads and verifies with it once a newer one
    ships (None in a plan written before this field: its manifest names the version)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def load_build(self, game: Game) -> Build:
        """The build this plan measures, at its version (the current one where the plan names none)."""
        return game.load_build(self.build, self.build_version)


@dataclass
class Piece:
    index: int
    seed: int
    rounds: int
    seconds: float
    backend: str = "local"
    """Where it ran (``local`` or ``ray``), the Ray cluster's address (None: a Ray started here) and the id
    of the Ray node that ran it (None: this machine, or its chunks spread over the cluster)."""
    address: str | None = None
    node: str | None = None
    taken_from: str | None = None
    """Where a piece taken from another package (``certify --sample-from``) was simulated: that package's build
    and the SHA-256 of its manifest (None: simulated by this run)."""


@dataclass
class Progress:
    """The run so far (``state.json``)."""

    plan: Plan
    main: list[Piece] = field(default_factory=list)
    sample: list[Piece] = field(default_factory=list)
    finished: bool = False
    resumes: list[dict[str, Any]] = field(default_factory=list)
    """Each resume: when (UTC) and how many pieces of each stream were already done (the manifest repeats it)."""
    finished_at: str | None = None
    """When the last piece was done (UTC, ISO 8601): the package's date."""
    early: dict[str, list[Piece]] = field(default_factory=lambda: {"main": [], "sample": []})
    """Pieces written while an earlier piece of their stream still ran (not merged yet; a resume keeps them)."""

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "plan": self.plan.to_json(), "main": [asdict(p) for p in self.main],
                "sample": [asdict(p) for p in self.sample], "finished": self.finished, "resumes": self.resumes,
                "finished_at": self.finished_at,
                "early": {name: [asdict(p) for p in ps] for name, ps in self.early.items()}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Progress:
        if d.get("format") != FORMAT:
            raise CertifyError(f"not a certification state of this version (format {d.get('format')!r})")
        early = {name: [Piece(**p) for p in d.get("early", {}).get(name, [])] for name in STREAMS}
        return cls(Plan(**d["plan"]), [Piece(**p) for p in d["main"]], [Piece(**p) for p in d["sample"]],
                   bool(d.get("finished")), list(d.get("resumes") or []), d.get("finished_at"), early)


# -- tallies ----------------------------------------------------------------------------------------
def accumulator_sample(acc: Accumulator, game: str) -> Sample:
    """A plain simulation's exact integer tallies as a :class:`Sample` (kind ``plain``; big ints in JSON)."""
    values = {k: (list(v) if isinstance(v, tuple | list) else v) for k, v in asdict(acc).items()}
    return Sample(game=game, kind="plain", settings={"stake_units": acc.stake_units}, values=values)


def sample_accumulator(s: Sample) -> Accumulator:
    v = dict(s.values)
    v["component_names"] = tuple(v["component_names"])
    v["counter_names"] = tuple(v["counter_names"])
    return Accumulator(**v)


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file renamed over it): a killed run never
    leaves a half-written state or tally."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def tally_path(out: Path, stream: str, index: int | None = None) -> Path:
    """``tallies/main-003.npz`` (one piece) or ``tallies/main.npz`` (the merged tally)."""
    name = stream if index is None else f"{stream}-{index:03d}"
    return out / TALLIES / f"{name}.npz"


class Stream:
    """How a stream's pieces are simulated, merged and read (stratified samples or plain tallies)."""

    def __init__(self, game: Game, build: Build, plan: Plan, kind: str, workers: int | None,
                 backend: str = "local", address: str | None = None) -> None:
        self.game, self.build, self.plan, self.kind, self.workers = game, build, plan, kind, workers
        self.backend, self.address = backend, address
        self.mode = plan.mode if kind == "plain" else "paid"
        self.estimator = game.stratified_estimator() if kind == "stratified" else None

    def simulate(self, rounds: int, seed: int) -> Sample:
        if self.estimator is not None:  # on Ray, a stratified piece is one task (:class:`RayPieces`)
            return stratified_piece(self.plan, rounds, seed, self.workers)
        acc = simulate(self.game, self.build, rounds, seed, self.workers, self.mode, backend=self.backend,
                       address=self.address).accumulator
        return accumulator_sample(acc, self.game.id)

    def merge(self, first: Sample | None, second: Sample) -> Sample:
        if first is None:
            return second
        if self.estimator is not None:
            return self.estimator.merge(first, second)
        acc = sample_accumulator(first)
        acc.merge_in(sample_accumulator(second))
        return accumulator_sample(acc, self.game.id)

    def load(self, path: Path) -> Sample:
        kind = self.estimator.kind if self.estimator is not None else "plain"
        return Sample.load(path, self.game.id, kind)

    def point(self, merged: Sample) -> tuple[int, float, float, float]:
        """(rounds, RTP, 99% low, 99% high) of a merged tally: one convergence checkpoint."""
        if self.estimator is not None:
            est = self.estimator.estimate(merged, self.build)
            return est.rounds, est.rtp, est.rtp_ci99[0], est.rtp_ci99[1]
        acc = sample_accumulator(merged)
        lo, hi = acc.rtp_ci99()
        return acc.rounds, acc.rtp, lo, hi


def stratified_piece(plan: Plan, rounds: int, seed: int, workers: int | None) -> Sample:
    """The stratified tally of one main piece (top level: a Ray task runs it where the cluster says)."""
    from reelforge.games.registry import get_game

    game = get_game(plan.game)
    estimator = game.stratified_estimator()
    features = plan.feature_rounds_per_piece or estimator.feature_rounds(rounds)
    sample = estimator.sample(plan.load_build(game), rounds, features, seed, workers)
    if "seconds" in sample.values:  # a tally holds what was drawn, not how long it took (state.json does)
        sample.values["seconds"] = 0.0
    return sample


def check_backend(backend: str, address: str | None) -> None:
    """Refuse an unknown back end, or an address without Ray (before anything is written)."""
    if backend not in BACKENDS:
        raise CertifyError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise CertifyError("--address needs --backend ray")


@contextlib.contextmanager
def ray_session(backend: str, address: str | None, workers: int | None) -> Iterator[None]:
    """One Ray connection for the whole run (not one per piece); shut down after if started here."""
    if backend != "ray":
        yield
        return
    import ray

    started = start_ray(address, workers)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def half_width_pp(point: tuple[int, float, float, float]) -> float:
    return (point[3] - point[2]) / 2 * 100


def pilot_piece_rounds(plan: Plan) -> int:
    """Paid spins of each of the main stream's first :data:`MIN_CHECKPOINTS` pieces (and the least of any)."""
    return max(1, plan.pilot_rounds // MIN_CHECKPOINTS)


def next_main_rounds(plan: Plan, pieces: list[Piece], last: tuple[int, float, float, float] | None) -> int | None:
    """Paid spins of the next main piece, or None when the run is done (the rule of the module docstring)."""
    k = len(pieces)
    first = pilot_piece_rounds(plan)
    if k < MIN_CHECKPOINTS:
        return first
    done = sum(p.rounds for p in pieces)
    h = half_width_pp(last) if last else math.inf
    if h <= plan.precision_pp or (plan.max_rounds is not None and done >= plan.max_rounds):
        return None
    need = math.ceil(done * (h / plan.precision_pp) ** 2 * GROWTH_MARGIN) - done
    n = max(first, min(need, done))
    if plan.max_rounds is not None:
        n = min(n, plan.max_rounds - done)
    return n


def sample_piece_rounds(plan: Plan, index: int) -> int | None:
    """Rounds of plain-sample piece ``index`` (:data:`MIN_CHECKPOINTS` near-equal pieces), None after the last."""
    if index >= MIN_CHECKPOINTS:
        return None
    base, rest = divmod(plan.sample_rounds, MIN_CHECKPOINTS)
    return base + (1 if index < rest else 0)


# -- the run ------------------------------------------------------------------------------------------
def widest_precision_pp(game: Game, build: Build, mode: str) -> float | None:
    """Half the tightest tolerance of the build's RTP targets (the RTP and its parts), in percentage points:
    the widest RTP precision whose interval can still fit inside every RTP band; None without one."""
    from reelforge.analysis.certificate import targets

    tols = [t["tolerance"] for t in targets(game, build, mode) if t["key"].startswith("rtp") and t["tolerance"]]
    return min(tols) / 2 * 100 if tols else None


def default_precision_pp(game: Game, build: Build, mode: str) -> float:
    """The precision asked when none is given: :data:`DEFAULT_PRECISION_PP`, or :func:`widest_precision_pp`
    where the build's tolerances need a narrower one."""
    widest = widest_precision_pp(game, build, mode)
    return DEFAULT_PRECISION_PP if widest is None else min(DEFAULT_PRECISION_PP, widest)


def choose_plan(game: Game, build: Build, mode: str, precision_pp: float | None, seed: int,
                pilot_rounds: int | None = None, sample_rounds: int | None = None,
                max_rounds: int | None = None, feature_rounds_per_piece: int | None = None,
                exploratory: bool = False) -> Plan:
    """The estimator policy: exact where the game's figures are exact (paid rounds), the stratified
    estimator where the game has one (paid rounds), else the plain simulation. A build without targets
    (each citing its document) is refused. A simulated run refuses a precision wider than half the tightest
    RTP tolerance (its interval could never pass the targets) unless ``exploratory`` (the package then says
    it is not for certification); None asks :func:`default_precision_pp`."""
    from reelforge.analysis.certificate import require_targets

    game.check_mode(mode)
    require_targets(game, build, mode)
    if precision_pp is None:
        precision_pp = default_precision_pp(game, build, mode)
    if not precision_pp > 0:
        raise CertifyError("--precision must be a positive number of percentage points")
    if mode == "paid" and game.capabilities.exact:
        estimator = "exact"
    elif mode == "paid" and game.capabilities.stratified:
        estimator = "stratified"
    else:
        estimator = "plain"
    widest = widest_precision_pp(game, build, mode)
    if estimator != "exact" and widest is not None and precision_pp > widest and not exploratory:
        raise CertifyError(f"--precision {precision_pp:g} pp is wider than half the tightest RTP tolerance "
                           f"({widest:g} pp): its interval could not pass the targets; ask {widest:g} or less, or "
                           "add --exploratory (the package then says it is not for certification)")
    pilot = pilot_rounds or (game.stratified_pilot_rounds if estimator == "stratified" else PLAIN_PILOT_ROUNDS)
    if pilot < MIN_CHECKPOINTS or (sample_rounds is not None and sample_rounds < MIN_CHECKPOINTS):
        raise CertifyError(f"the pilot and the sample need at least {MIN_CHECKPOINTS} rounds (one per checkpoint)")
    return Plan(game.id, build.name, mode, estimator, precision_pp, seed, pilot,
                SAMPLE_ROUNDS if sample_rounds is None else sample_rounds, max_rounds, feature_rounds_per_piece,
                exploratory=exploratory, build_version=build.identity.version)


Log = Callable[[str], None]


def run(out: Path, plan: Plan | None, resume: bool, workers: int | None = None,
        log: Log = lambda _: None, backend: str = "local", address: str | None = None,
        sample_from: Path | None = None) -> Progress:
    """Run (or resume) the pieces of ``plan`` into ``out`` on ``backend`` (``local`` or ``ray``, at
    ``address``); returns the finished progress. The tallies are the same on either back end. A new run
    ``sample_from`` a package takes the main pieces of it that it would simulate itself
    (:func:`~reelforge.analysis.certify_pieces.take_pieces`)."""
    from reelforge.analysis.certify_pieces import Flow, LocalPieces, RayPieces, run_flows, sample_source, take_pieces
    from reelforge.games.registry import get_game

    check_backend(backend, address)
    out = Path(out)
    source = None
    if sample_from is not None:
        if resume or plan is None:
            raise CertifyError("--sample-from starts a new run; a resumed run keeps the pieces it has")
        game = get_game(plan.game)
        source = sample_source(sample_from, plan, Stream(game, plan.load_build(game), plan, plan.estimator, workers))
    state = out / STATE
    if resume:
        if not state.exists():
            raise CertifyError(f"{out}: nothing to resume (no {STATE}); start without --resume")
        progress = Progress.from_json(json.loads(state.read_text()))
        if plan is not None and (plan.game, plan.build, plan.mode) != (progress.plan.game, progress.plan.build,
                                                                       progress.plan.mode):
            raise CertifyError(f"{out} holds a run of {progress.plan.game} build {progress.plan.build} "
                               f"({progress.plan.mode}), not of {plan.game} build {plan.build} ({plan.mode})")
        progress.resumes.append({"at": utc_now(), "main_pieces_done": len(progress.main),
                                 "sample_pieces_done": len(progress.sample), "finished_before": progress.finished})
        write_json(state, progress.to_json())
    else:
        if plan is None:
            raise CertifyError("a new run needs a plan")
        if out.exists() and any(out.iterdir()):
            raise CertifyError(f"{out} is not empty: resume it with --resume, or choose a new folder")
        (out / TALLIES).mkdir(parents=True, exist_ok=True)
        progress = Progress(plan)
        write_json(state, progress.to_json())
    plan = progress.plan
    game = get_game(plan.game)
    build = plan.load_build(game)
    flows = []
    if plan.estimator != "exact":
        flows.append(Flow("main", Stream(game, build, plan, plan.estimator, workers, backend, address),
                          lambda pieces, last: next_main_rounds(plan, pieces, last), progress.main,
                          progress.early["main"]))
    if plan.estimator != "plain":
        flows.append(Flow("sample", Stream(game, build, plan, "plain", workers, backend, address),
                          lambda pieces, _: sample_piece_rounds(plan, len(pieces)), progress.sample,
                          progress.early["sample"]))
    for flow in flows:  # what the run wrote before it stopped
        if flow.pieces:
            flow.merged = flow.stream.load(tally_path(out, flow.name))
            flow.last = flow.stream.point(flow.merged)
    if source is not None:
        taken = take_pieces(out, progress, flows[0], source, log)
        log(f"{taken} main pieces taken from {source.folder} ({source.label})")
    with ray_session(backend, address, workers):
        if backend == "ray":
            from ray.exceptions import RayError

            try:
                run_flows(out, progress, flows, RayPieces(plan, workers), log)
            except RayError as exc:
                raise CertifyError(f"the Ray cluster lost the run ({type(exc).__name__}: {exc}); the pieces "
                                   f"written are kept: continue with --out {out} --resume") from exc
        else:
            run_flows(out, progress, flows, LocalPieces(), log)
    if not progress.finished:
        progress.finished, progress.finished_at = True, utc_now()
    write_json(state, progress.to_json())
    return progress


def utc_now() -> str:
    """The time now, UTC, to the second (ISO 8601)."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


# -- figures from the tallies ---------------------------------------------------------------------------
def figures(out: Path) -> dict[str, Any]:
    """Every figure of the package, from its stored piece tallies and the build (what ``figures.json`` holds and
    ``--verify`` recomputes): :func:`reelforge.analysis.certify_figures.package_figures`."""
    from reelforge.analysis.certify_figures import package_figures

    return package_figures(out)


def same_sample(a: Sample, b: Sample) -> bool:
    if json.dumps(a.values, sort_keys=True) != json.dumps(b.values, sort_keys=True) or a.settings != b.settings:
        return False
    return set(a.arrays) == set(b.arrays) and all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)


def load_progress(out: Path) -> Progress:
    path = Path(out) / STATE
    if not path.exists():
        raise CertifyError(f"{out}: not a certification package (no {STATE})")
    try:
        from reelforge.analysis.manifest import MANIFEST

        progress = Progress.from_json(json.loads(path.read_text()))
        manifest = Path(out) / MANIFEST
        if progress.plan.build_version is None and manifest.exists():  # planned before plans named the version
            progress.plan.build_version = json.loads(manifest.read_text())["build"]["version"]
        return progress
    except (ValueError, KeyError, TypeError) as exc:
        raise CertifyError(f"{path}: unreadable: {exc}") from exc


__all__ = ["BACKENDS", "CertifyError", "DEFAULT_PRECISION_PP", "Plan", "Progress", "SampleError", "check_backend",
           "choose_plan", "figures", "load_progress", "piece_seed", "run"]
