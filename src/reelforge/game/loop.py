"""The kernel harness: what every kernel-backed game shares, so a game writes its rules once for
people (``rules.py``) and once for numba (one round function), and nothing else.

A game declares its round components (the parts of a round win the summary splits the RTP into)
and counters, and writes one numba round function over one tables object::

    @round_function                    # njit(cache=True) without reference counting: see there
    def play_round(st, t, mode, cap, parts, counters):
        # st: the PCG64 state (draw with reelforge.mechanics.rng.draw_pcg(st, n), the one RNG
        #     style of kernels); t: the game's tables (a NamedTuple of arrays and ints);
        # mode: the index of the round's mode in Game.modes; cap: the round cap in win units;
        # parts: one int64 slot per component, zeroed before the round, to fill with its win
        # units (capped at cap);
        # counters: the game's counters, to add to
        ...

    LOOP = kernel_loop(play_round)     # in the game's kernel module

The loop inlines the round function and hands it its tables, state and buffers uncounted
(:func:`borrowed`), so a round costs what its own code costs. To keep it so, a round function calls
only functions compiled with ``inline="always"`` (``draw_pcg`` and ``window_from_stops`` are): one
ordinary call, even on a rare path such as a feature, slows every round (measured on Forge of
Fortunes' round: 52 -> 31 M rounds/s). The round function is also compiled on its own, so a test or
a tool can call it.

:class:`KernelGame` then gives ``simulate_chunk``, ``kernel_round_wins``, ``new_accumulator``, the
tally epilogue, the mode checks (an undeclared mode, or ``buy`` without a price, is refused before any
draw) and the win-unit limits (a clear error, never an overflow).
"""

from __future__ import annotations

import sys
import types
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit
from numba import types as nb_types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array

from reelforge.game.buildfile import kernel_tables
from reelforge.game.contract import Build
from reelforge.mechanics.tally import close_tally, tally_win

NO_PAYS = np.zeros(0, dtype=np.int64)
"""What a plain kernel hands the functions it shares with its game's per-pay kernel for the pays to record: an
empty global, so a read-only constant to numba, whose records are no-ops (:func:`record`): the plain kernel
compiles to what it was without the per-pay kernel."""


def record(rec: np.ndarray, i: int, units: int) -> None:
    """``rec[i] += units``: a per-pay kernel's record of one pay (compiled by :func:`_record`)."""
    rec[i] += units


@overload(record, inline="always")
def _record(rec, i, units):
    if not rec.mutable:  # a plain kernel's NO_PAYS: nothing to record into
        return lambda rec, i, units: None

    def impl(rec, i, units):
        rec[i] += units
    return impl


class WinOverCap(RuntimeError):
    """A round function filled more win units than the cap, or fewer than none (a bug in the game's
    kernel)."""


