"""One package per game; see :mod:`reelforge.games.registry`."""
