"""The PAR sheet's toolkit and the reports' text helpers, for the generic sheet
(:mod:`reelforge.analysis.par_events`) and for a game's own sheet (its :class:`reelforge.game.reporting.Reporting`):
figures as text, the reference-engine sample and its tables per pay, the feature-win distribution, the cap.

A sheet is ``{"sample": {...}, "sections": [{"title", "note", "columns", "rows"}]}``; every cell is
already text, so the report renders any game's sheet the same way. A game's own per-pay tables come from its
per-pay kernel (the fast kernel's rounds, each win split by pay: :func:`kernel_pay_sample`), the generic sheet's
from the readable reference engine (the rules) on a seeded sample of whole rounds, each cell with its 99% interval
and the sample size; trigger, feature and cap frequencies come from the summary (the larger sample) where it
has them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from reelforge.core.chunks import ChunkRun, chunk_sizes
from reelforge.core.draws import SeededDraws
from reelforge.core.numbers import one_in, pct, pct_ci, pp, pp_ci, x_bet
from reelforge.core.stats import Z99, Accumulator, clopper_pearson, mean_ci99, wilson_ci
from reelforge.game.contract import Game
from reelforge.game.results import RoundResult

FEATURE_WIN_EDGES_X = (10, 20, 50, 100, 200, 500, 1000, 2000)
"""Inner edges (x total bet) of the feature-win distribution table."""


# -- text helpers --------------------------------------------------------------------------------
def words(name: str) -> str:
    """A symbol or key name in words (``GOLD_NUGGET`` -> ``Gold Nugget``; single letters kept)."""
    return name if len(name) <= 2 else name.replace("_", " ").title()


def section(title: str, columns: list[str], rows: list[list[str]], note: str = "") -> dict[str, Any]:
    return {"title": title, "columns": columns, "rows": rows, "note": note}


def help_names(game: Game, build: Any) -> Callable[[str], str]:
    """Symbol key -> the name the game's help shows (the PAR sheet names symbols as players read them)."""
    names = game.help(build).symbol_names
    return lambda key: names.get(key, words(key))


def symbol_frequency_rows(reels: list[dict[str, int]], symbols: list[str],
                          name: Callable[[str], str] = words) -> list[list[str]]:
    """One row per symbol: its count (or weight) and share on each reel."""
    rows = []
    for sym in symbols:
        row = [name(sym)]
        for reel in reels:
            total = sum(reel.values())
            c = reel.get(sym, 0)
            row.append(f"{c} ({pct(Fraction(c, total), 2)})" if c else "-")
        rows.append(row)
    rows.append(["stops / total weight", *[f"{sum(r.values()):,}" for r in reels]])
    return rows


def ordered_strip_section(title: str, strips: list[Any], codes: dict[str, str], note: str | None = "") -> dict[str, Any]:
    """A reel strip set in stop order (what symbol counts cannot say: which symbols sit next to which), one row
    per reel: its length and every stop's symbol code from stop 0, in groups of ten; ``codes`` maps a symbol
    to its code and the note gives the legend and ``note`` (None: no note, for the sets after the first)."""
    legend = "; ".join(f"{c} = {name}" for name, c in codes.items())
    rows = []
    for i, strip in enumerate(strips):
        cells = [codes[s] for s in strip]
        groups = [" ".join(cells[j:j + 10]) for j in range(0, len(cells), 10)]
        rows.append([f"reel {i + 1}", f"{len(cells):,}", " | ".join(groups)])
    return section(title, ["reel", "stops", "symbols from stop 0, in order (groups of ten)"], rows,
                   "" if note is None else
                   f"Codes: {legend}. A spin stops each reel uniformly on one of its stops." + (f" {note}" if note else ""))


