"""Simulated sums for the Gemstones Gold weight tuning, independent of the multiplier weights: the
tuning sample (kind ``coefficients``, one :class:`reelforge.game.estimation.Sample` file).

The multiplier values and lanes are drawn independently of the boards, so given a paid spin's cascade
sequence (W coins, m columns with 3+ qualifying cascades) its expected win is
``W * (P(no lane among those m) + mu * m / 2)``, linear in the mean value ``mu``
(:func:`paid_coefficients`); given a feature's boards its expected win is ``A + B * mu_free``
(:func:`feature_coefficients`, per initial spin count). Boards and features run in seeded chunks on
all cores (:func:`reelforge.core.calibration.chunked_sums`): the same for any worker count.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from numba import njit

from reelforge.core.calibration import chunked_sums
from reelforge.game.estimation import META, Sample, SampleError
from reelforge.games.gemstones_gold import kernel
from reelforge.games.gemstones_gold.board import initial_board_probabilities
from reelforge.games.gemstones_gold.build import (
    BASE_BLOCKERS,
    BASE_LANES,
    COINS_PER_BET,
    FREE_BLOCKERS,
    FREE_SPINS_AWARD,
    FREE_SPINS_PER_EXTRA_SCATTER,
    GAME_ID,
    PUBLISHED_PAYTABLE,
    REELS,
    RETRIGGER_SCATTERS,
    RETRIGGER_SPINS,
    TRIGGER_SCATTERS,
    Build,
    parse_build,
)
from reelforge.mechanics.rng import draw, draw_pcg, pcg_state

VALUES = (2, 3, 4, 5, 8, 10, 15, 20, 25, 50, 100, 250, 500)
"""The multiplier values of the design (every build of it uses this set)."""
KIND = "coefficients"


def build_from(strips: list[str], base_w: tuple[int, ...], free_w: tuple[int, ...], price: str = "50",
               name: str = "design", rtp: str = "0.9671") -> Build:
    data = {"game": GAME_ID, "name": name, "rtp": rtp, "feature_buy_price_x": price,
            "paytable": {k: list(v) for k, v in PUBLISHED_PAYTABLE.items()},
            "reels": {"strips": strips},
            "multipliers": {"values": list(VALUES), "base_weights": list(base_w), "free_weights": list(free_w)}}
    return parse_build(data, name)


def probe_build(strips: list[str]) -> Build:
    """The strips with flat weights: what the boards-only strata simulate (they never read the weights)."""
    return build_from(strips, (1,) * len(VALUES), (1,) * len(VALUES))


@njit(cache=True, inline="always")
def play_board(rng, strips, lens, packed, pay, stops, board, q, counts, work):
    """Draw the stops and play the board's cascades: (win in coins, initial scatters, final
    scatters, columns whose lane would be fully revealed)."""
    init_sc = 0
    for r in range(REELS):
        stops[r] = draw(rng, lens[r])
        init_sc += (packed[r, stops[r]] >> 56) & 127
    w, sc = kernel.spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
    m = 0
    for r in range(REELS):
        if q[r] >= BASE_BLOCKERS:
            m += 1
    return w, init_sc, sc, m


@njit(cache=True)
def _paid_boards(rng, n, strips, lens, packed, pay, cap, sums, trans):
    """Boards only (stops drawn per round, no multiplier draws).

    ``sums``: [sum W, sum W*P0, sum W*m/2, sum (W*P0)^2, sum (W*m/2)^2, sum W*P0*W*m/2, hits]
    (W in coins; P0 = P(no chosen lane among the m revealed columns)).
    ``trans[i, j]``: rounds with initial scatters i and final scatters j."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    for _ in range(n):
        w, init_sc, sc, m = play_board(rng, strips, lens, packed, pay, stops, board, q, counts, work)
        trans[init_sc, sc] += 1
        if w > 0:
            p0 = 0.0
            if m <= REELS - BASE_LANES:
                p0 = 1.0
                for j in range(BASE_LANES):
                    p0 *= (REELS - m - j) / (REELS - j)
            x = w * p0
            y = w * m / 2.0
            sums[0] += w
            sums[1] += x
            sums[2] += y
            sums[3] += x * x
            sums[4] += y * y
            sums[5] += x * y
            sums[6] += 1


