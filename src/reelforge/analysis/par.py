"""PAR-sheet content of a build: paytable, strips or weights with symbol frequencies per reel, the hit
frequency and RTP contribution of each pay (base game and features apart), the feature's trigger
frequency, average win and win distribution, and the cap with its frequency.

Everything is read from the build data, so a retuned build flows through. Forge of Fortunes is exact
(rational arithmetic from :mod:`reelforge.games.forge_of_fortunes.exact`). For the simulated games the
per-pay figures come from the readable reference engine (the rules modules) on a seeded sample of
whole rounds, each with its 99% interval and the sample size; trigger, feature and cap frequencies come
from the summary's kernel simulation (the larger sample) where it has them.

A sheet is ``{"sample": {...}, "sections": [{"title", "note", "columns", "rows"}]}``; every cell is
already text, so the report renders any game's sheet the same way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from reelforge.analysis.numbers import fraction_text, one_in, pct, pct_ci, pp, pp_ci, x_bet
from reelforge.draws import SeededDraws
from reelforge.game import Game, RoundResult
from reelforge.stats import clopper_pearson, mean_ci99, wilson_ci

PAR_SAMPLE_ROUNDS = 200_000
"""Default reference-engine rounds behind a simulated game's per-pay figures (about 20 s per game)."""

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


# -- reference-engine sample ---------------------------------------------------------------------
@dataclass
class PayTally:
    """Per key (a pay, a GEMBOX prize, the cap's reduction): rounds it occurs in and its per-round sums."""

    rounds: int = 0
    hits: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    total: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    total_sq: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    features: int = 0
    feature_wins: list[int] = field(default_factory=list)
    feature_capped: list[bool] = field(default_factory=list)
    """Per feature: its round reached the cap (counted in the cap's row of the feature-win table)."""

    def add(self, per_round: dict[str, int], feature_win: int | None, capped: bool = False) -> None:
        self.rounds += 1
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
                     attribute: Callable[[RoundResult], tuple[dict[str, int], int | None]]) -> PayTally:
    """Play ``rounds`` whole paid rounds with the reference engine (one seeded stream) and tally what
    ``attribute`` reads from each: win units per key, and the feature's win (None: no feature)."""
    draws = SeededDraws(seed)
    tally = PayTally()
    cap = game.max_win_x * game.win_unit(build)
    for _ in range(rounds):
        per_round, feature_win = attribute(game.play_round(build, draws))
        tally.add(per_round, feature_win, sum(per_round.values()) >= cap)
    return tally


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
    "GEMBOX": "GEMBOX instant prizes: hit frequency and RTP contribution",
    "cap": "The cap's reduction: capped rounds and what the cap takes off their pays",
}


def pay_sections(tally: PayTally, keys: list[tuple[str, str, str]], unit: int, seed: int, note: str) -> list[dict]:
    """One pays table per part of the round (paid spin, free spins, GEMBOX, the cap), in ``keys`` order."""
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
        totals.append([PART_WORDS.get(part, part), pp(total)])
        rows.append([f"total of this table ({PART_WORDS.get(part, part)})", "", "", "", pp(total), ""])
        out.append(section(PART_TITLES.get(part, part), PAY_COLUMNS, rows,
                           (sample_note(tally, seed) + " " + note) if i == 0 else ""))
    rtp = part_total(tally, keys, unit)
    totals.append(["the reference sample's RTP (all tables)", pp(rtp) + f" = {pct(rtp, 3)}"])
    out.append(section("Per-pay tables: totals", ["part of the round", "RTP contribution"], totals,
                       f"The tables add up to the RTP of the reference sample ({tally.rounds:,} rounds, seed {seed}); "
                       "the summary's RTP rests on a larger sample, so the two differ by sampling error."))
    return out


PART_WORDS = {"paid spin": "pays in the paid spin", "free spins": "pays in free spins",
              "GEMBOX": "GEMBOX instant prizes", "cap": "the cap's reduction"}


PAY_COLUMNS = ["pay", "hit frequency (per paid round)", "99% interval", "1 in", "RTP contribution", "99% interval"]