def _strip_references(context: Any, builder: Any, ty: Any, value: Any) -> Any:
    """``value`` of numba type ``ty`` with the reference count of every array in it taken away (a
    null meminfo): numba then counts no references to it (NRT_incref/decref of null do nothing)."""
    if isinstance(ty, nb_types.Array):
        ary = make_array(ty)(context, builder, value=value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()
    if isinstance(ty, nb_types.BaseTuple):
        for i, member in enumerate(ty.types):
            value = builder.insert_value(value, _strip_references(context, builder, member,
                                                                  builder.extract_value(value, i)), i)
    return value


@intrinsic
def borrowed(typingctx: Any, value: Any) -> Any:
    """``value`` (an array, or a tuple of arrays and numbers such as a game's tables) as a borrowed
    view: the same data, uncounted. Only for use while the owner lives (inside the call that holds it).

    Why: numba counts a reference to every array a function receives (an atomic increment and
    decrement each), and cannot always take the counts away again (not where the round has loops).
    A round function binding tables of ten arrays then costs more than a simple round; borrowed once
    per chunk, the counts vanish (measured on Forge of Fortunes: 7 -> 45 M rounds/s)."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return _strip_references(context, builder, signature.args[0], args[0])

    return value(value), codegen


def _loop(st, t, n, mode, cap, edges, wins, totals, components, hist, counters):  # pragma: no cover - numba
    """Play ``n`` rounds of ``mode`` with the game's ``_play_round``; tally the winning ones and, where
    ``wins`` has ``n`` slots, write each round's win (one loop, so tallies and rounds cannot drift)."""
    nc = components.shape[0] // 2
    owned_parts = np.zeros(nc, dtype=np.int64)
    # what the round receives, borrowed once for the chunk (see borrowed)
    parts = borrowed(owned_parts)
    rt = borrowed(t)
    rst = borrowed(st)
    rcounters = borrowed(counters)
    keep = wins.shape[0] > 0
    hits_before = totals[1]
    for i in range(n):
        # parts are zero here: np.zeros, or cleared after the last winning round (wins are never
        # negative, so a round that wrote a part won)
        _play_round(rst, rt, mode, cap, parts, rcounters)  # noqa: F821 - bound per game by kernel_loop
        win = 0
        for c in range(nc):
            win += parts[c]
        if win != 0:
            if win < 0 or win > cap:
                raise WinOverCap("a round won less than nothing or more than the cap: the game's round "
                                 "function must cap it")
            for c in range(nc):
                components[c] += parts[c]
                components[nc + c] += parts[c] * parts[c]
                parts[c] = 0
            tally_win(totals, hist, edges, cap, win)
        if keep:
            wins[i] = win
    close_tally(totals, hist, n, hits_before)


round_function = njit(cache=True, _nrt=False)
"""The decorator of a game's round function: ``njit(cache=True)`` compiled without numba's runtime
(NRT). A function under NRT counts a reference to every array it is passed or takes from its
tables, an atomic increment and decrement per array per call, which cost more than a whole round
(Seven Lines: 319 ns a round with them, 124 without). Without NRT the round function must allocate
nothing (no ``np.zeros``, no row copies): it writes the scratch arrays of its tables
(:attr:`KernelGame.scratch`); numba refuses to compile one that allocates ("No implementation of function
Function(<built-in function zeros>) found for signature", CONTRIBUTING.md says more)."""


def kernel_loop(play_round: Callable, template: Callable = _loop, name: str = "harness_loop") -> Callable:
    """The harness loop compiled around a game's numba round function ``play_round`` (or another loop
    over rounds, ``template``, written like :func:`_loop` and called ``name``: see
    :mod:`reelforge.game.feature_split`).

    The loop's code is bound to the game's module (its globals hold ``play_round``, its cache
    lives beside the game's kernel file and is renewed when that file changes), so every game has
    its own compiled, cached loop without writing one (numba cannot cache a loop that takes the
    round function as an argument or a closure). The compiled loop keeps ``play_round`` as its
    ``round_function``, so other loops can be bound to the same round."""
    module = sys.modules[play_round.py_func.__module__]
    # The round is inlined into the loop (numba IR inlining): a call per round costs a simple round
    # again (measured on Forge of Fortunes, with borrowed tables: 16 -> 45 M rounds/s).
    inlined = njit(inline="always")(play_round.py_func)
    glob = {"np": np, "tally_win": tally_win, "close_tally": close_tally, "WinOverCap": WinOverCap,
            "borrowed": borrowed, "_play_round": inlined, "__name__": module.__name__}
    code = template.__code__.replace(co_filename=module.__file__)
    fn = types.FunctionType(code, glob, name)
    # named after the round, so two loops in one module never share a cache entry
    fn.__qualname__ = f"{name}_{play_round.__name__}"
    fn.__module__ = module.__name__
    fn.__doc__ = template.__doc__
    loop = njit(cache=True)(fn)
    loop.round_function = play_round
    return loop


def tables_type(name: str, fields: str, scratch: str) -> type:
    """A NamedTuple of a build's kernel tables, ``fields`` then the ``scratch`` a round writes (its
    window, its wins...), the scratch declared here once: :func:`round_tables` (so the reference rules)
    and :class:`~reelforge.game.harness.KernelGame` (so the kernel) read it from the type as ``SCRATCH``."""
    # the class belongs to the caller's module (bound there as ``name``), so numba's cache finds it again in a
    # new process: a class it cannot import back compiles every kernel afresh each time (25 s for Canyon Ways)
    cls = namedtuple(name, f"{fields} {scratch}", module=sys._getframe(1).f_globals["__name__"])
    cls.SCRATCH = tuple(scratch.split())
    return cls


def round_tables(build: Build, make: Callable[[Any], Any], scratch: tuple[str, ...] = ()) -> Any:
    """The build's tables (``make(build)``, a NamedTuple made once per build) with fresh zeroed
    copies of its ``scratch`` fields (what a round writes: window, wins...; by default those its
    :func:`tables_type` declares): the tables a build keeps stay read-only, so neither a simulation
    nor a reference step in another thread shares them."""
    tables = kernel_tables(build, make)
    scratch = scratch or getattr(tables, "SCRATCH", ())
    return tables._replace(**{f: np.zeros_like(getattr(tables, f)) for f in scratch})

