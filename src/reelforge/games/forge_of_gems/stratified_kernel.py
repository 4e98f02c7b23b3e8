"""The estimators' samplers on the kernel (:mod:`.stratified`, :mod:`.split_spins`): paid spins alone (first
boards continued several times), free-spin features started alone and single free spins split into their
parts, each spin played by the kernel's :func:`.kernel._spin`."""

from __future__ import annotations

import numpy as np
from numba import njit

from reelforge.mechanics.rng import pcg_state, store_pcg_state

from .kernel import (
    R_CAPPED,
    R_CASC,
    R_FIRST_SCAT,
    R_MULT,
    R_PAYS,
    R_SCAT,
    REELS,
    ROWS,
    SCATTER,
    _draw_cell,
    _spin,
    _workspace,
)


@njit(cache=True)
def _run_base_spins(st, cell_code, cell_total, forge_base, targets, paytable, limits, cap_units, rounds,
                    n_cls, sum_b, max_b, hist_b, bin_width):
    nb = hist_b.shape[1]
    board, forge, packs, remove, land, res = _workspace()
    for _ in range(rounds):
        b = _spin(st, cell_code, cell_total, forge_base, targets, paytable, limits, cap_units,
                  False, 1, 0, board, forge, packs, remove, land, res, True)
        ci = _scatter_class(res[R_FIRST_SCAT])
        cf = 0 if res[R_CAPPED] else _scatter_class(res[R_SCAT])  # a capped round ends: no GEMBOX
        n_cls[ci, cf] += 1
        sum_b[ci, cf] += b
        sum_b[4, 0] += float(b) * float(b)
        bi = b // bin_width
        hist_b[cf, bi if bi < nb else nb - 1] += 1
        if b > max_b[0]:
            max_b[0] = b


def run_base_spins(rng: np.random.Generator, cell_code: np.ndarray, cell_total: np.ndarray,
                   forge_base: np.ndarray, targets: np.ndarray, paytable: np.ndarray, limits: np.ndarray,
                   cap_units: int, rounds: int, n_cls: np.ndarray, sum_b: np.ndarray, max_b: np.ndarray,
                   hist_b: np.ndarray, bin_width: int) -> None:
    """Paid spins alone (no GEMBOX, no features), for the stratified calibration.

    Per spin: B (units) and the scatter class (0: fewer than 3, 1..3: 3, 4, 5+) of the first
    board (``i``) and of the final board (``f``; 0 where the spin reached the cap, which ends the round before
    any GEMBOX). Fills ``n_cls[i, f]`` (counts), ``sum_b[i, f]``
    (sum of B) and ``sum_b[4, 0]`` (sum of B squared, float), ``max_b[0]`` the largest B, and
    ``hist_b[f, B // bin_width]`` (last bin: everything above) for the cap correction.
    ``rng`` advances past the draws used.
    """
    st = pcg_state(rng)
    _run_base_spins(st, cell_code, cell_total, forge_base, targets, paytable, limits, cap_units, rounds,
                    n_cls, sum_b, max_b, hist_b, bin_width)
    store_pcg_state(rng, st)