# -- reference-engine sample ---------------------------------------------------------------------
@dataclass
class PayTally:
    """Per key (a pay, a prize, the cap's reduction): rounds it occurs in and its per-round sums."""

    rounds: int = 0
    hits: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    total: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    total_sq: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    features: int = 0
    feature_wins: list[int] = field(default_factory=list)
    feature_capped: list[bool] = field(default_factory=list)
    """Per feature: its round reached the cap (counted in the cap's row of the feature-win table)."""
    win_sq: int = 0
    """The sum over rounds of the squared round win (the interval of the tables' total)."""

    def add(self, per_round: dict[str, int], feature_win: int | None, capped: bool = False) -> None:
        self.rounds += 1
        self.win_sq += sum(per_round.values()) ** 2
        for key, units in per_round.items():
            if units:
                self.hits[key] += 1
                self.total[key] += units
                self.total_sq[key] += units * units
        if feature_win is not None:
            self.features += 1
            self.feature_wins.append(feature_win)
            self.feature_capped.append(capped)


def reference_sample(game: Game, build: Any, rounds: int, seed: int,
                     attribute: Callable[[RoundResult], tuple[dict[str, int], int | None]],
                     mode: str = "paid") -> PayTally:
    """Play ``rounds`` whole rounds of ``mode`` (paid, or bought features) with the reference engine (one seeded
    stream) and tally what ``attribute`` reads from each: win units per key, and the feature's win (None: no
    feature)."""
    draws = SeededDraws(seed)
    tally = PayTally()
    cap = game.max_win_x * game.win_unit(build)
    for _ in range(rounds):
        per_round, feature_win = attribute(game.play_round(build, draws, mode))
        tally.add(per_round, feature_win, sum(per_round.values()) >= cap)
    return tally


PAR_SAMPLE_ROUNDS = 200_000
"""Default reference-engine rounds behind a simulated game's per-pay figures (about 20 s per game); the most a
game with a per-pay kernel plays on the reference engine (for its features' wins one by one)."""
KERNEL_PAY_HALF_WIDTH_PP = 0.25
"""The 99% half-width of the RTP (pp) a per-pay kernel run is sized for from the game's SD (:func:`kernel_pay_rounds`)."""
PAY_CHUNK = 1 << 20


def kernel_pay_rounds(sd_x: float, stake_x: float = 1.0, half_width_pp: float = KERNEL_PAY_HALF_WIDTH_PP) -> int:
    """Rounds of a per-pay kernel run whose RTP (the per-pay tables' total) has a 99% half-width of
    ``half_width_pp`` for a round SD of ``sd_x`` total bets (per unit of ``stake_x``)."""
    return math.ceil((Z99 * sd_x / stake_x / (half_width_pp / 100)) ** 2)


@dataclass(frozen=True)
class _PayChunk:
    """One chunk of a per-pay kernel run (:meth:`reelforge.game.harness.KernelGame.simulate_pays_chunk`)."""

    game: Any
    build: Any
    mode: str

    def __call__(self, rounds: int, stream: Any) -> Accumulator:
        return self.game.simulate_pays_chunk(self.build, rounds, stream, self.mode)


