"""The tuners' search: integer parameters of a build moved toward target figures.

The generic tuner (:class:`reelforge.game.tuning.DataTuning`, ``reelforge tune GAME --build B --target
rtp=0.96 --target hit=0.30``) uses :func:`newton_search`: several :class:`Target` figures at once, each with a
tolerance; Newton steps on a local model of the figures (on exact figures with second derivatives, and the best
integer points near the step ranked by :func:`lattice_moves`), then :func:`coordinate_search` (one parameter moved
at a time); stopping as soon as every figure is within its tolerance. Candidates are measured exactly (games with
exact figures) or on one simulated sample sized by :func:`rounds_for` from the build's SD and the tolerances, the
same rounds for every candidate (*common random numbers*: differences between candidates are not drowned by
noise), every figure with its 99% interval (:class:`Figure`).

Games with their own design tuner (``tuning_space`` in ``games/<game>/design.py``) build a
:class:`TuningSpace` and climb it with :func:`climb` or :func:`staged_climb`: the best single move while one
improves, else the best pair of moves (for their one- or two-parameter spaces), stopping when neither improves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

Values = dict[str, int]
Metrics = dict[str, float]


@dataclass(frozen=True)
class Param:
    """One free integer parameter of a build."""

    name: str
    low: int
    high: int


@dataclass
class TuningSpace:
    """What a game exposes to the tuner."""

    params: list[Param]
    start: Values
    make_build: Callable[[Values], Any]
    measure: Callable[[Any], Metrics]
    """Figures of a candidate build (exact, or simulated from one fixed seed)."""
    tolerances: dict[str, float]
    """Scale of each target figure: an error this size costs 1."""
    valid: Callable[[Values], bool] = lambda v: True
    bands: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Hard ranges (e.g. an SD band for a volatility level): leaving one costs a lot."""


def score(metrics: Metrics, targets: dict[str, float], space: TuningSpace) -> float:
    """Sum of squared scaled errors, plus a steep penalty outside any band."""
    total = 0.0
    for name, target in targets.items():
        value = metrics[name]
        if name.startswith("p_") and value > 0 and target > 0:
            err = math.log(value / target)  # probabilities of rare events: relative error
        else:
            err = value - target
        total += (err / space.tolerances.get(name, 1e-3)) ** 2
    for name, (lo, hi) in space.bands.items():
        v = metrics[name]
        if v < lo or v > hi:
            total += 1e6 * (1 + min(abs(v - lo), abs(v - hi))) ** 2
    return total


def _moves(values: Values, space: TuningSpace, step: int = 1) -> Iterator[Values]:
    for p in space.params:
        for d in (-step, step):
            v = values[p.name] + d
            if p.low <= v <= p.high:
                n = dict(values)
                n[p.name] = v
                if space.valid(n):
                    yield n


def climb(space: TuningSpace, targets: dict[str, float], start: Values | None = None,
          max_rounds: int = 2000, objective: Callable[[Metrics], float] | None = None,
          steps: Sequence[int] = (1,)) -> Values:
    """Integer hill-climb from ``start`` (default ``space.start``) toward ``targets``.

    ``steps``: move sizes, coarse to fine (a pattern search for wide parameters such as
    weights out of a million); the climb runs to a standstill at each size in turn."""
    cache: dict[tuple, float] = {}

    def cost(v: Values) -> float:
        key = tuple(sorted(v.items()))
        if key not in cache:
            m = space.measure(space.make_build(v))
            cache[key] = objective(m) if objective else score(m, targets, space)
        return cache[key]

    current = dict(start or space.start)
    best = cost(current)
    for step in steps:
        for _ in range(max_rounds):
            singles = list(_moves(current, space, step))
            if not singles:
                break
            costs = [cost(n) for n in singles]
            i = int(np.argmin(costs))
            if costs[i] < best:
                best, current = costs[i], singles[i]
                continue
            improved = False
            for j in np.argsort(costs, kind="stable"):  # ties in a fixed order on every machine
                for n2 in _moves(singles[j], space, step):
                    c2 = cost(n2)
                    if c2 < best:
                        best, current, improved = c2, n2, True
            if not improved:
                break
    return current


