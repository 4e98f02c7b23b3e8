"""The figures of a certification package, from its merged tallies (:mod:`reelforge.analysis.certify`).

:func:`figures_of` is a pure function of the tallies, the build and the plan: ``figures.json`` holds
its result and ``reelforge certify --verify`` recomputes it. Beside the Game Rules Summary it gives
what a test lab checks: the measured-vs-target table (the game's targets with their source named),
the convergence checkpoints, the top award's odds with a usable estimate, the volatility index, RTP
by bet level with rounding to cents, the game cycle, and the per-feature breakdowns.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.analysis.figures import sd_interval_words
from reelforge.analysis.summary import exact_summary, simulation_summary, stratified_summary_of
from reelforge.core.stats import Z99, clopper_pearson, never_observed_upper99, volatility_level, volatility_levels
from reelforge.game.contract import Build, Game
from reelforge.game.estimation import Sample
from reelforge.game.reporting import DESIGN_DOCUMENT, SOURCE_DESIGN, CertificationTarget

Z90, Z95 = 1.6448536269514722, 1.959963984540054
"""Normal quantiles of the volatility index's 90% and 95% confidence."""


# -- targets (GAMES.md), each with its source -----------------------------------------------------------
def targets(game: Game, build: Build, mode: str) -> list[dict[str, Any]]:
    """The targets of ``build`` (the game's :meth:`~reelforge.game.reporting.Reporting.certification_targets`, GAMES.md's
    for the shipped games; their tolerances are ours where the source gives none)."""
    if mode == "buy":
        return [asdict(CertificationTarget("Feature Buy RTP (per unit of price)", "rtp", float(Fraction(build.rtp)),
                                           0.005, SOURCE_DESIGN, note="within 0.5 pp of the build's RTP",
                                           document=f"{DESIGN_DOCUMENT}: a Feature Buy's own RTP within 0.5 pp of "
                                                    "the build's RTP"))]
    return [asdict(t) for t in game.report().certification_targets(build)]


def require_targets(game: Game, build: Build, mode: str) -> None:
    """Refuse a certification without targets, or with a target that cites no document (one line, why)."""
    from reelforge.analysis.certify import CertifyError

    found = targets(game, build, mode)
    if not found:
        raise CertifyError(f"no certification targets for {game.id} build {build.name} ({mode} rounds): a package "
                           "measures the build against targets cited from the rules or a declared design document")
    uncited = [t["figure"] for t in found if not t.get("document")]
    if uncited:
        raise CertifyError(f"certification target(s) of {game.id} build {build.name} cite no document: "
                           + ", ".join(uncited))


def _lookup(s: dict[str, Any], key: str) -> tuple[Any, Any]:
    """A summary figure and its 99% interval by dotted key (``rtp_split.paid_spins``)."""
    if "." in key:
        top, sub = key.split(".")
        if top not in s:  # a part of a figure the game keeps under extra, its interval beside it (hit_rate_split)
            part = (s.get("extra") or {}).get(top) or {}
            return part.get(sub), part.get(f"{sub}_ci99")
        return (s.get(top) or {}).get(sub), ((s.get(f"{top}_ci99") or {}).get(sub))
    return s.get(key), s.get(f"{key}_ci99")