@njit(cache=True)
def _features(st, n, spins0, strips, lens, packed, pay, values, free_cum, cap, lazy, out):
    """``n`` features of ``spins0`` initial spins, boards and values played, drawn from the PCG64 state ``st``
    stepped inline (the values :func:`reelforge.mechanics.rng.draw` gives on the same stream, faster).
    ``lazy`` False: every spin draws its six values before its stops, the kernel's order (the tuning sample
    plays the kernel's features draw for draw); True: after its cascades, only the revealed lanes' values,
    in column order (the values are independent of the boards, so the features' law is the same; a lane never
    revealed is never drawn: 1.6 -> 1.1 us a 10-spin feature).

    Per feature: A = sum W_t over spins with nothing revealed, B = sum W_t * C_t
    over spins with a reveal (C_t = revealed lanes so far), the actual win with the
    drawn values uncapped (U) and capped at ``cap`` (K). ``out`` accumulates
    [A, B, A^2, B^2, AB, U-K, (U-K)^2, A(U-K), B(U-K), K, K^2, spins, caps, hits]."""
    stops, board, q, counts, work, _, vals, _ = kernel.make_bufs()
    for _ in range(n):
        a = 0.0
        b = 0.0
        c = 0
        m_tot = 0
        u = 0
        k = 0
        capped = False
        left = spins0
        played = 0
        while left > 0:
            for r in range(REELS):
                stops[r] = draw_pcg(st, lens[r])
            if not lazy:
                for r in range(REELS):
                    vals[r] = kernel.value_of(draw_pcg(st, free_cum[free_cum.shape[0] - 1]), values, free_cum)
            w, sc = kernel.spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
            s = 0
            mr = 0
            if w > 0:
                for r in range(REELS):
                    if q[r] >= FREE_BLOCKERS:
                        if lazy:
                            vals[r] = kernel.value_of(draw_pcg(st, free_cum[free_cum.shape[0] - 1]), values, free_cum)
                        s += vals[r]
                        mr += 1
            if mr > 0:
                c += mr
                b += w * c
                m_tot += s
                win = w * m_tot
            else:
                a += w
                win = w
            u += win
            if not capped:
                if k + win >= cap:
                    k = cap
                    capped = True
                else:
                    k += win
            played += 1
            left -= 1
            if sc >= RETRIGGER_SCATTERS:
                left += RETRIGGER_SPINS
        d = float(u - k)
        out[0] += a
        out[1] += b
        out[2] += a * a
        out[3] += b * b
        out[4] += a * b
        out[5] += d
        out[6] += d * d
        out[7] += a * d
        out[8] += b * d
        out[9] += k
        out[10] += float(k) * k
        out[11] += played
        out[12] += 1 if capped else 0
        out[13] += 1 if k > 0 else 0


PAID_CHUNK = 1 << 22
FEATURE_CHUNK = 1 << 15


def board_arrays(build: Build) -> tuple:
    A = build.arrays
    return A["strips"], A["lens"], A["packed"], A["pay"]


def _features_chunk(rng, n, *args) -> None:
    """:func:`_features` on the chunk's stream."""
    _features(pcg_state(rng), n, *args)


def feature_sums(build: Build, spins: int, n: int, seed, workers: int | None, log: bool,
                 lazy: bool = False) -> np.ndarray:
    """Accumulated :func:`_features` sums of ``n`` features of ``spins`` initial spins (chunked, parallel);
    ``lazy``: only the revealed lanes' values drawn (:func:`_features`)."""
    A = build.arrays
    (out,) = chunked_sums(_features_chunk, n, seed, (spins, *board_arrays(build), A["values"], A["free_cum"],
                                                build.cap_units, lazy), [((14,), np.float64)], FEATURE_CHUNK, workers,
                          f"{spins}-spin features", log)
    return out


def paid_coefficients(build: Build, n: int, seed: int, workers: int | None = None, log: bool = False) -> dict:
    """Estimate E[W*P0] and E[W*m/2] (x bet) and the scatter transitions from ``n`` boards."""
    sums, trans = chunked_sums(_paid_boards, n, seed, (*board_arrays(build), build.cap_units),
                               [((7,), np.float64), ((7, 13), np.int64)], PAID_CHUNK, workers, "boards", log)
    u = float(COINS_PER_BET)
    return {"n": n, "W": sums[0] / n / u, "a": sums[1] / n / u, "b": sums[2] / n / u,
            "sxx": sums[3] / n / u**2, "syy": sums[4] / n / u**2, "sxy": sums[5] / n / u**2,
            "hits_init": sums[6] / n, "trans": trans}


