"""Forge of Fortunes behind the common game interface."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from reelforge.core.stats import Accumulator, mean_ci99, wilson_ci
from reelforge.core.tuning import rtp_target
from reelforge.game.contract import Capabilities, RulesDocument
from reelforge.game.harness import KernelGame
from reelforge.game.help import GameHelp
from reelforge.game.results import ExactFigures, TuneResult
from reelforge.game.texts import DEFAULT_LANGUAGE, ENGLISH, N_, Words
from reelforge.games.forge_of_fortunes import build as builds
from reelforge.games.forge_of_fortunes import kernel, rules
from reelforge.games.forge_of_fortunes.build import Build
from reelforge.games.forge_of_fortunes.exact import exact
from reelforge.games.forge_of_fortunes.reporting import ForgeOfFortunesReporting

RULES_TEXT = [N_(p) for p in (
    "Forge of Fortunes is a 3-reel, 1-row video slot with one fixed payline and 10 coins; total bet = 10 x coin value.",
    "Two Gold Nuggets on reels 1 and 2 (reel 3 not Gold) pay the two-of-a-kind award shown in the paytable.",
    "Three Gold Nuggets trigger Forging Re-Spins with the marker on the first runner of the prize ladder.",
    "Each re-spin: Slag on any reel ends the feature and pays the current runner; otherwise three Gold Nuggets "
    "move the marker up one runner (reaching the top runner ends the feature and pays it); otherwise Coal on "
    "reel 3 moves the marker back one runner unless the runner is safe; otherwise nothing changes.",
    "Coal appears only during the feature and only on reel 3. Slag blocks in the base game.",
    "The award is the runner reached last, not the highest visited; runner values are never added together.",
    "Safe runners: {safe}. Maximum win {top}x total bet.",
    "Every round is decided when it is staked; an interrupted round continues where it stopped. A round left "
    "unfinished past the expiry (90 days unless the operator sets another) is completed and its win paid; it is "
    "never refunded. Malfunction (an error while the round is decided, before anything of it is shown) voids all "
    "pays and plays.",
)]
"""The rules text, one paragraph per entry (``{safe}`` and ``{top}`` filled from the build)."""


VOLATILITY = 7  # on the project's 1-10 SD scale, exact (tests/games/forge_of_fortunes/test_exact.py)
"""The publisher's risk field (volatility level 7; the project's scale from the SD agrees)."""
SYMBOL_WORDS = {"GOLD": "Gold Nugget", "SLAG": "Slag", "COAL": "Coal", "BLANK": "Blank"}


def help_page(build: Build, words: Words = ENGLISH) -> dict[str, Any]:
    """The paytable, the prize ladder and the rules as the game shows them, in ``words``' language."""
    _ = words
    return {
        "paytable": {
            "title": _("Paytable"), "tiers": [_("Pays")], "tier_label": _("On the payline"),
            "note": _("Pays are multiples of the total bet (10 coins on one fixed payline)."),
            "rows": [{"art": ["GOLD", "GOLD"], "name": _("Two Gold Nuggets on reels 1 and 2"),
                      "pays_x": [str(build.two_of_a_kind_x)]},
                     {"art": ["GOLD", "GOLD", "GOLD"], "name": _("Three Gold Nuggets"),
                      "text": _("Start the Forging Re-Spins")}],
        },
        "features": [
            {"title": _("Forging Re-Spins"), "text": [_(
                "Three Gold Nuggets start the Forging Re-Spins with the marker on the first runner of the "
                "prize ladder. The re-spins go on until Slag lands or the marker reaches the top runner; "
                "then the runner the marker stands on is paid.")],
             "items": [
                 {"art": ["GOLD"], "name": "Gold Nugget",
                  "text": _("Three on the payline move the marker up one runner; the top runner ends the feature.")},
                 {"art": ["COAL"], "name": "Coal",
                  "text": _("Lands only in the feature and only on reel 3: moves the marker back one runner, "
                            "unless the marker stands on a safe runner.")},
                 {"art": ["SLAG"], "name": "Slag",
                  "text": _("In the feature, Slag on any reel ends it and pays the current runner. In the base "
                            "game it blocks the Gold Nuggets.")}]},
            {"title": _("Prize ladder"), "text": [_(
                "The award is the runner reached last, not the highest visited; runner values are never "
                "added together. Coal cannot move the marker off a safe runner.")],
             "ladder": [{"x": str(v), "safe": i in build.safe} for i, v in enumerate(build.ladder)]},
        ],
        "sections": [
            {"title": _("How wins pay"), "text": [
                _("3 reels, 1 row, one fixed payline and 10 coins: total bet = 10 x coin value."),
                _("Two Gold Nuggets on reels 1 and 2 (reel 3 not a Gold Nugget) pay the two-of-a-kind award; "
                  "three start the Forging Re-Spins. Re-spins are played at the bet that triggered them.")]},
            {"title": _("Maximum win"), "text": [_("The maximum win is {top}x the total bet, the top runner.",
                                                  top=words.number(build.ladder[-1]))]},
        ],
    }