def target_rows(tlist: list[dict[str, Any]], s: dict[str, Any], top: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target measured: value, interval, pass/fail and why. One rule for every target, in every mode: a
    ranged target passes only when the whole 99% interval lies inside target +- tolerance (an exact figure:
    when the value does), a volatility level only when every level its SD's 99% interval touches meets it; a
    simulated figure without an interval cannot pass (nothing to judge it by)."""
    rows = []
    exact = s["method"] == "exact"
    for t in tlist:
        row = dict(t)
        if t["kind"] == "reachable":
            rounds, feats = top.get("observed_count") or 0, top.get("simulated_features_at_cap") or 0
            # reachable: observed in a sample, or shown (the exact distribution's largest outcome, a constructed round)
            found = s.get("max_win") or {}
            shown = found.get("method") in ("exact", "constructed round") and Fraction(found["x"]) == s["max_win_x"]
            reached = rounds > 0 or feats > 0 or shown
            verdict = "; ".join(v for v in (f"{rounds:,} simulated round(s) reached it" if rounds else "",
                                            f"{feats:,} simulated feature(s) reached it" if feats else "",
                                            f"shown: {found['text']}" if shown else "") if v)
            row.update(value=top.get("statement"), ci99=None, passed=reached, status="pass" if reached else "undecided",
                       verdict=verdict or "undecided: not observed in the samples (nor shown by a constructed round)")
            rows.append(row)
            continue
        value, ci = _lookup(s, t["key"])
        if t["kind"] in ("equal", "at_least"):
            row.update(_level_verdict(t, value, s, exact))
            rows.append(row)
            continue
        row.update(_band_verdict(value, None if exact else ci, exact, t["target"] - t["tolerance"],
                                 t["target"] + t["tolerance"]))
        rows.append(row)
    return rows


STATUS_WORDS = {"pass": "PASS", "fail": "FAIL", "undecided": "UNDECIDED"}
"""A target row's status in the report: passed, failed (the whole interval, or the exact value, misses the
target) or undecided (the interval straddles the band's edge, or the figure has no interval: not a pass)."""


def _level_verdict(t: dict[str, Any], value: Any, s: dict[str, Any], exact: bool) -> dict[str, Any]:
    """A volatility-level target: the same rule as a band, on the levels the SD's 99% interval spans (every one
    must meet the target to pass; none meeting it fails)."""
    levels = [value] if exact else [lv for lv in (s.get("volatility_levels_ci99") or []) if lv is not None]
    meets = [lv == t["target"] if t["kind"] == "equal" else lv >= t["target"] for lv in levels]
    if exact:
        return {"value": value, "ci99": None, "passed": all(meets), "status": "pass" if all(meets) else "fail",
                "verdict": f"level {value} (exact SD)"}
    if not levels:
        return {"value": value, "ci99": None, "passed": False, "status": "undecided",
                "verdict": f"level {value}; undecided: the SD has no 99% interval, so the level cannot be judged"}
    how = s.get("sd_interval_method") or sd_interval_words(s)
    spans = f"level {value}; the SD's 99% interval ({how}) spans level{'s' if len(levels) > 1 else ''} " + \
        ", ".join(map(str, levels))
    if all(meets):
        return {"value": value, "ci99": levels, "passed": True, "status": "pass", "verdict": spans + ": all meet it"}
    if not any(meets):
        return {"value": value, "ci99": levels, "passed": False, "status": "fail", "verdict": spans + ": none meets it"}
    return {"value": value, "ci99": levels, "passed": False, "status": "undecided",
            "verdict": f"undecided: {spans}, not all of which meet it"}


def _band_verdict(value: float | None, ci: list[float] | None, exact: bool, lo_band: float,
                  hi_band: float) -> dict[str, Any]:
    """A ranged target's value, interval, pass/fail and why (see :func:`target_rows`)."""
    if value is None:
        return {"value": None, "ci99": None, "passed": False, "status": "undecided", "verdict": "not measured"}
    if exact:
        ok = lo_band <= value <= hi_band
        return {"value": value, "ci99": None, "passed": ok, "status": "pass" if ok else "fail",
                "verdict": "exact value " + ("inside" if ok else "outside") + " the band"}
    if not ci:
        return {"value": value, "ci99": None, "passed": False, "status": "undecided",
                "verdict": "no 99% interval for this simulated figure: it cannot be judged"}
    inside = lo_band <= ci[0] and ci[1] <= hi_band
    missed = ci[1] < lo_band or ci[0] > hi_band
    out_by = max(lo_band - ci[0], ci[1] - hi_band, 0.0) * 100
    where = "inside" if lo_band <= value <= hi_band else "outside"
    return {"value": value, "ci99": list(ci), "passed": inside,
            "status": "pass" if inside else "fail" if missed else "undecided",
            "verdict": "99% interval inside the band" if inside else
            ("the whole 99% interval lies outside the band" if missed else "undecided: ")
            + ("" if inside or missed else
               f"the 99% interval reaches {out_by:.4f} pp outside the band (the estimate is {where} it)")}


# -- the top award ---------------------------------------------------------------------------------------
def top_award(game: Game, s: dict[str, Any], sample: dict[str, Any] | None) -> dict[str, Any]:
    """The maximum win's odds: exact; else the stratified estimate with its interval where the estimator
    gives one; else the plain sample's count with the exact binomial interval, or (nothing observed,
    nothing better) the rule-of-three bound, said so."""
    cap = game.max_win_x
    plain = sample if sample is not None else (s if s["method"] == "simulation" else None)
    observed = {"observed_count": plain["max_win_count"], "observed_rounds": plain["rounds"]} if plain else {}
    if s["method"] == "exact":
        p = s["max_win_probability"]
        return {"method": "exact", "estimate": p, "ci99": None, "one_in": 1 / p if p else None,
                "statement": f"{cap:,}x: exact probability per round {p:.4g} (1 in {1 / p:,.0f})", **observed}
    extra = s.get("extra") or {}
    if s["method"] == "stratified" and s.get("max_win_probability"):
        p = s["max_win_probability"]
        ci = extra.get("cap_probability_ci99") or _cap_ci_of_awards(extra)
        caps = extra.get("features_reaching_cap_alone")
        if caps is None and extra.get("caps_observed"):
            caps = sum(int(v) for v in extra["caps_observed"].values())
        observed["simulated_features_at_cap"] = caps
        how = ("stratified: the features that reach the cap, simulated apart, times the exact or estimated "
               "probability of their trigger")
        if extra.get("paid_spins_reaching_cap_alone"):
            observed["simulated_paid_spins_at_cap"] = extra["paid_spins_reaching_cap_alone"]
            how += (", plus the paid spins that reach it alone (their share of the paid-spin sample, exact binomial "
                    "interval)")
        return {"method": "stratified", "estimate": p, "ci99": ci, "one_in": 1 / p,
                "statement": f"{cap:,}x: {p:.4g} per paid round (1 in {1 / p:,.0f})", "how": how, **observed}
    n, count = plain["rounds"], plain["max_win_count"]
    what = "bought features" if s.get("mode") == "buy" else "rounds"
    per = "per purchase" if s.get("mode") == "buy" else "per round"
    if count:
        lo, hi = plain.get("max_win_probability_ci99") or clopper_pearson(count, n)
        return {"method": "observed", "estimate": count / n, "ci99": [lo, hi], "one_in": n / count,
                "statement": f"{cap:,}x: {count:,} of {n:,} {what} (1 in {n / count:,.0f})",
                "how": "count in the plain sample, exact binomial interval", **observed}
    bound = never_observed_upper99(n)
    return {"method": "bound", "estimate": 0.0, "ci99": [0.0, bound], "one_in": None,
            "statement": f"{cap:,}x not observed in {n:,} {what}: below {bound:.3g} {per} at 99% "
                         f"(one-sided bound -ln(0.01)/N; no better estimate exists for this game and mode)",
            "how": "one-sided 99% upper bound of a count of zero", **observed}


def _cap_ci_of_awards(extra: dict[str, Any]) -> list[float] | None:
    """A stratified cap probability sum_k P(k) caps_k / n_k over feature awards k (an estimate whose
    ``extra["features"]`` gives each award's ``p``, ``caps`` and ``n``): a normal interval on its binomial
    parts (Wilson-like floor at zero)."""
    feats = extra.get("features") or {}
    if not feats:
        return None
    point = var = 0.0
    for f in feats.values():
        q = f["caps"] / f["n"]
        point += f["p"] * q
        var += f["p"] ** 2 * max(q * (1 - q), 1 / f["n"]) / f["n"]
    half = Z99 * math.sqrt(var)
    return [max(point - half, 0.0), point + half]


# -- volatility, bet levels, game cycle --------------------------------------------------------------------
def volatility(s: dict[str, Any], sample: dict[str, Any] | None, price_x: float = 1.0) -> dict[str, Any]:
    """The volatility index VI = z x SD (z for 90% and 95% confidence) with the SD's 99% interval; per unit
    of the stake (the total bet, or a Feature Buy's price ``price_x``)."""
    sd = s["sd"] / price_x
    ci = s.get("sd_ci99")
    # one SD and its own interval: never another sample's interval beside this estimate
    source = sd_interval_words(s)
    source = f"simulation ({source})" if s["method"] == "simulation" else source
    ci = [v / price_x for v in ci] if ci else None
    out = {"sd": sd, "sd_ci99": ci, "sd_source": source, "sd_is_lower_bound": bool(s.get("sd_is_lower_bound")),
           "per": "total bet" if price_x == 1 else "unit of price",
           "level": volatility_level(sd) if price_x == 1 else None}
    for name, z in (("vi90", Z90), ("vi95", Z95)):
        out[name] = z * sd
        out[f"{name}_ci99"] = [z * ci[0], z * ci[1]] if ci else None
    return out


def bet_levels(game: Game, build: Build, s: dict[str, Any], price_x: float = 1.0) -> list[dict[str, Any]]:
    """RTP at each total bet of the ladder (and the reference stakes), paid in whole cents: where a win
    unit is a whole number of cents every win is exact and the RTP is the build's; otherwise each
    winning round's win is rounded down to the cent, costing less than one cent per winning round. A
    Feature Buy (``price_x``: its price in total bets) stakes the price: the loss is per cent of the price."""
    unit = game.win_unit(build)
    ladder = game.report().bet_ladder_cents
    stakes = sorted({*ladder, *(round(x * 100) for x in game.reference_stakes)})
    hit = s.get("hit_rate") or 0.0
    rows = []
    for cents in stakes:
        exact = cents % unit == 0
        loss = 0.0 if exact else hit * 1 / (cents * price_x)  # < one cent per winning round, per cent staked
        rows.append({"bet_cents": cents, "cents_per_win_unit": str(Fraction(cents, unit)), "exact_cents": exact,
                     "rtp": s["rtp"], "rtp_low": s["rtp"] - loss, "on_ladder": cents in ladder})
    return rows


def game_cycle(game: Game, build: Build) -> dict[str, Any]:
    """The game cycle where it can be enumerated, or why not (the game's words)."""
    return game.report().game_cycle(build)


# -- per-feature breakdowns ----------------------------------------------------------------------------------
def feature_breakdown(game: Game, build: Build, s: dict[str, Any], sample: dict[str, Any] | None) -> dict[str, Any]:
    """Each feature award's frequency, mean win and share of RTP (``{"title", "columns", "rows", "note"}``),
    where the game gives one."""
    return game.report().feature_breakdown(build, s)


# -- the Feature Buy sheet -----------------------------------------------------------------------------------
def feature_buy_sheet(game: Game, build: Build, s: dict[str, Any]) -> dict[str, Any]:
    """A bought feature's figures per unit of its price (every bought round is a feature: no frequency)."""
    price = float(game.stake_x(build, "buy"))
    sd_ci = s.get("sd_ci99") or [None, None]
    return {
        "price_x": str(game.stake_x(build, "buy")), "features": s["rounds"],
        "rtp": s["rtp"], "rtp_ci99": s["rtp_ci99"],
        "mean_win_x": s["rtp"] * price, "mean_win_x_ci99": [v * price for v in s["rtp_ci99"]],
        "sd_per_price": s["sd"] / price, "sd_per_price_ci99": [v / price if v is not None else None for v in sd_ci],
        "distribution_per_price": [{**d, "from_price": d["from"] / price, "to_price": d["to"] / price}
                                   for d in s["distribution"]],
    }


# -- all figures ---------------------------------------------------------------------------------------------
def figures_of(game: Game, build: Build, plan: Any, main: Sample | None, sample: Sample | None,
               points: dict[str, list], main_pieces: list[dict], sample_pieces: list[dict],
               sd_interval: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every figure of a certification package (see the module docstring); a pure function of its inputs.
    ``sd_interval``: the stratified SD's interval from the main stream's pieces
    (:func:`reelforge.analysis.certify_figures.piece_sd_interval`), the estimator giving none."""
    from reelforge.analysis.certify import sample_accumulator

    sample_s = None
    if sample is not None:
        sample_s = simulation_summary(game, build, sample_accumulator(sample), "paid", plan.seed)
        sample_s["sample"]["description"] = (f"{sample_s['rounds']:,} simulated rounds (fast kernel) in "
                                             f"{len(sample_pieces)} seeded pieces")
        sample_s["seed"] = None
    if plan.estimator == "exact":
        s = exact_summary(game, build)
    elif plan.estimator == "stratified":
        est = game.stratified_estimator().estimate(main, build)
        s = stratified_summary_of(game, build, est, None)
        s["extra"].update(game.report().stratified_details(build, main))
        s["sample"]["description"] = (f"stratified estimate: {est.rounds:,} paid spins + {est.feature_rounds:,} "
                                      f"features simulated apart, in {len(main_pieces)} seeded pieces")
        if sd_interval is not None:
            _piece_sd_interval(s, sd_interval)
    else:
        s = simulation_summary(game, build, sample_accumulator(main), plan.mode, None)
        s["sample"]["description"] = (f"{s['rounds']:,} simulated {'bought features' if plan.mode == 'buy' else 'rounds'} "
                                      f"(fast kernel) in {len(main_pieces)} seeded pieces")
    s.pop("seconds", None)
    s["estimator"] = {"used": plan.estimator}
    if plan.estimator == "stratified" and sample_s is not None:
        _from_plain_sample(s, sample_s)
    top = top_award(game, s, sample_s)
    if top["method"] == "stratified" and top.get("ci99"):  # the summary shows the same interval as the section
        s["max_win_probability_ci99"] = top["ci99"]
    h = None if plan.estimator == "exact" else (s["rtp_ci99"][1] - s["rtp_ci99"][0]) / 2 * 100
    out = {
        "game": game.id, "build": build.name, "mode": plan.mode, "estimator": plan.estimator,
        "precision_requested_pp": plan.precision_pp, "precision_reached_pp": h,
        "precision_met": True if h is None else bool(h <= plan.precision_pp),
        "seed": plan.seed, "summary": s, "sample_summary": sample_s,
        "convergence": {"main": points.get("main", []), "sample": points.get("sample", [])},
        "pieces": {"main": [{k: p[k] for k in ("index", "seed", "rounds")} for p in main_pieces],
                   "sample": [{k: p[k] for k in ("index", "seed", "rounds")} for p in sample_pieces]},
        "targets": target_rows(targets(game, build, plan.mode), s, top),
        "top_award": top, "volatility": volatility(s, sample_s, float(game.stake_x(build, plan.mode))),
        "game_cycle": game_cycle(game, build),
        "feature_breakdown": feature_breakdown(game, build, s, sample_s),
    }
    out["bet_levels"] = bet_levels(game, build, s, float(game.stake_x(build, plan.mode)))
    if plan.mode != "paid":
        out["feature_buy_sheet"] = feature_buy_sheet(game, build, s)
    return plain(out)


def _piece_sd_interval(s: dict[str, Any], found: dict[str, Any]) -> None:
    """A stratified summary's SD with its interval from the run's pieces, and the volatility levels that interval
    spans (a lower bound's interval: every level from its low end up)."""
    lo, hi = found["sd_ci99"]
    s["sd_ci99"] = [lo, hi]
    s["sd_jackknife"] = {k: found[k] for k in ("pieces", "df", "se", "method")}
    s["sd_interval_method"] = sd_interval_words(s)
    s["volatility_levels_ci99"] = volatility_levels(lo, math.inf if s.get("sd_is_lower_bound") else hi)


def _from_plain_sample(s: dict[str, Any], sample_s: dict[str, Any]) -> None:
    """The figures a stratified estimator does not give (the hit rate and its split), each from the package's
    plain sample with that sample's own interval, their source named in ``s["figure_sources"]``."""
    sources = s.setdefault("figure_sources", {})
    where = f"the plain sample ({sample_s['sample']['description']})"
    if s.get("hit_rate") is None and sample_s.get("hit_rate") is not None:
        s["hit_rate"], s["hit_rate_ci99"] = sample_s["hit_rate"], sample_s["hit_rate_ci99"]
        sources["hit_rate"] = where
    split = (s.get("extra") or {}).get("hit_rate_split")
    plain_split = (sample_s.get("extra") or {}).get("hit_rate_split")
    if plain_split and (not split or any(f"{k}_ci99" not in split for k in split if not k.endswith("_ci99"))):
        s.setdefault("extra", {})["hit_rate_split"] = plain_split
        sources["hit_rate_split"] = where


def plain(value: Any) -> Any:
    """JSON's own types all through (numpy scalars as Python numbers, tuples as lists, keys as strings)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
