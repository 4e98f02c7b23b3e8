"""Forge of Gems as a :class:`reelforge.game.harness.KernelGame` (its kernel: one round function, :mod:`.kernel`)."""

from __future__ import annotations

import math
from typing import Any

from reelforge.core.draws import DrawSource
from reelforge.core.stats import Z99, Accumulator, clopper_pearson, never_observed_upper99, wilson_ci
from reelforge.game.contract import Capabilities, RulesDocument
from reelforge.game.harness import KernelGame
from reelforge.game.help import GameHelp
from reelforge.game.results import StepResult, StratifiedEstimate, TuneResult
from reelforge.game.texts import DEFAULT_LANGUAGE, ENGLISH, N_, Words
from reelforge.games.forge_of_gems import build as build_mod
from reelforge.games.forge_of_gems import kernel, pay_kernel, rules
from reelforge.games.forge_of_gems.build import (
    CAP_X,
    COPY_LIMITS,
    FORGE,
    GEMBOX_REWARDS,
    MAX_WAYS,
    PAYING,
    Build,
    reward_name,
)
from reelforge.games.forge_of_gems.reporting import ForgeOfGemsReporting
from reelforge.games.forge_of_gems.split_spins import SplitSpinsEstimator

RULES_TEXT = [N_(p) for p in (
    "FORGE OF GEMS is a 5-reel, 3-row cascading slot with up to {ways} ways to win.",
    "Symbols land single, so every spin starts on 243 ways; only the FORGE REEL's Splitters split them.",
    "Ways pay left to right from reel 1; a symbol split into 2 or 3 copies counts that many times. "
    "Only the longest win per symbol is paid; all symbols' wins are added.",
    "WILD substitutes for all symbols except SCATTER and FORGE REEL symbols; it does not pay on its own.",
    "Winning symbols are removed, the symbols above fall, the column's FORGE REEL symbol cascades into the "
    "lowest empty position, the other positions are refilled, and the board is evaluated again.",
    "Vertical WILD turns every symbol except SCATTER on its reel into WILD. Horizontal WILD turns its symbol "
    "and matching symbols on its row into WILD.",
    "Vertical Splitter splits matching symbols on its reel. Horizontal Splitter is WILD and splits the "
    "symbols on its row except SCATTER. Symbols split up to three; reels hold at most 9, 9, 8, 8, 7 copies.",
    "Multiplier raises the win multiplier by one; it applies to later wins. Blank does nothing.",
    "The win multiplier resets every paid spin, never during FREE SPINS.",
    "3 or more SCATTERs after the last cascade award the GEMBOX: 3 SCATTERs 20x, 8 or 10 FREE SPINS; "
    "4 SCATTERs 30x, 10 or 15 FREE SPINS; 5+ SCATTERs 40x plus 10 FREE SPINS, 15 or 20 FREE SPINS.",
    "FREE SPINS use the triggering bet; the FORGE REEL has no Blanks and shows at least one Multiplier. "
    "FREE SPINS cannot be retriggered.",
    "The maximum win is {top}x the total bet; the round ends when it is reached.",
    "Every round is decided when it is staked; an interrupted round continues where it stopped. "
    "A round left unfinished past the expiry (90 days unless the operator sets another) is completed "
    "and its win paid; it is never refunded. Malfunction (an error while the round is decided, before "
    "anything of it is shown) voids all pays and plays.",
)]
"""The rules text, one paragraph per entry (``{ways}`` and ``{top}`` filled from the build)."""


VOLATILITY = 10  # on the project's 1-10 SD scale: SD >= 30x bet (docs/maths.md)


def reward_words(name: str) -> str:
    """A GEMBOX reward's counter name in words: ``s5_prize40_fs10`` -> ``40x prize + 10 free spins``."""
    parts = []
    for part in name.split("_")[1:]:
        if part.startswith("prize"):
            parts.append(f"{part[5:]}x prize")
        elif part.startswith("fs"):
            parts.append(f"{part[2:]} free spins")
    return " + ".join(parts)


SYMBOL_WORDS = {"DIAMOND": "Diamond", "EMERALD": "Emerald", "SAPPHIRE": "Sapphire", "TOPAZ": "Topaz", "A": "Ace",
                "K": "King", "Q": "Queen", "J": "Jack", "WILD": "Wild", "SCATTER": "Red Flower Jewel (Scatter)"}
