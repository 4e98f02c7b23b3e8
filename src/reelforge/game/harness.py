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

import sys
import types
from collections.abc import Callable
from fractions import Fraction
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
from reelforge.game.buildfile import kernel_tables
from reelforge.game.contract import Build, Capabilities, Game, GameHelp, StepResult, TuneResult
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
(:attr:`KernelGame.scratch`); numba refuses to compile one that allocates ("NRT required")."""


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


def round_tables(build: Build, make: Callable[[Any], Any], scratch: tuple[str, ...]) -> Any:
    """The build's tables (``make(build)``, a NamedTuple made once per build) with fresh zeroed
    copies of its ``scratch`` fields (what a round writes: window, wins...): the tables a build keeps
    stay read-only, so neither a simulation nor a reference step in another thread shares them."""
    tables = kernel_tables(build, make)
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
    fresh copies, so the tables a build keeps stay read-only and runs in threads never share them."""

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

    def standard_help(self, build: Build, *, volatility: str, how_wins_pay: list[str], feature: list[str],
                      rows: list[dict[str, Any]], tiers: list[str], tier_label: str, symbol_names: dict[str, str],
                      extra: dict[str, Any] | None = None) -> GameHelp:
        """A help page of the usual shape: how wins pay, the feature (titled :attr:`feature_name`),
        the maximum win (written here), and the paytable ``rows`` (:func:`paytable_rows`) by ``tiers``."""
        cap = [f"The maximum win of a round is {self.max_win_x:,}x the total bet; reaching it ends the round."]
        page = {"paytable": {"title": "Paytable", "tiers": tiers, "tier_label": tier_label,
                             "note": "Pays are multiples of the total bet.", "rows": rows},
                "features": [{"title": self.feature_name, "text": feature}],
                "sections": [{"title": "How wins pay", "text": how_wins_pay}, {"title": "Maximum win", "text": cap}]}
        return self.make_help(build, volatility=volatility, rules=[*how_wins_pay, *feature, *cap], page=page,
                              symbol_names=symbol_names, extra=extra)

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
    and declare ``tunable`` integers in their file: :meth:`tune` climbs them (:func:`reelforge.core.tuning.climb`)
    to the RTP target, measuring every candidate on the same simulated rounds (common random numbers),
    and writes the build. A game mixes it in before :class:`KernelGame` (which makes it declare
    ``capabilities.tunable``); it needs no design code of its own."""

    capabilities: ClassVar[Capabilities] = Capabilities(tunable=True)

    tune_rounds: ClassVar[tuple[int, ...]] = (1_000_000, 4_000_000)
    """Rounds each candidate is measured on (one kernel chunk, seed :attr:`tune_seed`), per stage: the
    first stage climbs in coarse-to-fine steps (:func:`reelforge.core.tuning.climb`), each later one refines
    by the best single step while one improves, on a larger sample (its noise, not the first's, is what
    the tuned RTP is off by)."""
    tune_seed: ClassVar[int] = 20261
    TARGETS: ClassVar[tuple[str, ...]] = ("rtp",)

    def tune(self, name: str, targets: dict[str, float], out: str | None = None,
             sample: str | None = None) -> TuneResult:
        """Retune build ``name`` to ``targets`` (``rtp``, a fraction of the stake; default the name read as
        a percentage) and write it to ``out`` (default the shipped file)."""
        from pathlib import Path

        from reelforge.core.tuning import Param, TuningSpace, climb, pattern_steps
        from reelforge.game.buildfile import fraction_text, with_values

        unknown = sorted(set(targets) - set(self.TARGETS))
        if unknown:
            raise ValueError(f"unknown target(s) {unknown}; {self.id} tunes {', '.join(self.TARGETS)}")
        if sample is not None:
            raise ValueError(f"{self.id} is tuned on a fresh simulation: --sample does not apply")
        game: Any = self
        build = game.load_build(name)
        start = build.tunables()
        if not start:
            raise ValueError(f"{self.id} build {name} declares no 'tunable' integers in its file")
        rtp = rtp_target(targets, name)
        files = game.build_files

        def make(values: dict[str, int]) -> Any:
            data = with_values(files.to_data(build), values)
            data["rtp"] = fraction_text(rtp)
            return files.parse(data, name)

        params = [Param(k, 0, max(4 * v, v + 16)) for k, v in start.items()]
        values = dict(start)
        for stage, rounds in enumerate(self.tune_rounds):
            def measure(b: Any, rounds: int = rounds) -> dict[str, float]:
                return {"rtp": game.simulate_chunk(b, rounds, self.tune_seed).rtp}

            if stage == 0:
                space = TuningSpace(params, values, make, measure, {"rtp": 2e-4})
                values = climb(space, {"rtp": float(rtp)}, steps=pattern_steps(max(start.values()) + 4))
                continue
            error = abs(measure(make(values))["rtp"] - float(rtp))
            while True:
                moves = [{**values, p.name: values[p.name] + d} for p in params for d in (-1, 1)
                         if p.low <= values[p.name] + d <= p.high]
                errors = [abs(measure(make(v))["rtp"] - float(rtp)) for v in moves]
                if not moves or min(errors) >= error:
                    break
                error = min(errors)
                values = moves[errors.index(error)]
        tuned = make(values)
        path = Path(out) if out else files.folder / f"{name}.toml"
        files.write(tuned, path, f"{self.id} build {name}: tuned by `reelforge tune` (generic tuner, "
                                 f"{' then '.join(f'{r:,}' for r in self.tune_rounds)} rounds per candidate, "
                                 f"seed {self.tune_seed})")
        acc = game.simulate_chunk(tuned, self.tune_rounds[-1], self.tune_seed)
        return TuneResult(game=self.id, build=name, file=str(path), method="simulation (common random numbers)",
                          figures={"rtp": acc.rtp, "rtp_error_pp": (acc.rtp - float(rtp)) * 100,
                                   "hit_rate": acc.hit_rate, "sd": acc.sd, "rounds": acc.rounds},
                          figures_ci99={"rtp": list(acc.rtp_ci99())},
                          log=tuple(f"{k}: {start[k]} -> {values[k]}" for k in start if start[k] != values[k]))
