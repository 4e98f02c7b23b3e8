"""Gemstones Gold: where the paid boards' variance sits, and what each alternative to the estimator's
importance sampling of the reel stops would give (docs/maths.md, "what pays").

    python bench/gg_variance.py                    # 4e6 uniform boards, 2e6 single free spins, 2e5 features
    python bench/gg_variance.py --boards 1e6       # quicker, noisier

A paid board's score is its expected win given the board, the multiplier reel integrated exactly (what the
estimator sums): a deterministic function of the six reel stops. One pilot of uniform boards gives each
alternative's variance per board; every model (stop classes, proposals) is fitted on the first half of the
pilot and its variance measured on the second half, so no figure is flattered by fitting the noise:

* the all-lanes boards: their share of the paid RTP and of the variance, and the variance left if their
  probability were known exactly and the boards drawn on either side of it (Neyman's allocation);
* per-reel stop classes: the share of the variance the six stops explain one reel at a time (first-order
  ANOVA): what Latin-hypercube or stratified stops per reel, or any per-reel class, can remove at most;
* stratification with exact stratum probabilities (a product over the reels) and Neyman's allocation: on
  the first board's winning columns, and on the number of reels stopped on one of their hottest stops;
* product-form proposals: the shipped one against the best product over reels (fitted coordinate by
  coordinate), and one where each reel's stop depends on the previous reel's zone;
* the features split into single free spins (means combined through the retrigger chain) against
  whole features, as variance x CPU seconds (measured).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from reelforge.games.gemstones_gold import kernel
from reelforge.games.gemstones_gold.board import _reel_windows
from reelforge.games.gemstones_gold.build import (
    COINS_PER_BET,
    FREE_BLOCKERS,
    MIN_COUNT,
    N_PAYING,
    REELS,
    RETRIGGER_SCATTERS,
    RETRIGGER_SPINS,
    load_build,
)
from reelforge.games.gemstones_gold.sampling import board_arrays, feature_sums, play_board
from reelforge.games.gemstones_gold.stratified import DEFENSIVE, TILT, _board_score, _moments
from reelforge.mechanics.rng import draw_pcg, pcg_state


@njit(cache=True)
def _uniform_boards(rng, n, strips, lens, packed, pay, mu, var_v, stops_out, score, lanes):
    """``n`` uniform boards: their stops, score (coins) and columns whose lane would be revealed."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    for i in range(n):
        w, _, _, m = play_board(rng, strips, lens, packed, pay, stops, board, q, counts, work)
        z = 0.0
        if w > 0:
            z, _ = _board_score(w, m, mu, var_v)
        for r in range(REELS):
            stops_out[i, r] = stops[r]
        score[i] = z
        lanes[i] = m


@njit(cache=True)
def _replay(strips, lens, packed, pay, stop_rows) -> int:
    """Play the boards of ``stop_rows`` (their cascades only): what a board costs, timed by the caller."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    total = 0
    for i in range(stop_rows.shape[0]):
        for r in range(REELS):
            stops[r] = stop_rows[i, r]
        w, _ = kernel.spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
        total += w
    return total


def board_ns(build, stop_rows: np.ndarray) -> float:
    """CPU nanoseconds a board of ``stop_rows`` takes on average (the best of three passes)."""
    arrays = board_arrays(build)
    _replay(*arrays, stop_rows[:10])
    best = float("inf")
    for _ in range(3):
        t = time.process_time()
        _replay(*arrays, stop_rows)
        best = min(best, time.process_time() - t)
    return best / len(stop_rows) * 1e9


def _draw(q: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` stop vectors from the product proposal ``q[r, stop]``."""
    return np.column_stack([rng.choice(q.shape[1], n, p=q[r] / q[r].sum()) for r in range(q.shape[0])])


