"""Windows: what the player sees, from strip stops or from weighted cells.

Boards are ``int64`` arrays indexed ``[reel, row]``, row 0 at the top; symbols are codes (an index
into the game's alphabet). Strips are one row of codes per reel (``strip_codes``), padded, with
their lengths beside them.

Every function here takes the values already drawn (a stop per reel, a draw per cell): the
reference engine draws them with ``draws.draw(n)``, the kernel with
:func:`reelforge.mechanics.rng.draw_pcg`, in the order the game's rules say, and both then call the
same function (plain Python over arrays, compiled by numba: ``NUMBA_DISABLE_JIT=1`` runs it as the
Python it reads as). Kernel helpers are ``inline="always"``: numba inlines them into the round function,
which then passes no arrays through calls (each call cost reference counts and a long argument list).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import njit

from reelforge.mechanics.rng import draw_held, draw_pcg


def strip_codes(strips: Sequence[str] | Sequence[Sequence[str]], alphabet: Sequence[str],
                wrap: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Strips (strings of one-letter symbols, or lists of symbol keys) as codes: ``(codes[reel, stop],
    lengths[reel])``, each code the symbol's index in ``alphabet``. With ``wrap``, each strip is followed by
    its first ``wrap`` stops again (round and round where it is shorter), so a window of up to ``wrap``
    rows reads its rows from any stop without wrapping (what :func:`window_by_heights` needs)."""
    index = {s: i for i, s in enumerate(alphabet)}
    width = max(len(s) for s in strips) + wrap
    codes = np.zeros((len(strips), width), dtype=np.int64)
    for r, strip in enumerate(strips):
        row = [index[s] for s in strip]
        codes[r, : len(row) + wrap] = [row[i % len(row)] for i in range(len(row) + wrap)]
    return codes, np.array([len(s) for s in strips], dtype=np.int64)


def strip_from_counts(counts: dict[str, int]) -> list[str]:
    """A strip holding ``counts[symbol]`` copies of each symbol, each symbol spread as evenly as it
    can be (smooth weighted round robin: every stop goes to the symbol furthest behind its share;
    ties to the symbol listed first), so a build can give its reels as symbol counts."""
    total = sum(counts.values())
    credit = dict.fromkeys(counts, 0)
    strip = []
    for _ in range(total):
        for s, n in counts.items():
            credit[s] += n
        pick = max(credit, key=lambda s: credit[s])
        credit[pick] -= total
        strip.append(pick)
    return strip


