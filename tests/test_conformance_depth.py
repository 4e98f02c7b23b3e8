"""The in-depth kernel check on every shipped game: 100,000 paid rounds per build (10,000 of every
other mode) streamed through the kernel and the reference engine, each build on its own seed.
A file of its own so the test workers share the suite's two longest files."""

import pytest

from reelforge.conformance import DEPTH_ROUNDS, Context, check_kernel_matches_reference_in_depth
from reelforge.games import registry

DEPTH = 100_000
OLD_PER_GAME_TESTS = {"forge-of-fortunes", "gemstones-gold", "forge-of-gems"}
"""The games whose own tests compared 100,000 rounds before the check existed; a game on the harness and
the mechanics library (both tested on their own) is compared at check_game's depth (20,000 per build)."""


@pytest.mark.parametrize("game_id", sorted(registry.SHIPPED_GAMES))
def test_kernel_matches_reference_in_depth(game_id):
    depth = DEPTH if game_id in OLD_PER_GAME_TESTS else DEPTH_ROUNDS
    check_kernel_matches_reference_in_depth(Context(registry.get_game(game_id), depth_rounds=depth))