@njit(cache=True)
def _free_spins(st, n, strips, lens, packed, pay, out):
    """``n`` single free spins: [win with nothing revealed, win with a reveal, lanes revealed, retrigger]."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    for i in range(n):
        for r in range(REELS):
            stops[r] = draw_pcg(st, lens[r])
        w, sc = kernel.spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
        m = 0
        if w > 0:
            for r in range(REELS):
                if q[r] >= FREE_BLOCKERS:
                    m += 1
        out[i, 0] = w if m == 0 else 0
        out[i, 1] = w if m > 0 else 0
        out[i, 2] = m
        out[i, 3] = 1.0 if sc >= RETRIGGER_SCATTERS else 0.0


def split_feature_value(means: np.ndarray, spins: int, mu: float) -> float:
    """E[feature win | boards] (x bet, uncapped) of a ``spins``-spin feature from single free spins' means
    [a, b, r, g, b r, r g] (a: win with nothing revealed, b: with a reveal, r: lanes revealed, g: retrigger).

    The spins are independent and a spin's outcome is independent of whether it is played, so with N the
    spins played and C_t the lanes revealed before spin t, E[F] = E[N] (E[a] + mu E[b r]) + mu E[b] E[sum C_t];
    E[N] = k e, e = 1 / (1 - s g) (s spins a retrigger awards), and E[sum C_t] = e (E[r] (H - E[N]) + s E[r g]
    E[N]), H = E[sum of the spins left before each spin] = alpha k^2 + beta k from the chain's recursion."""
    a, b, r, g, br, rg = means
    s = RETRIGGER_SPINS
    e = 1 / (1 - s * g)
    n = spins * e
    alpha = 1 / (2 - 2 * s * g)
    beta = alpha * (1 + (s * s - 2 * s) * g) / (1 - s * g)
    h = alpha * spins**2 + beta * spins
    return n * a + mu * (br * n + b * e * (r * (h - n) + s * rg * n))