def feature_distribution_rows(wins: list[int], unit: int, cap_units: int,
                              capped: list[bool] | None = None) -> list[list[str]]:
    """The feature-win distribution (x total bet) of the sample's features, exact binomial intervals. The
    feature of a round that reached the cap (``capped``) counts in the cap's row: it paid what the cap
    left after the paid spin, below the cap itself."""
    n = len(wins)
    if not n:
        return []
    edges = [0, *FEATURE_WIN_EDGES_X]
    counts = [0] * (len(edges) + 2)
    for w, at_cap in zip(wins, capped or [False] * n):
        if at_cap or w >= cap_units:
            counts[-1] += 1
        elif w == 0:
            counts[0] += 1
        else:
            counts[1 + sum(1 for e in FEATURE_WIN_EDGES_X if w >= e * unit)] += 1
    cap_x = cap_units // unit
    labels = ["nothing", *[f"{a:,}x to under {b:,}x" if a else f"more than 0 to under {b:,}x"
                           for a, b in zip(edges, [*FEATURE_WIN_EDGES_X, cap_x])], f"{cap_x:,}x (the cap; a capped round's feature counts here)"]
    labels[1] = f"more than 0 to under {FEATURE_WIN_EDGES_X[0]:,}x"
    return [[lab, f"{c:,}", pct(c / n), pct_ci(clopper_pearson(c, n)), one_in(c / n)]
            for lab, c in zip(labels, counts)]


FEATURE_DIST_COLUMNS = ["feature win", "features", "share of features", "99% interval (exact binomial)", "1 in"]


def cap_section(summary: dict[str, Any], cap_x: int) -> dict[str, Any]:
    """The cap and its frequency (from the summary: exact, or the kernel sample with its interval)."""
    if summary["method"] == "exact":
        p = summary["max_win_probability"]
        rows = [["maximum win", x_bet(cap_x)],
                ["probability per paid round (exact)", f"{pct(p, 6)} ({one_in(p)})"]]
    else:
        rows = [["maximum win", x_bet(cap_x)], ["frequency", summary.get("max_win_statement") or "-"]]
        ci = summary.get("max_win_probability_ci99")
        if ci:
            rows.append(["99% interval (exact binomial)", f"[{ci[0]:.3g}, {ci[1]:.3g}] per paid round"])
    return section("The cap", ["figure", "value"], rows,
                   "A round stops paying at the cap; the win of a capped round is exactly the cap.")


def sample_note(tally: PayTally, seed: int) -> str:
    return (f"Per-pay figures from the reference engine (the readable rules) on {tally.rounds:,} paid rounds, "
            f"seed {seed}; intervals are 99% (Wilson for frequencies, normal for RTP contributions). "
            f"Pays that land inside a capped round count before the cap; what the cap takes off is its own table, so all rows add up to the sample's RTP.")


