"""The Gemstones Gold stratified estimator (:class:`GemstonesGoldEstimator`): every published figure
with its 99% interval from an independent stratified simulation of one build (``verify``).

Strata: (1) paid spins, boards simulated and the multiplier reel integrated exactly per board
(Rao-Blackwell over lanes and values), the reel stops drawn by importance sampling (each reel leaning
to the stops where the paid win's variance sits, every board weighted by its likelihood ratio); (2) the
trigger: exact initial-board scatter distribution (:mod:`.board`) times simulated cascade transitions
(post-stratified, weighted ratios); (3) features of each initial
spin count simulated with the revealed lanes' values drawn, each feature scored by E[win | boards] minus its
simulated cap excess. A sample (kind ``verify``) is made for one build's strips and weights.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math

import numpy as np
from numba import njit

from reelforge.core.calibration import chunked_sums
from reelforge.core.stats import Z99
from reelforge.game.estimation import Sample, StratifiedEstimator
from reelforge.game.results import StratifiedEstimate
from reelforge.game.rtp_estimators import StratifiedRtp
from reelforge.games.gemstones_gold import kernel
from reelforge.games.gemstones_gold.board import initial_board_probabilities
from reelforge.games.gemstones_gold.build import (
    BASE_BLOCKERS,
    COINS_PER_BET,
    GAME_ID,
    REELS,
    ROWS,
    TRIGGER_SCATTERS,
    Build,
)
from reelforge.games.gemstones_gold.sampling import (
    PAID_CHUNK,
    board_arrays,
    feature_sums,
    final_scatter_distribution,
    play_board,
    spins_for,
)
from reelforge.mechanics.rng import draw_pcg, pcg_state

KIND = "verify"
PAID_SAMPLING = "importance: reel stops from the build's proposal, weighted"
"""How a sample's paid boards were drawn (a sample drawn otherwise is refused)."""


