"""Windows: what the player sees, from strip stops or from weighted cells.

Boards are ``int64`` arrays indexed ``[reel, row]``, row 0 at the top; symbols are codes (an index
into the game's alphabet). Strips are one row of codes per reel (``strip_codes``), padded, with
their lengths beside them.

Every function here takes the values already drawn (a stop per reel, a draw per cell): the
reference engine draws them with ``draws.draw(n)``, the kernel with
:func:`reelforge.mechanics.rng.draw_pcg`, in the order the game's rules say, and both then call the
same function (plain Python over arrays, compiled by numba: ``NUMBA_DISABLE_JIT=1`` runs it as the
Python it reads as).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit


def strip_codes(strips: Sequence[str] | Sequence[Sequence[str]], alphabet: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strips (strings of one-letter symbols, or lists of symbol keys) as codes: ``(codes[reel, stop],
    lengths[reel])``, each code the symbol's index in ``alphabet``."""
    index = {s: i for i, s in enumerate(alphabet)}
    width = max(len(s) for s in strips)
    codes = np.zeros((len(strips), width), dtype=np.int64)
    for r, strip in enumerate(strips):
        codes[r, : len(strip)] = [index[s] for s in strip]
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
            if i == n:
                i = 0


def cumulative(weights: Sequence[int] | np.ndarray) -> np.ndarray:
    """Running totals of ``weights`` (what :func:`pick_weighted` searches); the last is the total."""
    return np.cumsum(np.asarray(weights, dtype=np.int64))


@njit(cache=True, inline="always")
def pick_weighted(cum: np.ndarray, u: int) -> int:
    """The index a draw ``u`` in ``[0, cum[-1])`` picks: the first whose running total passes ``u``
    (index ``i`` has probability ``weight[i] / total``). Put the heaviest outcome first: the scan
    stops there most often."""
    i = 0
    while u >= cum[i]:
        i += 1
    return i


@njit(cache=True)
def window_from_weights(cum: np.ndarray, draws: np.ndarray, window: np.ndarray) -> None:
    """Fill ``window[reel, row]`` cell by cell, reel by reel, each top to bottom, with the symbol
    its draw picks from the reel's running weights ``cum[reel]`` (draws in ``[0, cum[reel, -1])``,
    one per cell in that order)."""
    k = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            window[r, row] = pick_weighted(cum[r], draws[k])
            k += 1


@njit(cache=True)
def count_symbol(window: np.ndarray, symbol: int) -> int:
    """How many cells of the window show ``symbol`` (scatters)."""
    n = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            n += window[r, row] == symbol
    return n


@njit(cache=True)
def reels_with_symbol(window: np.ndarray, symbol: int) -> int:
    """How many reels show ``symbol`` at least once (scatters counted per reel)."""
    n = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            if window[r, row] == symbol:
                n += 1
                break
    return n