# -- Forge of Fortunes (exact) ---------------------------------------------------------------------
def _par_forge_of_fortunes(game: Game, build: Any, summary: dict[str, Any], rounds: int, seed: int) -> dict:
    from reelforge.games.forge_of_fortunes.exact import exact

    r = exact(build)
    fm = r.feature
    paytable = [["Gold Nugget, Gold Nugget on reels 1-2 (reel 3 not Gold)",
                 f"{build.two_of_a_kind_coins} coins = {x_bet(build.two_of_a_kind_x)}"],
                ["Gold Nugget x3", "Forging Re-Spins (prize ladder)"]]
    paytable += [[f"ladder runner {i + 1}" + (" (safe)" if i in build.safe else ""), x_bet(v)]
                 for i, v in enumerate(build.ladder)]
    names = {"G": "Gold Nugget", "S": "Slag", "C": "Coal", "-": "Blank"}  # the help's names

    def strip_rows(strips: Any) -> list[list[str]]:
        reels = [{names[ch]: reel.count(ch) for ch in set(reel)} for reel in strips.reels]
        return symbol_frequency_rows(reels, [v for v in names.values() if any(v in r for r in reels)])

    strips = [section("Base game strips: symbol counts per reel", ["symbol", "reel 1", "reel 2", "reel 3"],
                      strip_rows(build.base), "Count of stops and share of the strip (exact).")]
    for set_name, strip_set in build.feature_sets.items():
        runners = [f"{build.ladder[i]}x" for i, s in enumerate(build.runner_sets) if s == set_name]
        strips.append(section(f"Forging Re-Spins strips '{set_name}' (used on runners {', '.join(runners)})",
                              ["symbol", "reel 1", "reel 2", "reel 3"], strip_rows(strip_set)))
    two = r.hit_rate - r.trigger  # every ladder runner pays, so the hits are two-of-a-kinds and triggers
    pays = [["Gold Nugget x2 (reels 1-2)", "paid spin", pct(two, 6), one_in(two), pp(two * build.two_of_a_kind_x, 4)]]
    for i, pe in enumerate(fm.end_probability):
        p = r.trigger * pe
        pays.append([f"Forging Re-Spins ending on runner {i + 1} ({x_bet(build.ladder[i])})", "feature", pct(p, 6),
                     one_in(p), pp(p * build.ladder[i], 4)])
    pays.append(["all pays (the RTP)", "", pct(r.hit_rate, 6), one_in(r.hit_rate), pp(r.rtp, 5)])
    feature_win = r.rtp_feature / r.trigger
    feat = [["trigger frequency (Gold Nugget x3)", f"{pct(r.trigger)} ({one_in(r.trigger)}), fraction {fraction_text(r.trigger)}"],
            ["average feature win", f"{float(feature_win):,.4f}x total bet (exact)"],
            ["average re-spins per feature", f"{float(fm.expected_respins):.4f}"],
            ["RTP from the feature", pp(r.rtp_feature, 5)]]
    dist = [[f"runner {i + 1}: {x_bet(build.ladder[i])}", pct(pe, 5), one_in(pe), fraction_text(pe)]
            for i, pe in enumerate(fm.end_probability)]
    return {
        "sample": {"kind": "exact", "description": "exact rational mathematics (absorbing Markov chain on the ladder)"},
        "sections": [
            section("Paytable", ["combination", "pays"], paytable,
                    f"{build.coins} coins per total bet; the award is the runner reached last, never a sum."),
            *strips,
            section("Pays: hit frequency and RTP contribution",
                    ["pay", "part", "hit frequency (per paid round)", "1 in", "RTP contribution"], pays,
                    "Exact. The base game's only pay is the two-of-a-kind; the feature pays the runner it ends on."),
            section("Forging Re-Spins: trigger and average win", ["figure", "value"], feat, "Exact."),
            section("Forging Re-Spins: win distribution (per feature)", ["ends on", "probability", "1 in", "fraction"],
                    dist, "Exact probability that a feature ends on each runner."),
            cap_section(summary, game.max_win_x),
        ],
    }


# -- Gemstones Gold --------------------------------------------------------------------------------
COINS_PER_BET = 20
"""Gemstones Gold's coins per total bet (its win unit; checked against the build module below)."""


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


def _gg_step_pays(step: Any, part: str) -> Iterable[tuple[str, int]]:
    """A Gemstones Gold spin's pays, each times the multiplier its spin applied."""
    pending: list[tuple[str, int]] = []
    for ev in step.events:
        if ev["type"] == "cascade":
            pending += [(f"{w['symbol']}|{w['tier']}|{part}", int(w["coins"])) for w in ev["wins"]]
        elif ev["type"] == "spin_result":
            mult = (ev["multiplier_sum"] or 1) if ev["kind"] == "paid" else ev.get("multiplier_applied", 1)
            yield from ((key, coins * mult) for key, coins in pending)
            pending = []


def _gg_attribute(result: RoundResult) -> tuple[dict[str, int], int | None]:
    return attribute_round(result, COINS_PER_BET, _gg_step_pays)


