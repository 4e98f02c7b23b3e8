"""Toy Line behind the game contract: the only module the rest of reelforge talks to."""

from __future__ import annotations

from fractions import Fraction

from reelforge.core.draws import RecordedDraws
from reelforge.game.harness import KernelGame
from reelforge.game.help import GameHelp

from . import build as builds
from . import kernel, rules
from .build import SYMBOL_WORDS, Build


class ToyLine(KernelGame):
    id = "toy-line"
    title = "Toy Line"
    reference_id = "toy-line"
    version = "1.0"
    max_win_x = 100
    feature_name = "Free Spins"
    build_files = builds.FILES
    components = ("paid_spin", "free_spins")       # the parts of a round win (the kernel's parts)
    counters = ("triggers",)                       # the feature counter first
    rules = rules                                  # new_state(build, mode), play_step(build, state, draws, cap)
    loop = kernel.LOOP                             # the harness loop around kernel.play_round
    make_tables = staticmethod(kernel.tables)

    def help(self, build: Build, lang: str = "en") -> GameHelp:
        pays = {s: str(Fraction(build.pays[s], build.coins)) for s in "ABC"}
        rules_text = (
            "3 reels, 3 rows, one payline on the middle row. Three of a kind on it pays the paytable "
            "(multiples of the total bet).",
            f"A Star on every reel awards {build.free_spins} free spins; their wins are multiplied by "
            f"{build.free_spins_multiplier}.",
            f"The maximum win of a round is {self.max_win_x}x the total bet; reaching it ends the round.",
        )
        return self.make_help(
            build, volatility=4, rules=rules_text, symbol_names=SYMBOL_WORDS,
            extra={"pays_x": {SYMBOL_WORDS[s]: v for s, v in pays.items()}},
            page={"paytable": {"title": "Paytable", "tiers": ["3 of a kind"], "tier_label": "On the middle row",
                               "note": "Pays are multiples of the total bet.",
                               "rows": [{"art": [s] * 3, "name": SYMBOL_WORDS[s], "pays_x": [v]}
                                        for s, v in pays.items()]},
                  "features": [{"title": "Free spins", "text": [rules_text[1]]}],
                  "sections": [{"title": "Maximum win", "text": [rules_text[2]]}]},
        )

    def win_unit(self, build: Build) -> int:
        return build.coins

    def max_win_round(self, build: Build) -> tuple[str, list[list[int]]]:
        """The largest win shown reachable (check_game demands it): Stars on every reel's middle row, then
        free spins with Anchors there until the cap."""
        stars = [strip.index("S") for strip in build.strips]
        anchors = [strip.index("A") for strip in build.strips]
        return "paid", self.play_round(build, RecordedDraws(stars + anchors * build.free_spins)).draws

    def max_win_bound(self, build: Build) -> tuple[Fraction, str]:
        """The paid spin's best line and every free spin's, multiplied: what no round can pass."""
        top = Fraction(max(build.pays.values()), build.coins)
        return top * (1 + build.free_spins * build.free_spins_multiplier), (
            f"the best line ({top}x) in the paid spin and in {build.free_spins} free spins at x{build.free_spins_multiplier}")
