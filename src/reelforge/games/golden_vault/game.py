"""Golden Vault behind the game contract."""

from fractions import Fraction
from itertools import product

from reelforge.game.contract import Capabilities
from reelforge.game.exact import once_per_build
from reelforge.game.harness import KernelGame
from reelforge.game.help import paytable_rows
from reelforge.game.results import ExactFigures
from reelforge.game.texts import DEFAULT_LANGUAGE, Words
from reelforge.game.tuning import DataTuning

from . import build as builds
from . import kernel, rules
from .build import GEMS, NAMES, UNIT
from .reporting import GoldenVaultReporting


class GoldenVault(DataTuning, KernelGame):
    title, version, max_win_x, feature_name, unit = "Golden Vault", "1.0", 2600, "Hold and Respin", UNIT
    # the largest round the rules can pay (15 coins of 100x, the 1,000x Grand, 100x of gems; `reelforge exact`
    # finds no larger): 5,000x, claimed before, could not be reached
    max_win_source = "the largest round the rules can pay (exact)"
    build_files, presentation = builds.FILES, "hold_and_respin"
    components, counters = ("paid_spins", "hold_and_respin"), ("triggers", "respins", "full_boards")
    rules, loop, make_tables, scratch = rules, kernel.LOOP, staticmethod(builds.tables), ("draws", "window", "values", "out")
    capabilities = Capabilities(exact=True, tunable=True)
    reporting = GoldenVaultReporting

    @once_per_build
    def exact(self, b) -> ExactFigures:
        """The paid spin's cells convolved, Hold and Respin as its Markov chain (see docs/maths.md)."""
        from .exact import exact_distribution

        return exact_distribution(b, self.cap_units(b))

    def help(self, b, lang=DEFAULT_LANGUAGE):
        _ = words = Words(lang)
        values = words.list(words.x(Fraction(v, UNIT)) for v in b.coin_values)
        return self.standard_help(
            b, volatility=6, tiers=["5", "6", "7", "8", "9+"], tier_label=_("Anywhere"), symbol_names=NAMES,
            rows=paytable_rows({NAMES[g]: p for g, p in b.pays.items()}, UNIT), words=words,
            how_wins_pay=[_("5 reels, 3 rows; every cell shows a blank, a gem or a gold coin. 5 or more of one gem "
                            "anywhere pay the paytable (multiples of the total bet).")],
            feature=[_("A coin shows its value, a multiple of the total bet ({values}). {trigger} or more coins start "
                       "Hold and Respin.", values=values, trigger=b.trigger),
                     _.plural("The coins stay and the other cells spin again, {n} respin; every new coin stays too "
                              "and resets the respins to {n}. When no respin is left, or every cell holds a coin, the "
                              "coins' values are paid; a full board adds the Grand prize of {grand}x the total bet.",
                              "The coins stay and the other cells spin again, {n} respins; every new coin stays too "
                              "and resets the respins to {n}. When no respin is left, or every cell holds a coin, the "
                              "coins' values are paid; a full board adds the Grand prize of {grand}x the total bet.",
                              b.respins, grand=words.number(b.grand_x))],
            extra={"trigger": b.trigger, "respins": b.respins, "grand_x": str(b.grand_x)})

    # -- the largest win ---------------------------------------------------------------
    def _best_board(self, b):
        """The paid board and respins that win most: ``(units, coins, gem counts, paid value, respin value)``
        over every count of coins and of each gem with a weight (coins of the largest value that can land)."""
        paid_coin = max(v for v, w in zip(b.coin_values, b.base["coins"]) if w)
        respin_coin = max((v for v, w in zip(b.coin_values, b.respin["coins"]) if w), default=0)
        gems = [g for g in GEMS if b.base["gems"][g]]
        best = None
        for counts in product(range(16), repeat=len(gems)):
            coins = 15 - sum(counts)
            if coins < 0 or (coins and not paid_coin):
                continue
            pays = sum(b.pays[g][min(n, 9) - 5] for g, n in zip(gems, counts) if n >= 5)
            feature = coins >= b.trigger
            # the coins held and landed, and the Grand where the board can fill
            full = coins * paid_coin + (15 - coins) * respin_coin + b.grand_x * UNIT * (coins == 15 or respin_coin > 0) \
                if feature else 0
            option = (pays + full, coins, dict(zip(gems, counts)), paid_coin, respin_coin)
            if best is None or option[0] > best[0]:
                best = option
        return best

    def max_win_bound(self, b):
        units, coins, gems, paid, respin = self._best_board(b)
        gem_text = " + ".join(f"{n} {NAMES[g]} ({Fraction(b.pays[g][min(n, 9) - 5], UNIT)}x)"
                              for g, n in gems.items() if n >= 5) or "no gem pay"
        if coins >= b.trigger:
            return Fraction(units, UNIT), (f"a full board of 15 coins ({coins} of {Fraction(paid, UNIT)}x in the paid "
                                           f"spin, {15 - coins} of {Fraction(respin, UNIT)}x landing) + the "
                                           f"{b.grand_x:,}x Grand + {gem_text}")
        return Fraction(units, UNIT), f"the best paid board: {gem_text}"

    def max_win_round(self, b):
        units, coins, gems, paid, respin = self._best_board(b)
        t = self.make_tables(b)

        def draw(cum, index):            # the smallest draw that picks outcome ``index``
            return int(cum[index - 1]) if index else 0

        paid_index = 1 + len(GEMS) + b.coin_values.index(paid)
        cells = [paid_index] * coins + [1 + GEMS.index(g) for g, n in gems.items() for _ in range(n)]
        steps = [[draw(t.base_cum[0], i) for i in cells]]
        if coins >= b.trigger and coins < 15:
            steps.append([draw(t.respin_cum, 1 + b.coin_values.index(respin))] * (15 - coins))
        return "paid", steps
