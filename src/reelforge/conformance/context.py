"""The shared state of the conformance checks: sizes, the rounds played once, and failures that say where."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.core.draws import SeededDraws
from reelforge.game.contract import Build, Game
from reelforge.game.results import ExactFigures, MaxWin, RoundResult

SIGMAS = 6
"""How far (in standard errors) a simulation may sit from an exact figure before a check fails:
wide enough that a correct game fails about once in 5e8 builds, on fixed seeds."""

ROUNDS = 1000
"""Reference rounds per build, mode and seed (Gemstones Gold's bought features, the slowest, take
about 2 ms each here)."""
SEEDS = (14, 2026)
REPLAY_ROUNDS = 100
KERNEL_ROUNDS = 20_000
DEPTH_ROUNDS = 20_000
"""Paid rounds per build streamed through both engines by the in-depth kernel check (other modes,
whose rounds are whole features, a tenth of it); the test suite runs the shipped games at 100,000."""
DEPTH_SEED = 4000
EXACT_ROUNDS = 1_000_000
"""Rounds of the kernel simulation that declared exact figures must agree with (a kernel runs them in
under a second)."""
RTP_TOLERANCE_EXACT = Fraction(1, 10_000)
"""How far a build's declared RTP may be from its exact RTP: 0.01 percentage points (issue 34)."""
RTP_TOLERANCE_SIMULATED = Fraction(5, 10_000)
"""How far a build's declared RTP may be from a simulated one, decided at 99%: 0.05 percentage points."""
RTP_PILOT_ROUNDS = 1_000_000
"""Paid rounds that measure a build's SD, from which the RTP check sizes its simulation."""
RTP_ROUNDS = 10_000_000
"""The most paid rounds the RTP check simulates per build (a kernel plays them in about a second or two); a
build whose SD needs more to decide is reported undecided, with the figure reached and the rounds a decision
needs (`bench/check_games.py --rtp-rounds N` runs more)."""

UNDECLARED_ACTION = "no-such-action"
UNKNOWN_MODE = "no-such-mode"


class ConformanceError(AssertionError):
    """A game breaks the contract; the message says where (game, build, mode, round) and what."""


@dataclass
class Context:
    """A game and the sizes of its checks, with the rounds already played (shared by the checks).

    ``rounds`` reference rounds are played per build, mode and seed and compared with the
    kernel; the first ``replay_rounds`` of the first seed are replayed; ``kernel_rounds`` rounds
    are tallied by the kernel for the simulation checks (in four chunks when compared across
    worker counts), ``exact_rounds`` simulated to hold declared exact figures against, and
    ``depth_rounds`` paid rounds per build streamed through both engines (not kept); the declared RTP is
    held within ``rtp_tolerance`` (default :data:`RTP_TOLERANCE_EXACT` or :data:`RTP_TOLERANCE_SIMULATED`) of
    the exact figure, or of a simulation of at most ``rtp_rounds`` rounds.
    """

    game: Game
    rounds: int = ROUNDS
    seeds: tuple[int, ...] = SEEDS
    replay_rounds: int = REPLAY_ROUNDS
    kernel_rounds: int = KERNEL_ROUNDS
    exact_rounds: int = EXACT_ROUNDS
    depth_rounds: int = DEPTH_ROUNDS
    rtp_rounds: int = RTP_ROUNDS
    rtp_tolerance: Fraction | None = None
    _builds: dict[str, Build] = field(default_factory=dict, init=False, repr=False)
    _exact: dict[str, ExactFigures | None] = field(default_factory=dict, init=False, repr=False)
    _max_win: dict[str, MaxWin] = field(default_factory=dict, init=False, repr=False)
    _played: dict[tuple[str, str, int], list[RoundResult]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if min(self.rounds, self.replay_rounds, self.exact_rounds, self.depth_rounds, self.rtp_rounds) < 1 \
                or self.kernel_rounds < 4 or not self.seeds:
            raise ValueError("rounds, replay_rounds, exact_rounds, depth_rounds and rtp_rounds must be positive, "
                             "kernel_rounds at least 4, seeds not empty")
        if self.rtp_tolerance is not None and not 0 < self.rtp_tolerance < 1:
            raise ValueError(f"rtp_tolerance is a fraction of the stake between 0 and 1, got {self.rtp_tolerance}")
        self.seeds = tuple(self.seeds)

    def build(self, name: str) -> Build:
        if name not in self._builds:
            self._builds[name] = self.game.load_build(name)
        return self._builds[name]

    def builds(self) -> list[Build]:
        return [self.build(n) for n in self.game.build_names()]

    def exact(self, build: Build) -> ExactFigures | None:
        """The build's exact figures where the game declares them (worked out once), else None."""
        if build.name not in self._exact:
            self._exact[build.name] = self.game.exact(build) if self.game.capabilities.exact else None
        return self._exact[build.name]

    def max_win(self, build: Build) -> MaxWin:
        """The build's largest reachable win (:meth:`Game.max_win`, from the exact figures where declared), once."""
        if build.name not in self._max_win:
            self._max_win[build.name] = self.game.max_win(build, self.exact(build))
        return self._max_win[build.name]

    def modes(self, build: Build) -> list[str]:
        """The game's modes this build offers (``buy`` only where the build sets a price)."""
        return [m for m in self.game.modes if m != "buy" or build.feature_buy_price_x is not None]

    def reference(self, build: Build, mode: str, seed: int) -> list[RoundResult]:
        """``rounds`` rounds of ``play_round`` on one seeded stream, one after the other."""
        key = (build.name, mode, seed)
        if key not in self._played:
            draws = SeededDraws(seed)
            played = []
            for i in range(self.rounds):
                try:
                    played.append(self.game.play_round(build, draws, mode))
                except Exception as exc:
                    raise self.fail(f"play_round raised {exc!r}", build, mode, seed, i) from exc
            self._played[key] = played
        return self._played[key]

    def fail(self, what: str, build: Build | None = None, mode: str | None = None, seed: int | None = None,
             round_index: int | None = None) -> ConformanceError:
        """A ConformanceError saying where: game, build, mode, seed, round (counted from 1)."""
        where = [self.game.id]
        if build is not None:
            where.append(f"build {build.name}")
        if mode is not None:
            where.append(f"mode {mode}")
        if seed is not None:
            where.append(f"seed {seed}")
        if round_index is not None:
            where.append(f"round {round_index + 1}")
        return ConformanceError(f"{', '.join(where)}: {what}")


def context_of(game: Game | Context) -> Context:
    """The context a check runs in: the one given, or a fresh one with the default sizes."""
    return game if isinstance(game, Context) else Context(game)


def is_integer(value: Any) -> bool:
    """An int (or numpy integer), never a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)
