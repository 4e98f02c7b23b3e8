"""Gemstones Gold (PG Soft reference ID 1671262, rules 1.0 r2): 6x6 tumble, 8+ anywhere,
multiplier reel with blockers, free spins with a persistent total multiplier, Feature Buy.

Modules:

* :mod:`.build`  - build files (``builds/<name>.toml``): strips, multiplier weights, buy price;
* :mod:`.rules`  - the reference engine, step by step with audit events (draw order documented there);
* :mod:`.kernel` - the numba simulation kernel (conformance-tested against the rules);
* :mod:`.game`   - the :class:`reelforge.game.contract.Game` subclass (registered as ``gemstones-gold``);
* :mod:`.board`, :mod:`.strips`, :mod:`.sampling`, :mod:`.design` - the calibration that produced
  build 96.71 (exact initial-board probabilities, the strip design, the tuning sample, the weights
  and price), and :mod:`.stratified` - the stratified estimator that verifies it:

  ``reelforge design gemstones-gold calibrate --reuse-strips --write`` recalibrates and writes the build;
  ``reelforge design gemstones-gold verify --paid N --features M --seed S`` prints every published
  figure with its 99% interval (JSON).
"""
