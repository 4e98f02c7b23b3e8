"""The kernel harness: what every kernel-backed game shares, so a game writes its rules once for
people (``rules.py``) and once for numba (one round function), and nothing else.

A game declares its round components (the parts of a round win the summary splits the RTP into)
and counters, and writes one numba round function over one tables object::

    @round_function                    # njit(cache=True) without reference counting: see there
    def play_round(st, t, mode, cap, parts, counters):
        # st: the PCG64 state (draw with reelforge.mechanics.rng.draw_pcg(st, n), the one RNG
        #     style of kernels); t: the game's tables (a NamedTuple of arrays and ints);
        # mode: the index of the round's mode in Game.modes; cap: the round cap in win units;
        # parts: one int64 slot per component, zeroed before the round, to fill with its win
        # units (capped at cap);
        # counters: the game's counters, to add to
        ...

    LOOP = kernel_loop(play_round)     # in the game's kernel module

The loop inlines the round function and hands it its tables, state and buffers uncounted
(:func:`borrowed`), so a round costs what its own code costs. To keep it so, a round function calls
only functions compiled with ``inline="always"`` (``draw_pcg`` and ``window_from_stops`` are): one
ordinary call, even on a rare path such as a feature, slows every round (measured on Forge of
Fortunes' round: 52 -> 31 M rounds/s). The round function is also compiled on its own, so a test or
a tool can call it.

:class:`KernelGame` then gives ``simulate_chunk``, ``kernel_round_wins``, ``new_accumulator``, the
tally epilogue, the mode checks (an undeclared mode, or ``buy`` without a price, is refused before any
draw) and the win-unit limits (a clear error, never an overflow).
"""

from __future__ import annotations

import math
import sys
import types
from collections import namedtuple
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
from numba import njit
from numba import types as nb_types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from reelforge.core.draws import DrawSource
from reelforge.core.stats import MAX_CAP_UNITS, Accumulator, Tally, bucket_edges_units
from reelforge.core.tuning import rtp_target
from reelforge.game.buildfile import OLDER, fraction_text, kernel_tables, with_values
from reelforge.game.contract import UNPUBLISHED, Build, Capabilities, Game, GameHelp, StepResult, TuneResult
from reelforge.game.texts import ENGLISH, Words
from reelforge.mechanics.rng import pcg_state, store_pcg_state
from reelforge.mechanics.tally import close_tally, tally_win


class WinOverCap(RuntimeError):
    """A round function filled more win units than the cap, or fewer than none (a bug in the game's
    kernel)."""


