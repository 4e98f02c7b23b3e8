"""Rounds the tests can reach without luck.

The server's live draws come from the test's switchable source; pointing it
at ``SeededDraws(seed)`` before a round makes the server play exactly the
round ``game.play_round(build, SeededDraws(seed), mode)`` plays. So a test
searches seeds 0, 1, 2... (deterministically) for a round with the wanted
shape, predicts it with the rules engine, plays it through HTTP and compares.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from reelforge.core.draws import SeededDraws
from reelforge.game.results import RoundResult
from reelforge.games.registry import get_game
from reelforge.server.config import load_config

SCAN_LIMIT = 4000
"""Most seeds scanned per game."""
QUIET_AFTER = 600
"""Stop scanning once this many seeds in a row showed no new step kind."""


@dataclass(frozen=True)
class Scenario:
    seed: int
    mode: str
    result: RoundResult

    @property
    def kinds(self) -> list[str]:
        return [s.kind for s in self.result.steps]


def active_build(game_id: str):
    gconf = load_config(None).games[game_id]
    return get_game(game_id).load_build(gconf.build)


@cache
def step_kind_scenarios(game_id: str, mode: str = "paid") -> dict[str, Scenario]:
    """For every step kind seen while scanning seeds, the first seed whose round contains it;
    also ``"feature"``: the first round with more than one step, ``"long"``: the first with three or more,
    and ``"single"``: the first one-step round."""
    game, build = get_game(game_id), active_build(game_id)
    found: dict[str, Scenario] = {}
    quiet = 0
    for seed in range(SCAN_LIMIT):
        result = game.play_round(build, SeededDraws(seed), mode)
        scenario = Scenario(seed, mode, result)
        new = False
        keys = {s.kind for s in result.steps}
        keys.add("feature" if len(result.steps) > 1 else "single")
        if len(result.steps) >= 3:
            keys.add("long")
        for key in keys:
            if key not in found:
                found[key] = scenario
                new = True
        quiet = 0 if new else quiet + 1
        if "long" in found and quiet >= QUIET_AFTER:
            break
    return found


def feature_scenario(game_id: str, mode: str = "paid") -> Scenario:
    scenarios = step_kind_scenarios(game_id, mode)
    assert "feature" in scenarios, f"no multi-step round of {game_id} in {SCAN_LIMIT} seeds"
    return scenarios["feature"]