def counted_strips(copies: dict[str, Sequence[int]], alphabet: Sequence[str], reels: int,
                   wrap: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`strip_codes` of reels given as ``copies[symbol][reel]`` (each by :func:`strip_from_counts`, the
    symbols in the order of ``alphabet``), each strip wrapped by ``wrap`` stops."""
    return strip_codes([strip_from_counts({s: copies[s][r] for s in alphabet}) for r in range(reels)], alphabet, wrap)


@njit(cache=True, inline="always")
def window_from_stops(codes: np.ndarray, lengths: np.ndarray, stops: np.ndarray, rows: int,
                      window: np.ndarray) -> None:
    """Fill ``window[reel, row]`` with ``rows`` consecutive symbols of each strip from its stop
    (``0 <= stop < length``, the stop at the top row), wrapping around the strip's end.

    Inlined where it is called, and stepping round the strip instead of dividing (``% n``): kernels
    call it every spin, where a call and a division per cell cost more than a simple spin."""
    for r in range(codes.shape[0]):
        n = lengths[r]
        i = stops[r]
        for k in range(rows):
            window[r, k] = codes[r, i]
            i += 1
            if i == n:       # wrap by a compare, not a modulo: a division per cell costs more than the rest
                i = 0


@njit(cache=True, inline="always")
def window_by_heights(codes: np.ndarray, lengths: np.ndarray, stops: np.ndarray, heights: np.ndarray,
                      window: np.ndarray) -> None:
    """A board of any shape: reel ``r`` shows ``heights[r]`` consecutive symbols of its strip from its
    stop in rows ``0 .. heights[r] - 1`` (round the strip's end); the rows below hold
    :data:`~reelforge.mechanics.tumble.EMPTY`, which no symbol, wild or scatter count ever matches.
    ``codes`` are wrapped by the window's rows (``strip_codes(..., wrap=rows)``, :func:`check_wrapped`).

    Every row is written, the padding by a sign mask, with no wrap test and no branch: no loop as long as the
    height a spin just drew (docs/performance.md)."""
    for r in range(codes.shape[0]):
        i = stops[r]
        h = heights[r]
        for k in range(window.shape[1]):
            # a row below the height gets all bits set (EMPTY is -1) by a sign mask, not a select: LLVM turned
            # `cell if k < h else EMPTY` into a branch round the read, missed about once a reel (129.6 -> 91.3
            # ns a spin_by_heights, bench/mechanics_bench.py); the strip is wrapped, so the read is in bounds
            window[r, k] = codes[r, i + k] | ((h - 1 - k) >> 63)


def check_wrapped(codes: np.ndarray, lengths: np.ndarray, rows: int) -> None:
    """Refuse strips not wrapped by ``rows`` stops (``strip_codes(..., wrap=rows)``): a window would read
    past a strip's end."""
    for r, n in enumerate(lengths.tolist()):
        if codes.shape[1] < n + rows or any(codes[r, n + k] != codes[r, k % n] for k in range(rows)):
            raise ValueError(f"reel {r + 1}'s strip is not wrapped by {rows} stops: make it with "
                             f"strip_codes(..., wrap={rows})")


@njit(cache=True, inline="always")
def spin_by_heights(st: np.ndarray, codes: np.ndarray, lengths: np.ndarray, height_cum: np.ndarray,
                    heights: np.ndarray, stops: np.ndarray, window: np.ndarray) -> None:
    """A kernel's spin of reels whose heights change every spin: a height per reel, reel 1 first,
    picked by the running weights ``height_cum[reel]`` (:func:`pick_weighted`: index = height), then a
    stop per reel, reel 1 first, uniform over its strip (:func:`draw_heights_and_stops`); the board they show
    (:func:`window_by_heights`)."""
    draw_heights_and_stops(st, lengths, height_cum, heights, stops)
    window_by_heights(codes, lengths, stops, heights, window)


@njit(cache=True, inline="always")
def draw_heights_and_stops(st: np.ndarray, lengths: np.ndarray, height_cum: np.ndarray, heights: np.ndarray,
                           stops: np.ndarray) -> None:
    """The draws of :func:`spin_by_heights`: a height per reel, reel 1 first, by the running weights
    ``height_cum[reel]`` (index = height), then a stop per reel, uniform over its strip, into ``heights`` and
    ``stops``, from the PCG64 state ``st``."""
    hi, lo, inc_hi, inc_lo = st[0], st[1], st[2], st[3]      # the state held through the 12 draws (draw_held)
    for r in range(lengths.shape[0]):
        hi, lo, u = draw_held(hi, lo, inc_hi, inc_lo, height_cum[r, height_cum.shape[1] - 1])
        heights[r] = pick_weighted(height_cum[r], u)
    for r in range(lengths.shape[0]):
        hi, lo, stops[r] = draw_held(hi, lo, inc_hi, inc_lo, lengths[r])
    st[0] = hi
    st[1] = lo


def shown_by_heights(window: np.ndarray, heights: np.ndarray, labels: Sequence[str]) -> list[list[str]]:
    """A board of any shape as the player sees it (audit events): each reel's ``heights[reel]`` rows, top to
    bottom, by ``labels[code]``; the padding below is not shown."""
    return [[labels[c] for c in reel[:h]] for reel, h in zip(window.tolist(), heights.tolist(), strict=True)]


def draw_by_heights(draws: Any, codes: np.ndarray, lengths: np.ndarray, height_cum: np.ndarray, heights: np.ndarray,
                    stops: np.ndarray, window: np.ndarray) -> None:
    """The reference engine's :func:`spin_by_heights`: the same heights and stops, drawn from ``draws``
    in the same order, and the board they show."""
    check_wrapped(codes, lengths, window.shape[1])
    for r in range(codes.shape[0]):
        heights[r] = pick_weighted(height_cum[r], draws.draw(int(height_cum[r, -1])))
    for r in range(codes.shape[0]):
        stops[r] = draws.draw(int(lengths[r]))
    window_by_heights(codes, lengths, stops, heights, window)


def stops_showing_most(codes: np.ndarray, lengths: np.ndarray, rows: int, symbols: set[int]) -> list[int]:
    """Each reel's stop whose ``rows`` rows show the most of ``symbols`` (the first such stop): the stops of a
    constructed round (a game's largest win, ``Game.max_win_round``)."""
    return [max(range(n), key=lambda i: sum(int(codes[r, (i + k) % n]) in symbols for k in range(rows)))
            for r, n in enumerate(lengths.tolist())]


def reel_counts_check(key: str, rows: int) -> Callable[[dict[str, Any], Any], None]:
    """A build-file check (``plain_files(..., check=)``) for reels given as symbol counts, ``key``
    mapping each symbol to its copies per reel: every reel must have at least ``rows`` stops (a
    window shows ``rows`` different stops of it)."""
    def check(data: dict[str, Any], at: Any) -> None:
        counts = list(data[key].values())
        for r in range(len(counts[0]) if counts else 0):
            if sum(c[r] for c in counts) < rows:
                raise (at / key).error(f"leaves reel {r + 1} with fewer than {rows} stops")
    return check


@njit(cache=True, inline="always")
def spin_reels(st: np.ndarray, codes: np.ndarray, lengths: np.ndarray, stops: np.ndarray, rows: int,
               window: np.ndarray) -> None:
    """A kernel's spin of strips: one stop per reel, reel 1 first, each uniform over its strip
    (:func:`reelforge.mechanics.rng.draw_pcg` on the PCG64 state ``st``), into ``stops``, and the
    window they show (:func:`window_from_stops`). The reference engine draws the same stops with
    ``draws.draw(lengths[reel])`` in the same order."""
    for r in range(codes.shape[0]):
        stops[r] = draw_pcg(st, lengths[r])
    window_from_stops(codes, lengths, stops, rows, window)


def draw_reels(draws: Any, codes: np.ndarray, lengths: np.ndarray, stops: np.ndarray, rows: int,
               window: np.ndarray) -> None:
    """The reference engine's :func:`spin_reels`: the same stops, drawn from ``draws`` (a
    :class:`reelforge.core.draws.DrawSource`) in the same order, and the window they show."""
    for r in range(codes.shape[0]):
        stops[r] = draws.draw(int(lengths[r]))
    window_from_stops(codes, lengths, stops, rows, window)


def cumulative(weights: Sequence[int] | np.ndarray) -> np.ndarray:
    """Running totals of ``weights`` (what :func:`pick_weighted` searches); the last is the total."""
    return np.cumsum(np.asarray(weights, dtype=np.int64))


@njit(cache=True, inline="always")
def pick_weighted(cum: np.ndarray, u: int) -> int:
    """The index a draw ``u`` in ``[0, cum[-1])`` picks: the first whose running total passes ``u``
    (index ``i`` has probability ``weight[i] / total``), found as how many running totals ``u`` has
    reached: a count with no branch to mispredict (a scan stopping at the pick mispredicted about
    once a cell, which cost more than the rest of a weighted window)."""
    i = 0
    for j in range(cum.shape[0] - 1):       # u is below the last running total, the total
        i += u >= cum[j]
    return i


@njit(cache=True, inline="always")
def window_from_weights(cum: np.ndarray, draws: np.ndarray, window: np.ndarray) -> None:
    """Fill ``window[reel, row]`` cell by cell, reel by reel, each top to bottom, with the symbol
    its draw picks from the reel's running weights ``cum[reel]`` (draws in ``[0, cum[reel, -1])``,
    one per cell in that order)."""
    k = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            window[r, row] = pick_weighted(cum[r], draws[k])
            k += 1


@njit(cache=True, inline="always")
def count_symbol(window: np.ndarray, symbol: int) -> int:
    """How many cells of the window show ``symbol`` (scatters).

    Counted a reel at a time into an integer (adding the compares to the total straight away cost 26.2 ns on a
    6 x 7 board against 18.1 ns, ``bench/mechanics_bench.py``)."""
    n = 0
    rows = window.shape[1]
    for r in range(window.shape[0]):
        on_reel = 0
        for row in range(rows):
            on_reel += np.int64(window[r, row] == symbol)
        n += on_reel
    return n


@njit(cache=True, inline="always")
def reels_with_symbol(window: np.ndarray, symbol: int) -> int:
    """How many reels show ``symbol`` at least once (scatters counted per reel)."""
    n = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            if window[r, row] == symbol:
                n += 1
                break
    return n
