"""Toy Line behind the game contract: the only module the rest of reelforge talks to."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.draws import DrawSource
from reelforge.game import Game, GameHelp, StepResult
from reelforge.stats import Accumulator, Tally, bucket_edges_units

from . import build as builds
from . import kernel, rules
from .build import SYMBOL_WORDS, Build


class ToyLine(Game):
    id = "toy-line"
    title = "Toy Line"
    reference_id = "toy-line"
    version = "1.0"
    max_win_x = 100
    feature_name = "Free Spins"
    build_files = builds.FILES

    COMPONENTS = ("paid_spin", "free_spins")

    def start_round(self, build: Build, mode: str = "paid") -> dict[str, Any]:
        self.check_mode(mode)
        return rules.new_state()

    def play_step(self, build: Build, state: dict[str, Any], draws: DrawSource,
                  action: str | None = None) -> StepResult:
        self.check_action(action)
        return rules.play_step(build, state, draws, self.max_win_x * build.coins)

    def help(self, build: Build) -> GameHelp:
        pays = {SYMBOL_WORDS[s]: str(Fraction(build.pays[s], build.coins)) for s in "ABC"}
        rules_text = (
            "3 reels, 3 rows, one payline on the middle row. Three of a kind on it pays the paytable "
            "(multiples of the total bet).",
            f"A Star on every reel awards {build.free_spins} free spins; their wins are multiplied by "
            f"{build.free_spins_multiplier}.",
            f"The maximum win of a round is {self.max_win_x}x the total bet; reaching it ends the round.",
        )
        return self.make_help(
            build, volatility="Medium", rules=rules_text, symbol_names=SYMBOL_WORDS, extra={"pays_x": pays},
            page={"paytable": {"title": "Paytable", "rows": [{"name": k, "pays_x": [v]} for k, v in pays.items()]},
                  "features": [{"title": "Free spins", "text": [rules_text[1]]}],
                  "sections": [{"title": "Maximum win", "text": [rules_text[2]]}]},
        )

    def win_unit(self, build: Build) -> int:
        return build.coins

    def new_accumulator(self, build: Build, mode: str = "paid") -> Accumulator:
        self.check_mode(mode)
        unit = self.win_unit(build)
        return Accumulator(unit=unit, cap_units=self.max_win_x * unit, stake_units=unit,
                           component_names=self.COMPONENTS, counter_names=("triggers",))

    def _play(self, build: Build, rounds: int, rng: np.random.Generator, wins: np.ndarray) -> Accumulator:
        acc = self.new_accumulator(build)
        tally = Tally.empty(len(self.COMPONENTS), len(acc.counter_names))
        kernel.play(rng, rounds, *kernel.tables(build),
                    build.free_spins, build.free_spins_multiplier, acc.cap_units, bucket_edges_units(acc.unit),
                    wins, tally.totals, tally.components, tally.hist, tally.counters)
        acc.add_tally(tally)
        return acc

    def simulate_chunk(self, build: Build, rounds: int, seed: int | np.random.SeedSequence,
                       mode: str = "paid") -> Accumulator:
        self.check_mode(mode)
        return self._play(build, rounds, np.random.Generator(np.random.PCG64(seed)), np.zeros(0, dtype=np.int64))

    def kernel_round_wins(self, build: Build, rounds: int, seed: int | np.random.SeedSequence,
                          mode: str = "paid") -> np.ndarray:
        self.check_mode(mode)
        wins = np.zeros(rounds, dtype=np.int64)
        self._play(build, rounds, np.random.Generator(np.random.PCG64(seed)), wins)
        return wins
