"""math-sdk's sample lines game behind the game contract (a benchmark game: registered by the Stake race
and its tests through :func:`reelforge.games.mathsdk_lines.registered`, never in the lobby)."""

from reelforge.game.harness import KernelGame
from reelforge.game.help import paytable_rows
from reelforge.game.results import TECHNICAL_LIMIT
from reelforge.game.texts import DEFAULT_LANGUAGE, Words

from . import build as builds
from . import kernel, rules
from .build import NAMES, TENTHS

PEER = "StakeEngine/math-sdk (MIT), games/0_0_lines at 63e9cc6"


class MathSdkLines(KernelGame):
    id = builds.FILES.game_id
    reference_id = "mathsdk-0_0_lines"
    title, version, feature_name, unit = "math-sdk Sample Lines", "63e9cc6", "Free Spins", TENTHS
    max_win_x = 5000
    # the sample's wincap: held by every round (checked), but no round reaching it is constructed here, and the
    # game is a benchmark outside the lobby, so the cap is no promise to players
    max_win_source = TECHNICAL_LIMIT
    build_files, presentation = builds.FILES, "lines"
    components, counters = ("paid_spin", "free_spins"), ("triggers", "retriggers", "free_spins_played")
    rules, loop, make_tables, scratch = rules, kernel.LOOP, staticmethod(builds.tables), rules.SCRATCH

    def cap_x(self, build):
        return build.cap_x

    def help(self, b, lang=DEFAULT_LANGUAGE):
        _ = words = Words(lang)
        rows = paytable_rows({NAMES[s]: p for s, p in b.pays.items()}, TENTHS, 3)
        mults = words.list(f"x{words.number(k)}" for k in sorted(b.free_wild_multipliers, key=int))
        return self.standard_help(
            b, tiers=["3", "4", "5"], tier_label=_("Of a kind on a line"), rows=rows, symbol_names=NAMES,
            words=words,
            how_wins_pay=[_("5 reels, 3 rows and 20 fixed lines. Each line pays its highest win, left to right from "
                            "reel 1."), _("The Wild substitutes for every symbol but the Scatter, and pays its own row.")],
            feature=[_("3, 4 or 5 Scatters award 8, 12 or 15 free spins on reels of their own; 2, 3, 4 or 5 Scatters "
                       "in free spins award 3, 5, 8 or 12 more."),
                     _("In free spins every Wild carries a multiplier ({multipliers}); a line win is multiplied by the "
                       "sum of the multipliers on its winning symbols.", multipliers=mults),
                     _("Reproduced from {peer}, for the side-by-side benchmark of Stake book generation.", peer=PEER)],
            extra={"lines": b.lines})