def pattern_steps(width: int) -> tuple[int, ...]:
    """Powers of two from about a quarter of ``width`` down to 1: coarse-to-fine move sizes."""
    top = max(1, width // 4).bit_length() - 1
    return tuple(1 << k for k in range(top, -1, -1))


def staged_climb(space: TuningSpace, targets: dict[str, float], key: str, scales: tuple[float, ...],
                 start: Values | None = None) -> Values:
    """Climb several times, tightening the tolerance of ``key`` (e.g. RTP) each stage."""
    values = dict(start or space.start)
    for s in scales:
        staged = TuningSpace(space.params, values, space.make_build, space.measure,
                             {**space.tolerances, key: s}, space.valid, space.bands)
        values = climb(staged, targets, values)
    return values


def rtp_target(targets: dict[str, Any], name: str) -> Fraction:
    """The RTP a tune aims at: ``targets["rtp"]``, else the build's name read as a percentage
    (``96.2`` -> 0.962); refused unless strictly between 0 and 1."""
    if "rtp" in targets:
        rtp = Fraction(str(targets["rtp"]))
    else:
        try:
            rtp = Fraction(name) / 100
        except ValueError:
            raise ValueError(f"give --target rtp=... (build name {name!r} is not a percentage)") from None
    if not 0 < rtp < 1:
        raise ValueError(f"rtp target must be between 0 and 1, got {float(rtp)}")
    return rtp


# -- the generic tuner's search: several targets, each to its tolerance -----------------------------

TARGET_WORDS = {"rtp": "RTP", "hit": "hit rate", "feature": "feature frequency"}
"""The figures the generic tuner aims at, in words: ``rtp`` (a fraction of the stake), ``hit`` (the share of
rounds that win) and ``feature`` (the share of rounds with the feature, e.g. ``1/180``)."""


@dataclass(frozen=True)
class Target:
    """One figure to reach: its ``value`` within ``tolerance`` (both fractions: ``rtp`` 0.96 within 0.0001)."""

    name: str
    value: Fraction
    tolerance: Fraction

    def text(self) -> str:
        return f"{self.name}={self.value} (within {float(self.tolerance):.6g})"


@dataclass(frozen=True)
class Figure:
    """A measured figure: its value and the half-width of its 99% interval (0 where it is exact)."""

    value: float
    half_width: float = 0.0

    @property
    def ci99(self) -> tuple[float, float]:
        return (self.value - self.half_width, self.value + self.half_width)


Measured = dict[str, Figure]


def rounds_for(sd: float, half_width: float) -> int:
    """Rounds whose 99% interval has the given ``half_width`` for a per-round SD of ``sd`` (the generic tuner
    sizes its sample so that a tuned figure's interval is its tolerance either side)."""
    from reelforge.core.stats import Z99

    return max(1, math.ceil((Z99 * sd / half_width) ** 2))


def met(measured: Measured, targets: Sequence[Target]) -> bool:
    """Every target's figure within its tolerance."""
    return all(abs(measured[t.name].value - float(t.value)) <= float(t.tolerance) for t in targets)


def miss(measured: Measured, targets: Sequence[Target]) -> float:
    """Sum of squared errors, each in units of its tolerance (what the search lowers)."""
    return sum(((measured[t.name].value - float(t.value)) / float(t.tolerance)) ** 2 for t in targets)


@dataclass
class SearchResult:
    """Where :func:`coordinate_search` stopped."""

    values: Values
    measured: Measured
    met: bool
    evaluations: int
    moves: list[str] = field(default_factory=list)


class Measurements:
    """A candidate's figures, measured once each (a search comes back to candidates it has seen); its length
    is the number of candidates measured."""

    def __init__(self, measure: Callable[[Values], Measured]) -> None:
        self.measure = measure
        self.seen: dict[tuple, Measured] = {}

    def __call__(self, values: Values) -> Measured:
        key = tuple(sorted(values.items()))
        if key not in self.seen:
            self.seen[key] = self.measure(values)
        return self.seen[key]

    def __len__(self) -> int:
        return len(self.seen)


STEP_FRACTIONS: tuple[float, ...] = (1 / 4, 1 / 16, 1 / 64, 1 / 256, 0)
"""The coordinate search's step sizes, coarse to fine, as fractions of each parameter's start value (at least 1;
the last level steps by 1): parameters of different sizes (a weight of 400 beside one of 2,000) move alike."""


def coordinate_search(params: Sequence[Param], start: Values, measure: Callable[[Values], Measured],
                      targets: Sequence[Target], fractions: Sequence[float] = STEP_FRACTIONS,
                      max_evaluations: int = 5000) -> SearchResult:
    """Lower :func:`miss` over the integer ``params`` from ``start`` one coordinate at a time: each parameter
    tries one step up and one down (two candidates per parameter a sweep: the move set grows linearly with
    the parameters), a step that helps is repeated while it helps; sweeps go on while one helps, at each level
    of ``fractions`` (a parameter's step is that fraction of its start value, at least 1). Stops as soon as every
    target is within its tolerance (:func:`met`). ``measure`` gives the figures of candidate values (exact, or
    simulated on common random numbers)."""
    look = Measurements(measure)

    current = dict(start)
    now = look(current)
    moves: list[str] = []
    for fraction in fractions:
        steps = {p.name: max(1, round(abs(start[p.name]) * fraction)) for p in params}
        improved = True
        while improved and not met(now, targets) and len(look) < max_evaluations:
            improved = False
            for p in params:
                for d in (steps[p.name], -steps[p.name]):
                    moved = False
                    while p.low <= current[p.name] + d <= p.high and len(look) < max_evaluations:
                        trial = {**current, p.name: current[p.name] + d}
                        got = look(trial)
                        if miss(got, targets) >= miss(now, targets):
                            break
                        moves.append(f"{p.name}: {current[p.name]} -> {trial[p.name]}")
                        current, now, moved, improved = trial, got, True, True
                        if met(now, targets):
                            return SearchResult(current, now, True, len(look), moves)
                    if moved:
                        break        # this parameter moved up: no need to try down
    return SearchResult(current, now, met(now, targets), len(look), moves)


LATTICE_CANDIDATES = 250_000
"""The most integer moves :func:`lattice_moves` ranks on the linear model at once (numpy, a fraction of a second);
a box of radius 1 around the continuous step holds 3 ** k of them, so up to 11 parameters."""


def lattice_moves(params: Sequence[Param], current: Values, jacobian: np.ndarray, residual: np.ndarray,
                  step: np.ndarray, hessian: np.ndarray | None = None,
                  limit: int = LATTICE_CANDIDATES) -> list[Values]:
    """Integer points near the continuous step ``current + step``, ranked on the local model (``jacobian``, the
    second derivatives ``hessian[target, i, j]`` where measured, and ``residual``, all in units of each target's
    tolerance): first those the model puts within half a tolerance of every
    target, nearest to ``current`` first (where the model is most trusted), then the rest by predicted miss. The box
    around the rounded step has the largest radius whose ``(2 r + 1) ** k`` points stay within ``limit``; empty
    where not even radius 1 fits. Integer parameters move in whole steps, so a continuous step alone lands between
    lattice points: this is how the search still meets a tight tolerance (Seven Lines' RTP to 0.01 pp, where one
    more symbol moves it by 0.15 pp)."""
    k = len(params)
    radius = 0
    while (2 * radius + 3) ** k <= limit:
        radius += 1
    if radius == 0:
        return []
    offsets = np.arange(-radius, radius + 1)
    box = np.stack(np.meshgrid(*[offsets] * k, indexing="ij"), axis=-1).reshape(-1, k)
    now = np.array([current[p.name] for p in params])
    points = np.rint(now + step).astype(np.int64) + box
    low, high = np.array([p.low for p in params]), np.array([p.high for p in params])
    points = np.unique(points[((points >= low) & (points <= high)).all(axis=1)], axis=0)
    points = points[(points != now).any(axis=1)]
    move = points - now
    predicted = residual[None, :] - move @ jacobian.T
    if hessian is not None:
        for t in range(hessian.shape[0]):
            predicted[:, t] -= ((move @ hessian[t]) * move).sum(axis=1) / 2
    inside = np.abs(predicted).max(axis=1) <= 0.5
    distance = np.abs(points - now).sum(axis=1)
    order = np.lexsort((distance, np.where(inside, 0.0, (predicted ** 2).sum(axis=1)), ~inside))
    return [{p.name: int(v) for p, v in zip(params, points[i])} for i in order]


def _second_order(params: Sequence[Param], current: Values, base: np.ndarray, look: Measurements,
                  values: Callable[[Measured], np.ndarray], scale: np.ndarray,
                  fraction: float) -> tuple[np.ndarray, np.ndarray]:
    """Each target's slopes ``[target, i]`` and second derivatives ``[target, i, j]`` at ``current`` (in units of
    its tolerance): every parameter stepped up and down, every pair stepped up together."""
    k = len(params)
    jacobian = np.zeros((len(base), k))
    hessian = np.zeros((len(base), k, k))
    steps: list[int] = []
    stepped: list[np.ndarray | None] = []
    for i, p in enumerate(params):
        h = max(1, round(abs(current[p.name]) * fraction))
        up, down = current[p.name] + h <= p.high, current[p.name] - h >= p.low
        f_up = values(look({**current, p.name: current[p.name] + h})) if up else None
        f_down = values(look({**current, p.name: current[p.name] - h})) if down else None
        if f_up is not None and f_down is not None:
            jacobian[:, i] = (f_up - f_down) / (2 * h) / scale
            hessian[:, i, i] = (f_up + f_down - 2 * base) / h ** 2 / scale
        elif f_up is not None or f_down is not None:
            jacobian[:, i] = ((f_up if up else f_down) - base) / (h if up else -h) / scale
        steps.append(h if up else -h)
        stepped.append(f_up if up else f_down)
    for i in range(k):
        for j in range(i + 1, k):
            one, other = stepped[i], stepped[j]
            if one is None or other is None:
                continue
            both = {**current, params[i].name: current[params[i].name] + steps[i],
                    params[j].name: current[params[j].name] + steps[j]}
            mixed = (values(look(both)) - one - other + base) / (steps[i] * steps[j]) / scale
            hessian[:, i, j] = hessian[:, j, i] = mixed
    return jacobian, hessian


def newton_search(params: Sequence[Param], start: Values, measure: Callable[[Values], Measured],
                  targets: Sequence[Target], iterations: int = 12, fraction: float = 1 / 16,
                  tries: int = 8, exact: bool = False) -> SearchResult:
    """Newton steps over the integer ``params``, stopping as soon as every target is within its tolerance.

    Simulated figures (on common random numbers): each iteration measures one step of every parameter (a
    ``fraction`` of its value, at least 1: large enough that a simulated difference is not noise), solves the linear
    model for the move that puts every target on its value (least squares, each error in units of its tolerance),
    rounds it and halves it while it does not help: k + 1 candidates an iteration for k parameters.

    ``exact`` figures (no noise, cheap): the model has second derivatives (every parameter stepped up and down,
    every pair up together: (k + 1)(k + 2) / 2 candidates), and the ``tries`` integer points it ranks best near the
    continuous move (:func:`lattice_moves`) are measured, moving to the best that helps: integer parameters whose
    one step moves a figure by many tolerances (Seven Lines' RTP by 0.15 pp per symbol, its tolerance 0.01 pp)
    still land on it. Both end with :func:`coordinate_search` polishing."""
    look = Measurements(measure)

    def clip(p: Param, v: float) -> int:
        return int(min(p.high, max(p.low, round(v))))

    def values(m: Measured) -> np.ndarray:
        return np.array([m[t.name].value for t in targets])

    current = dict(start)
    now = look(current)
    moves: list[str] = []
    scale = np.array([float(t.tolerance) for t in targets])

    def moved_to(trial: Values) -> str:
        return ", ".join(f"{p.name}: {current[p.name]} -> {trial[p.name]}" for p in params
                         if trial[p.name] != current[p.name])

    for _ in range(iterations):
        if met(now, targets):
            return SearchResult(current, now, True, len(look), moves)
        base = values(now)
        residual = (np.array([float(t.value) for t in targets]) - base) / scale
        if exact:
            jacobian, hessian = _second_order(params, current, base, look, values, scale, fraction)
            step = np.linalg.lstsq(jacobian, residual, rcond=None)[0]
            lattice = lattice_moves(params, current, jacobian, residual, step, hessian)
            if lattice:
                best, got_best = current, now
                for trial in lattice[:tries]:
                    got = look(trial)
                    if miss(got, targets) < miss(got_best, targets):
                        best, got_best = trial, got
                    if met(got, targets):
                        break
                if best == current:
                    break
                moves.append(moved_to(best))
                current, now = best, got_best
                continue
        else:
            columns = []
            for p in params:
                h = max(1, round(abs(current[p.name]) * fraction))
                h = h if current[p.name] + h <= p.high else -h
                columns.append((values(look({**current, p.name: current[p.name] + h})) - base) / h / scale)
            step = np.linalg.lstsq(np.stack(columns, axis=1), residual, rcond=None)[0]
        for _ in range(6):
            trial = {p.name: clip(p, current[p.name] + d) for p, d in zip(params, step)}
            got = look(trial)
            if trial != current and miss(got, targets) < miss(now, targets):
                moves.append(moved_to(trial))
                current, now = trial, got
                break
            step = step / 2
        else:
            break
    if met(now, targets):
        return SearchResult(current, now, True, len(look), moves)
    polished = coordinate_search(params, current, look, targets, fractions=(1 / 64, 1 / 256, 0))
    return SearchResult(polished.values, polished.measured, polished.met, len(look), moves + polished.moves)