FORGE_WORDS = {
    "VERTICAL_WILD": ("Vertical Wild", N_("Turns every symbol on its reel, except Scatters, into WILD.")),
    "HORIZONTAL_WILD": ("Horizontal Wild", N_("Turns its symbol and the matching symbols on its row into WILD.")),
    "VERTICAL_SPLITTER": ("Vertical Splitter", N_("Splits the matching symbols on its reel into copies.")),
    "HORIZONTAL_SPLITTER": ("Horizontal Splitter", N_("Is WILD and splits the symbols on its row, except Scatters.")),
    "MULTIPLIER": ("Multiplier", N_("Raises the win multiplier by one for the wins that follow.")),
    "BLANK": ("Blank", N_("Does nothing; it is removed when it cascades.")),
    "SCATTER": ("Scatter", N_("Counts as a Scatter where it lands.")),
}
"""FORGE REEL symbol key -> (its name, what it does)."""


def _gembox_words(scatters: int, words: Words) -> str:
    _ = words
    options = []
    for prize, spins in GEMBOX_REWARDS[scatters]:
        if prize and spins:
            options.append(_.plural("a prize of {prize}x the total bet plus {n} free spin",
                                    "a prize of {prize}x the total bet plus {n} free spins", spins,
                                    prize=words.number(prize)))
        elif prize:
            options.append(_("a prize of {prize}x the total bet", prize=words.number(prize)))
        else:
            options.append(_.plural("{n} free spin", "{n} free spins", spins))
    return _("One of: {options}.", options=words.list_or(options))


def help_page(build: Build, words: Words = ENGLISH) -> dict[str, Any]:
    """The paytable, features and rules as the game shows them, in ``words``' language (names in words, pays
    per way as exact multiples of the total bet)."""
    _ = words
    top = max(GEMBOX_REWARDS)
    return {
        "paytable": {
            "title": _("Paytable"), "tiers": ["3", "4", "5"], "tier_label": _("Reels in a row from the left"),
            "note": _("Pays per way, as multiples of the total bet. A split cell counts as that many ways."),
            "rows": [{"art": [p], "name": SYMBOL_WORDS[p], "pays_x": [str(build.pay_x(s, k)) for k in (3, 4, 5)]}
                     for s, p in enumerate(PAYING)]
            + [{"art": ["WILD"], "name": "Wild", "text": _("Substitutes for every symbol except Scatters and the "
                                                           "FORGE REEL symbols; it does not pay on its own.")}],
        },
        "features": [
            {"title": "FORGE REEL", "text": [_(
                "The FORGE REEL above the board is not part of the ways. When a column cascades, its FORGE "
                "REEL symbol drops into the lowest empty position of that column and takes effect.")],
             "items": [{"art": [f"forge:{k}"], "name": name, "text": _(text)} for k, (name, text) in FORGE_WORDS.items()]},
            {"title": _("Win multiplier"), "text": [_(
                "Every win is multiplied by the win multiplier. It starts at x1 on every paid spin and rises "
                "by one with each Multiplier that cascades; during free spins it never resets.")]},
            {"title": "GEMBOX", "art": ["SCATTER"], "text": [_(
                "3 or more Red Flower Jewels (Scatters) after the last cascade award the GEMBOX. Open it to "
                "reveal an instant prize, free spins, or both.")],
             "items": [{"name": _.plural("{n}+ Scatter", "{n}+ Scatters", k) if k == top
                        else _.plural("{n} Scatter", "{n} Scatters", k),
                        "text": _gembox_words(k, words),
                        "amount_x": str(GEMBOX_REWARDS[k][0][0])} for k in sorted(GEMBOX_REWARDS)]},
            {"title": _("Free spins"), "text": [
                _("Free spins are played at the bet that triggered them. The FORGE REEL has no Blanks and "
                  "always shows at least one Multiplier, and the win multiplier never resets."),
                _("Free spins cannot be retriggered.")]},
        ],
        "sections": [
            {"title": _("How wins pay"), "text": [
                _("5 reels, 3 rows, up to {ways} ways. Ways pay left to right from the leftmost reel; "
                  "a cell split into 2 or 3 copies counts that many times.", ways=words.number(MAX_WAYS)),
                _("Only the longest win per symbol is paid; the wins of all symbols are added together."),
                _("Winning symbols are removed, the symbols above fall, the FORGE REEL symbol cascades in, the "
                  "empty positions are refilled and the board is evaluated again.")]},
            {"title": _("Maximum win"), "text": [
                _("The maximum win is {top}x the total bet; the round ends when it is reached.",
                  top=words.number(CAP_X))]},
        ],
    }


