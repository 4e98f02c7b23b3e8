"""The generic tuner of data builds (:class:`DataTuning`): a game mixes it in before
:class:`reelforge.game.harness.KernelGame` and needs no design code of its own."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from reelforge.core.stats import Accumulator
from reelforge.core.tuning import rtp_target
from reelforge.game.buildfile import OLDER, with_values
from reelforge.game.buildschema import fraction_text
from reelforge.game.contract import UNPUBLISHED, Capabilities
from reelforge.game.results import TuneResult


class DataTuning:
    """The generic tuner, for a :class:`KernelGame` whose builds are :class:`reelforge.game.buildfile.PlainBuild`
    and declare ``tunable`` integers in their file: :meth:`tune` moves them one at a time
    (:func:`reelforge.core.tuning.coordinate_search`) until every target (``rtp``, ``hit``, ``feature``) is
    within its tolerance, measuring each candidate exactly where the game declares exact figures, else on the
    same simulated rounds (common random numbers) of a number sized from the build's SD and the tolerances;
    then writes the build with its version. A game mixes it in before :class:`KernelGame` (which makes it
    declare ``capabilities.tunable``); it needs no design code of its own."""

    capabilities: ClassVar[Capabilities] = Capabilities(tunable=True)
    tune_options: ClassVar[tuple[str, ...]] = ("tolerances", "max_rounds", "version")
    tune_seed: ClassVar[int] = 20261
    TARGETS: ClassVar[tuple[str, ...]] = ("rtp", "hit", "feature")
    tune_pilot_rounds: ClassVar[int] = 1_000_000
    """Rounds of the start build that measure the SDs the sample size follows from."""
    tune_max_rounds: ClassVar[int] = 20_000_000
    """The most simulated rounds per candidate (``--max-rounds``): a tolerance that needs more is refused."""

    def default_tolerance(self, name: str, value: Fraction, exact: bool) -> Fraction:
        """A target's tolerance unless given: RTP 0.01 pp exactly, 0.5 pp simulated; hit rate 0.1 pp; feature
        frequency 2% of itself."""
        if name == "rtp":
            return Fraction(1, 10_000) if exact else Fraction(1, 200)
        return Fraction(1, 1000) if name == "hit" else value / 50

    def tune(self, name: str, targets: dict[str, float], out: str | None = None, sample: str | None = None,
             tolerances: dict[str, float] | None = None, max_rounds: int | None = None,
             version: str | None = None) -> TuneResult:
        """Retune build ``name`` to ``targets`` (``rtp``, a fraction of the stake, default the name read as a
        percentage; ``hit``; ``feature``), each within ``tolerances`` (defaults: :meth:`default_tolerance`), and
        write it to ``out`` (default the shipped file, the old version kept under ``older/``) as ``version``
        (default: the current version if the contents are unchanged, else the next major one). Raises
        ValueError, writing nothing, for an unknown or impossible target, a tolerance a simulation of
        ``max_rounds`` cannot decide, or targets the tunables cannot reach (with the closest figures)."""
        from reelforge.core.stats import Z99
        from reelforge.core.tuning import Figure, Param, Target, newton_search, rounds_for

        unknown = sorted(set(targets) - set(self.TARGETS))
        if unknown:
            raise ValueError(f"unknown target(s) {unknown}; {self.id} tunes {', '.join(self.TARGETS)}")  # type: ignore[attr-defined]
        loose = sorted(set(tolerances or {}) - {"rtp", *targets})
        if loose:
            raise ValueError(f"a tolerance for {loose}, which is no target; {self.id} tunes {', '.join(self.TARGETS)}")  # type: ignore[attr-defined]
        if sample is not None:
            raise ValueError(f"{self.id} is tuned on a fresh simulation: --sample does not apply")  # type: ignore[attr-defined]
        game: Any = self
        build = game.load_build(name)
        start = build.tunables()
        if not start:
            raise ValueError(f"{game.id} build {name} declares no 'tunable' integers in its file")
        exact = game.capabilities.exact
        goals = {"rtp": rtp_target(targets, name), **{k: Fraction(str(v)) for k, v in targets.items() if k != "rtp"}}
        for key, value in goals.items():
            if not 0 < value < 1:
                raise ValueError(f"cannot reach {key}={float(value):g}: a {'fraction of the stake' if key == 'rtp' else 'share of rounds'} "
                                 "is between 0 and 1")
        goal = [Target(k, v, Fraction(str((tolerances or {}).get(k))) if k in (tolerances or {})
                       else self.default_tolerance(k, v, exact)) for k, v in goals.items()]
        for t in goal:
            if not 0 < t.tolerance < 1:
                raise ValueError(f"the tolerance of {t.name} must be between 0 and 1, got {float(t.tolerance):g}")
        asked_version = version
        version = version or self._tuned_version(build)
        files = game.build_files

        def make(values: dict[str, int]) -> Any:
            data = with_values(files.to_data(build), values)
            data["rtp"] = fraction_text(goals["rtp"])
            data["version"] = version
            return files.parse(data, name)

        rounds = 0
        # a game with a stratified estimator is measured by it (fewer rounds for the same interval)
        split = game.stratified_estimator() if not exact and game.capabilities.stratified else None
        if not exact:
            if split is None:
                sds = self._sds(game, game.simulate_chunk(build, self.tune_pilot_rounds, self.tune_seed))
            else:
                sds = self._estimate_sds(split.run(build, self.tune_pilot_rounds, self.tune_seed))
            need = {t.name: rounds_for(sds[t.name], float(t.tolerance)) for t in goal}
            rounds = max(need.values())
            limit = max_rounds or self.tune_max_rounds
            if rounds > limit:
                worst = max(need, key=lambda k: need[k])
                raise ValueError(f"{worst} to within {float(next(t.tolerance for t in goal if t.name == worst)):g} needs "
                                 f"{rounds:,} simulated rounds per candidate (SD {sds[worst]:.3g}), more than --max-rounds "
                                 f"{limit:,}: widen --tolerance {worst}=... or allow more rounds")

        def measure(values: dict[str, int]) -> dict[str, Figure]:
            b = make(values)
            if exact:
                return {k: Figure(float(v)) for k, v in self.exact_search_figures(b).items()}
            if split is not None:
                est = split.run(b, rounds, self.tune_seed)
                sds, figures = self._estimate_sds(est), {"rtp": est.rtp, "hit": est.hit_rate, "feature": est.feature_rate}
            else:
                acc = game.simulate_chunk(b, rounds, self.tune_seed)
                sds, figures = self._sds(game, acc), self._figures(game, acc)
            return {k: Figure(v, Z99 * sds[k] / math.sqrt(rounds)) for k, v in figures.items()}

        params = [Param(k, 0, max(4 * v, v + 16)) for k, v in start.items()]
        found = newton_search(params, start, measure, goal, exact=exact)
        method = "exact" if exact else f"simulation of {rounds:,} rounds per candidate (common random numbers, seed {self.tune_seed})"
        if split is not None:
            method = (f"the {split.kind} estimator, {rounds:,} paid rounds and {split.feature_rounds(rounds):,} "
                      f"features per candidate (common random numbers, seed {self.tune_seed})")
        got = ", ".join(f"{k} {f.value:.6g}" + ("" if exact else f" (99% {f.ci99[0]:.6g} to {f.ci99[1]:.6g})")
                        for k, f in found.measured.items() if k in goals)
        if not found.met:
            missed = [t.text() for t in goal if abs(found.measured[t.name].value - float(t.value)) > t.tolerance]
            bound = [f"{p.name} at its bound {found.values[p.name]}" for p in params
                     if found.values[p.name] in (p.low, p.high)]
            raise ValueError(f"cannot reach {', '.join(missed)} by moving {', '.join(start)}"
                             f"{' (' + ', '.join(bound) + ')' if bound else ''}: the closest found is {got} "
                             f"after {found.evaluations} candidates ({method}); nothing written")
        tuned = make(found.values)
        if exact:
            # the file states what the build pays, exactly, the cap included (the search may leave the cap out)
            data = files.to_data(tuned)
            data.update(rtp=fraction_text(game.exact(tuned).rtp), version=version)
            tuned = files.parse(data, name)
            rtp_goal = next(t for t in goal if t.name == "rtp")
            if abs(tuned.rtp - rtp_goal.value) > rtp_goal.tolerance:
                raise ValueError(f"cannot reach {rtp_goal.text()}: the tuned build's exact RTP, cap included, is "
                                 f"{float(tuned.rtp):.6g}; nothing written")
            found.measured["rtp"] = Figure(float(tuned.rtp))
        if asked_version is None and tuned.identity.content_hash == build.identity.content_hash:
            version = build.identity.version        # nothing changed: the same build, the same version
            tuned = files.parse({**files.to_data(tuned), "version": version}, name)
        path = Path(out) if out else files.folder / f"{name}.toml"
        if out is None:
            self._keep_older(build, tuned)
        files.write(tuned, path, f"{game.id} build {name} v{version}: tuned by `reelforge tune` to "
                                 f"{', '.join(t.text() for t in goal)}, {method}")
        return TuneResult(game=game.id, build=name, file=str(path), method=method,
                          figures={**{k: f.value for k, f in found.measured.items()},
                                   "rtp_error_pp": (found.measured["rtp"].value - float(goals["rtp"])) * 100,
                                   "rounds": rounds or None},
                          figures_ci99=None if exact else {k: list(f.ci99) for k, f in found.measured.items()},
                          log=tuple(found.moves),
                          note=f"every target met within its tolerance after {found.evaluations} candidates",
                          extra={"version": version, "evaluations": found.evaluations,
                                 "targets": {t.name: {"value": str(t.value), "tolerance": str(t.tolerance)} for t in goal}})

    def exact_search_figures(self, build: Any) -> dict[str, Fraction]:
        """The exact ``rtp``, ``hit`` and ``feature`` of a candidate build (enumerable games): from
        :meth:`Game.exact` unless the game has a quicker way to them (one without the win distribution)."""
        ex = self.exact(build)  # type: ignore[attr-defined]
        return {"rtp": ex.rtp, "hit": ex.hit_rate, "feature": ex.feature_rate}

    @staticmethod
    def _figures(game: Any, acc: Accumulator) -> dict[str, float]:
        n = acc.rounds
        return {"rtp": acc.rtp, "hit": acc.hits / n, "feature": acc.counter(game.feature_counter) / n}

    @classmethod
    def _sds(cls, game: Any, acc: Accumulator) -> dict[str, float]:
        """Per-round SDs of each figure: the round win's, and a share's sqrt(p (1 - p))."""
        f = cls._figures(game, acc)
        return {"rtp": acc.sd, **{k: math.sqrt(max(f[k] * (1 - f[k]), 1e-12)) for k in ("hit", "feature")}}

    @staticmethod
    def _estimate_sds(est: Any) -> dict[str, float]:
        """Per-paid-round SDs of a stratified estimate's figures (its features counted in its rounds): the RTP's
        from its interval, a share's sqrt(p (1 - p))."""
        from reelforge.core.stats import Z99

        rtp = (est.rtp_ci99[1] - est.rtp_ci99[0]) / 2 / Z99 * math.sqrt(est.rounds)
        return {"rtp": rtp, **{k: math.sqrt(max(f * (1 - f), 1e-12)) for k, f in (("hit", est.hit_rate),
                                                                                ("feature", est.feature_rate))}}

    def _tuned_version(self, build: Any) -> str:
        """The version a tuned build is written as: the next major after the build's latest (``1.0`` -> ``2.0``);
        an unpublished build's stays unpublished."""
        game: Any = self
        versions = game.build_versions(build.name)
        latest = versions[-1] if versions else build.identity.version
        if latest == UNPUBLISHED:
            return "1.0"
        return f"{int(latest.split('.')[0]) + 1}.0"

    def _keep_older(self, build: Any, tuned: Any) -> None:
        """Before the shipped file is overwritten with other contents, keep its version under ``older/`` (a
        published build never changes: rounds played with it replay with it)."""
        game: Any = self
        files = game.build_files
        old = build.identity
        if old.version == UNPUBLISHED or old.content_hash == tuned.identity.content_hash:
            return
        keep = files.folder / OLDER / build.name / f"{old.version}.toml"
        if not keep.exists():
            keep.parent.mkdir(parents=True, exist_ok=True)
            keep.write_text((files.folder / f"{build.name}.toml").read_text())
