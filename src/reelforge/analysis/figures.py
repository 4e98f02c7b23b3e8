"""The Game Rules Summary's figures in words, each with its 99% interval or "exact", and one glossary
definition per figure: what the report, the Markdown and the command line show (no plotting here). What
only one game's summary has is said by the game (its :class:`~reelforge.game.reporting.Reporting`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from reelforge.core.numbers import one_in, pct, pct_ci
from reelforge.game.parsheet import max_win_probability_words
from reelforge.game.reporting import Reporting

COMPONENT_WORDS = {"paid_spins": "paid spins", "free_spins": "free spins", "base_game": "paid spins"}
"""RTP component keys in words, for every game (a game's :attr:`Reporting.component_words` add to them)."""
HIT_SPLIT_WORDS = {
    "trigger_free_spins": "winning rounds that trigger free spins",
    "trigger_with_win": "winning rounds that trigger free spins",
    "win_without_trigger": "winning rounds without a free-spin trigger",
}


def reporting(s: dict[str, Any]) -> Reporting:
    """What the game of summary ``s`` says beyond the generic (the generic alone for a game not registered)."""
    from reelforge.games.registry import UnknownGame, get_game

    try:
        return get_game(s["game"]).report()
    except UnknownGame:
        return Reporting(None)  # type: ignore[arg-type]


def component_words(s: dict[str, Any]) -> dict[str, str]:
    """The words of summary ``s``'s RTP components."""
    return {**COMPONENT_WORDS, **reporting(s).component_words}


def words(key: str, table: dict[str, str]) -> str:
    """A JSON key in words (the table's, else underscores to spaces)."""
    return table.get(key, key.replace("_", " "))


# -- figures in words -------------------------------------------------------------------------------
def bucket_words(row: dict[str, Any], cap_x: int, short: bool = False) -> str:
    """A distribution bucket in words: ``no win``, ``1x to under 2x``, ``the cap (2,500x)``."""
    lo, hi = row["from"], row["to"]
    if hi == 0:
        return "no win"
    if lo == hi:
        return f"cap {cap_x:,}x" if short else f"the cap ({cap_x:,}x)"
    if lo == 0:
        return f"(0, {hi:g}x)" if short else f"more than 0, under {hi:g}x"
    return f"[{lo:,.0f}x, {hi:,.0f}x)" if short else f"{lo:,.0f}x to under {hi:,.0f}x"


def interval_text(ci: Any, places: int = 4) -> str:
    return pct_ci(ci, places) if ci else "-"


def _pp(v: float | None, places: int = 4) -> str:
    return "-" if v is None else f"{v * 100:.{places}f} pp"


def _pp_ci(ci: Any, places: int = 4) -> str:
    return "-" if not ci else f"[{ci[0] * 100:.{places}f}, {ci[1] * 100:.{places}f}] pp"


def _one_in_ci(ci: Any) -> str:
    if not ci:
        return ""
    lo, hi = ci
    return f"1 in {1 / hi:,.1f} to {1 / lo:,.1f}" if lo else f"1 in {1 / hi:,.1f} or rarer"


NO_INTERVAL = "none: the stratified estimator gives no interval for this figure"
MAX_WIN_HOW = {"exact": "reachable, exactly (every outcome enumerated)",
               "constructed round": "reachable: a constructed round reaches it",
               "bound": "an upper bound, not shown reachable"}
"""How a maximum win is known (:class:`reelforge.game.results.MaxWin`'s method), in a report's words."""


def sd_interval_words(s: dict[str, Any]) -> str:
    """How a summary's SD interval was found, in a reader's words (the summary table, the volatility section, the
    target's verdict)."""
    if s["method"] == "exact":
        return "exact"
    jk = s.get("sd_jackknife")
    if jk:
        bound = "; the SD is a lower bound, so is the interval's" if s.get("sd_is_lower_bound") else ""
        return (f"delete-a-piece jackknife over the run's {jk['pieces']} independent pieces, Student's t with "
                f"{jk['df']} degrees of freedom{bound}")
    if s.get("sd_ci99"):  # a plain simulation's
        return "delta method, fourth moment"
    return f"{s['method']}: the estimator gives no interval for the SD"


def max_win_how(s: dict[str, Any]) -> str:
    """Where a summary's maximum win comes from and how it is known (its ``max_win``, where the summary has one)."""
    source = s.get("max_win_source", "rules text")
    found = s.get("max_win")
    return f"{source}; {MAX_WIN_HOW[found['method']]}: {found['text']}" if found else source


def figure_rows(s: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(figure, value, 99% interval or "exact") for every Game Rules Summary figure, in words."""
    exact = s["method"] == "exact"
    rows: list[tuple[str, str, str]] = []

    def add(label: str, value: str, ci: str) -> None:
        if ci == "-" and s["method"] == "stratified":
            ci = NO_INTERVAL
        rows.append((label, value, "exact" if exact else ci))

    feature = s.get("feature_name", "feature")
    add("RTP (return to player)", pct(s["rtp"], 5 if exact else 4), interval_text(s.get("rtp_ci99")))
    add("house edge", pct(s["house_edge"], 5 if exact else 4), interval_text(s.get("house_edge_ci99")))
    split_ci = s.get("rtp_split_ci99") or {}
    # one order whatever the dict's (figures.json sorts its keys): the paid spin first, then by key
    for k, v in sorted(s["rtp_split"].items(), key=lambda kv: (not kv[0].startswith(("paid", "base")), kv[0])):
        if v == 0 and s.get("mode") == "buy":  # a bought round has no paid spin: a certain zero, not a figure
            continue
        add(f"RTP from {words(k, component_words(s))}", _pp(v), _pp_ci(split_ci.get(k)))
    buy = s.get("feature_buy")
    if buy and buy.get("rtp") is not None:
        # the stratified estimate scores its own 10-spin features as purchases: say so, never "bought"
        sample = (f"the {buy.get('features', 0):,} 10-spin features of the estimate's feature stratum, each "
                  "scored as one purchase") if s["method"] == "stratified" else f"{buy.get('features', 0):,} bought features"
        rows.append((f"Feature Buy RTP (price {float(Fraction(buy['price_x'])):g}x total bet)", pct(buy["rtp"]),
                     interval_text(buy.get("rtp_ci99")) + f" ({sample})"))
    sources = s.get("figure_sources") or {}
    if s.get("hit_rate") is not None:
        add("hit rate (rounds that win anything)", pct(s["hit_rate"]), interval_text(s.get("hit_rate_ci99"))
            + (f" (from {sources['hit_rate']})" if "hit_rate" in sources else ""))
    split = (s.get("extra") or {}).get("hit_rate_split") or {}
    split_words = {**HIT_SPLIT_WORDS, **reporting(s).hit_split_words}
    split_from = f" (from {sources['hit_rate_split']})" if "hit_rate_split" in sources else ""
    for k, v in sorted(split.items()):
        if not k.endswith("_ci99"):
            add(f"hit rate: {words(k, split_words)}", pct(v), interval_text(split.get(f"{k}_ci99")) + split_from)
    if s.get("feature_rate") is not None and s.get("mode", "paid") == "paid":  # every bought round is one
        rate = s["feature_rate"]
        ci = s.get("feature_rate_ci99")
        add(f"{feature} frequency (rounds that trigger it)", f"{pct(rate)} = {one_in(rate)}",
            f"{interval_text(ci)} = {_one_in_ci(ci)}" if ci else "-")
    sd_ci = s.get("sd_ci99")
    lower = " (a lower bound)" if s.get("sd_is_lower_bound") else ""
    add("standard deviation of the round win", f"{s['sd']:.3f}x total bet{lower}",
        f"[{sd_ci[0]:.3f}, {sd_ci[1]:.3f}]x ({sd_interval_words(s)})" if sd_ci else NO_INTERVAL)
    levels = s.get("volatility_levels_ci99")
    add("volatility level (1 to 10)", f"{s['volatility_level']}",
        (("level " if len(levels) == 1 else "levels ") + ", ".join(map(str, levels)) + " (spanned by the SD interval)")
        if levels else NO_INTERVAL)
    found = s.get("max_win")
    top = Fraction(found["x"]) if found else Fraction(s["max_win_x"])
    rows.append(("maximum win (the cap)" if top == s["max_win_x"] else "maximum win (below the cap)",
                 f"{int(top) if top.denominator == 1 else float(top):,}x total bet" + ("" if top == s["max_win_x"] else f" (the cap: {s['max_win_x']:,}x)"),
                 max_win_how(s)))
    if exact or s["method"] == "simulation" or s.get("max_win_probability") is not None:
        rows.append(("probability of the maximum win", *max_win_probability_words(s)))
    if s["method"] == "simulation":
        seen = s["max_win_observed_count"]
        rows.append(("largest round win observed",
                     f"{s['max_win_observed_x']:,.2f}x total bet ({seen:,} round{'' if seen == 1 else 's'})", "observed"))
    rows += game_rows(s)
    lo_st, hi_st = s["reference_stakes"]
    rows.append(("maximum exposure", f"{s['max_exposure']:,.2f} in the stake's currency at the maximum stake "
                 f"{hi_st:,.2f} (stakes {lo_st:,.2f} to {hi_st:,.2f})", "maximum win x maximum stake"))
    return rows


def game_rows(s: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The average feature win (exact, or from the summary's sample with its interval), then what the game
    says of its further figures (:meth:`Reporting.figure_rows`)."""
    exact = s["method"] == "exact"
    x = s.get("extra") or {}
    feature = s.get("feature_name", "feature")
    rows = []
    fw = x.get("feature_expected_win_x")
    if fw is not None:
        ci = x.get("feature_expected_win_x_ci99")
        rows.append((f"average {feature} win", f"{fw:,.3f}x total bet",
                     "exact" if exact else (f"[{ci[0]:,.3f}, {ci[1]:,.3f}]x" if ci else "-")))
    mw = x.get("mean_feature_win_x")
    if mw is not None:
        ci = x.get("mean_feature_win_x_ci99")
        rows.append((f"average {feature} win", f"{mw:,.3f}x total bet",
                     f"[{ci[0]:,.3f}, {ci[1]:,.3f}]x" if ci else "-"))
    return rows + reporting(s).figure_rows(s)


# -- glossary ----------------------------------------------------------------------------------------
def glossary(s: dict[str, Any]) -> list[tuple[str, str]]:
    """One definition per figure of the report."""
    feature = s.get("feature_name", "feature")
    exact = s["method"] == "exact"
    x = s.get("extra") or {}
    terms = [
        ("RTP", "Return to player: total won divided by total staked, over all rounds (a paid round stakes the "
                "total bet). The RTP from a component is what that part of the round pays, per stake, in "
                "percentage points; the parts add up to the RTP."),
        ("house edge", "100% minus the RTP."),
        ("hit rate", "Share of rounds whose total win is more than zero. Its split counts winning rounds by what "
                     "they contain; a triggering round counts there only if its total win is above zero, which is "
                     "why that share can sit below the trigger frequency (a feature may pay nothing)."),
        (f"{feature} frequency", f"Share of paid rounds that trigger the {feature}, whether or not it pays; "
                                 f"\"1 in N\" is its reciprocal. This is the report's one feature-frequency figure."),
        ("standard deviation", "SD of one round's total win, in multiples of the total bet; its 99% interval is "
                               + ("the delete-a-piece jackknife: the SD recomputed with each of the run's independent "
                                  "pieces left out, the pieces weighted by their size (the stratified estimator gives "
                                  "the SD no interval of its own), with Student's t on pieces - 1 degrees of freedom."
                                  if s.get("sd_jackknife") else
                                  "the delta method on the sample's fourth central moment, Var(s^2) = (m4 - s^4)/n.")),
        ("volatility level", "The project's 1-10 scale on the SD: level k starts at SD 0, 1, 1.5, 2.5, 4, 6, 9, "
                             "14, 20, 30 (x total bet) for k = 1..10. The interval lists every level the SD's "
                             "interval touches."),
        ("maximum win", "The cap: a round never pays more; a capped round pays exactly the cap. Its probability is "
                        "per paid round; from a sample it is the count of capped rounds over the rounds, with the "
                        "exact (Clopper-Pearson) binomial interval, and when none was observed, the one-sided 99% "
                        "upper bound -ln(0.01)/N (about 4.6/N)."),
        ("win distribution", "Share of rounds whose total win falls in each band (x total bet); lower ends "
                             "included, upper ends excluded; intervals are exact binomial (Clopper-Pearson)."),
        ("1 in N", "The reciprocal of a probability: on average one round in N."),
        ("maximum exposure", "The maximum win at the largest stake: the most one round can cost the operator."),
        ("99% interval", "Range that holds the true value with 99% confidence given the sample: Wilson score "
                         "intervals for frequencies, normal intervals for means and RTP shares, exact binomial "
                         "for distribution bands and the cap. Exact figures carry none."),
        ("PAR sheet", "Per-pay figures: a pay's hit frequency is the share of paid rounds in which it pays at "
                      "least once (paid spin and free spins counted apart); its RTP contribution is what it pays "
                      "per stake, multipliers included."),
    ]
    if s.get("mode") == "buy":  # every bought round is one feature: no trigger, no feature frequency
        terms = [t for t in terms if t[0] not in ("hit rate", f"{feature} frequency", "PAR sheet")]
        terms.insert(1, ("per unit of price", "A bought feature's figures divided by its price (the price times the "
                                              "total bet): its RTP, mean win and SD per unit of what it costs."))
    if s.get("feature_buy"):
        terms.insert(1, ("Feature Buy RTP", "What bought features pay divided by what they cost (the price times "
                                            "the total bet), from its own simulated sample of bought features."))
    if any(x.get(k) is not None for k in ("feature_expected_win_x", "mean_feature_win_x")):
        terms.append(("average feature win", f"Mean of what a {feature} pays, per triggered feature, in "
                                             "multiples of the total bet (the triggering spin's own win excluded)."))
    terms += reporting(s).glossary(s)
    if s["method"] == "simulation":
        terms.append(("largest round win observed", "The largest round win in the sample and how many rounds won it."))
    if s.get("sd_is_lower_bound"):
        terms.append(("lower bound", "The stratified estimate's SD leaves out a positive covariance term, so the "
                                     "true SD is at least this."))
    if exact:
        terms.append(("exact", "Computed in rational arithmetic from the build's strips: no sample, no interval."))
    return terms