def _weights(stops: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Likelihood ratios uniform / proposal of boards under a product proposal ``q[r, stop]``."""
    n = q.shape[1]
    return np.exp(sum(np.log(1 / n / q[r][stops[:, r]]) for r in range(stops.shape[1])))


def _lean(m2: np.ndarray, power: float, defensive: float) -> np.ndarray:
    lean = m2**power
    return defensive / m2.size + (1 - defensive) * lean / lean.sum()


def _neyman(build, cls: np.ndarray, z: np.ndarray, stops: np.ndarray) -> tuple[float, float]:
    """(variance x CPU ns, CPU ns a board) of the stratified estimate with exact stratum probabilities and
    Neyman's allocation by cost (uniform draws inside each stratum, n_c ~ P_c sd_c / sqrt(ns_c)):
    (sum_c P_c sd_c sqrt(ns_c))^2."""
    root, boards, spent = 0.0, 0.0, 0.0
    for c in np.unique(cls):
        sel = cls == c
        ns = board_ns(build, stops[sel][:400_000])
        root += sel.mean() * z[sel].std() * ns**0.5
        boards += sel.mean() * z[sel].std() / ns**0.5
        spent += sel.mean() * z[sel].std() * ns**0.5
    return root**2, spent / boards


def paid_alternatives(build, boards: int, seed: int) -> list[tuple[str, float, float]]:
    """(what, variance per board in bet^2, CPU ns a board) of each alternative, from ``boards`` uniform boards
    (models fitted on the first half, variances on the second; costs from replaying boards as each draws them)."""
    mu, var_v = _moments(build.base_weights, build.values)
    stops = np.zeros((boards, REELS), np.int16)
    z = np.zeros(boards)
    m = np.zeros(boards, np.int8)
    _uniform_boards(np.random.default_rng(seed), boards, *board_arrays(build), mu, var_v, stops, z, m)
    z /= COINS_PER_BET
    stops = stops.astype(np.int64)
    width = int(build.arrays["lens"].max())
    half = boards // 2
    fit, test = slice(0, half), slice(half, boards)
    zt, st, sf = z[test], stops[test], stops[fit]
    rng = np.random.default_rng(seed + 1)
    uniform_ns = board_ns(build, st[:400_000])
    rows = [("uniform stops (plain boards)", float(zt.var()), uniform_ns)]

    def neyman(what: str, cls: np.ndarray) -> None:
        product, ns = _neyman(build, cls, zt, st)
        rows.append((what, product / ns, ns))

    all_lanes = m[test] == REELS
    print(f"all six lanes revealed: {all_lanes.mean():.4%} of boards, {zt[all_lanes].sum() / zt.sum():.3f} of the "
          f"paid RTP {zt.mean():.4f}, {(zt[all_lanes] ** 2).sum() / (zt ** 2).sum():.3f} of its second moment")
    neyman("all-lanes probability exact, boards drawn on each side (Neyman; not computable)", all_lanes.astype(int))
    for name, y, y_fit in (("score", zt, z[fit]), ("all-lanes indicator", all_lanes.astype(float),
                                                     (m[fit] == REELS).astype(float))):
        share = 0.0
        for r in range(REELS):
            means = np.bincount(sf[:, r], y_fit, width) / np.maximum(np.bincount(sf[:, r], None, width), 1)
            share += 1 - ((y - means[st[:, r]]) ** 2).mean() / ((y - y.mean()) ** 2).mean()
        print(f"{name}: the six stops one reel at a time explain {share:.1%} of its variance")
        if name == "score":
            rows.append(("per-reel classes / Latin hypercube (bound: the first-order share removed)",
                         float(zt.var()) * (1 - share), uniform_ns))
    windows = np.array(_reel_windows(build.strips))
    counts = sum(windows[r][st[:, r]] for r in range(REELS))
    winning = counts[:, :N_PAYING] >= MIN_COUNT
    covered = sum(((windows[r][st[:, r]][:, :N_PAYING] > 0) & winning).any(1).astype(int) for r in range(REELS))
    neyman("first board's winning columns, 7 strata (exact probabilities), Neyman", covered)
    m2 = np.array([np.bincount(sf[:, r], z[fit] ** 2, width) / np.maximum(np.bincount(sf[:, r], None, width), 1)
                   for r in range(REELS)])
    shipped = np.array([_lean(m2[r], TILT, DEFENSIVE) for r in range(REELS)])
    w = _weights(st, shipped)
    shipped_ns = board_ns(build, _draw(shipped, 400_000, rng))
    rows.append(("shipped proposal (tilt 0.75, 30% uniform)", float((w * zt**2).mean() - zt.mean() ** 2), shipped_ns))
    for hot in (20, 45):
        is_hot = np.zeros((REELS, width), bool)
        for r in range(REELS):
            is_hot[r, np.argsort(-m2[r])[:hot]] = True
        cls = sum(is_hot[r][st[:, r]].astype(int) for r in range(REELS))
        neyman(f"reels on one of their {hot} hottest stops, 7 strata (exact), Neyman", cls)
        means = np.array([zt[cls == c].mean() if (cls == c).any() else 0.0 for c in range(REELS + 1)])
        rows.append(("  the same strata, the shipped proposal inside (post-stratified)",
                     float((w * (zt - means[cls]) ** 2).mean()), shipped_ns))
    best = np.full((REELS, width), 1.0 / width)
    for _ in range(4):  # each reel's best factor given the others' (converges in 3)
        for r in range(REELS):
            others = np.exp(sum(np.log(1 / width / best[s][sf[:, s]]) for s in range(REELS) if s != r))
            cond = np.bincount(sf[:, r], z[fit] ** 2 * others, width) / np.maximum(np.bincount(sf[:, r], None, width), 1)
            best[r] = _lean(cond, 0.5, 0.1)
    rows.append(("best product proposal (fitted reel by reel, 10% uniform)",
                 float((_weights(st, best) * zt**2).mean() - zt.mean() ** 2), board_ns(build, _draw(best, 400_000, rng))))
    zones = 6
    chain = np.log(1 / width / shipped[0][st[:, 0]])
    for r in range(1, REELS):
        prev = sf[:, r - 1] * zones // width
        table = np.zeros((zones, width))
        for k in range(zones):
            sel = prev == k
            table[k] = _lean(np.bincount(sf[sel, r], z[fit][sel] ** 2, width)
                             / np.maximum(np.bincount(sf[sel, r], None, width), 1), TILT, DEFENSIVE)
        chain += np.log(1 / width / table[st[:, r - 1] * zones // width, st[:, r]])
    rows.append(("each reel's proposal given the previous reel's zone (6 zones; cost not measured)",
                 float((np.exp(chain) * zt**2).mean() - zt.mean() ** 2), shipped_ns))
    return rows


def feature_alternatives(build, spins_n: int, features_n: int, seed: int) -> list[tuple[str, float, float]]:
    """(what, variance of one unit, CPU seconds of one unit) for 10-spin features: whole features against the
    single free spins of :func:`split_feature_value` (the delta method's variance per spin)."""
    mu, _ = _moments(build.free_weights, build.values)
    out = np.zeros((spins_n, 4))
    st = pcg_state(np.random.default_rng(seed))
    _free_spins(st, 1000, *board_arrays(build), out)  # compile before the clock
    t = time.process_time()
    _free_spins(st, spins_n, *board_arrays(build), out)
    c_spin = (time.process_time() - t) / spins_n
    out[:, :2] /= COINS_PER_BET
    a, b, r, g = out.T
    y = np.column_stack([a, b, r, g, b * r, r * g])
    means, cov = y.mean(0), np.cov(y.T)
    grad = np.array([(split_feature_value(means + d, 10, mu) - split_feature_value(means - d, 10, mu)) / 2e-7
                     for d in np.eye(6) * 1e-7])
    rows = []
    u = float(COINS_PER_BET)
    for lazy, what in ((False, "whole 10-spin features, six values drawn a spin (the kernel's order)"),
                       (True, "whole 10-spin features, only the revealed lanes' values drawn (the estimator's)")):
        feature_sums(build, 10, 1000, seed, 1, False, lazy)
        t = time.process_time()
        s = feature_sums(build, 10, features_n, seed, 1, False, lazy)
        c_feature = (time.process_time() - t) / features_n
        mean = (s[0] + mu * s[1]) / u / features_n
        m2 = (s[2] + mu**2 * s[3] + 2 * mu * s[4]) / u**2 / features_n
        print(f"10-spin feature, E[win | boards] uncapped: {what}: {mean:.3f}x")
        rows.append((what, m2 - mean**2, c_feature))
    print(f"single free spins: {split_feature_value(means, 10, mu):.3f}x")
    return [*rows, ("single free spins (means combined through the retrigger chain)", float(grad @ cov @ grad),
                    c_spin)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="96.71")
    ap.add_argument("--boards", type=float, default=4e6)
    ap.add_argument("--spins", type=float, default=2e6)
    ap.add_argument("--features", type=float, default=2e5)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    build = load_build(args.build)
    rows = paid_alternatives(build, int(args.boards), args.seed)
    plain = rows[0][1] * rows[0][2]
    print("\n| paid boards | variance per board (bet^2) | CPU ns a board | variance x CPU ns | x uniform |\n"
          "|---|---|---|---|---|")
    for what, v, ns in rows:
        print(f"| {what} | {v:.2f} | {ns:.0f} | {v * ns:,.0f} | {plain / (v * ns):.2f} |")
    feats = feature_alternatives(build, int(args.spins), int(args.features), args.seed)
    print("\n| features | variance of one | CPU us of one | variance x CPU us |\n|---|---|---|---|")
    for what, v, c in feats:
        print(f"| {what} | {v:.4g} | {c * 1e6:.3f} | {v * c * 1e6:,.0f} |")


if __name__ == "__main__":
    main()