def _strip_references(context: Any, builder: Any, ty: Any, value: Any) -> Any:
    """``value`` of numba type ``ty`` with the reference count of every array in it taken away (a
    null meminfo): numba then counts no references to it (NRT_incref/decref of null do nothing)."""
    if isinstance(ty, nb_types.Array):
        ary = make_array(ty)(context, builder, value=value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()
    if isinstance(ty, nb_types.BaseTuple):
        for i, member in enumerate(ty.types):
            value = builder.insert_value(value, _strip_references(context, builder, member,
                                                                  builder.extract_value(value, i)), i)
    return value


@intrinsic
def borrowed(typingctx: Any, value: Any) -> Any:
    """``value`` (an array, or a tuple of arrays and numbers such as a game's tables) as a borrowed
    view: the same data, uncounted. Only for use while the owner lives (inside the call that holds it).

    Why: numba counts a reference to every array a function receives (an atomic increment and
    decrement each), and cannot always take the counts away again (not where the round has loops).
    A round function binding tables of ten arrays then costs more than a simple round; borrowed once
    per chunk, the counts vanish (measured on Forge of Fortunes: 7 -> 45 M rounds/s)."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return _strip_references(context, builder, signature.args[0], args[0])

    return value(value), codegen


def _loop(st, t, n, mode, cap, edges, wins, totals, components, hist, counters):  # pragma: no cover - numba
    """Play ``n`` rounds of ``mode`` with the game's ``_play_round``; tally the winning ones and, where
    ``wins`` has ``n`` slots, write each round's win (one loop, so tallies and rounds cannot drift)."""
    nc = components.shape[0] // 2
    owned_parts = np.zeros(nc, dtype=np.int64)
    # what the round receives, borrowed once for the chunk (see borrowed)
    parts = borrowed(owned_parts)
    rt = borrowed(t)
    rst = borrowed(st)
    rcounters = borrowed(counters)
    keep = wins.shape[0] > 0
    hits_before = totals[1]
    for i in range(n):
        # parts are zero here: np.zeros, or cleared after the last winning round (wins are never
        # negative, so a round that wrote a part won)
        _play_round(rst, rt, mode, cap, parts, rcounters)  # noqa: F821 - bound per game by kernel_loop
        win = 0
        for c in range(nc):
            win += parts[c]
        if win != 0:
            if win < 0 or win > cap:
                raise WinOverCap("a round won less than nothing or more than the cap: the game's round "
                                 "function must cap it")
            for c in range(nc):
                components[c] += parts[c]
                components[nc + c] += parts[c] * parts[c]
                parts[c] = 0
            tally_win(totals, hist, edges, cap, win)
        if keep:
            wins[i] = win
    close_tally(totals, hist, n, hits_before)


round_function = njit(cache=True, _nrt=False)
"""The decorator of a game's round function: ``njit(cache=True)`` compiled without numba's runtime
(NRT). A function under NRT counts a reference to every array it is passed or takes from its
tables, an atomic increment and decrement per array per call, which cost more than a whole round
(Seven Lines: 319 ns a round with them, 124 without). Without NRT the round function must allocate
nothing (no ``np.zeros``, no row copies): it writes the scratch arrays of its tables
(:attr:`KernelGame.scratch`); numba refuses to compile one that allocates ("No implementation of function
Function(<built-in function zeros>) found for signature", CONTRIBUTING.md says more)."""


def kernel_loop(play_round: Callable) -> Callable:
    """The harness loop compiled around a game's numba round function ``play_round``.

    The loop's code is bound to the game's module (its globals hold ``play_round``, its cache
    lives beside the game's kernel file and is renewed when that file changes), so every game has
    its own compiled, cached loop without writing one (numba cannot cache a loop that takes the
    round function as an argument or a closure)."""
    module = sys.modules[play_round.py_func.__module__]
    # The round is inlined into the loop (numba IR inlining): a call per round costs a simple round
    # again (measured on Forge of Fortunes, with borrowed tables: 16 -> 45 M rounds/s).
    inlined = njit(inline="always")(play_round.py_func)
    glob = {"np": np, "tally_win": tally_win, "close_tally": close_tally, "WinOverCap": WinOverCap,
            "borrowed": borrowed, "_play_round": inlined, "__name__": module.__name__}
    code = _loop.__code__.replace(co_filename=module.__file__)
    fn = types.FunctionType(code, glob, "harness_loop")
    # named after the round, so two loops in one module never share a cache entry
    fn.__qualname__ = f"harness_loop_{play_round.__name__}"
    fn.__module__ = module.__name__
    fn.__doc__ = _loop.__doc__
    return njit(cache=True)(fn)


def tables_type(name: str, fields: str, scratch: str) -> type:
    """A NamedTuple of a build's kernel tables, ``fields`` then the ``scratch`` a round writes (its
    window, its wins...), the scratch declared here once: :func:`round_tables` (so the reference rules)
    and :class:`KernelGame` (so the kernel) read it from the type as ``SCRATCH``."""
    # the class belongs to the caller's module (bound there as ``name``), so numba's cache finds it again in a
    # new process: a class it cannot import back compiles every kernel afresh each time (25 s for Canyon Ways)
    cls = namedtuple(name, f"{fields} {scratch}", module=sys._getframe(1).f_globals["__name__"])
    cls.SCRATCH = tuple(scratch.split())
    return cls


def round_tables(build: Build, make: Callable[[Any], Any], scratch: tuple[str, ...] = ()) -> Any:
    """The build's tables (``make(build)``, a NamedTuple made once per build) with fresh zeroed
    copies of its ``scratch`` fields (what a round writes: window, wins...; by default those its
    :func:`tables_type` declares): the tables a build keeps stay read-only, so neither a simulation
    nor a reference step in another thread shares them."""
    tables = kernel_tables(build, make)
    scratch = scratch or getattr(tables, "SCRATCH", ())
    return tables._replace(**{f: np.zeros_like(getattr(tables, f)) for f in scratch})


def step_in_units(kind: str, events: list[dict[str, Any]], added: int, total: int, unit: int, next_step: str | None,
                  state: dict[str, Any]) -> StepResult:
    """A reference step whose win ``added`` and round ``total`` are in win units (``unit`` per total
    bet); the round is finished when no ``next_step`` is left."""
    return StepResult(kind, events, Fraction(added, unit), Fraction(total, unit), next_step is None, next_step, state)


def paytable_rows(pays: dict[str, list[int]], unit: int, art: int = 1) -> list[dict[str, Any]]:
    """Paytable rows ``{"art", "name", "pays_x"}`` from pays in win units (``unit`` per total bet) by
    symbol name, the symbol drawn ``art`` times."""
    return [{"art": [name] * art, "name": name, "pays_x": [str(Fraction(p, unit)) for p in row]}
            for name, row in pays.items()]


class KernelGame(Game):
    """A :class:`~reelforge.game.contract.Game` whose simulation is a harness loop over one round function.

    A subclass declares :attr:`components`, :attr:`counters` (the first is the feature counter,
    :attr:`feature_counter`), :attr:`rules` (its reference module: ``new_state(build, mode)`` and
    ``play_step(build, state, draws, cap_units)``), :attr:`loop` (:func:`kernel_loop` of its round
    function, or, where a round is only a few draws, a numba loop of the same signature written out)
    and :attr:`make_tables`, and implements :meth:`win_unit` (and :meth:`cap_x` where the cap is
    build data)."""

    components: ClassVar[tuple[str, ...]]
    """The parts of a round win, in the order of the round function's ``parts``."""
    counters: ClassVar[tuple[str, ...]] = ("triggers",)
    """What the round function counts (``counters``), the feature counter among them."""
    rules: ClassVar[ModuleType]
    loop: ClassVar[Callable]
    unit: ClassVar[int | None] = None
    """Win units per total bet where every build has the same (:meth:`win_unit`'s default)."""
    scratch: ClassVar[tuple[str, ...]] = ()
    """Fields of the tables the round function writes (its window, its wins...): each simulation gets
    fresh copies, so the tables a build keeps stay read-only and runs in threads never share them.
    Empty: those the tables' :func:`tables_type` declares (one declaration for the rules and the kernel)."""

    make_tables: ClassVar[Callable[[Any], Any]]
    """The build flattened for the round function (a NamedTuple of arrays and ints), declared as
    ``staticmethod(kernel.tables)``; made once per build."""

    def counter_names(self, build: Build) -> tuple[str, ...]:
        return self.counters

    # -- the step machine, delegated to the reference rules ------------------------------
    def start_round(self, build: Build, mode: str = "paid") -> dict[str, Any]:
        self.stake_x(build, mode)
        return self.rules.new_state(build, mode)

    def play_step(self, build: Build, state: dict[str, Any], draws: DrawSource,
                  action: str | None = None) -> StepResult:
        self.check_action(action)
        return self.rules.play_step(build, state, draws, self.cap_units(build))

    def standard_help(self, build: Build, *, volatility: int, how_wins_pay: list[str], feature: list[str],
                      rows: list[dict[str, Any]], tiers: list[str], tier_label: str, symbol_names: dict[str, str],
                      extra: dict[str, Any] | None = None, words: Words = ENGLISH) -> GameHelp:
        """A help page of the usual shape: how wins pay, the feature (titled :attr:`feature_name`),
        the maximum win (written here), and the paytable ``rows`` (:func:`paytable_rows`) by ``tiers``; the
        texts already in ``words``' language, the headings and the maximum win put in it here."""
        _ = words
        cap = [self.published_max_win(build).player_words(words)]
        page = {"paytable": {"title": _("Paytable"), "tiers": tiers, "tier_label": tier_label,
                             "note": _("Pays are multiples of the total bet."), "rows": rows},
                "features": [{"title": _(self.feature_name), "text": feature}],
                "sections": [{"title": _("How wins pay"), "text": how_wins_pay}, {"title": _("Maximum win"), "text": cap}]}
        return self.make_help(build, volatility=volatility, rules=[*how_wins_pay, *feature, *cap], page=page,
                              symbol_names=symbol_names, extra=extra, words=words)

    # -- mathematics -------------------------------------------------------------------
    def win_unit(self, build: Build) -> int:
        """:attr:`unit` (a game whose unit depends on the build overrides this)."""
        if self.unit is None:
            raise NotImplementedError(f"{self.id} declares no unit and does not implement win_unit()")
        return self.unit

    def cap_units(self, build: Build) -> int:
        """The round cap in win units, refused with the game and the figure where the kernels'
        exact power sums cannot hold it."""
        cap = self.cap_x(build) * self.win_unit(build)
        if cap >= MAX_CAP_UNITS:
            raise ValueError(f"{self.id} build {build.name}: a cap of {self.cap_x(build)}x at {self.win_unit(build)} win "
                             f"units per bet is {cap} units, beyond the kernels' limit of {MAX_CAP_UNITS - 1}")
        return cap

    def stake_units(self, build: Build, mode: str) -> int:
        stake = self.stake_x(build, mode) * self.win_unit(build)
        if Fraction(stake).denominator != 1:
            raise ValueError(f"{self.id} build {build.name}: the {mode} stake {self.stake_x(build, mode)}x is not a "
                             f"whole number of win units ({self.win_unit(build)} per bet)")
        return int(stake)

    def new_accumulator(self, build: Build, mode: str = "paid") -> Accumulator:
        unit = self.win_unit(build)
        return Accumulator(unit=unit, cap_units=self.cap_units(build), stake_units=self.stake_units(build, mode),
                           component_names=self.components, counter_names=self.counter_names(build))

    def _run(self, build: Build, rounds: int, seed: int | np.random.SeedSequence | np.random.Generator, mode: str,
             keep: bool) -> tuple[Accumulator, np.ndarray]:
        """Rounds from ``seed`` (or a PCG64 Generator, advanced past the draws used): the tally and,
        with ``keep``, each round's win."""
        acc = self.new_accumulator(build, mode)     # refuses an undeclared or unpriced mode first
        tally = Tally.empty(len(self.components), len(acc.counter_names))
        wins = np.zeros(rounds if keep else 0, dtype=np.int64)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.Generator(np.random.PCG64(seed))
        st = pcg_state(rng)
        t = round_tables(build, self.make_tables, self.scratch)
        type(self).loop(st, t, rounds, self.modes.index(mode), acc.cap_units,
                  bucket_edges_units(acc.unit), wins, tally.totals, tally.components, tally.hist, tally.counters)
        store_pcg_state(rng, st)
        acc.add_tally(tally)
        return acc, wins

    def simulate_chunk(self, build: Build, rounds: int, seed: int | np.random.SeedSequence,
                       mode: str = "paid") -> Accumulator:
        return self._run(build, rounds, seed, mode, keep=False)[0]

    def kernel_round_wins(self, build: Build, rounds: int, seed: int | np.random.SeedSequence,
                          mode: str = "paid") -> np.ndarray:
        return self._run(build, rounds, seed, mode, keep=True)[1]


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
        if not exact:
            pilot = game.simulate_chunk(build, self.tune_pilot_rounds, self.tune_seed)
            sds = self._sds(game, pilot)
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
            acc = game.simulate_chunk(b, rounds, self.tune_seed)
            sds = self._sds(game, acc)
            return {k: Figure(v, Z99 * sds[k] / math.sqrt(rounds)) for k, v in self._figures(game, acc).items()}

        params = [Param(k, 0, max(4 * v, v + 16)) for k, v in start.items()]
        found = newton_search(params, start, measure, goal, exact=exact)
        method = "exact" if exact else f"simulation of {rounds:,} rounds per candidate (common random numbers, seed {self.tune_seed})"
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
