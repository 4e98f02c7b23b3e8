"""The generic PAR sheet: built from the win events of the reference engine, for any game without a
sheet of its own (:func:`reelforge.analysis.par.par_sheet` gives it where the game's
:class:`~reelforge.game.reporting.Reporting` gives none).

A game gets it by the event convention of the contract: every pay of a step is an event
``{"type": "win", "pay": "<the pay in words>", "win_x": "<exact multiple of the total bet>"}``
(``3 Red Seven``, ``Coins collected``...). The sheet tallies those per part of the round (the paid
spin, then every later step as the game's feature, :attr:`reelforge.game.contract.Game.feature_name`), with
the cap's reduction as its own row so all rows add up to the sample's RTP; it adds the paytable of the
help page, the build's data (what a build file sets), the feature's trigger frequency and win
distribution, and the cap.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Any

from reelforge.analysis.par import flat_parameters
from reelforge.core.draws import SeededDraws
from reelforge.core.numbers import pct, pct_ci, pp
from reelforge.core.stats import mean_ci99
from reelforge.game.contract import Game
from reelforge.game.parsheet import (
    FEATURE_DIST_COLUMNS,
    PAY_COLUMNS,
    PayTally,
    cap_section,
    feature_distribution_rows,
    ordered_strip_section,
    pay_rows,
    sample_note,
    section,
)
from reelforge.game.results import RoundResult

PAID = "paid spin"


def round_pays(result: RoundResult, unit: int, feature: str) -> tuple[dict[str, int], int | None]:
    """Win units per ``pay|part`` of one round from its win events, the cap's reduction (``cap|cap``:
    what the cap took off, so the keys add up to the round win), and the feature's win (None: the round
    had no step after its paid spin)."""
    per: dict[str, int] = defaultdict(int)
    for step in result.steps:
        part = PAID if step.kind == "paid_spin" else feature
        for ev in step.events:
            if ev.get("type") == "win" and "win_x" in ev:
                per[f"{ev.get('pay', 'win')}|{part}"] += int(Fraction(ev["win_x"]) * unit)
    total = int(result.total_win * unit)
    per["cap|cap"] = total - sum(per.values())
    paid = int(result.steps[0].win * unit) if result.steps else 0
    return per, (total - paid) if len(result.steps) > 1 else None


def _exact_pay_sections(rows: list[tuple[str, str, Fraction, Fraction]], feature: str) -> list[dict[str, Any]]:
    """The exact pays table of each part of the round (paid spin, the feature, the cap's reduction) and their
    totals, which add up to the exact RTP."""
    out = []
    totals = []
    def share(v: Fraction) -> str:  # a tiny share keeps its digits (the cap's reduction is below 1e-25 pp)
        return pp(v, 6) if not v or abs(v) >= Fraction(1, 10**8) else f"{float(v) * 100:.3g} pp"

    for part, title in ((PAID, "Pays in the paid spin"), ("feature", f"Pays in {feature}"),
                        ("cap", "The cap's reduction")):
        mine = [r for r in rows if r[1] == part or (part == "feature" and r[1] == "free spins")]
        if not mine:
            continue
        total = sum((r[3] for r in mine), Fraction(0))
        totals.append([title[0].lower() + title[1:], share(total)])
        out.append(section(f"{title}: wins and RTP contribution (exact)",
                           ["pay", "wins per paid round (expected)", "RTP contribution"],
                           [[r[0], f"{float(r[2]):.6g}" if r[2] else "-", share(r[3])] for r in mine],
                           "Exact: from the strips' symbol counts and the free spins' Markov chain, no sample. A pay's "
                           "wins are counted line by line (two lines may pay in one spin); free-spin pays include "
                           "their multiplier." if not out else ""))
    rtp = sum((r[3] for r in rows), Fraction(0))
    totals.append(["all pays (the exact RTP)", pp(rtp, 6) + f" = {pct(rtp, 6)}"])
    out.append(section("Exact pays: totals", ["part of the round", "RTP contribution"], totals,
                       "The tables add up to the certified exact RTP."))
    return out


def _unit(units: dict[str, str], key: str) -> str:
    """A build parameter's unit: its own key's, else its first part's (``pays.W`` -> ``pays``)."""
    return units.get(key) or units.get(key.split(".")[0], "-")


def event_par_sheet(game: Game, build: Any, summary: dict[str, Any], rounds: int, seed: int) -> dict[str, Any]:
    """The PAR sheet of ``build`` from ``rounds`` reference-engine rounds (one seeded stream) and the
    summary's kernel figures."""
    unit = game.win_unit(build)
    feature = game.feature_name
    draws = SeededDraws(seed)
    tally = PayTally()
    for _ in range(rounds):
        tally.add(*round_pays(game.play_round(build, draws), unit, feature))
    parts: dict[str, list[str]] = {PAID: [], feature: [], "cap": []}
    for key in sorted(tally.total, key=lambda k: -tally.total[k]):
        pay, part = key.rsplit("|", 1)
        parts.setdefault(part, []).append(pay)
    sections = []
    help_ = game.help(build)
    table = help_.paytable
    tiers = list(table.get("tiers") or ["pays"])
    sections.append(section(f"Paytable (x total bet; {table.get('tier_label', '')})".replace("; )", ")"),
                            ["pay", *tiers], [[r["name"], *(r.get("pays_x") or [r.get("text", "")])]
                                              for r in table["rows"]], table.get("note", "")))
    data = getattr(build, "data", None)
    report = game.report()
    if isinstance(data, dict):
        rows = [[*r, _unit(report.parameter_units, r[0])]
                for r in flat_parameters({k: v for k, v in data.items() if k not in ("game", "name", "rtp", "tunable")})]
        sections.append(section("Build data (the build file's values)", ["key", "value", "unit and meaning"], rows,
                                "Every parameter of the build file, with its unit. Strips given as symbol counts are "
                                "spread by the game's rules (the strips in stop order follow); weights are per draw."))
    for strip_set in report.ordered_strips(build):
        sections.append(ordered_strip_section(strip_set["title"], strip_set["strips"], strip_set["codes"],
                                              strip_set.get("note", "")))
    lines = report.paylines(build)
    if lines:
        sections.append(section("Paylines", ["line", *[f"reel {i + 1}" for i in range(len(lines[0]))]],
                                [[str(n + 1), *[("top", "middle", "bottom")[r] if r < 3 else f"row {r + 1}" for r in line]]
                                 for n, line in enumerate(lines)],
                                "The row each payline crosses on each reel; a line pays its longest run from reel 1."))
    exact_rows = report.exact_pays(build, summary)
    if exact_rows is not None:
        sections += _exact_pay_sections(exact_rows, feature) + report.exact_sections(build, summary)
        parts = {}  # the pays are exact: the reference sample keeps only the feature's distribution below
    first = True
    for part, pays in parts.items():
        keys = [(f"{p}|{part}", "what the cap took off" if part == "cap" else p, part) for p in pays]
        if not keys or (part == "cap" and not tally.hits.get("cap|cap")):
            continue
        title = {"cap": "The cap's reduction", PAID: "Pays in the paid spin"}.get(part, f"Pays in {feature}")
        note = (sample_note(tally, seed) + " Pays are read from the rounds' win events.") if first else ""
        sections.append(section(f"{title}: hit frequency and RTP contribution", PAY_COLUMNS,
                                pay_rows(tally, keys, unit), note))
        first = False
    feat = []
    rate = summary.get("feature_rate")
    kernel = summary.get("sample", {}).get("description", "the summary's sample")
    if rate is not None:
        feat.append(["trigger frequency (per paid round)", pct(rate), pct_ci(summary.get("feature_rate_ci99")), kernel])
    if tally.features:
        wins = tally.feature_wins
        lo, hi = mean_ci99(sum(wins), sum(w * w for w in wins), tally.features)
        feat.append(["average feature win", f"{sum(wins) / tally.features / unit:,.3f}x total bet",
                     f"[{lo / unit:,.3f}, {hi / unit:,.3f}]" if tally.features > 1 else "-",
                     f"{tally.features:,} features of the reference sample"])
    sections.append(section(f"{feature}: trigger and average win", ["figure", "value", "99% interval", "sample"], feat,
                            "The feature win is everything a round paid after its paid spin."))
    sections.append(section(f"{feature}: win distribution (per feature, x total bet)", FEATURE_DIST_COLUMNS,
                            feature_distribution_rows(tally.feature_wins, unit, game.max_win_x * unit),
                            f"The {tally.features:,} features of the reference sample."))
    sections.append(cap_section(summary, game.max_win_x))
    return {"sample": {"kind": "reference engine", "rounds": tally.rounds, "seed": seed, "features": tally.features},
            "sections": sections}
