"""The stratified estimator's samplers on the kernel (:mod:`.stratified`): paid spins alone and free-spin
features started alone, each spin played by the kernel's :func:`.kernel._spin`."""

from __future__ import annotations

import numpy as np
from numba import njit

from reelforge.mechanics.rng import pcg_state, store_pcg_state

from .kernel import R_FIRST_SCAT, R_MULT, R_SCAT, _spin, _workspace


@njit(cache=True)
def _run_base_spins(st, cell_code, cell_total, forge_base, targets, paytable, limits, cap_units, rounds,
                    n_cls, sum_b, max_b, hist_b, bin_width):
    nb = hist_b.shape[1]
    board, forge, packs, remove, land, res = _workspace()
    for _ in range(rounds):
        b = _spin(st, cell_code, cell_total, forge_base, targets, paytable, limits, cap_units,
                  False, 1, 0, board, forge, packs, remove, land, res)
        ci = res[R_FIRST_SCAT] - 2
        ci = 0 if ci < 0 else (3 if ci > 3 else ci)
        cf = res[R_SCAT] - 2
        cf = 0 if cf < 0 else (3 if cf > 3 else cf)
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
    board (``i``) and of the final board (``f``). Fills ``n_cls[i, f]`` (counts), ``sum_b[i, f]``
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
                  marks, sums, cross, tail, tail_threshold, n_tail):
    board, forge, packs, remove, land, res = _workspace()
    nm = marks.shape[0]
    vals = np.zeros(nm, dtype=np.int64)
    for _ in range(count):
        mult = 1
        total = 0
        j = 0
        for spin in range(1, marks[nm - 1] + 1):
            total += _spin(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units,
                           True, mult, total, board, forge, packs, remove, land, res)
            mult = res[R_MULT]
            if spin == marks[j]:
                vals[j] = total
                j += 1
        for a in range(nm):
            sums[a] += vals[a]
            for b2 in range(nm):
                cross[a, b2] += float(vals[a]) * float(vals[b2])
        if vals[nm - 1] >= tail_threshold and n_tail[0] < tail.shape[0]:
            for a in range(nm):
                tail[n_tail[0], a] = vals[a]
            n_tail[0] += 1


def run_features(rng: np.random.Generator, cell_code: np.ndarray, cell_total: np.ndarray,
                 forge_free: np.ndarray, targets: np.ndarray, paytable: np.ndarray, limits: np.ndarray,
                 cap_units: int, count: int, marks: np.ndarray, sums: np.ndarray, cross: np.ndarray,
                 tail: np.ndarray, tail_threshold: int, n_tail: np.ndarray) -> None:
    """``count`` free-spin features of ``marks[-1]`` spins, started alone (multiplier 1).

    The win after ``marks[j]`` spins is a feature of ``marks[j]`` spins (same process, prefix),
    so one run estimates every feature length. Fills ``sums[j]`` (int), ``cross[j, l]`` (float
    sums of products), and keeps features whose longest win reaches ``tail_threshold`` in ``tail``.
    ``rng`` advances past the draws used.
    """
    st = pcg_state(rng)
    _run_features(st, cell_code, cell_total, forge_free, targets, paytable, limits, cap_units, count,
                  marks, sums, cross, tail, tail_threshold, n_tail)
    store_pcg_state(rng, st)