class ForgeOfFortunes(KernelGame):
    title = "Forge of Fortunes"
    reference_id = "622"
    published_id = "622"
    feature_name = "Forging Re-Spins"
    version = "1.0"
    rules_document = RulesDocument("the published rules and help text (Game ID 622, v1.0): the project's source "
                                   "document 001_80ae9de499b28a2c.txt", "8a9e214b6cedec78f8a3c6b8b3579bb1796d189179deac989b47abe55602c828")
    max_win_x = 2500
    reference_stakes = (0.10, 100)
    """The published risk fields' reference stakes (maximum exposure 250,000 at 100)."""
    modes = ("paid",)
    step_actions = ()
    """Every step is a plain spin or re-spin: any action is refused."""
    capabilities = Capabilities(exact=True, tunable=True)
    quick_exact = True
    """The exact figures are a small Markov chain (about a millisecond a build)."""
    reporting = ForgeOfFortunesReporting
    design_commands = "reelforge.games.forge_of_fortunes.commands:app"
    build_files = builds.FILES

    components = ("paid_spin", "feature")
    rules, loop, make_tables = rules, kernel.loop, staticmethod(builds.tables)

    def help(self, build: Build, lang: str = DEFAULT_LANGUAGE) -> GameHelp:
        words = Words(lang)
        safe = words.list(words.x(build.ladder[i]) for i in sorted(build.safe))
        return self.make_help(
            build, volatility=VOLATILITY, symbol_names=SYMBOL_WORDS, page=help_page(build, words), words=words,
            rules=words.all(RULES_TEXT, safe=safe, top=words.number(build.ladder[-1])),
            extra={"coins_per_bet": build.coins, "two_of_a_kind_coins": build.two_of_a_kind_coins,
                   "ladder_x": list(build.ladder), "safe_runners_x": [build.ladder[i] for i in sorted(build.safe)]})

    # -- mathematics ------------------------------------------------------------
    def win_unit(self, build: Build) -> int:
        return build.two_of_a_kind_x.denominator

    def cap_x(self, build: Build) -> int:
        return build.ladder[-1]

    def counter_names(self, build: Build) -> tuple[str, ...]:
        return ("triggers", "respins") + tuple(f"end_{v}x" for v in build.ladder)

    def exact(self, build: Build) -> ExactFigures:
        r = exact(build)
        fm = r.feature
        # a two-of-a-kind is the only base-game pay, so its rate is the probability of its award
        two = r.outcomes.get(build.two_of_a_kind_x, Fraction(0)) if build.two_of_a_kind_x else Fraction(0)
        return ExactFigures(
            rtp=r.rtp, rtp_split={"paid_spin": r.rtp_paid, "feature": r.rtp_feature},
            hit_rate=r.hit_rate, feature_rate=r.trigger, variance=r.variance,
            max_win_x=int(r.max_win_x), max_win_probability=r.max_win_probability, outcomes=r.outcomes,
            extra={
                "hit_rate_split": {"two_of_a_kind": two, "feature": r.trigger},
                "expected_respins_per_feature": fm.expected_respins,
                "feature_end_runner_probability": {
                    f"{build.ladder[i]}x": p for i, p in enumerate(fm.end_probability)},
                "feature_expected_win_x": r.rtp_feature / r.trigger,
            })

    def tune(self, name: str, targets: dict[str, float], out: str | None = None,
             sample: str | None = None) -> TuneResult:
        """Calibrate strips for ``targets`` (rtp, p_max, sd) and write the build file.

        The RTP target defaults to the build name (``96.2`` -> 0.962); ``p_max``
        to 1e-5 (the published 1 in 100,000); ``sd`` to 11.5 (volatility level 7).
        """
        from pathlib import Path

        from reelforge.games.forge_of_fortunes import design

        if sample is not None:
            raise ValueError(f"{self.id} is tuned on exact figures: --sample does not apply")
        unknown = set(targets) - {"rtp", "p_max", "sd"}
        if unknown:
            raise ValueError(f"unknown target(s) {sorted(unknown)}; {self.id} tunes rtp, p_max, sd")
        rtp = rtp_target(targets, name)
        build = design.tune(name, rtp, targets.get("p_max", 1e-5), targets.get("sd", 11.5))
        path = Path(out) if out else builds.BUILDS_DIR / f"{name}.toml"
        path.write_text(design.build_toml(build))
        r = exact(build)
        return TuneResult(
            game=self.id, build=name, file=str(path), method="exact",
            figures={"rtp": r.rtp, "rtp_error_pp": float((r.rtp - rtp) * 100),
                     "max_win_probability": r.max_win_probability,
                     "max_win_one_in": float(1 / r.max_win_probability), "hit_rate": r.hit_rate,
                     "sd": float(r.variance) ** 0.5})

    def feature_picture(self, build: Build, summary: dict[str, Any]) -> dict[str, Any] | None:
        extra = summary.get("extra") or {}
        ends = extra.get("feature_end_runner_probability")
        if not ends:
            return None
        cis = extra.get("feature_end_runner_probability_ci99") or {}
        return {"title": "Forging Re-Spins: probability of ending on each runner (per feature)",
                "labels": list(ends), "values": [v or 0.0 for v in ends.values()],
                "ci99": [cis.get(k) for k in ends] if cis else None,
                "xlabel": "ladder runner (x total bet)", "ylabel": "probability (log)", "log": True}

    def extra_summary(self, build: Build, acc: Accumulator) -> dict[str, Any]:
        trig = acc.counter("triggers")
        n = acc.rounds
        two = acc.components[0] // build.two_of_a_kind_x.numerator if build.two_of_a_kind_x else 0
        out: dict[str, Any] = {
            "feature_triggers": trig,
            "expected_respins_per_feature": acc.counter("respins") / trig if trig else None,
            "feature_end_runner_probability": {
                f"{v}x": (acc.counter(f"end_{v}x") / trig if trig else None) for v in build.ladder},
            "feature_end_runner_probability_ci99": {
                f"{v}x": (list(wilson_ci(acc.counter(f"end_{v}x"), trig)) if trig else None) for v in build.ladder},
        }
        if n:
            # every two-of-a-kind round pays the same award, so its count is its component / the award
            out["hit_rate_split"] = {"two_of_a_kind": two / n, "two_of_a_kind_ci99": list(wilson_ci(two, n)),
                                     "feature": trig / n, "feature_ci99": list(wilson_ci(trig, n))}
        if trig:
            out["feature_expected_win_x"] = acc.components[1] / trig / acc.unit
            out["feature_expected_win_x_ci99"] = [v / acc.unit for v in mean_ci99(
                acc.components[1], acc.component_sq[1], trig)]
        return out