def _par_gemstones_gold(game: Game, build: Any, summary: dict[str, Any], rounds: int, seed: int) -> dict:
    from reelforge.games.gemstones_gold.build import COINS_PER_BET as GG_UNIT
    from reelforge.games.gemstones_gold.build import (
        PUBLISHED_PAYTABLE,
        SYMBOL_CHARS,
        SYMBOL_NAMES,
        TIER_FROM,
    )

    if GG_UNIT != COINS_PER_BET:
        raise ValueError(f"Gemstones Gold pays in {GG_UNIT} coins per bet, the PAR sheet reads {COINS_PER_BET}")
    tiers = ["8\u20119", "10\u201111", "12\u201114", "15+"]  # non-breaking hyphens: a tier never splits
    name = help_names(game, build)
    paytable = [[name(sym), *[f"{c} ({x_bet(Fraction(c, COINS_PER_BET))})" for c in row]]
                for sym, row in PUBLISHED_PAYTABLE.items()]
    reels = [{SYMBOL_NAMES[SYMBOL_CHARS.index(ch)]: strip.count(ch) for ch in set(strip)} for strip in build.strips]
    strips = symbol_frequency_rows(reels, list(SYMBOL_NAMES), name)
    mult = [[f"{v}x", f"{wb:,}", pct(Fraction(wb, build.base_total), 3), f"{wf:,}", pct(Fraction(wf, build.free_total), 3)]
            for v, wb, wf in zip(build.values, build.base_weights, build.free_weights)]
    mult.append(["mean value", f"{float(build.mean_value(False)):.4f}x", "", f"{float(build.mean_value(True)):.4f}x", ""])
    tally = reference_sample(game, build, rounds, seed, _gg_attribute)
    keys = [(f"{sym}|{t + 1}|{part}", f"{name(sym)} {tiers[t]}", part)
            for part in ("paid spin", "free spins") for sym in PUBLISHED_PAYTABLE for t in range(len(TIER_FROM))]
    keys.append(("cap|reduction", "reduction of capped rounds", "cap"))
    feat = _feature_rows(summary, "mean_feature_win_x", tally, COINS_PER_BET)
    return {
        "sample": {"kind": "reference engine", "rounds": tally.rounds, "seed": seed, "features": tally.features},
        "sections": [
            section("Paytable (coins per bet size x bet level; total bet = 20 coins)", ["symbol", *tiers], paytable,
                    "8 or more of a symbol anywhere on the board; in brackets the pay as a multiple of total bet."),
            section("Reel strips: symbol counts per reel", ["symbol", *[f"reel {i + 1}" for i in range(6)]], strips,
                    "Count of stops and share of the strip."),
            section("Multiplier reel values and weights",
                    ["value", "paid-spin weight", "probability", "free-spin weight", "probability"], mult,
                    "A paid spin places 3 values under 3 columns (3 blockers each); a free spin one under each "
                    "column (2 blockers each)."),
            *pay_sections(tally, keys, COINS_PER_BET, seed,
                          "A pay's contribution includes the multiplier applied to its spin."),
            section("Free Spins: trigger and average win", ["figure", "value", "99% interval", "sample"], feat),
            section("Free Spins: win distribution (per feature, x total bet)", FEATURE_DIST_COLUMNS,
                    feature_distribution_rows(tally.feature_wins, COINS_PER_BET, build.cap_units, tally.feature_capped),
                    f"The {tally.features:,} features of the reference sample."),
            cap_section(summary, game.max_win_x),
        ],
    }


def _feature_rows(summary: dict[str, Any], mean_key: str | None, tally: PayTally, unit: int) -> list[list[str]]:
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


# -- Forge of Gems ---------------------------------------------------------------------------------
def _fog_attribute(unit: int) -> Callable[[RoundResult], tuple[dict[str, int], int | None]]:
    def step_pays(step: Any, part: str) -> Iterable[tuple[str, int]]:
        for ev in step.events:
            if ev["type"] == "win":
                yield f"{ev['symbol']}|{ev['length']}|{part}", int(Fraction(ev["win_x"]) * unit)
            elif ev["type"] == "gembox_reward":
                yield f"gembox|{ev['scatter_class']}|prize", int(Fraction(ev["prize_x"]) * unit)

    return lambda result: attribute_round(result, unit, step_pays)


