"""The slot-mechanics library: small plain-Python functions over integer arrays that numba
compiles unchanged, called the same way by a game's reference engine and by its kernel.

* :mod:`.rng` - draws inside kernels (``draw_pcg``, bit-identical to the reference engine's);
* :mod:`.tally` - a round's win into the chunk tally (the harness loop, :mod:`reelforge.game.loop`, calls it);
* :mod:`.reels` - strips as codes, windows from strip stops or weighted cells, scatter counts;
* :mod:`.pays` - paylines from a line table (both ways, wild substitution), ways, pay anywhere;
* :mod:`.clusters` - cluster pays (4-adjacency, minimum size, wilds in several clusters);
* :mod:`.tumble`, :mod:`.cascade` - clear, gravity, refill from the strip or by weights;
* :mod:`.features` - free spins (award, retrigger, limit), the cap with forfeit, multipliers;
* :mod:`.holdspin` - hold and respin (sticky coins, respins reset by a new coin, full board).

No function here draws: each takes the values the caller drew (``draws.draw(n)`` in the rules,
``draw_pcg(st, n)`` in the kernel) in the order its docstring says.
"""