def feature_coefficients(build: Build, spins: int, n: int, seed: int, workers: int | None = None,
                         log: bool = False) -> dict:
    """Estimate A, B (x bet) of ``E[F] = A + B mu_free`` for features of ``spins`` initial spins."""
    out = feature_sums(build, spins, n, seed, workers, log)
    u = float(COINS_PER_BET)
    return {"n": n, "A": out[0] / n / u, "B": out[1] / n / u, "AA": out[2] / n / u**2, "BB": out[3] / n / u**2,
            "AB": out[4] / n / u**2, "D": out[5] / n / u, "DD": out[6] / n / u**2, "AD": out[7] / n / u**2,
            "BD": out[8] / n / u**2, "K": out[9] / n / u, "KK": out[10] / n / u**2,
            "spins": out[11] / n, "caps": int(out[12]), "hits": out[13] / n}


def spins_for(scatters: int) -> int:
    """Free spins a paid spin with ``scatters`` (>= 3) scatters awards."""
    return FREE_SPINS_AWARD + FREE_SPINS_PER_EXTRA_SCATTER * (scatters - TRIGGER_SCATTERS)


def final_scatter_distribution(exact: dict[str, float], trans: np.ndarray) -> dict[int, float]:
    """P(final scatters = j) for j >= 3: exact initial distribution, cascade transitions
    post-stratified from the simulated ``trans[initial, final]`` counts."""
    p_init = {i: exact.get(f"scatters_ge_{i}", 1.0 if i == 0 else 0.0) - exact.get(f"scatters_ge_{i + 1}", 0.0)
              for i in range(0, 7)}
    out: dict[int, float] = {}
    for i, pi in p_init.items():
        row = trans[i]
        if row.sum() == 0:
            if i >= TRIGGER_SCATTERS and pi > 0:
                out[i] = out.get(i, 0.0) + pi    # never observed: no cascade estimate, keep it where it is
            continue
        for j in range(max(i, TRIGGER_SCATTERS), trans.shape[1]):
            if row[j]:
                out[j] = out.get(j, 0.0) + pi * row[j] / row.sum()
    return out


def sample_coefficients(strips: list[str], paid_n: int, feature_n: int, seed: int, workers: int | None = None,
                        log_progress: bool = False) -> dict:
    """Everything the weight tuning needs from simulation, independent of the weights (JSON-able):
    exact initial-board figures, paid-spin coefficients, final scatter classes and the feature
    coefficients ``A_k, B_k`` per initial spin count ``k``."""
    ex = initial_board_probabilities(strips)
    probe = probe_build(strips)
    paid = paid_coefficients(probe, paid_n, seed, workers, log_progress)
    final = final_scatter_distribution(ex, paid["trans"])
    trig = sum(final.values())
    features: dict[int, dict] = {}
    for j, pj in sorted(final.items()):
        k = spins_for(j)
        n = max(20_000, int(feature_n * pj / trig))
        features[k] = {**feature_coefficients(probe, k, n, seed + k, workers, log_progress), "p": pj}
    if 10 not in features:
        features[10] = {**feature_coefficients(probe, 10, feature_n, seed + 10, workers, log_progress), "p": 0.0}
    paid["trans"] = paid["trans"].tolist()
    return {"settings": f"paid_n={paid_n} feature_n={feature_n} seed={seed}", "strips": list(strips),
            "exact": ex, "paid": paid, "final_scatters": {str(j): p for j, p in final.items()},
            "features": {str(k): v for k, v in features.items()}}


def save_sample(path: Path, smp: dict) -> Path:
    """Keep a tuning sample (coefficients, not boards: a few kB) as one sample file (.npz)."""
    return Sample(GAME_ID, KIND, settings={"description": smp["settings"]}, values=smp).save(path)


def _legacy_json(path: Path, arrays: dict | None) -> Sample:
    """The earlier kept tuning sample: the coefficients as one JSON object."""
    if arrays is not None:
        raise SampleError(f"{path}: not a sample file of this format (no {META} entry)")
    try:
        values = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SampleError(f"{path}: not a sample file: {exc}") from exc
    return Sample(game=GAME_ID, kind=KIND, settings={"description": values.get("settings", "")}, values=values)


def load_sample(path: Path | None) -> dict | None:
    """A kept tuning sample, or None when ``path`` is None or missing (also reads the earlier .json)."""
    if path is None or not Path(path).exists():
        return None
    return Sample.load(Path(path), GAME_ID, KIND, _legacy_json).values
