"""The kernel harness's game: :class:`KernelGame`, a :class:`~reelforge.game.contract.Game` whose step
machine is its reference rules and whose simulation is the harness loop (:mod:`reelforge.game.loop`)
over one round function; it gives ``simulate_chunk``, ``kernel_round_wins``, ``new_accumulator``, the
tally epilogue, the mode checks and the win-unit limits."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from reelforge.core.draws import DrawSource
from reelforge.core.stats import MAX_CAP_UNITS, Accumulator, Tally, bucket_edges_units
from reelforge.game.buildfile import kernel_tables
from reelforge.game.contract import Build, Game
from reelforge.game.feature_split import FeatureSplitGame, FeatureStart  # noqa: F401 - a kernel game's bases, here
from reelforge.game.help import GameHelp
from reelforge.game.loop import round_tables
from reelforge.game.results import StepResult
from reelforge.game.texts import ENGLISH, Words
from reelforge.game.volatility_proof import proven_volatility
from reelforge.mechanics.rng import pcg_state, store_pcg_state


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
    """What the round function counts (``counters``), the feature counter first."""
    rules: ClassVar[ModuleType]
    loop: ClassVar[Callable]
    unit: ClassVar[int | None] = None
    """Win units per total bet where every build has the same (:meth:`win_unit`'s default)."""
    scratch: ClassVar[tuple[str, ...]] = ()
    """Fields of the tables the round function writes (its window, its wins...): each simulation gets
    fresh copies, so the tables a build keeps stay read-only and runs in threads never share them.
    Empty: those the tables' :func:`~reelforge.game.loop.tables_type` declares (one declaration for the rules
    and the kernel)."""

    make_tables: ClassVar[Callable[[Any], Any]]
    """The build flattened for the round function (a NamedTuple of arrays and ints), declared as
    ``staticmethod(kernel.tables)``; made once per build."""
    pay_loop: ClassVar[Callable | None] = None
    """The per-pay kernel where the game has one (the PAR sheet's per-pay run): the same draws and round wins as
    :attr:`loop`, its parts the round's win split by pay (:attr:`pay_components`, adding up to the round's win) and
    its counters :attr:`pay_counters`, on :attr:`make_pay_tables`' tables."""
    pay_components: ClassVar[tuple[str, ...]] = ()
    pay_counters: ClassVar[tuple[str, ...]] = ()
    make_pay_tables: ClassVar[Callable[[Any], Any] | None] = None
    pay_scratch: ClassVar[tuple[str, ...]] = ()
    """:attr:`scratch` of the per-pay kernel's tables."""
    feature_start: ClassVar[FeatureStart | None] = None
    """Where the feature always starts in one state: how to play it apart (:mod:`reelforge.game.feature_split`);
    a game that declares it and inherits :class:`~reelforge.game.feature_split.FeatureSplitGame` has the feature
    split as its stratified estimator (and declares ``stratified=True`` in its capabilities)."""

    def counter_names(self, build: Build) -> tuple[str, ...]:
        return self.counters

    @property
    def feature_counter(self) -> str | None:  # type: ignore[override]
        """The first of :attr:`counters`: declared once, there (a game whose feature counter is not its first
        names it as a class attribute ``feature_counter``)."""
        return self.counters[0] if self.counters else None

    # -- the step machine, delegated to the reference rules ------------------------------
    def start_round(self, build: Build, mode: str = "paid") -> dict[str, Any]:
        self.stake_x(build, mode)
        return self.rules.new_state(build, mode)

    def play_step(self, build: Build, state: dict[str, Any], draws: DrawSource,
                  action: str | None = None) -> StepResult:
        self.check_action(action)
        # the cap once per build (builds are immutable): every step of every served round asks for it
        return self.rules.play_step(build, state, draws, kernel_tables(build, self.cap_units))

    def standard_help(self, build: Build, *, volatility: int | None = None, how_wins_pay: list[str], feature: list[str],
                      rows: list[dict[str, Any]], tiers: list[str], tier_label: str, symbol_names: dict[str, str],
                      extra: dict[str, Any] | None = None, words: Words = ENGLISH) -> GameHelp:
        """A help page of the usual shape: how wins pay, the feature (titled :attr:`feature_name`),
        the maximum win (written here), and the paytable ``rows`` (:func:`paytable_rows`) by ``tiers``; the
        texts already in ``words``' language, the headings and the maximum win put in it here. ``volatility``: the
        level on the project's 1-10 scale, or None for the level the build's recorded SD proves
        (:func:`~reelforge.game.volatility_proof.proven_volatility`: a simulated game's figure)."""
        _ = words
        if volatility is None:
            volatility = proven_volatility(self, build)
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
             keep: bool, by_pay: bool = False) -> tuple[Accumulator, np.ndarray]:
        """Rounds from ``seed`` (or a PCG64 Generator, advanced past the draws used): the tally and,
        with ``keep``, each round's win; ``by_pay``: on the per-pay kernel (:attr:`pay_loop`)."""
        acc = self.new_accumulator(build, mode)     # refuses an undeclared or unpriced mode first
        loop, make, scratch = type(self).loop, self.make_tables, self.scratch
        if by_pay:
            if self.pay_loop is None:
                raise ValueError(f"{self.id} has no per-pay kernel")
            acc = Accumulator(unit=acc.unit, cap_units=acc.cap_units, stake_units=acc.stake_units,
                              component_names=self.pay_components, counter_names=self.pay_counters)
            loop, make, scratch = type(self).pay_loop, self.make_pay_tables, self.pay_scratch
        tally = Tally.empty(len(acc.component_names), len(acc.counter_names))
        wins = np.zeros(rounds if keep else 0, dtype=np.int64)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.Generator(np.random.PCG64(seed))
        st = pcg_state(rng)
        t = round_tables(build, make, scratch)
        loop(st, t, rounds, self.modes.index(mode), acc.cap_units,
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

    def simulate_pays_chunk(self, build: Build, rounds: int, seed: int | np.random.SeedSequence,
                            mode: str = "paid") -> Accumulator:
        """:meth:`simulate_chunk` on the per-pay kernel: the same rounds, the components each pay's win."""
        return self._run(build, rounds, seed, mode, keep=False, by_pay=True)[0]

    def kernel_pay_round_wins(self, build: Build, rounds: int, seed: int | np.random.SeedSequence,
                              mode: str = "paid") -> np.ndarray:
        """:meth:`kernel_round_wins` of the per-pay kernel (its parity with the plain kernel)."""
        return self._run(build, rounds, seed, mode, keep=True, by_pay=True)[1]