def _par_forge_of_gems(game: Game, build: Any, summary: dict[str, Any], rounds: int, seed: int) -> dict:
    from reelforge.games.forge_of_gems.build import FORGE, GEMBOX_REWARDS, NORMAL, PAYING

    name = help_names(game, build)
    paytable = [[name(sym), *[x_bet(build.pay_x(s, k)) for k in (3, 4, 5)]] for s, sym in enumerate(PAYING)]
    # symbols land single (copies come only from the FORGE REEL's Splitters): one weight per symbol
    reels = [dict(zip(NORMAL, cells.weights)) for cells in build.cells]
    cell_rows = symbol_frequency_rows(reels, list(NORMAL), name)
    forge = [[words(f), f"{wb:,}", pct(Fraction(wb, build.forge_base.total), 2),
              f"{wf:,}", pct(Fraction(wf, build.forge_free.total), 2)]
             for f, wb, wf in zip(FORGE, build.forge_base.weights, build.forge_free.weights)]
    targets = [[name(PAYING[i]) if i < len(PAYING) else str(i), f"{w:,}", pct(Fraction(w, build.targets.total), 2)]
               for i, w in enumerate(build.targets.weights)]
    gembox = []
    for k, table in build.gembox.items():
        for j, w in enumerate(table.weights):
            prize, spins = GEMBOX_REWARDS[k][j]
            reward = " + ".join(p for p in (f"{prize}x prize" if prize else "", f"{spins} free spins" if spins else "") if p)
            gembox.append([f"{k}+" if k == 5 else str(k), reward, f"{w:,}", pct(table.probability(j), 2)])
    unit = build.unit
    tally = reference_sample(game, build, rounds, seed, _fog_attribute(unit))
    keys = [(f"{sym}|{k}|{part}", f"{name(sym)} x{k}", part)
            for part in ("paid spin", "free spins") for sym in PAYING for k in (3, 4, 5)]
    keys += [(f"gembox|{k}|prize", f"{k}{'+' if k == 5 else ''} scatters: instant prize", "GEMBOX")
             for k in GEMBOX_REWARDS]
    keys.append(("cap|reduction", "reduction of capped rounds", "cap"))
    reels_cols = [f"reel {i + 1}" for i in range(len(build.cells))]
    feat = _feature_rows(summary, "mean_feature_win_x", tally, unit)
    fs = ((summary.get("extra") or {}).get("free_spins") or {}).get("triggers")
    if fs:
        feat.insert(1, ["free spins awarded (per paid round)", f"{pct(fs['probability'])} ({one_in(fs['probability'])})",
                        pct_ci(fs["ci99"]), summary["sample"]["description"]])
    return {
        "sample": {"kind": "reference engine", "rounds": tally.rounds, "seed": seed, "features": tally.features},
        "sections": [
            section("Paytable (x total bet per way)", ["symbol", "3 of a kind", "4 of a kind", "5 of a kind"], paytable,
                    "Ways pay left to right; a cell a Splitter split into 2 or 3 copies counts that many times."),
            section("Cell weights: symbol weight per reel", ["symbol", *reels_cols], cell_rows,
                    "Weight of a fresh cell (first board or refill) landing as each symbol, and its share. "
                    "Symbols land single; only the FORGE REEL's Splitters split them."),
            section("FORGE REEL weights", ["symbol", "paid-spin weight", "probability", "free-spin weight",
                                           "probability"], forge),
            section("FORGE REEL target symbol weights", ["symbol", "weight", "probability"], targets),
            section("GEMBOX reward weights", ["scatters", "reward", "weight", "probability"], gembox,
                    "Drawn once when 3 or more scatters remain after the paid spin's last cascade."),
            *pay_sections(tally, keys, unit, seed,
                          "A way win's contribution includes the win multiplier it was paid with."),
            section("GEMBOX and free spins: trigger and average win", ["figure", "value", "99% interval", "sample"], feat,
                    "The feature win is everything the round paid after its paid spin (GEMBOX prize and free spins)."),
            section("GEMBOX and free spins: win distribution (per GEMBOX, x total bet)", FEATURE_DIST_COLUMNS,
                    feature_distribution_rows(tally.feature_wins, unit, build.cap_units, tally.feature_capped),
                    f"The {tally.features:,} GEMBOX rounds of the reference sample."),
            cap_section(summary, game.max_win_x),
        ],
    }


BUILDERS: dict[str, Callable[[Game, Any, dict[str, Any], int, int], dict]] = {
    "forge-of-fortunes": _par_forge_of_fortunes,
    "gemstones-gold": _par_gemstones_gold,
    "forge-of-gems": _par_forge_of_gems,
}


def par_sheet(game: Game, build: Any, summary: dict[str, Any], rounds: int = PAR_SAMPLE_ROUNDS,
              seed: int = 2026) -> dict[str, Any]:
    """The PAR-sheet content of ``build`` (see the module docstring); ``rounds`` reference-engine rounds
    back the per-pay figures of simulated games."""
    if rounds < 1:
        raise ValueError("the PAR sample needs at least one round")
    builder = BUILDERS.get(game.id)
    if builder is None:  # every other game: the generic sheet from its win events
        from reelforge.analysis.par_events import event_par_sheet

        builder = event_par_sheet
    return builder(game, build, summary, rounds, seed)
