"""The Gemstones Gold stratified estimator (:class:`GemstonesGoldEstimator`): every published figure
with its 99% interval from an independent stratified simulation of one build (``verify``).

Strata: (1) paid spins, boards simulated and the multiplier reel integrated exactly per board
(Rao-Blackwell over lanes and values); (2) the trigger: exact initial-board scatter distribution
(:mod:`.board`) times simulated cascade transitions (post-stratified); (3) features of each initial
spin count simulated with their values drawn, each feature scored by E[win | boards] minus its
simulated cap excess. A sample (kind ``verify``) is made for one build's strips and weights.
"""

from __future__ import annotations

import functools
import hashlib
import math

import numpy as np
from numba import njit

from reelforge.core.calibration import chunked_sums
from reelforge.core.stats import Z99
from reelforge.game.contract import StratifiedEstimate
from reelforge.game.estimation import Sample, StratifiedEstimator
from reelforge.games.gemstones_gold import kernel
from reelforge.games.gemstones_gold.board import initial_board_probabilities
from reelforge.games.gemstones_gold.build import COINS_PER_BET, GAME_ID, Build
from reelforge.games.gemstones_gold.sampling import (
    PAID_CHUNK,
    board_arrays,
    feature_sums,
    final_scatter_distribution,
    play_board,
    spins_for,
)

KIND = "verify"