@njit(cache=True)
def _run_features(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units, count,
                  marks, sums, cross, tail, tail_threshold, n_tail, hist_f, hist_width):
    board, forge, packs, remove, land, res = _workspace()
    nm = marks.shape[0]
    vals = np.zeros(nm, dtype=np.int64)
    for _ in range(count):
        mult = 1
        total = 0
        j = 0
        for spin in range(1, marks[nm - 1] + 1):
            total += _spin(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units,
                           True, mult, total, board, forge, packs, remove, land, res, True)
            mult = res[R_MULT]
            if spin == marks[j]:
                vals[j] = total
                j += 1
        for a in range(nm):
            sums[a] += vals[a]
            for b2 in range(nm):
                cross[a, b2] += float(vals[a]) * float(vals[b2])
        if vals[nm - 1] < tail_threshold:  # every mark below the threshold too (wins never decrease)
            for a in range(nm):
                hist_f[a, vals[a] // hist_width] += 1
        elif n_tail[0] < tail.shape[0]:
            for a in range(nm):
                tail[n_tail[0], a] = vals[a]
            n_tail[0] += 1


def run_features(rng: np.random.Generator, cell_code: np.ndarray, cell_total: np.ndarray,
                 forge_free: np.ndarray, targets: np.ndarray, paytable: np.ndarray, limits: np.ndarray,
                 cap_units: int, count: int, marks: np.ndarray, sums: np.ndarray, cross: np.ndarray,
                 tail: np.ndarray, tail_threshold: int, n_tail: np.ndarray, hist_f: np.ndarray,
                 hist_width: int) -> None:
    """``count`` free-spin features of ``marks[-1]`` spins, started alone (multiplier 1).

    The win after ``marks[j]`` spins is a feature of ``marks[j]`` spins (same process, prefix),
    so one run estimates every feature length. Fills ``sums[j]`` (int), ``cross[j, l]`` (float
    sums of products), keeps features whose longest win reaches ``tail_threshold`` in ``tail`` (``n_tail[0]``
    rows) and counts every other feature in ``hist_f[j, win // hist_width]`` (its win after ``marks[j]``
    spins; ``hist_f`` needs ``ceil(tail_threshold / hist_width)`` bins). ``rng`` advances past the draws used.
    """
    st = pcg_state(rng)
    _run_features(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units, count,
                  marks, sums, cross, tail, tail_threshold, n_tail, hist_f, hist_width)
    store_pcg_state(rng, st)


@njit(cache=True)
def _run_free_spin_parts(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units, count,
                         repeats, sums, cross):
    board, forge, packs, remove, land, res = _workspace()
    first = np.empty((REELS, ROWS), dtype=np.int64)
    x = np.zeros(3, dtype=np.float64)
    for _ in range(count):
        for c in range(REELS):
            for r in range(ROWS):
                first[c, r] = _draw_cell(st, cell_code, cell_total, c)
        x[:] = 0.0
        done = 0
        for _k in range(repeats):
            board[:, :] = first
            x[0] += _spin(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units,
                          True, 1, 0, board, forge, packs, remove, land, res, False)
            x[1] += res[R_PAYS]
            x[2] += res[R_MULT] - 1
            done += 1
            if res[R_CASC] == 0:  # no win on the first board: every continuation is this one
                break
        x /= done
        for a in range(3):
            sums[a] += x[a]
            for b in range(3):
                cross[a, b] += float(x[a]) * float(x[b])


def run_free_spin_parts(rng: np.random.Generator, cell_code: np.ndarray, cell_total: np.ndarray,
                        forge_free: np.ndarray, targets: np.ndarray, paytable: np.ndarray, limits: np.ndarray,
                        cap_units: int, count: int, repeats: int, sums: np.ndarray, cross: np.ndarray) -> None:
    """``count`` single free spins, each started alone at multiplier 1, split for the estimator; each first
    board is continued ``repeats`` times (FORGE REEL and cascades drawn afresh) and the means taken.

    A free spin's boards never depend on the multiplier, so a spin started at multiplier ``m`` wins
    ``m x pays + (win - pays)`` of the spin played here, where ``win`` is its win at multiplier 1 and
    ``pays`` its wins at multiplier 1 throughout; it raises the multiplier by ``multipliers``. Per spin
    ``(win, pays, multipliers)`` (units, units, Multipliers landed), averaged over the continuations: fills
    ``sums[3]`` and ``cross[3, 3]`` (float sums and sums of products). ``rng`` advances past the draws used.
    """
    st = pcg_state(rng)
    _run_free_spin_parts(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units, count,
                         repeats, sums, cross)
    store_pcg_state(rng, st)


MAX_REPEATS = 64
"""Most continuations of one first board (:func:`run_repeated_paid_spins`)."""


@njit(cache=True, inline="always")
def _scatter_class(scatters):
    """0: fewer than 3 SCATTERs; 1, 2, 3: 3, 4, 5 or more."""
    k = scatters - 2
    return 0 if k < 0 else (3 if k > 3 else k)


@njit(cache=True)
def _run_repeated_paid_spins(st, cell_code, cell_total, forge_base, targets, paytable, limits, cap_units, rounds,
                             repeats, counts, first_moments, second_moments, win_squares, max_b, hist_b, bin_width,
                             capped):
    board, forge, packs, remove, land, res = _workspace()
    first = np.empty((REELS, ROWS), dtype=np.int64)
    wins = np.zeros(MAX_REPEATS, dtype=np.int64)
    classes = np.zeros(MAX_REPEATS, dtype=np.int64)
    x = np.zeros(5, dtype=np.float64)
    no_win = np.zeros(4, dtype=np.int64)
    nb = hist_b.shape[1]
    for _ in range(rounds):
        scatters = 0
        for c in range(REELS):
            for r in range(ROWS):
                first[c, r] = _draw_cell(st, cell_code, cell_total, c)
                scatters += np.int64((first[c, r] >> 2) == SCATTER)
        ci = _scatter_class(scatters)
        k_max = repeats[min(scatters, repeats.shape[0] - 1)]
        done = 0
        for _k in range(k_max):
            board[:, :] = first
            wins[done] = _spin(st, cell_code, cell_total, forge_base, targets, paytable, limits, cap_units,
                               False, 1, 0, board, forge, packs, remove, land, res, False)
            # a spin that reaches the cap ends the round there: no GEMBOX, whatever its SCATTERs
            classes[done] = 0 if res[R_CAPPED] else _scatter_class(res[R_SCAT])
            done += 1
            if res[R_CASC] == 0:  # no win on the first board: every continuation is this one
                break
        if wins[0] == 0 and done == 1:  # B = 0 and the class unchanged: tallied once per chunk
            no_win[ci] += 1
            continue
        x[:] = 0.0
        sq = 0.0
        for k in range(done):
            b = wins[k]
            if b >= cap_units:
                capped[0] += 1.0 / done
            x[0] += b
            x[1 + classes[k]] += 1.0
            sq += float(b) * float(b)
            bi = b // bin_width
            hist_b[classes[k], bi if bi < nb else nb - 1] += 1.0 / done
            if b > max_b[0]:
                max_b[0] = b
        counts[ci] += 1
        win_squares[0] += sq / done
        for a in range(5):
            first_moments[ci, a] += x[a] / done
            for a2 in range(5):
                second_moments[ci, a, a2] += (x[a] / done) * (x[a2] / done)
    for ci in range(4):
        counts[ci] += no_win[ci]
        first_moments[ci, 1 + ci] += no_win[ci]
        second_moments[ci, 1 + ci, 1 + ci] += no_win[ci]
        hist_b[ci, 0] += no_win[ci]


def run_repeated_paid_spins(rng: np.random.Generator, cell_code: np.ndarray, cell_total: np.ndarray,
                            forge_base: np.ndarray, targets: np.ndarray, paytable: np.ndarray, limits: np.ndarray,
                            cap_units: int, rounds: int, repeats: np.ndarray, counts: np.ndarray,
                            first_moments: np.ndarray, second_moments: np.ndarray, win_squares: np.ndarray,
                            max_b: np.ndarray, hist_b: np.ndarray, bin_width: int, capped: np.ndarray) -> None:
    """``rounds`` paid spins alone, each first board played on ``repeats[min(s, len - 1)]`` times (``s`` its
    SCATTERs): the continuations (FORGE REEL, cascades) drawn afresh each time, so their mean is an unbiased
    estimate of the board's expected outcome with less variance (one continuation where the first board
    does not win: all would be the same).

    Per paid spin ``x = (mean B, share of continuations ending in scatter class 0..3)`` by the first board's
    scatter class ``i``: ``counts[i]``, ``first_moments[i, :] += x``, ``second_moments[i, :, :] += x x^T``;
    ``win_squares[0]`` the sum of the spins' mean B squared over continuations (unbiased for E[B^2]);
    ``max_b[0]`` the largest B; ``hist_b[f, B // bin_width]`` each continuation's share (last bin: the rest);
    ``capped[0]`` the sum over paid spins of the share of their continuations that reached the cap (B = the cap:
    the round ends there, so such a continuation ends in class 0, never a GEMBOX). ``rng`` advances past the
    draws used."""
    st = pcg_state(rng)
    _run_repeated_paid_spins(st, cell_code, cell_total, forge_base, targets, paytable, limits, cap_units, rounds,
                             repeats, counts, first_moments, second_moments, win_squares, max_b, hist_b, bin_width,
                             capped)
    store_pcg_state(rng, st)
