"""The slot-mechanics library: small plain-Python functions over integer arrays that numba
compiles unchanged, called the same way by a game's reference engine and by its kernel.

* :mod:`.rng` - draws inside kernels (``draw_pcg``, bit-identical to the reference engine's);
* :mod:`.tally` - a round's win into the chunk tally (the harness loop, :mod:`reelforge.game.loop`, calls it);
* :mod:`.reels` - strips as codes (wrapped by a window's rows, given as copies per reel:
  ``counted_strips``), windows from strip stops or weighted cells, reels of their own height every spin
  (``heights``: ``spin_by_heights``, ``window_by_heights``, ``shown_by_heights``), scatter counts;
* :mod:`.pays` - paylines from a line table (both ways, wild substitution), ways (each reel's symbols as
  bits, marking the cells they paid, or naming each reel's paid symbols: ``paid_symbols``; their audit
  events, ``ways_events``), pay anywhere;
* :mod:`.clusters` - cluster pays (4-adjacency, minimum size, wilds in several clusters);
* :mod:`.tumble`, :mod:`.cascade` - clear (marked cells, or a set of symbols per reel: ``fall_symbols``),
  gravity within each reel's height, refill from the strip or by weights, one tumble of a ways game
  (``tumble_ways``; on a game's tables holding ``ways_scratch``:
  ``tumble_tables``);
* :mod:`.counts` - a ways board held as each reel's count of each symbol (four bits a symbol): a kernel's
  spins, ways and tumbles on counts (``spin_counted``, ``tumble_counted``; on a game's tables:
  ``spin_tables_counted``, ``tumble_tables_counted``), the same rounds as the cells give, far faster;
* :mod:`.features` - free spins (award, retrigger, limit), the cap with forfeit, multipliers (global,
  per cell, per reel), sticky cells, expanding and walking wilds;
* :mod:`.holdspin` - hold and respin (sticky coins, respins reset by a new coin, full board).

No function here draws, except the kernel spins (``spin_reels``, ``spin_by_heights``, ``spin_counted``) beside their
reference twins: each takes the values the caller drew (``draws.draw(n)`` in the rules,
``draw_pcg(st, n)`` in the kernel, or ``draw_held`` on a state held in values through a run of draws) in
the order its docstring says. A kernel's helpers are
``inline="always"`` and allocate nothing: scratch comes in from the game's tables (``cluster_wins``
and ``clear_and_fall``, for reference engines, make their own and call the kernel-safe ones).
"""