def kernel_pay_sample(game: Any, build: Any, rounds: int, seed: int, mode: str = "paid",
                      workers: int | None = None) -> tuple[PayTally, Accumulator]:
    """``rounds`` rounds of ``mode`` on the game's per-pay kernel (the plain kernel's rounds, each win split by
    pay; seeded chunks, the same totals on any number of workers): its :class:`PayTally` (integer sums per pay,
    adding up exactly to the sample's total win) and the run's accumulator (its RTP and interval)."""
    chunks = -(-rounds // PAY_CHUNK)
    total: Accumulator | None = None
    for _, acc in ChunkRun(_PayChunk(game, build, mode), chunk_sizes(rounds, PAY_CHUNK), seed, workers, chunks=chunks):
        if total is None:
            total = acc
        else:
            total.merge_in(acc)
    assert total is not None
    if total.counter("rounds whose pays fell short"):  # the replays missed a win: never a table that misstates
        raise RuntimeError(f"{game.id}: the per-pay kernel's pays fell short of the round win")
    tally = PayTally(rounds=total.rounds, win_sq=total.win_sq)
    for name, units, squares in zip(total.component_names, total.components, total.component_sq):
        if units:
            tally.total[name], tally.total_sq[name] = units, squares
            tally.hits[name] = total.counter("capped rounds") if name == "cap|reduction" else total.counter(f"hits {name}")
    return tally, total


def pay_rows(tally: PayTally, keys: list[tuple[str, str, str]], unit: int) -> list[list[str]]:
    """Rows ``[pay, part, hit frequency, its 99% interval, 1 in, RTP contribution, its 99% interval]``
    for ``keys`` = (key, pay label, part label); rows that never occurred say so."""
    n = tally.rounds
    rows = []
    for key, label, _part in keys:
        hits = tally.hits.get(key, 0)
        total = tally.total.get(key, 0)
        if hits:
            lo, hi = mean_ci99(total, tally.total_sq.get(key, 0), n)
            # a pay's contribution is never negative and the cap's reduction never positive
            lo, hi = (max(lo, 0.0), hi) if total > 0 else (lo, min(hi, 0.0))
            rtp, rtp_ci = pp(total / n / unit), pp_ci([lo / unit, hi / unit])
        else:
            rtp, rtp_ci = "not observed", "-"
        rows.append([label, pct(hits / n), pct_ci(wilson_ci(hits, n)), one_in(hits / n), rtp, rtp_ci])
    return rows


def part_total(tally: PayTally, keys: list[tuple[str, str, str]], unit: int) -> float:
    """What the pays of ``keys`` return per stake in the sample (their rows' sum)."""
    return sum(tally.total.get(k, 0) for k, _, _ in keys) / tally.rounds / unit


PART_TITLES = {
    "paid spin": "Pays in the paid spin: hit frequency and RTP contribution",
    "free spins": "Pays in free spins: hit frequency and RTP contribution",
    "cap": "The cap's reduction: capped rounds and what the cap takes off their pays",
}


def pay_sections(tally: PayTally, keys: list[tuple[str, str, str]], unit: int, seed: int, note: str,
                 parts: dict[str, tuple[str, str]] | None = None, per: str = "paid round",
                 certified: dict[str, Any] | None = None) -> list[dict]:
    """One pays table per part of the round (paid spin, free spins, the cap, and a game's own ``parts``:
    part -> (table title, its words in the totals)), in ``keys`` order; ``unit`` is the stake's units (the win
    unit of a total bet; of the price for bought features, ``per="purchase"``). The tables' total is shown with
    its 99% interval beside the RTP of ``certified`` (the summary the package certifies) with its own; the tally is a
    per-pay kernel run (:func:`kernel_pay_sample`)."""
    titles = {**PART_TITLES, **{p: title for p, (title, _) in (parts or {}).items()}}
    part_words = {**PART_WORDS, **{p: w for p, (_, w) in (parts or {}).items()}}
    parts: list[str] = []
    for _, _, part in keys:
        if part not in parts:
            parts.append(part)
    out = []
    totals = []
    for i, part in enumerate(parts):
        part_keys = [k for k in keys if k[2] == part]
        rows = pay_rows(tally, part_keys, unit)
        total = part_total(tally, part_keys, unit)
        totals.append([part_words.get(part, part), pp(total)])
        rows.append([f"total of this table ({part_words.get(part, part)})", "", "", "", pp(total), ""])
        first = kernel_sample_note(tally, seed, per) + " " + note
        out.append(section(titles.get(part, part), [c.replace("paid round", per) for c in PAY_COLUMNS], rows,
                           first if i == 0 else ""))
    rtp = part_total(tally, keys, unit)
    lo, hi = mean_ci99(sum(tally.total.values()), tally.win_sq, tally.rounds)
    ci = [lo / unit, hi / unit]
    what = "the per-pay sample"
    totals = [[*row, ""] for row in totals]
    totals.append([f"{what}'s RTP (all tables)", pp(rtp) + f" = {pct(rtp, 3)}", pct_ci(ci, 3)])
    if certified is not None:
        cert_ci = certified.get("rtp_ci99")
        totals.append(["the certified RTP (the package's estimate)", pct(certified["rtp"], 3),
                       pct_ci(cert_ci, 3) if cert_ci else "exact"])
        diff = rtp - certified["rtp"]
        half = math.hypot((ci[1] - ci[0]) / 2, (cert_ci[1] - cert_ci[0]) / 2 if cert_ci else 0.0)
        totals.append(["their difference", pp(diff),
                       f"+-{half * 100:.3f} pp: {'within' if abs(diff) <= half else 'OUTSIDE'} it"])
    sized = (f"; certify sizes it from the round's SD for about {KERNEL_PAY_HALF_WIDTH_PP} pp unless --par-rounds says "
             "otherwise")
    out.append(section("Per-pay tables: totals", ["part of the round", "RTP contribution", "99% interval"], totals,
                       f"The cells are integer tallies of one plain simulation ({tally.rounds:,} rounds, seed {seed}), "
                       f"so they add up exactly to that sample's RTP, whose 99% half-width is {(ci[1] - ci[0]) / 2 * 100:.3f} "
                       f"pp{sized}. The certified RTP is the package's own estimate from its own samples; both estimate "
                       "the same RTP, independently, so their difference is sampling error, within its 99% interval "
                       "(the two half-widths combined) when they agree."))
    return out


PART_WORDS = {"paid spin": "pays in the paid spin", "free spins": "pays in free spins", "cap": "the cap's reduction"}


PAY_COLUMNS = ["pay", "hit frequency (per paid round)", "99% interval", "1 in", "RTP contribution", "99% interval"]


def feature_distribution_rows(wins: list[int], unit: int, cap_units: int,
                              capped: list[bool] | None = None) -> list[list[str]]:
    """The feature-win distribution (x total bet) of the sample's features, exact binomial intervals. The
    feature of a round that reached the cap (``capped``) counts in the cap's row: it paid what the cap
    left after the paid spin, below the cap itself."""
    n = len(wins)
    if not n:
        return []
    cap_x = cap_units // unit
    inner = [e for e in FEATURE_WIN_EDGES_X if e < cap_x]  # a band from the cap to the cap holds nothing
    edges = [0, *inner]
    counts = [0] * (len(edges) + 2)
    for w, at_cap in zip(wins, capped or [False] * n):
        if at_cap or w >= cap_units:
            counts[-1] += 1
        elif w == 0:
            counts[0] += 1
        else:
            counts[1 + sum(1 for e in inner if w >= e * unit)] += 1
    labels = ["nothing", *[f"{a:,}x to under {b:,}x" if a else f"more than 0 to under {b:,}x"
                           for a, b in zip(edges, [*inner, cap_x])], f"{cap_x:,}x (the cap; a capped round's feature counts here)"]
    return [[lab, f"{c:,}", pct(c / n), pct_ci(clopper_pearson(c, n)), one_in(c / n)]
            for lab, c in zip(labels, counts)]


FEATURE_DIST_COLUMNS = ["feature win", "features", "share of features", "99% interval (exact binomial)", "1 in"]


def max_win_probability_words(s: dict[str, Any]) -> tuple[str, str]:
    """The maximum win's probability per paid round and its 99% interval, in the words every page of a
    report uses for them (exact; a simulated count with its exact binomial interval, or none observed
    with the one-sided 99% bound; a stratified estimate with the estimator's interval)."""
    p, ci = s.get("max_win_probability"), s.get("max_win_probability_ci99")
    per = "per purchase" if s.get("mode") == "buy" else "per round"
    if s["method"] == "exact":
        # a probability below the percentage's last place reads as 0.000000%: write it with its exponent
        return f"{pct(p, 6) if p >= 5e-9 else f'{float(p):.4g} {per}'} = {one_in(p)}", "exact"
    if s["method"] == "simulation":
        how = "exact binomial" if s.get("max_win_count") else "one-sided 99% bound -ln(0.01)/N, none observed"
        return s.get("max_win_statement") or "-", (f"[{ci[0]:.3g}, {ci[1]:.3g}] {per} ({how})" if ci else "-")
    if p is None:
        return "-", "-"
    return (f"{p:.4g} {per} = {one_in(p)}",
            f"[{ci[0]:.3g}, {ci[1]:.3g}] {per} ({s['method']})" if ci else "none: the estimator gives no interval")


def cap_section(summary: dict[str, Any], cap_x: int) -> dict[str, Any]:
    """The cap and its probability per paid round, as the report's summary gives them (the same figure and
    interval on every page)."""
    value, ci = max_win_probability_words(summary)
    per = "per purchase" if summary.get("mode") == "buy" else "per paid round"
    rows = [["maximum win", x_bet(cap_x)], [f"probability {per}", value], ["99% interval", ci]]
    return section("The cap", ["figure", "value"], rows,
                   "A round stops paying at the cap; the win of a capped round is exactly the cap.")


def sample_note(tally: PayTally, seed: int, per: str = "paid round") -> str:
    what = "bought features, each one purchase" if per == "purchase" else "paid rounds"
    return (f"Per-pay figures from the reference engine (the readable rules) on {tally.rounds:,} {what}, "
            f"seed {seed}; intervals are 99% (Wilson for frequencies, normal for RTP contributions). "
            f"Pays that land inside a capped round count before the cap; what the cap takes off is its own table, so all rows add up to the sample's RTP.")


def kernel_sample_note(tally: PayTally, seed: int, per: str = "paid round") -> str:
    what = "bought features, each one purchase" if per == "purchase" else "paid rounds"
    return (f"Per-pay figures from a plain simulation of {tally.rounds:,} {what} (seed {seed}) on the per-pay kernel: "
            "the fast kernel's rounds, each win split by pay, checked against the readable rules' pays; intervals are "
            "99% (Wilson for frequencies, normal for RTP contributions). Pays that land inside a capped round count "
            "before the cap; what the cap takes off is its own table, so all rows add up to the sample's RTP.")


def attribute_round(result: RoundResult, unit: int,
                    step_pays: Callable[[Any, str], Iterable[tuple[str, int]]]) -> tuple[dict[str, int], int | None]:
    """Win units per key of one round (``step_pays(step, part)`` lists a step's pays) plus the cap's
    reduction (so the keys add up to the round's win), and the feature's win (None: no feature)."""
    per: dict[str, int] = defaultdict(int)
    paid_win = 0
    feature = False
    for step in result.steps:
        part = "paid spin" if step.kind == "paid_spin" else "free spins"
        if step.kind == "paid_spin":
            paid_win = int(step.win * unit)
        else:
            feature = True
        for key, units in step_pays(step, part):
            per[key] += units
    total = int(result.total_win * unit)
    per["cap|reduction"] = total - sum(per.values())  # zero unless the round reached the cap
    return per, (total - paid_win) if feature else None


def feature_rows(summary: dict[str, Any], mean_key: str | None, tally: PayTally, unit: int) -> list[list[str]]:
    """Trigger frequency and average feature win: the summary's kernel sample, then the reference sample."""
    rows = []
    kernel = summary.get("sample", {}).get("description", "the summary's sample")
    rate = summary.get("feature_rate")
    if rate is not None:
        rows.append(["trigger frequency (per paid round)", f"{pct(rate)} ({one_in(rate)})",
                     pct_ci(summary.get("feature_rate_ci99")), kernel])
    extra = summary.get("extra") or {}
    mean = extra.get(mean_key) if mean_key else None
    if mean is not None:
        ci = extra.get(f"{mean_key}_ci99")
        rows.append(["average feature win", f"{mean:,.3f}x total bet",
                     f"[{ci[0]:,.3f}, {ci[1]:,.3f}]" if ci else "-", kernel])
    if tally.features and mean is None:  # one average feature win: the larger sample's where it has one
        lo, hi = mean_ci99(sum(tally.feature_wins), sum(w * w for w in tally.feature_wins), tally.features)
        rows.append(["average feature win", f"{sum(tally.feature_wins) / tally.features / unit:,.3f}x total bet",
                     f"[{lo / unit:,.3f}, {hi / unit:,.3f}]" if tally.features > 1 else "-",
                     f"{tally.features:,} features of the reference sample"])
    return rows
