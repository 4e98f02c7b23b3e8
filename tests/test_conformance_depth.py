"""The in-depth kernel check on every shipped game: 20,000 paid rounds per build (2,000 of every other
mode) streamed through the kernel and the reference engine, each build on its own seed (check_game's
depth). The 100,000-round version is a long run: ``python bench/check_games.py --check
kernel_matches_reference_in_depth`` (docs/RELIABILITY.md). A file of its own so the test workers share
the suite's longest files."""

import pytest

from reelforge.conformance import Context, check_kernel_matches_reference_in_depth
from reelforge.games import registry


@pytest.mark.parametrize("game_id", [pytest.param(g, marks=pytest.mark.slow) if g == "forge-of-gems" else g
                                     for g in sorted(registry.SHIPPED_GAMES)])
def test_kernel_matches_reference_in_depth(game_id):
    check_kernel_matches_reference_in_depth(Context(registry.get_game(game_id)))
