"""The shared state of the conformance checks: sizes, the rounds played once, and failures that say where."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reelforge.core.draws import SeededDraws
from reelforge.game.contract import Build, Game, RoundResult

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
    ``depth_rounds`` paid rounds per build streamed through both engines (not kept).
    """

    game: Game
    rounds: int = ROUNDS
    seeds: tuple[int, ...] = SEEDS
    replay_rounds: int = REPLAY_ROUNDS
    kernel_rounds: int = KERNEL_ROUNDS
    exact_rounds: int = EXACT_ROUNDS
    depth_rounds: int = DEPTH_ROUNDS
    _builds: dict[str, Build] = field(default_factory=dict, init=False, repr=False)
    _played: dict[tuple[str, str, int], list[RoundResult]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if min(self.rounds, self.replay_rounds, self.exact_rounds, self.depth_rounds) < 1 or self.kernel_rounds < 4 or not self.seeds:
            raise ValueError("rounds, replay_rounds, exact_rounds and depth_rounds must be positive, kernel_rounds at least 4, seeds not empty")
        self.seeds = tuple(self.seeds)

    def build(self, name: str) -> Build:
        if name not in self._builds:
            self._builds[name] = self.game.load_build(name)
        return self._builds[name]

    def builds(self) -> list[Build]:
        return [self.build(n) for n in self.game.build_names()]

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