@njit(cache=True)
def _comb(n: int, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    out = 1.0
    for i in range(k):
        out = out * (n - i) / (i + 1)
    return out


@njit(cache=True, inline="always")
def _board_score(w, m, mu, var_v):
    """E[paid-spin win | board] and E[win^2 | board] (coins) for a board with unmultiplied win ``w`` and
    ``m`` columns that reveal their lane: the lanes are 3 of the 6 columns (hypergeometric k revealed),
    the values independent with mean ``mu`` and variance ``var_v``."""
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
    return w * e1, float(w) * w * e2


@njit(cache=True)
def _stop_second_moments(rng, n, strips, lens, packed, pay, mu, var_v, feature, s2, seen):
    """Uniform boards: ``s2[r, stop]`` sums the square of a board's score over boards with reel r at
    ``stop`` (``seen`` counts them): where the paid boards' variance sits, reel by reel (the proposal's
    pilot). The score: E[paid win | board], plus ``feature`` (coins, a feature's rough value) where the
    cascades brought the third scatter (the initial board's scatters are exact: no variance there)."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    for _ in range(n):
        w, init_sc, sc, m = play_board(rng, strips, lens, packed, pay, stops, board, q, counts, work)
        z = 0.0
        if w > 0:
            z, _ = _board_score(w, m, mu, var_v)
        if init_sc < TRIGGER_SCATTERS <= sc:
            z += feature
        for r in range(REELS):
            s2[r, stops[r]] += z * z
            seen[r, stops[r]] += 1


@njit(cache=True)
def _paid_importance(st, n, strips, lens, packed, pay, mu, var_v, lookup, ratio, sums, trans, trans2, z_final):
    """Paid spins, conditional on the board (Rao-Blackwell over lanes and values), the reel stops drawn
    from the proposal (``lookup[r]``: a uniform draw over its length gives reel r's stop) and each board
    weighted by its likelihood ratio ``prod ratio[r, stop]`` (uniform over proposal probability).

    ``sums``: [sum wt z, sum (wt z)^2, sum wt z2, sum wt over winning boards, near-cap boards drawn
    (a count of the proposal's boards, unweighted)]
    (z = E[win | board], z2 = E[win^2 | board], coins); ``trans[i, j]`` / ``trans2[i, j]``: the sums
    of wt / wt^2 over boards with initial scatters i and final scatters j; ``z_final[j]``: the sum of wt z over
    boards with final scatters j (the paid win of a triggering board, for the round's second moment: its cross
    term with the feature)."""
    stops, board, q, counts, work, _, _, _ = kernel.make_bufs()
    t = lookup.shape[1]
    for _ in range(n):
        wt = 1.0
        init_sc = 0
        for r in range(REELS):
            s = lookup[r, draw_pcg(st, t)]
            stops[r] = s
            wt *= ratio[r, s]
            init_sc += (packed[r, s] >> 56) & 127
        w, sc = kernel.spin_core(strips, lens, packed, pay, stops, board, q, counts, work)
        trans[init_sc, sc] += wt
        trans2[init_sc, sc] += wt * wt
        if w > 0:
            m = 0
            for r in range(REELS):
                if q[r] >= BASE_BLOCKERS:
                    m += 1
            z, z2 = _board_score(w, m, mu, var_v)
            sums[0] += wt * z
            sums[1] += (wt * z) ** 2
            sums[2] += wt * z2
            sums[3] += wt
            z_final[sc] += wt * z
            if m > 0 and w * 500 * m >= 150000:
                sums[4] += 1


def _paid_chunk(rng, n, *args) -> None:
    """:func:`_paid_importance` on the chunk's PCG64 stream (the kernels' inline generator)."""
    st = pcg_state(rng)
    _paid_importance(st, n, *args)


PROPOSAL_DRAW = 1 << 12
"""A reel's proposal is drawn as a uniform integer below this, looked up in its table (small: it stays
in cache, a 2**16 table cost 40 ns a board)."""
PROPOSAL_PILOT = 4_000_000
"""Uniform boards the proposal is fitted on (fixed seed: the proposal is a function of the build)."""
PROPOSAL_SEED = 20261205
TILT = 0.75
"""The proposal leans to ``E[z^2 | stop]^TILT``: 1/2 would be each reel's own optimum, 1 the joint
one if the reels' shares multiplied; 0.75 measured best (variance 23.8 -> 12.5 per board)."""
DEFENSIVE = 0.3
"""The share of the uniform stops kept in the proposal: bounds every weight by 1/0.3 per reel."""


_PROPOSALS: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def paid_proposal(build: Build) -> tuple[np.ndarray, np.ndarray]:
    """The paid boards' reel-stop proposal for ``build``: (lookup tables, likelihood ratios), fitted once
    per process on :data:`PROPOSAL_PILOT` uniform boards. Each reel's stops lean to where the paid
    win's square sits (the stops that bring the stacks into view and feed long cascade chains)."""
    key = json.dumps(build_design(build), sort_keys=True)
    if key not in _PROPOSALS:
        _PROPOSALS[key] = _fit_proposal(build)
    return _PROPOSALS[key]


def _fit_proposal(build: Build) -> tuple[np.ndarray, np.ndarray]:
    mu, var_v = _moments(build.base_weights, build.values)
    arrays = board_arrays(build)
    lens = build.arrays["lens"]
    width = int(lens.max())
    # the Feature Buy price is close to a 10-spin feature's value: enough to say where triggers sit
    feature = float(build.feature_buy_price_x) * COINS_PER_BET
    s2, seen = chunked_sums(_stop_second_moments, PROPOSAL_PILOT, PROPOSAL_SEED, (*arrays, mu, var_v, feature),
                           [((REELS, width), np.float64), ((REELS, width), np.int64)], PAID_CHUNK, 1)
    lookup = np.zeros((REELS, PROPOSAL_DRAW), dtype=np.int16)
    ratio = np.zeros((REELS, width), dtype=np.float64)
    for r in range(REELS):
        n = int(lens[r])
        lean = (s2[r, :n] / np.maximum(seen[r, :n], 1)) ** TILT
        share = DEFENSIVE / n + (1 - DEFENSIVE) * lean / lean.sum() if lean.sum() > 0 else np.full(n, 1.0 / n)
        # integer weights summing to PROPOSAL_DRAW, each at least 1 (every stop stays reachable)
        counts = np.maximum(np.floor(share * PROPOSAL_DRAW).astype(np.int64), 1)
        counts[int(np.argmax(counts))] += PROPOSAL_DRAW - int(counts.sum())
        lookup[r] = np.repeat(np.arange(n), counts)
        ratio[r, :n] = PROPOSAL_DRAW / (n * counts)
    return lookup, ratio


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


SCATTER_CLASSES = (7, REELS * ROWS + 1)
"""Initial scatters (at most one a reel), final scatters (scatters never explode: up to every cell)."""


def paid_sample(build: Build, n: int, seed: int, workers: int | None = None, log: bool = False) -> dict[str, np.ndarray]:
    """The paid boards' weighted sums (:func:`_paid_importance`) of ``n`` boards: ``paid_sums``, ``trans``,
    ``trans2``, ``paid_by_final_scatters`` (the same for any worker count)."""
    mu_b, var_b = _moments(build.base_weights, build.values)
    lookup, ratio = paid_proposal(build)
    sums, trans, trans2, z_final = chunked_sums(
        _paid_chunk, n, [seed, 0], (*board_arrays(build), mu_b, var_b, lookup, ratio),
        [((5,), np.float64), (SCATTER_CLASSES, np.float64), (SCATTER_CLASSES, np.float64),
         ((SCATTER_CLASSES[1],), np.float64)], PAID_CHUNK, workers, "boards", log)
    return {"paid_sums": sums, "trans": trans, "trans2": trans2, PAID_BY_FINAL: z_final}


PAID_BY_FINAL = "paid_by_final_scatters"
"""A sample's sums of the weighted paid win by final scatter count (samples drawn before it lack them: their SD
leaves out the paid spin's cross term with the feature, a lower bound)."""


def initial_scatter_classes(ex: dict[str, float]) -> dict[int, float]:
    """P(initial scatters = i), i = 0..6, from the exact ``scatters_ge_i``."""
    return {i: ex.get(f"scatters_ge_{i}", 1.0 if i == 0 else 0.0) - ex.get(f"scatters_ge_{i + 1}", 0.0)
            for i in range(SCATTER_CLASSES[0])}


def transition_variance(ex: dict[str, float], trans: np.ndarray, trans2: np.ndarray, f: np.ndarray) -> float:
    """The variance of sum_i P(initial i) sum_j f_j P(final j | initial i), each row a ratio of weighted sums
    (P(final j | initial i) = T_ij / T_i): by the delta method sum_j T2_ij (f_j - mean_i)^2 / T_i^2, T2 the
    sums of squared weights."""
    out = 0.0
    for i, pi in initial_scatter_classes(ex).items():
        row, row2 = trans[i], trans2[i]
        ni = row.sum()
        if ni > 0:
            out += pi**2 * float((row2 * (f - float((f * row).sum()) / ni) ** 2).sum()) / ni**2
    return out


def paid_figures(arrays: dict[str, np.ndarray], n: int, ex: dict[str, float]) -> dict[str, float]:
    """The paid spins' RTP (x bet, with its variance and the second moment of the paid win) and the
    trigger rate (with its variance) from :func:`paid_sample` sums of ``n`` boards."""
    sums, trans, trans2 = arrays["paid_sums"], arrays["trans"], arrays["trans2"]
    u = float(COINS_PER_BET)
    paid = sums[0] / n / u
    trig = sum(final_scatter_distribution(ex, trans).values())
    triggers = (np.arange(trans.shape[1]) >= TRIGGER_SCATTERS).astype(float)
    return {"paid": paid, "paid_var": (sums[1] / n / u**2 - paid**2) / n, "paid_m2": sums[2] / n / u**2,
            "trigger": trig, "trigger_var": transition_variance(ex, trans, trans2, triggers)}


def verify_sample(build: Build, paid_n: int = 100_000_000, feature_n: int = 2_000_000, seed: int = 31337,
                  exact: dict[str, float] | None = None, workers: int | None = None, log: bool = False) -> Sample:
    """Every published figure with its 99% interval, from a stratified simulation.

    Strata: (1) paid spins, boards simulated and the multiplier reel integrated exactly per
    board, the stops drawn from :func:`paid_proposal` and weighted; (2) the trigger: exact initial-board
    scatter distribution times simulated cascade transitions (post-stratified); (3) features of each
    initial spin count simulated with the revealed lanes' values drawn, each feature scored by E[win | boards] minus its
    simulated cap excess
    (unbiased, low variance). Hit rate = exact P(initial win) + P(no win, 3+ scatters) x P(feature wins).
    The second moment has the cross term of a trigger round's paid spin and its feature (E[P F], the paid win by
    final scatter class times its feature mean); the cap coupling them is neglected there, and the cap itself is
    applied per feature from 0."""
    ex = exact or _initial(tuple(build.strips))
    arrays = paid_sample(build, paid_n, seed, workers, log)
    final = final_scatter_distribution(ex, arrays["trans"])
    trig = sum(final.values())
    counts = {}
    for j, pj in sorted(final.items()):
        k = spins_for(j)
        n = max(20_000, int(feature_n * pj / trig))
        arrays[f"features_{k}"] = feature_sums(build, k, n, [seed, k], workers, log, lazy=True)
        counts[str(k)] = n
    settings = {"build": build.name, "build_design": build_design(build), "paid_sampling": PAID_SAMPLING,
                "paid_boards": paid_n, "features": feature_n, "seed": seed}
    return Sample(GAME_ID, KIND, settings=settings, values={"exact": ex, "feature_counts": counts}, arrays=arrays)


DESIGN_WORDS = {"strips_sha256": "reel strips", "values": "multiplier values",
                "base_weights": "base-game multiplier weights", "free_weights": "free-spin multiplier weights"}


def _mismatch(made_for_name: str | None, made_for: dict, build: Build) -> str:
    """Why a kept sample does not fit ``build``: which parts of the design differ, in words (a sample of an
    earlier design of the same build named so, not as two builds of one name)."""
    now = build_design(build)
    parts = ", ".join(w for k, w in DESIGN_WORDS.items() if made_for.get(k) != now[k]) or "design"
    if made_for_name == build.name:
        return (f"this sample was simulated for an earlier design of build {build.name}: its {parts} differ now; "
                "simulate a sample for the build as it is")
    return (f"this sample was simulated for build {made_for_name}, not {build.name}: their {parts} differ; simulate "
            f"a sample for build {build.name}")


def verify_estimate(sample: Sample, build: Build) -> dict:
    """Every published figure of ``build`` with its 99% interval, from a :func:`verify_sample` of it."""
    made_for = sample.settings.get("build_design")
    if made_for != build_design(build):
        raise ValueError(_mismatch(sample.settings.get("build"), made_for or {}, build))
    if sample.settings.get("paid_sampling") != PAID_SAMPLING:
        raise ValueError("this sample's paid boards were drawn by an earlier estimator (uniform reel stops, "
                         "unweighted): simulate a new one")
    ex = sample.values["exact"]
    paid_n = int(sample.settings["paid_boards"])
    sums, trans = sample.arrays["paid_sums"], sample.arrays["trans"]
    mu_f, _ = _moments(build.free_weights, build.values)
    u = float(COINS_PER_BET)
    pf = paid_figures(sample.arrays, paid_n, ex)
    paid, paid_var, paid_m2, trig, trig_var = (pf[k] for k in ("paid", "paid_var", "paid_m2", "trigger", "trigger_var"))
    final = final_scatter_distribution(ex, trans)
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
    # the trigger classes' probabilities are simulated (post-stratified on the exact initial scatters)
    means = np.array([feats[spins_for(j)]["mean_x"] if j >= TRIGGER_SCATTERS and spins_for(j) in feats else 0.0
                      for j in range(trans.shape[1])])
    fs_var += transition_variance(ex, trans, sample.arrays["trans2"], means)
    hits = np.array([feats[spins_for(j)]["hits"] if j >= TRIGGER_SCATTERS and spins_for(j) in feats else 0.0
                     for j in range(trans.shape[1])])
    trig_hit_var += transition_variance(ex, trans, sample.arrays["trans2"], hits)
    rtp = paid + fs
    rtp_hw = Z99 * math.sqrt(paid_var + fs_var)
    f10 = feats.get(10)
    p_feature_hit = f10["hits"] if f10 else 1.0
    hit = ex["win"] + ex["nowin_trigger"] * p_feature_hit
    hit_hw = Z99 * ex["nowin_trigger"] * math.sqrt(p_feature_hit * (1 - p_feature_hit) / f10["n"]) if f10 else 0.0
    # a triggering round's paid win P and feature win F: E[X^2] = E[P^2] + E[F^2] + 2 E[P F], and given the board
    # the feature's win does not depend on the paid spin's (its multiplier values stay in the paid spin), so
    # E[P F] = sum_j E[P; final scatters j] x the mean feature of class j (the cap coupling them neglected)
    by_final = sample.arrays.get(PAID_BY_FINAL)
    cross = float((by_final / paid_n / u * means).sum()) if by_final is not None else 0.0
    m2 = paid_m2 + fs_m2 + 2 * cross
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
        "sd": sd, "sd_is_lower_bound": by_final is None, "paid_feature_cross_x2": cross,
        "cap_probability": cap_p, "caps_observed": {k: v["caps"] for k, v in feats.items()},
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
              "hit_rate", "hit_rate_ci99", "trigger_rate", "trigger_rate_ci99", "sd", "sd_is_lower_bound", "cap_probability",
              "feature_buy", "hit_split")
    return StratifiedEstimate(
        rounds=report["paid_boards"], feature_rounds=sum(report["feature_counts"].values()), seed=seed,
        rtp=report["rtp"], rtp_ci99=tuple(report["rtp_ci99"]),
        rtp_split={"paid_spins": report["rtp_paid"], "free_spins": report["rtp_free"]},
        rtp_split_ci99={"paid_spins": tuple(report["rtp_paid_ci99"]), "free_spins": tuple(report["rtp_free_ci99"])},
        feature_rate=report["trigger_rate"], feature_rate_ci99=tuple(report["trigger_rate_ci99"]),
        sd=report["sd"], sd_is_lower_bound=report["sd_is_lower_bound"], hit_rate=report["hit_rate"], hit_rate_ci99=tuple(report["hit_rate_ci99"]),
        max_win_probability=report["cap_probability"], feature_buy=report["feature_buy"],
        extra={"hit_rate_split": report["hit_split"], **{k: v for k, v in report.items() if k not in common}})


class GemstonesGoldEstimator(StratifiedEstimator):
    """Paid boards with the multiplier reel integrated exactly, features per spin count, exact
    trigger probabilities: a sample is made for one build's strips and weights."""

    game = GAME_ID
    kind = KIND
    description = ("stratified with importance-sampled reel stops: paid boards alone, each reel's stop drawn from a "
                   "proposal leaning to where the paid win's variance sits and every board weighted by its likelihood "
                   "ratio, the multiplier reel integrated exactly per board; the trigger from the exact scatter "
                   "distribution of the first board and the cascades' simulated transitions; features simulated "
                   "apart, per spin count, only the revealed lanes' values drawn")

    efficiency_vs_plain = {"ratio": 4.42, "how": "1 / (99% half-width^2 x CPU seconds) of this estimator against "
                           "plain simulation of whole rounds, build 96.71, 1e8 paid rounds each, seed 21, one worker: "
                           "`reelforge simulate gemstones-gold --build 96.71 --estimator plain|best --rounds 1e8 "
                           "--seed 21 --workers 1 --json` (docs/performance.md)"}
    """Measured, not derived (the figure the certification package quotes)."""

    def feature_rounds(self, rounds: int) -> int:
        """rounds // 17 features: Neyman's allocation, features per paid board =
        P(trigger) x SD(feature) / SD(board) x sqrt(CPU per board / CPU per feature)
        = 0.00503 x 123 / 3.9 x sqrt(150 ns / 1.1 us) = 1/17 (measured on 96.71, the board's SD with its
        cascade triggers, the feature drawing only its revealed values; :func:`verify_sample` gives
        every trigger class at least 20,000)."""
        return rounds // 17

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
    if (PAID_BY_FINAL in first.arrays) != (PAID_BY_FINAL in second.arrays):  # a sum over the boards of one only
        del arrays[PAID_BY_FINAL]
    return Sample(GAME_ID, KIND, settings=settings, values={"exact": first.values["exact"], "feature_counts": counts},
                  arrays=arrays)


class GemstonesGoldRtp(StratifiedRtp):
    """:class:`GemstonesGoldEstimator` behind the estimator interface (``simulate --estimator best``, ``certify``)."""

    description = ("stratified with importance sampling: paid boards with the reel stops drawn from a proposal leaning "
                   "to the long cascade chains and cascade triggers, each weighted by its likelihood ratio, the "
                   "multiplier reel integrated exactly per board; the trigger post-stratified on the exact initial "
                   "scatters; features of each spin count simulated apart, valued given their boards (Neyman's "
                   "allocation: a feature for every 17 paid boards)")