class ForgeOfGems(KernelGame):
    title = "Forge of Gems"
    reference_id = "none published"
    published_id = None
    """The published rules give no game id (the reports, ``games`` and the help all say so)."""
    feature_name = "GEMBOX"
    version = "1.0"
    rules_document = RulesDocument("the published help text (ways, cascades, FORGE REEL, GEMBOX, free spins): the "
                                   "project's source document 000_4bbe94bddb779004.txt",
                                   "4fe44f669856a309213e91cc235485c236034473c8891669b60c80c2c1fe67c5")
    max_win_x = CAP_X
    max_win_source = "design document GAMES.md, section 3 (public facts beyond the rules)"
    """The rules text gives no cap; 20,000x is a public fact the design document (GAMES.md) records."""
    reference_stakes = (0.20, 100)
    """The rules publish no reference stakes: the bet ladder's range (0.20 up: at 0.10 the win unit, 1/20 of
    the total bet, would be half a cent)."""
    modes = ("paid",)
    step_actions = ("open",)
    """``open`` opens the GEMBOX (the only step that takes it)."""
    capabilities = Capabilities(stratified=True, tunable=True)
    reporting = ForgeOfGemsReporting
    design_commands = "reelforge.games.forge_of_gems.commands:app"
    build_files = build_mod.FILES
    stratified_pilot_rounds = 1_000_000
    """The whole-feature stratum (rounds // 60 features) is above its 5,000 floor at 1e6 paid spins."""

    components, counters = rules.COMPONENTS, kernel.COUNTERS
    feature_counter = "triggers"  # GEMBOX awards, not the first of the kernel's counters (see kernel.COUNTERS)
    rules, loop, make_tables, scratch = rules, kernel.LOOP, staticmethod(kernel.make_tables), kernel.SCRATCH
    pay_loop, make_pay_tables = pay_kernel.LOOP_BY_PAY, staticmethod(pay_kernel.pay_tables)
    pay_components, pay_counters, pay_scratch = pay_kernel.PAY_COMPONENTS, pay_kernel.PAY_COUNTERS, pay_kernel.PAY_SCRATCH

    # the reference rules take no mode and play the GEMBOX step's action (``open``)
    def start_round(self, build: Build, mode: str = "paid") -> dict[str, Any]:
        self.check_mode(mode)
        return rules.new_state()

    def play_step(self, build: Build, state: dict[str, Any], draws: DrawSource,
                  action: str | None = None) -> StepResult:
        self.check_action(action)
        return rules.play_step(build, state, draws, action)

    def help(self, build: Build, lang: str = DEFAULT_LANGUAGE) -> GameHelp:
        words = Words(lang)
        paytable = {p: {str(k): str(build.pay_x(s, k)) for k in (3, 4, 5)} for s, p in enumerate(PAYING)}
        return self.make_help(
            build, volatility=VOLATILITY, symbol_names=SYMBOL_WORDS, page=help_page(build, words), words=words,
            rules=words.all(RULES_TEXT, ways=words.number(MAX_WAYS), top=words.number(CAP_X)),
            extra={"paytable_x_per_way": paytable, "max_ways": MAX_WAYS, "copy_limits": list(COPY_LIMITS),
                   "forge_symbols": list(FORGE),
                   "gembox": {str(k): [reward_name(k, j) for j in range(3)] for k in GEMBOX_REWARDS}})

    # -- mathematics ------------------------------------------------------------
    def win_unit(self, build: Build) -> int:
        return build.unit

    def cap_x(self, build: Build) -> int:
        return build.cap_x

    def max_win_round(self, build: Build) -> tuple[str, list[list[int]]] | None:
        """Every fresh cell a DIAMOND, every target DIAMOND and every FORGE REEL symbol a Horizontal Splitter:
        243 ways on the first board, then each cascade leaves the bottom row WILD x3 (2,882 DIAMOND ways)
        until the cap stops the paid spin. A draw is answered by its table (their totals differ)."""
        from reelforge.games.forge_of_gems.build import NORMAL

        def first(table: Any, index: int) -> int | None:   # the smallest draw that picks entry ``index``
            return table.cumulative[index] - table.weights[index] if table.weights[index] else None

        answers = {build.forge_base.total: first(build.forge_base, FORGE.index("HORIZONTAL_SPLITTER")),
                   build.targets.total: first(build.targets, PAYING.index("DIAMOND"))}
        answers |= {t.total: first(t, NORMAL.index("DIAMOND")) for t in build.cells}
        if None in answers.values() or len(answers) != 2 + len({t.total for t in build.cells}):
            return None   # an entry cannot be drawn, or two tables share a total: no such round

        class Answered:
            def draw(self, n: int) -> int:
                return answers[n]

        return "paid", self.play_round(build, Answered()).draws

    def tune(self, build_name: str, targets: dict[str, float], out: str | None = None,
             sample: str | None = None) -> TuneResult:
        """Calibrate one build with the generic tuner (``reelforge tune``): see :mod:`.design` (takes
        minutes; ``sample`` keeps/reuses the simulated strata, one .npz sample file)."""
        from pathlib import Path

        from reelforge.games.forge_of_gems.design import tune_build

        unknown = sorted(set(targets) - {"rtp"})
        if unknown:
            raise ValueError(f"forge-of-gems tunes only 'rtp' (as a fraction, e.g. rtp=0.962), not {unknown}")
        if "rtp" in targets and not 0 < targets["rtp"] < 1:
            raise ValueError(f"rtp target must be a fraction between 0 and 1, got {targets['rtp']}")
        if sample is not None and Path(sample).suffix != ".npz":
            raise ValueError(f"--sample: a sample file is an .npz archive, got {sample!r}")
        return tune_build(build_name, targets.get("rtp"), out, Path(sample) if sample else None)

    def stratified(self, build: Build, rounds: int, seed: int) -> StratifiedEstimate:
        """The stratified estimate of :mod:`.split_spins`: ``rounds`` paid spins alone (first-board
        scatter class as control variate), the features' means from single free spins, whole features
        for the cap correction."""
        return self.stratified_estimator().run(build, rounds, seed)

    def stratified_estimator(self) -> SplitSpinsEstimator:
        """The estimator behind :meth:`stratified`, ``simulate --estimator best`` and ``certify`` (certification
        runs merge its samples piece by piece); the tuner keeps :mod:`.stratified`'s whole features."""
        return SplitSpinsEstimator()

    def feature_picture(self, build: Any, summary: dict[str, Any]) -> dict[str, Any] | None:
        """GEMBOX rewards per paid round, by scatter class and reward (the report's game plot)."""
        gembox = (summary.get("extra") or {}).get("gembox")
        if not gembox:
            return None
        labels, values, cis = [], [], []
        for scatters, entry in gembox.items():
            for reward, freq in entry["rewards"].items():
                labels.append(f"{scatters} scatters: {reward_words(reward)}")
                values.append(freq["probability"])
                cis.append(freq["ci99"])
        return {"title": "GEMBOX rewards (probability per paid round)", "labels": labels, "values": values,
                "ci99": cis, "xlabel": "scatter class: reward", "ylabel": "probability (log)", "log": True}

    def feature_pictures(self, build: Any, summary: dict[str, Any]) -> list[dict[str, Any]]:
        """The GEMBOX rewards picture and the ways distribution of paid spins: the ways of the
        first board, the most ways any evaluated board of the spin reached (Splitters raise them
        as it cascades), and the paid-spin RTP returned by the spins in each peak-ways bin."""
        pics = super().feature_pictures(build, summary)
        extra = summary.get("extra") or {}
        first = extra.get("first_board_ways")
        if not first:
            return pics
        labels = list(first)

        def cis(key: str, scale: float = 1.0) -> list | None:
            got = extra.get(f"{key}_ci99")
            return [[v * scale for v in got[k]] for k in labels] if got else None

        # the first board is 243 ways on every paid spin (symbols land single): one bar at probability 1 says
        # nothing a sentence does not, so the picture starts with the ways the cascades reached
        series: list[dict[str, Any]] = []
        peak = extra.get("peak_ways")
        if peak:
            series.append({"name": "most ways of any board the spin evaluated (probability per paid spin, log)",
                           "labels": list(peak), "values": list(peak.values()), "log": True,
                           "ylabel": "probability (log)", "ci99": cis("peak_ways")})
        rtp = extra.get("paid_spin_rtp_by_peak_ways")
        if rtp:
            series.append({"name": "paid-spin RTP returned by the spins of each peak-ways bin (log)",
                           "labels": list(rtp), "values": [v * 100 for v in rtp.values()], "log": True,
                           "ylabel": "RTP, pp (log)", "ci99": cis("paid_spin_rtp_by_peak_ways", 100.0)})
        if not series:
            return pics
        pics.append({"title": "Ways distribution of paid spins (the first board is always 243 ways)",
                     "labels": labels, "values": list(first.values()),
                     "series": series, "xlabel": "ways (bins 243 x 2^k, up to 36,288)",
                     "ylabel": "probability (log)", "log": True})
        return pics

    def extra_summary(self, build: Build, acc: Accumulator) -> dict[str, Any]:
        n = acc.rounds
        if not n:
            return {}

        def freq(count: int, exact: bool = False) -> dict[str, Any]:
            # the cap's count takes max_win_probability_ci99's interval (exact binomial; none observed: the
            # one-sided 99% bound), one interval per figure; other frequencies are Wilson
            if exact:
                lo, hi = clopper_pearson(count, n) if count else (0.0, never_observed_upper99(n))
            else:
                lo, hi = wilson_ci(count, n)
            return {"count": count, "probability": count / n, "one_in": (n / count) if count else None,
                    "ci99": [lo, hi]}

        c = acc.counter
        gembox = {}
        for k in (3, 4, 5):
            label = f"{k}+" if k == 5 else str(k)
            gembox[label] = {"awarded": freq(c(f"gembox_s{k}")),
                             "rewards": {reward_name(k, j): freq(c(f"reward_{reward_name(k, j)}"))
                                         for j in range(3)}}
        triggers = c("free_spin_triggers")
        labels = kernel.ways_bin_labels()
        feature_win = self._feature_win(acc)
        # A peak-ways bin's share of the paid-spin RTP has no counted second moment of its own; its
        # square sum is at most the paid spins' (each spin is in one bin), which bounds the interval.
        base_sq = acc.component_sq[rules.C_BASE]
        bound_half = Z99 * math.sqrt(base_sq / n / n) / acc.stake_units if n else float("nan")

        def bounded(lab: str) -> list[float]:
            point = c(f"ways_peak_win_{lab}") / acc.total_stake
            return [max(0.0, point - bound_half), point + bound_half]

        return {
            "gembox": gembox,
            "free_spins": {"triggers": freq(triggers),
                           "average_free_spins": c("free_spins_played") / triggers if triggers else None},
            "cap_hits": freq(c("cap_hits"), exact=True),
            "paid_spin_hit_rate": c("paid_spin_hits") / n,
            "paid_spin_hit_rate_ci99": list(wilson_ci(c("paid_spin_hits"), n)),
            "cascades_per_paid_spin": c("paid_spin_cascades") / n,
            "multiplier_landings_per_round": c("multiplier_landings") / n,
            "first_board_ways": {lab: c(f"ways_{lab}") / n for lab in labels},
            "first_board_ways_ci99": {lab: list(wilson_ci(c(f"ways_{lab}"), n)) for lab in labels},
            "peak_ways": {lab: c(f"ways_peak_{lab}") / n for lab in labels},
            "peak_ways_ci99": {lab: list(wilson_ci(c(f"ways_peak_{lab}"), n)) for lab in labels},
            "paid_spin_rtp_by_peak_ways": {lab: c(f"ways_peak_win_{lab}") / acc.total_stake for lab in labels},
            "paid_spin_rtp_by_peak_ways_ci99": {lab: bounded(lab) for lab in labels},
            "paid_spin_rtp_by_peak_ways_interval": "conservative: bounded by the paid spins' second moment",
            "win_unit": build.unit, "cap_x": build.cap_x,
            **feature_win,
        }

    @staticmethod
    def _feature_win(acc: Accumulator) -> dict[str, Any]:
        """Average win of a GEMBOX round after its paid spin (prize plus free spins), with a conservative
        interval: the prize x free-spin cross term is not counted, so Cauchy-Schwarz bounds it."""
        n = acc.counter("triggers")
        if n < 2:
            return {}
        g, f = acc.components[rules.C_GEMBOX], acc.components[rules.C_FREE]
        gsq, fsq = acc.component_sq[rules.C_GEMBOX], acc.component_sq[rules.C_FREE]
        mean = (g + f) / n
        second = (gsq + fsq + 2 * math.sqrt(gsq * fsq)) / n
        half = Z99 * math.sqrt(max(second - mean * mean, 0.0) / (n - 1))
        u = acc.unit
        return {"mean_feature_win_x": mean / u, "mean_feature_win_x_ci99": [max(0.0, mean - half) / u, (mean + half) / u],
                "mean_feature_win_x_interval": "conservative: the prize x free-spin cross term bounded by Cauchy-Schwarz"}

