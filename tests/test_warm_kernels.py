"""The kernel warm-up that ``make test`` runs before pytest (tests/warm_kernels.py) reaches every game the
tests play: the registry's, and the ones the tests register for a block under their own ids."""

from __future__ import annotations

import importlib

from reelforge.games.registry import game_ids
from tests import warm_kernels


def test_the_warm_up_covers_every_registered_game_and_names_the_extra_ones_by_their_ids():
    targets = warm_kernels._targets()
    assert set(game_ids()) <= set(targets)
    assert set(warm_kernels.SLOWEST_FIRST) <= set(targets)  # a renamed game would silently fall to the end
    assert list(targets)[:len(warm_kernels.SLOWEST_FIRST)] == list(warm_kernels.SLOWEST_FIRST)
    assert set(warm_kernels.OBSERVED) <= set(targets)
    for game_id, target in warm_kernels.EXTRA_GAMES.items():
        module, _, name = target.partition(":")
        assert getattr(importlib.import_module(module), name).id == game_id
