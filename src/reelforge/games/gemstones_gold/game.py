"""Gemstones Gold as a :class:`reelforge.game.contract.Game` (registered as ``gemstones-gold``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.core.draws import DrawSource
from reelforge.core.stats import Accumulator, clopper_pearson, mean_ci99, wilson_ci
from reelforge.game.contract import BuildError, Capabilities, RulesDocument
from reelforge.game.harness import KernelGame
from reelforge.game.help import GameHelp
from reelforge.game.results import StepResult, StratifiedEstimate, TuneResult
from reelforge.game.texts import DEFAULT_LANGUAGE, ENGLISH, N_, Words
from reelforge.games.gemstones_gold import kernel, pay_kernel, rules
from reelforge.games.gemstones_gold.build import (
    COINS_PER_BET,
    FILES,
    MAX_WIN_X,
    PUBLISHED_PAYTABLE,
    SYMBOL_CHARS,
    SYMBOL_NAMES,
    Build,
)
from reelforge.games.gemstones_gold.reporting import GemstonesGoldReporting
from reelforge.games.gemstones_gold.stratified import GemstonesGoldEstimator, GemstonesGoldRtp

RULES_TEXT = [N_(p) for p in (
    "6 reels x 6 rows. 8 or more matching symbols anywhere on the board win by the paytable "
    "(tiers 8-9, 10-11, 12-14, 15+; amounts per bet size x bet level, total bet = 20 x bet size x bet level).",
    "Winning symbols explode, symbols above fall and new symbols drop in; the board is evaluated again "
    "until no win remains. Each evaluation is one cascade.",
    "Multiplier reel: at the start of each paid spin, 3 values (2x to 500x) are placed under 3 of the 6 "
    "columns, each covered by 3 blockers. After each cascade with a win, every value whose column holds "
    "at least one winning symbol of that cascade loses one blocker (one per cascade, however many symbols).",
    "At the end of the spin the fully revealed values are added together and the spin's total win is "
    "multiplied by that sum (5x and 20x give 25x). Values still covered do not count.",
    "3 or more Scatters on the board after the last cascade award 10 free spins, plus 2 for each Scatter beyond 3.",
    "Free spins: every spin places a value under each of the 6 columns, each covered by 2 blockers. "
    "When a free spin reveals values, their sum is added to the total multiplier, which persists for the "
    "feature, and the spin's win is multiplied by the total multiplier; a spin revealing nothing pays its "
    "win unmultiplied. 2 or more Scatters in a free spin award 5 more free spins; retriggers are unlimited.",
    "The maximum win of a round (paid spin plus feature) is {top}x total bet; when it is reached the round "
    "ends paying exactly {top}x and remaining free spins are forfeited.",
    "Feature Buy: buys 10 free spins for the price shown (a multiple of total bet).",
    "Every round is decided when it is staked; an interrupted round continues where it stopped. "
    "A round left unfinished past the expiry (90 days unless the operator sets another) is completed "
    "and its win paid; it is never refunded. Malfunction (an error while the round is decided, before "
    "anything of it is shown) voids all pays and plays.",
)]


SYMBOL_WORDS = {"GOLD_NUGGET": "Gold Nugget", "RUBY": "Ruby", "AMETHYST": "Amethyst", "SAPPHIRE": "Sapphire",
                "EMERALD": "Emerald", "BRONZE_ORE": "Bronze Ore", "PINK_STONE": "Pink Stone",
                "BLUE_STONE": "Blue Stone", "SCATTER": "Scatter"}
TIERS = ("8-9", "10-11", "12-14", "15+")


def help_page(build: Build, words: Words = ENGLISH) -> dict[str, Any]:
    """The paytable, features and rules as the game shows them (in ``words``' language): names in words, pays as
    exact multiples of the total bet (``*_x``, the client adds money at the player's bet)."""
    _ = words
    values = words.list(words.x(v) for v in build.values)
    top = words.number(MAX_WIN_X)
    return {
        "paytable": {
            "title": _("Paytable"), "tiers": list(TIERS), "tier_label": _("Symbols anywhere on the board"),
            "note": _("Pays are multiples of the total bet, for 8 or more matching symbols anywhere on the board."),
            "rows": [{"art": [name], "name": SYMBOL_WORDS[name],
                      "pays_x": [str(Fraction(v, COINS_PER_BET)) for v in row]}
                     for name, row in PUBLISHED_PAYTABLE.items()],
        },
        "features": [
            {"title": _("Multiplier reel and blockers"), "text": [
                _("Under the board runs the multiplier reel, one lane per column. At the start of every paid "
                  "spin 3 values are placed under 3 of the 6 columns, each covered by 3 blockers."),
                _("After each cascade with a win, every covered value whose column holds a winning symbol of "
                  "that cascade loses one blocker (one per cascade, however many symbols)."),
                _("When the spin ends, the fully revealed values are added together and the spin's win is "
                  "multiplied by their sum: 5x and 20x give 25x. Values still covered do not count."),
                _("Multiplier values: {values}.", values=values)]},
            {"title": _("Free spins"), "art": ["SCATTER"], "text": [
                _("3 or more Scatters on the board after the last cascade award 10 free spins, plus 2 for each "
                  "Scatter beyond 3 (4 Scatters: 12, 5 Scatters: 14)."),
                _("In free spins every column gets a value under 2 blockers. Values a free spin reveals are "
                  "added to the total multiplier, which stays for the whole feature, and that spin's win is "
                  "multiplied by the total multiplier. A free spin that reveals nothing pays its win unmultiplied."),
                _("Retriggers: 2 or more Scatters in a free spin award 5 more free spins, as often as they land.")]},
            {"title": _("Feature Buy"), "text": [
                _("Buy the free spins feature (10 free spins) directly, for the price below.")],
             "items": [{"name": _("Feature Buy price"), "amount_x": str(build.feature_buy_price_x)}]},
        ],
        "sections": [
            {"title": _("How wins pay"), "text": [
                _("6 reels, 6 rows. 8 or more matching symbols anywhere on the board win by the paytable; "
                  "all wins of a spin are added together."),
                _("Winning symbols explode, the symbols above fall and new symbols drop in; the board is "
                  "evaluated again until no win remains. Each evaluation is one cascade."),
                _("Total bet = 20 x bet size x bet level. Free spins are played at the bet that triggered them.")]},
            {"title": _("Maximum win"), "text": [
                _("The maximum win of a round (the paid spin and its free spins together) is {top}x "
                  "the total bet. When it is reached the round ends paying exactly {top}x and any "
                  "remaining free spins are forfeited.", top=top)]},
            {"title": _("Volatility"), "text": [_("High: wins are less frequent, and can be large.")]},
        ],
    }


class GemstonesGold(KernelGame):
    title = "Gemstones Gold"
    reference_id = "1671262"
    published_id = "1671262"
    feature_name = "Free Spins"
    version = "1.0 r2"
    rules_document = RulesDocument("the published rules (ID 1671262, rules 1.0 r2) with their statistics: the project's "
                                   "source document 003_adbee4d6998569b0.txt",
                                   "a3bb2ac53a1b053046fb709248736b1fda387528b84841a56816685794099f4e")
    max_win_x = MAX_WIN_X
    reference_stakes = (0.20, 100)
    """The published reference stakes (bet size 0.01 x level 1 x 20 coins, up to 100)."""
    modes = ("paid", "buy")
    step_actions = ()
    """Every step is a spin: any action is refused."""
    capabilities = Capabilities(stratified=True, tunable=True, feature_buy=True)
    reporting = GemstonesGoldReporting
    design_commands = "reelforge.games.gemstones_gold.commands:app"
    build_files = FILES
    stratified_pilot_rounds = 6_000_000
    """The feature stratum (rounds // 60 features) leaves its 100,000 floor at 6e6 paid spins."""

    components, counters, unit = kernel.COMPONENTS, kernel.COUNTERS, COINS_PER_BET
    rules, loop, make_tables, scratch = rules, kernel.LOOP, staticmethod(kernel.tables), kernel.SCRATCH
    pay_loop, make_pay_tables = pay_kernel.LOOP_BY_PAY, staticmethod(pay_kernel.pay_tables)
    pay_components, pay_counters, pay_scratch = pay_kernel.PAY_COMPONENTS, pay_kernel.PAY_COUNTERS, pay_kernel.PAY_SCRATCH

    # -- builds -------------------------------------------------------------
    # -- step machine ---------------------------------------------------------
    def start_round(self, build: Build, mode: str = "paid") -> dict[str, Any]:
        self.check_mode(mode)
        return rules.new_state(mode)

    def play_step(self, build: Build, state: dict[str, Any], draws: DrawSource,
                  action: str | None = None) -> StepResult:
        self.check_action(action)
        return rules.play_step(build, state, draws)

    def with_win_positions(self, build: Build, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A cascade's wins cover every cell of its board showing the winning symbol (pays anywhere)."""
        out = []
        for e in events:
            if e["type"] == "cascade":
                letters = [(w, SYMBOL_CHARS[SYMBOL_NAMES.index(w["symbol"])]) for w in e["wins"]]
                e = {**e, "wins": [{**w, "positions": [[r, row] for r, reel in enumerate(e["board"])
                                                       for row, ch in enumerate(reel) if ch == letter]}
                                   for w, letter in letters]}
            out.append(e)
        return out

    # -- help -----------------------------------------------------------------
    def help(self, build: Build, lang: str = DEFAULT_LANGUAGE) -> GameHelp:
        words = Words(lang)
        return self.make_help(
            build, volatility=8, rules=words.all(RULES_TEXT, top=words.number(MAX_WIN_X)), symbol_names=SYMBOL_WORDS, page=help_page(build, words),
            words=words,
            extra={"paytable_coins": {name: dict(zip(TIERS, row, strict=True))
                                      for name, row in PUBLISHED_PAYTABLE.items()},
                   "paytable_unit": "bet size x bet level (total bet / 20)",
                   "symbols": dict(zip(SYMBOL_CHARS, SYMBOL_NAMES, strict=True)),
                   "multiplier_values": list(build.values),
                   "bet_sizes": ["0.01", "0.1", "0.5"], "bet_levels": list(range(1, 11))})

    # -- mathematics --------------------------------------------------------------
    def simulate_features(self, build: Build, n: int, seed: int | np.random.SeedSequence) -> Accumulator:
        """Stratum for a stratified estimate: ``n`` 10-spin features (what Feature Buy delivers),
        each counted as one round with stake = the buy price. The paid game's free-spin share is
        P(trigger) x E[feature]; see :mod:`reelforge.games.gemstones_gold.stratified` for the
        full stratified report (trigger by scatter count, 12+ spin features)."""
        return self.simulate_chunk(build, n, seed, mode="buy")

    def stratified(self, build: Build, rounds: int, seed: int) -> StratifiedEstimate:
        """The stratified estimate of :mod:`.stratified` (paid boards with the multiplier reel
        integrated exactly, features per spin count, exact trigger probabilities)."""
        return self.stratified_estimator().run(build, rounds, seed)

    def best_estimator(self, build: Build) -> GemstonesGoldRtp:
        """The stratified estimator with importance-sampled paid boards (:class:`.stratified.GemstonesGoldRtp`)."""
        return GemstonesGoldRtp(self, build)

    def stratified_estimator(self) -> GemstonesGoldEstimator:
        """The estimator behind :meth:`stratified` (certification runs merge its samples piece by piece)."""
        return GemstonesGoldEstimator()

    def tune(self, name: str, targets: dict[str, float], out: str | None = None,
             sample: str | None = None) -> TuneResult:
        """Recalibrate the multiplier weights and Feature Buy price (``reelforge tune``) on the
        build's strips with the generic tuner; see :mod:`.design` (about 15 minutes on 2 cores
        for the shipped settings; ``sample`` keeps/reuses the simulated coefficients, one .npz file)."""
        from pathlib import Path

        from reelforge.games.gemstones_gold import design

        unknown = sorted(set(targets) - set(design.TUNABLE))
        if unknown:
            raise ValueError(f"{self.id} tunes rtp, rtp_paid and rtp_free (fractions, e.g. rtp=0.9671), not "
                             f"{unknown}: the hit and trigger rates are set by the strip design "
                             "(reelforge design gemstones-gold calibrate)")
        for k, v in targets.items():
            if not 0 < v < 1:
                raise ValueError(f"target {k} must be a fraction between 0 and 1, got {v}")
        # an existing .json is a tuning sample kept before the .npz format (still read); new ones are .npz
        if sample is not None and Path(sample).suffix != ".npz" and not (
                Path(sample).suffix == ".json" and Path(sample).exists()):
            raise ValueError(f"--sample: a sample file is an .npz archive, got {sample!r}")
        try:
            base = self.load_build(name)
        except BuildError:
            base = self.load_build(self.default_build())
        return design.tune_build(name, targets, list(base.strips), Path(out) if out else None,
                                 Path(sample) if sample else None)

    def extra_summary(self, build: Build, acc: Accumulator) -> dict[str, Any]:
        n = acc.rounds
        if n == 0:
            return {}
        trig = acc.counter("triggers")
        trig_hits = acc.counter("trigger_hits")
        out: dict[str, Any] = {
            "multiplier_mean_paid": float(build.mean_value(False)),
            "multiplier_mean_free": float(build.mean_value(True)),
            "cap_hits": acc.counter("cap_hits"),
            "cap_probability": acc.counter("cap_hits") / n,
            "cap_probability_ci99": list(clopper_pearson(acc.counter("cap_hits"), n)),
        }
        if acc.stake_units == COINS_PER_BET:
            out.update({
                "hit_rate_split": {
                    "trigger_free_spins": trig_hits / n,
                    "trigger_free_spins_ci99": list(acc.rate_ci99(trig_hits)),
                    "win_without_trigger": (acc.hits - trig_hits) / n,
                    "win_without_trigger_ci99": list(acc.rate_ci99(acc.hits - trig_hits)),
                },
                "paid_spins_multiplied_rate": acc.counter("paid_multiplied") / n,
                "paid_spins_multiplied_rate_ci99": list(wilson_ci(acc.counter("paid_multiplied"), n)),
            })
            mult = acc.counter("paid_multiplied")
            labels = kernel.mult_bin_labels(kernel.N_PAID_SUM_BINS)
            out["paid_multiplier_sums"] = {
                "spins": mult,
                "probability_per_paid_spin": {lab: acc.counter(f"paid_sum_{lab}") / n for lab in labels},
                "probability_per_paid_spin_ci99": {
                    lab: list(wilson_ci(acc.counter(f"paid_sum_{lab}"), n)) for lab in labels},
            }
        if trig:
            out.update({
                "mean_free_spins_per_feature": acc.counter("free_spins_played") / trig,
                "retriggers_per_feature": acc.counter("retriggers") / trig,
                "mean_feature_win_x": acc.components[1] / trig / COINS_PER_BET,
                "mean_feature_win_x_ci99": [v / COINS_PER_BET for v in mean_ci99(
                    acc.components[1], acc.component_sq[1], trig)],
                "feature_final_multiplier": {
                    "features": trig,
                    "mean": acc.counter("feature_m_total") / trig,
                    "probability_per_feature": {
                        lab: acc.counter(f"feature_m_{lab}") / trig for lab in ["0", *kernel.mult_bin_labels()]},
                    "probability_per_feature_ci99": {
                        lab: list(wilson_ci(acc.counter(f"feature_m_{lab}"), trig))
                        for lab in ["0", *kernel.mult_bin_labels()]},
                },
            })
        return out

    def feature_picture(self, build: Build, summary: dict[str, Any]) -> dict[str, Any] | None:
        """Revealed multiplier sums: the sum applied to a paid spin (per paid spin) beside the
        persistent total multiplier M at the end of each free-spin feature (per feature)."""
        extra = summary.get("extra") or {}
        paid_sums = extra.get("paid_multiplier_sums") or {}
        final = extra.get("feature_final_multiplier") or {}
        paid = paid_sums.get("probability_per_paid_spin")
        feat = final.get("probability_per_feature")
        if not paid and not feat:
            return None
        series = []
        paid_ci = paid_sums.get("probability_per_paid_spin_ci99") or {}
        feat_ci = final.get("probability_per_feature_ci99") or {}
        if paid:
            series.append({"name": "paid spin: multiplier sum applied (probability per paid spin)",
                           "labels": list(paid), "values": list(paid.values()),
                           "ci99": [paid_ci.get(k) for k in paid]})
        if feat:
            series.append({"name": "free spins: total multiplier M at the feature's end (probability per feature)",
                           "labels": list(feat), "values": list(feat.values()),
                           "ci99": [feat_ci.get(k) for k in feat]})
        first = series[0]
        return {"title": "Revealed multiplier sums", "labels": first["labels"], "values": first["values"],
                "series": series, "xlabel": "multiplier sum (x)", "ylabel": "probability (log)", "log": True}

    # -- the largest win ---------------------------------------------------------------
    def max_win_round(self, build: Build) -> tuple[str, list[list[int]]] | None:
        """A bought feature whose every free spin shows the same board with the top lane value on all six
        lanes: spin t pays W x v x m x t coins (W the board's win, m the lanes it reveals, the total
        multiplier growing by v x m a spin), past the cap within 10 spins when 55 W m v reaches it. The board
        is the first of a fixed-seed search that wins enough without a retrigger."""
        from reelforge.core.draws import RecordedDraws
        from reelforge.games.gemstones_gold.build import FREE_BLOCKERS, FREE_SPINS_AWARD

        top = max((v for v, w in zip(build.values, build.free_weights) if w), default=0)
        if not top or build.feature_buy_price_x is None:
            return None
        spins = FREE_SPINS_AWARD
        need = -(-MAX_WIN_X * COINS_PER_BET // (top * spins * (spins + 1) // 2))   # W x m at least this
        rng = np.random.default_rng(0)
        for _ in range(100_000):
            stops = [int(rng.integers(len(s))) for s in build.strips]
            spin = rules.Spin(build, stops, dict.fromkeys(range(6), top), FREE_BLOCKERS)
            spin.run()
            if spin.win_coins * len(spin.revealed()) >= need and spin.scatters() < 2:
                # the value draw: the first draw of the top value's weight band picks it
                draw = sum(build.free_weights[:build.values.index(top)])
                return "buy", self.play_round(build, RecordedDraws((stops + [draw] * 6) * spins), "buy").draws
        return None


def win_x(units: int) -> Fraction:
    """Win units as a multiple of total bet."""
    return Fraction(units, COINS_PER_BET)

