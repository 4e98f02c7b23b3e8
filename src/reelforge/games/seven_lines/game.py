"""Seven Lines behind the game contract."""

from reelforge.game.contract import Capabilities, ExactFigures
from reelforge.game.exact import once_per_build
from reelforge.game.harness import DataTuning, KernelGame, paytable_rows

from . import build as builds
from . import kernel, rules
from .build import COINS, LINES, NAMES


class SevenLines(DataTuning, KernelGame):
    id = reference_id = "seven-lines"
    title, version, max_win_x, feature_name, unit = "Seven Lines", "1.0", 2000, "Free Spins", COINS
    build_files, presentation = builds.FILES, "lines"
    components, counters = ("paid_spins", "free_spins"), ("triggers", "retriggers", "free_spins_played")
    rules, loop, make_tables, scratch = rules, kernel.LOOP, staticmethod(builds.tables), ("stops", "window", "out")
    capabilities = Capabilities(exact=True, tunable=True)

    @once_per_build
    def exact(self, b) -> ExactFigures:
        """Every stop combination of the five reels, the free spins as their Markov chain (see docs/maths.md)."""
        from .exact import exact_distribution

        return exact_distribution(b, self.cap_units(b))

    def with_win_positions(self, build, events):
        """Line wins cover the line's cells on reels 1..count, Star wins the cells showing a Star."""
        window = next((e["window"] for e in events if e["type"] == "reels"), [])
        out = []
        for e in events:
            if e["type"] == "win":
                count = int(e["pay"].split()[0])
                cells = ([[r, int(LINES[e["line"] - 1][r])] for r in range(count)] if "line" in e else
                         [[r, row] for r, reel in enumerate(window) for row, name in enumerate(reel) if name == NAMES["S"]])
                e = {**e, "positions": cells}
            out.append(e)
        return out

    def help(self, b):
        rows = paytable_rows({NAMES[s]: p for s, p in b.pays.items()} | {"Star (anywhere)": b.star_pays}, COINS, 3)
        return self.standard_help(
            b, volatility="Medium", tiers=["3", "4", "5"], tier_label="Of a kind", rows=rows, symbol_names=NAMES,
            how_wins_pay=["5 reels, 3 rows and 10 fixed lines; total bet = 10 x line bet. Each line pays its highest "
                          "win, left to right from reel 1.",
                          "The Wild substitutes for every symbol but the Star, and pays its own row."],
            feature=[f"3, 4 or 5 Stars anywhere pay the Star pays and award {', '.join(map(str, b.free_spins))} free "
                     f"spins; Stars in free spins award more, up to {b.free_spins_limit} free spins in all. Free spin "
                     f"wins are multiplied by {b.free_spins_multiplier}."],
            extra={"lines": LINES.tolist(), "free_spins_multiplier": b.free_spins_multiplier})
