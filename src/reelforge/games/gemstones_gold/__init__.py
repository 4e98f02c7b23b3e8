"""Gemstones Gold (PG Soft reference ID 1671262, rules 1.0 r2): 6x6 tumble, 8+ anywhere,
multiplier reel with blockers, free spins with a persistent total multiplier, Feature Buy.

Modules:

* :mod:`.build`  - build files (``builds/<name>.toml``): strips, multiplier weights, buy price;
* :mod:`.rules`  - the reference engine, step by step with audit events (draw order documented there);
* :mod:`.kernel` - the numba simulation kernel (conformance-tested against the rules);
* :mod:`.game`   - the :class:`reelforge.game.Game` subclass (registered as ``gemstones-gold``);
* :mod:`.design` - the calibration that produced build 96.71, and the stratified verification:

  ``python -m reelforge.games.gemstones_gold.design --write`` recalibrates and writes the build;
  ``python -m reelforge.games.gemstones_gold.design --verify --paid N --features M --seed S``
  prints every published figure with its 99% interval (JSON).
"""
