"""Canyon Ways behind the game contract: a Megaways-style game (6 reels of 2-7 rows a spin, ways, tumbles)."""

from reelforge.core.draws import RecordedDraws
from reelforge.game.contract import Capabilities
from reelforge.game.harness import FeatureSplitGame, FeatureStart, KernelGame
from reelforge.game.help import paytable_rows
from reelforge.game.texts import DEFAULT_LANGUAGE, Words
from reelforge.game.tuning import DataTuning
from reelforge.mechanics.reels import stops_showing_most

from . import build as builds
from . import kernel, rules
from .build import EAGLE, NAMES, REELS, ROWS, SUN, UNIT, WILD


class CanyonWays(FeatureSplitGame, DataTuning, KernelGame):
    title, version, max_win_x, feature_name, unit = "Canyon Ways", "1.0", 5000, "Free Spins", UNIT
    build_files, capabilities = builds.FILES, Capabilities(tunable=True, stratified=True)
    feature_start = FeatureStart("free_spins", {"trigger": 0}, 0.05, 2.72)  # 0 Suns: every paid spin triggers
    components, counters = ("paid_spins", "free_spins"), ("triggers", "winning_tumbles", "free_spins_played")
    rules, loop, make_tables = rules, kernel.LOOP, staticmethod(builds.tables)

    def help(self, b, lang=DEFAULT_LANGUAGE):
        _ = words = Words(lang)
        return self.standard_help(b, tiers=["3", "4", "5", "6"], tier_label=_("Of a kind, per way"),
            symbol_names=NAMES, rows=paytable_rows({NAMES[s]: p for s, p in b.pays.items()}, UNIT), words=words,
            how_wins_pay=[_("6 reels of 2 to 7 symbols each spin. A symbol on adjacent reels from reel 1 pays its pay "
                            "per way times its ways: its count on each of those reels, multiplied. The Wild "
                            "substitutes for every symbol but the Sun. Winning symbols vanish and new ones fall in, "
                            "again and again while they win.")],
            feature=[_("{trigger} or more Suns anywhere when the paid spin ends award {spins} free spins. In free "
                       "spins every win is multiplied by the win multiplier: it starts at x1 and rises by 1 after "
                       "each winning tumble, until the free spins end.",
                       trigger=words.number(b.trigger), spins=words.number(b.free_spins))])

    def max_win_round(self, b):
        """7 rows a reel at the stops showing the most Suns, then the most Eagles and Wilds in every free spin."""
        t = self.make_tables(b)
        tall = [int(t.height_cum[0, ROWS - 1])] * REELS        # the draw that picks 7 rows
        spins = tall + stops_showing_most(t.codes, t.lens, ROWS, {SUN})
        spins += (tall + stops_showing_most(t.codes, t.lens, ROWS, {EAGLE, WILD})) * b.free_spins
        return "paid", self.play_round(b, RecordedDraws(spins)).draws