@njit(cache=True)
def _comb(n: int, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    out = 1.0
    for i in range(k):
        out = out * (n - i) / (i + 1)
    return out


@njit(cache=True)
def _paid_verify(rng, n, strips, lens, packed, pay, mu, var_v, sums, trans):
    """Paid spins, conditional on the board (Rao-Blackwell over lanes and values).

    Per board, z = E[paid-spin win | board] = W (P(k=0) + mu E[k]) with k ~ hypergeometric
    (3 lanes among 6 columns, m revealable columns); z2 = E[win^2 | board]
    = W^2 (P(k=0) + sum_k P(k) (k var + k^2 mu^2)). ``sums``: [z, z^2, z2, hits, near-cap boards]."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    for _ in range(n):
        w, init_sc, sc, m = play_board(rng, strips, lens, packed, pay, stops, board, q, counts, work)
        trans[init_sc, sc] += 1
        if w > 0:
            e1 = 0.0
            e2 = 0.0
            for k in range(4):
                pk = _comb(m, k) * _comb(6 - m, 3 - k) / 20.0
                if k == 0:
                    e1 += pk
                    e2 += pk
                else:
                    e1 += pk * mu * k
                    e2 += pk * (k * var_v + k * k * mu * mu)
            z = w * e1
            sums[0] += z
            sums[1] += z * z
            sums[2] += float(w) * w * e2
            sums[3] += 1
            if m > 0 and w * 500 * m >= 150000:
                sums[4] += 1


def _moments(weights: tuple[int, ...], values: tuple[int, ...]) -> tuple[float, float]:
    v = np.array(values, dtype=float)
    w = np.array(weights, dtype=float) / sum(weights)
    mu = float((v * w).sum())
    return mu, float((v * v * w).sum() - mu * mu)


def build_design(build: Build) -> dict:
    """What a verify sample depends on: the strips (by digest) and the multiplier values and weights."""
    strips = hashlib.sha256("\n".join(build.strips).encode()).hexdigest()
    return {"strips_sha256": strips, "values": list(build.values), "base_weights": list(build.base_weights),
            "free_weights": list(build.free_weights)}


@functools.lru_cache(maxsize=4)
def _initial(strips: tuple[str, ...]) -> dict[str, float]:
    """The exact initial-board probabilities of ``strips``, computed once per process (every piece of a
    certification run needs them)."""
    return initial_board_probabilities(list(strips))


def verify_sample(build: Build, paid_n: int = 100_000_000, feature_n: int = 2_000_000, seed: int = 31337,
                  exact: dict[str, float] | None = None, workers: int | None = None, log: bool = False) -> Sample:
    """Every published figure with its 99% interval, from a stratified simulation.

    Strata: (1) paid spins, boards simulated and the multiplier reel integrated exactly per
    board; (2) the trigger: exact initial-board scatter distribution times simulated cascade
    transitions (post-stratified); (3) features of each initial spin count simulated with their
    values drawn, each feature scored by E[win | boards] minus its simulated cap excess
    (unbiased, low variance). Hit rate = exact P(initial win) + P(no win, 3+ scatters) x P(feature wins).
    The cross term between a trigger round's paid spin and its feature (cap sharing) is neglected
    in the second moment; the cap itself is applied per feature from 0 (the paid part of a
    trigger round is at most a few x bet)."""
    ex = exact or _initial(tuple(build.strips))
    mu_b, var_b = _moments(build.base_weights, build.values)
    sums, trans = chunked_sums(_paid_verify, paid_n, [seed, 0], (*board_arrays(build), mu_b, var_b),
                               [((5,), np.float64), ((7, 13), np.int64)], PAID_CHUNK, workers, "boards", log)
    final = final_scatter_distribution(ex, trans)
    trig = sum(final.values())
    arrays = {"paid_sums": sums, "trans": trans}
    counts = {}
    for j, pj in sorted(final.items()):
        k = spins_for(j)
        n = max(20_000, int(feature_n * pj / trig))
        arrays[f"features_{k}"] = feature_sums(build, k, n, [seed, k], workers, log)
        counts[str(k)] = n
    settings = {"build": build.name, "build_design": build_design(build), "paid_boards": paid_n,
                "features": feature_n, "seed": seed}
    return Sample(GAME_ID, KIND, settings=settings, values={"exact": ex, "feature_counts": counts}, arrays=arrays)


def verify_estimate(sample: Sample, build: Build) -> dict:
    """Every published figure of ``build`` with its 99% interval, from a :func:`verify_sample` of it."""
    made_for = sample.settings.get("build_design")
    if made_for != build_design(build):
        raise ValueError(f"this sample was simulated for build {sample.settings.get('build')!r}'s strips and "
                         f"multiplier weights, not {build.name!r}'s: simulate one for it")
    ex = sample.values["exact"]
    paid_n = int(sample.settings["paid_boards"])
    sums, trans = sample.arrays["paid_sums"], sample.arrays["trans"]
    mu_f, _ = _moments(build.free_weights, build.values)
    u = float(COINS_PER_BET)
    paid = sums[0] / paid_n / u
    paid_var = (sums[1] / paid_n / u**2 - paid**2) / paid_n
    paid_m2 = sums[2] / paid_n / u**2
    final = final_scatter_distribution(ex, trans)
    trig = sum(final.values())
    feats: dict[int, dict] = {}
    fs = fs_var = fs_m2 = cap_p = trig_hit = trig_hit_var = 0.0
    for j, pj in sorted(final.items()):
        k = spins_for(j)
        out = sample.arrays[f"features_{k}"]
        n = int(sample.values["feature_counts"][str(k)])
        # per-feature score Z = A + mu B - D (x bet); moments from the accumulated sums
        a, b, d = out[0] / u, out[1] / u, out[5] / u
        aa, bb, ab, dd, ad, bd = out[2] / u**2, out[3] / u**2, out[4] / u**2, out[6] / u**2, out[7] / u**2, out[8] / u**2
        mean_z = (a + mu_f * b - d) / n
        m2_z = (aa + mu_f**2 * bb + dd + 2 * mu_f * ab - 2 * ad - 2 * mu_f * bd) / n
        var_z = (m2_z - mean_z**2) / n
        kk = out[10] / u**2 / n
        feats[k] = {"p": pj, "n": n, "mean_x": mean_z, "sd_score": math.sqrt(max(m2_z - mean_z**2, 0)),
                    "caps": int(out[12]), "hits": out[13] / n, "spins": out[11] / n,
                    "mean_plain_x": out[9] / u / n}
        fs += pj * mean_z
        fs_var += pj**2 * var_z
        fs_m2 += pj * kk
        cap_p += pj * out[12] / n
        trig_hit += pj * out[13] / n
        trig_hit_var += pj**2 * (out[13] / n) * (1 - out[13] / n) / n  # each feature's own chance to win
    # variance of the trigger probabilities (post-stratified multinomial), weighted by feature means
    p_init = {i: ex.get(f"scatters_ge_{i}", 1.0 if i == 0 else 0.0) - ex.get(f"scatters_ge_{i + 1}", 0.0)
              for i in range(7)}
    trig_var = 0.0
    for i, pi in p_init.items():
        row = trans[i]
        ni = row.sum()
        if ni < 2:
            continue
        mj = np.array([feats[spins_for(j)]["mean_x"] if j >= 3 and spins_for(j) in feats else 0.0
                       for j in range(row.shape[0])])
        pij = row / ni
        fs_var += pi**2 * (float((mj**2 * pij).sum()) - float((mj * pij).sum()) ** 2) / ni
        ind = (np.arange(row.shape[0]) >= 3).astype(float)
        trig_var += pi**2 * (float((ind * pij).sum()) * (1 - float((ind * pij).sum()))) / ni
        hj = np.array([feats[spins_for(j)]["hits"] if j >= 3 and spins_for(j) in feats else 0.0
                       for j in range(row.shape[0])])
        trig_hit_var += pi**2 * (float((hj**2 * pij).sum()) - float((hj * pij).sum()) ** 2) / ni
    rtp = paid + fs
    rtp_hw = Z99 * math.sqrt(paid_var + fs_var)
    f10 = feats.get(10)
    p_feature_hit = f10["hits"] if f10 else 1.0
    hit = ex["win"] + ex["nowin_trigger"] * p_feature_hit
    hit_hw = Z99 * ex["nowin_trigger"] * math.sqrt(p_feature_hit * (1 - p_feature_hit) / f10["n"]) if f10 else 0.0
    m2 = paid_m2 + fs_m2
    sd = math.sqrt(max(m2 - rtp**2, 0.0))
    price = float(build.feature_buy_price_x)
    buy = {"price_x": str(build.feature_buy_price_x), "rtp": f10["mean_x"] / price if f10 else None,
           "rtp_ci99": [(f10["mean_x"] - Z99 * f10["sd_score"] / math.sqrt(f10["n"])) / price,
                        (f10["mean_x"] + Z99 * f10["sd_score"] / math.sqrt(f10["n"])) / price] if f10 else None,
           "features": f10["n"] if f10 else 0}
    return {
        "paid_boards": paid_n, "feature_counts": {k: v["n"] for k, v in feats.items()},
        "rtp": rtp, "rtp_ci99": [rtp - rtp_hw, rtp + rtp_hw],
        "rtp_paid": paid, "rtp_paid_ci99": [paid - Z99 * math.sqrt(paid_var), paid + Z99 * math.sqrt(paid_var)],
        "rtp_free": fs, "rtp_free_ci99": [fs - Z99 * math.sqrt(fs_var), fs + Z99 * math.sqrt(fs_var)],
        "hit_rate": hit, "hit_rate_ci99": [hit - hit_hw, hit + hit_hw],
        "trigger_rate": trig, "trigger_rate_ci99": [trig - Z99 * math.sqrt(trig_var), trig + Z99 * math.sqrt(trig_var)],
        # the no-trigger share is the hit rate less the trigger share: its half-width the sum of theirs (a bound)
        "hit_split": {"trigger_with_win": trig_hit, "win_without_trigger": hit - trig_hit,
                      "trigger_with_win_ci99": [trig_hit - Z99 * math.sqrt(trig_hit_var),
                                                trig_hit + Z99 * math.sqrt(trig_hit_var)],
                      "win_without_trigger_ci99": [hit - trig_hit - hit_hw - Z99 * math.sqrt(trig_hit_var),
                                                   hit - trig_hit + hit_hw + Z99 * math.sqrt(trig_hit_var)]},
        "sd": sd, "cap_probability": cap_p, "caps_observed": {k: v["caps"] for k, v in feats.items()},
        "paid_boards_that_could_cap": int(sums[4]),
        "feature_buy": buy, "features": feats, "exact_initial": ex,
    }


def verify(build: Build, paid_n: int = 100_000_000, feature_n: int = 2_000_000, seed: int = 31337,
           exact: dict[str, float] | None = None, workers: int | None = None, log: bool = False) -> dict:
    """:func:`verify_sample` and :func:`verify_estimate` in one: the published-figure report."""
    return verify_estimate(verify_sample(build, paid_n, feature_n, seed, exact, workers, log), build)


def estimate_of(report: dict, seed: int) -> StratifiedEstimate:
    """A :func:`verify_estimate` report in the common shape (what only this game has under ``extra``)."""
    common = ("paid_boards", "rtp", "rtp_ci99", "rtp_paid", "rtp_paid_ci99", "rtp_free", "rtp_free_ci99",
              "hit_rate", "hit_rate_ci99", "trigger_rate", "trigger_rate_ci99", "sd", "cap_probability",
              "feature_buy", "hit_split")
    return StratifiedEstimate(
        rounds=report["paid_boards"], feature_rounds=sum(report["feature_counts"].values()), seed=seed,
        rtp=report["rtp"], rtp_ci99=tuple(report["rtp_ci99"]),
        rtp_split={"paid_spins": report["rtp_paid"], "free_spins": report["rtp_free"]},
        rtp_split_ci99={"paid_spins": tuple(report["rtp_paid_ci99"]), "free_spins": tuple(report["rtp_free_ci99"])},
        feature_rate=report["trigger_rate"], feature_rate_ci99=tuple(report["trigger_rate_ci99"]),
        sd=report["sd"], hit_rate=report["hit_rate"], hit_rate_ci99=tuple(report["hit_rate_ci99"]),
        max_win_probability=report["cap_probability"], feature_buy=report["feature_buy"],
        extra={"hit_rate_split": report["hit_split"], **{k: v for k, v in report.items() if k not in common}})


class GemstonesGoldEstimator(StratifiedEstimator):
    """Paid boards with the multiplier reel integrated exactly, features per spin count, exact
    trigger probabilities: a sample is made for one build's strips and weights."""

    game = GAME_ID
    kind = KIND

    def feature_rounds(self, rounds: int) -> int:
        """rounds // 60 features, at least 100,000."""
        return max(rounds // 60, 100_000)

    def sample(self, build: Build, rounds: int, feature_rounds: int, seed: int, workers: int | None = None,
               log: bool = False) -> Sample:
        return verify_sample(build, rounds, feature_rounds, seed, workers=workers, log=log)

    def estimate(self, sample: Sample, build: Build) -> StratifiedEstimate:
        return estimate_of(verify_estimate(sample, build), int(sample.settings["seed"]))

    def merge(self, first: Sample, second: Sample) -> Sample:
        """:func:`merge_samples`."""
        return merge_samples(first, second)


def merge_samples(first: Sample, second: Sample) -> Sample:
    """Two verify samples of one build design as one: every array and count is a sum (the exact
    initial-board probabilities are the build's, the same in both); ``seeds`` lists both."""
    a, b = first.settings, second.settings
    if a.get("build_design") != b.get("build_design") or first.values["exact"] != second.values["exact"]:
        raise ValueError("verify samples of different builds cannot be merged")
    seeds = [*a.get("seeds", [a["seed"]]), *b.get("seeds", [b["seed"]])]
    settings = {**a, "paid_boards": int(a["paid_boards"]) + int(b["paid_boards"]),
                "features": int(a["features"]) + int(b["features"]), "seeds": seeds}
    # a small sample may lack the features of a rare scatter count: those strata are the other's alone
    fa, fb = first.values["feature_counts"], second.values["feature_counts"]
    counts = {k: int(fa.get(k, 0)) + int(fb.get(k, 0)) for k in sorted({*fa, *fb}, key=int)}
    arrays = {k: (first.arrays[k] + second.arrays[k]) if k in first.arrays and k in second.arrays
              else (first.arrays.get(k, second.arrays.get(k))).copy()
              for k in sorted({*first.arrays, *second.arrays})}
    return Sample(GAME_ID, KIND, settings=settings, values={"exact": first.values["exact"], "feature_counts": counts},
                  arrays=arrays)
