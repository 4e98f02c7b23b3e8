"""Golden Vault behind the game contract."""

from fractions import Fraction

from reelforge.game.contract import Capabilities, ExactFigures
from reelforge.game.exact import once_per_build
from reelforge.game.harness import DataTuning, KernelGame, paytable_rows

from . import build as builds
from . import kernel, rules
from .build import NAMES, UNIT


class GoldenVault(DataTuning, KernelGame):
    id = reference_id = "golden-vault"
    title, version, max_win_x, feature_name, unit = "Golden Vault", "1.0", 5000, "Hold and Respin", UNIT
    build_files, presentation = builds.FILES, "hold_and_respin"
    components, counters = ("paid_spins", "hold_and_respin"), ("triggers", "respins", "full_boards")
    rules, loop, make_tables, scratch = rules, kernel.LOOP, staticmethod(builds.tables), ("draws", "window", "values", "out")
    capabilities = Capabilities(exact=True, tunable=True)

    @once_per_build
    def exact(self, b) -> ExactFigures:
        """The paid spin's cells convolved, Hold and Respin as its Markov chain (see docs/maths.md)."""
        from .exact import exact_distribution

        return exact_distribution(b, self.cap_units(b))

    def help(self, b):
        values = ", ".join(f"{Fraction(v, UNIT)}x" for v in b.coin_values)
        return self.standard_help(
            b, volatility="High", tiers=["5", "6", "7", "8", "9+"], tier_label="Anywhere", symbol_names=NAMES,
            rows=paytable_rows({NAMES[g]: p for g, p in b.pays.items()}, UNIT),
            how_wins_pay=["5 reels, 3 rows; every cell shows a blank, a gem or a gold coin. 5 or more of one gem "
                          "anywhere pay the paytable (multiples of the total bet)."],
            feature=[f"A coin shows its value, a multiple of the total bet ({values}). {b.trigger} or more coins start "
                     "Hold and Respin.",
                     f"The coins stay and the other cells spin again, {b.respins} respins; every new coin stays too "
                     f"and resets the respins to {b.respins}. When no respin is left, or every cell holds a coin, the "
                     f"coins' values are paid; a full board adds the Grand prize of {b.grand_x:,}x the total bet."],
            extra={"trigger": b.trigger, "respins": b.respins, "grand_x": str(b.grand_x)})
