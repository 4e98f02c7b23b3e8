"""Seven Lines behind the game contract."""

from fractions import Fraction

from reelforge.core.draws import RecordedDraws
from reelforge.game.contract import Capabilities
from reelforge.game.exact import once_per_build
from reelforge.game.harness import KernelGame
from reelforge.game.help import paytable_rows
from reelforge.game.results import ExactFigures
from reelforge.game.texts import DEFAULT_LANGUAGE, Words
from reelforge.game.tuning import DataTuning

from . import build as builds
from . import kernel, rules
from .build import COINS, LINES, NAMES, STAR, SYMBOLS
from .reporting import SevenLinesReporting


class SevenLines(DataTuning, KernelGame):
    title, version, max_win_x, feature_name, unit = "Seven Lines", "1.0", 2000, "Free Spins", COINS
    max_win_source = "design document: Seven Lines' declared design targets (targets.toml; no rules document)"
    build_files, presentation = builds.FILES, "lines"
    components, counters = ("paid_spins", "free_spins"), ("triggers", "retriggers", "free_spins_played")
    rules, loop, make_tables, scratch = rules, kernel.LOOP, staticmethod(builds.tables), ("stops", "window", "out")
    capabilities = Capabilities(exact=True, tunable=True)
    reporting = SevenLinesReporting

    @once_per_build
    def exact(self, b) -> ExactFigures:
        """Every stop combination of the five reels, the free spins as their Markov chain (see docs/maths.md)."""
        from .exact import exact_distribution

        return exact_distribution(b, self.cap_units(b))

    def exact_search_figures(self, b) -> dict[str, Fraction]:
        """RTP, hit rate and feature frequency without the win distribution (the tuner's candidates)."""
        from .exact import search_figures

        return search_figures(b)

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

    def help(self, b, lang=DEFAULT_LANGUAGE):
        _ = words = Words(lang)
        star = _("{symbol} (anywhere)", symbol=NAMES["S"])
        rows = paytable_rows({NAMES[s]: p for s, p in b.pays.items()} | {star: b.star_pays}, COINS, 3)
        return self.standard_help(
            b, volatility=4, tiers=["3", "4", "5"], tier_label=_("Of a kind"), rows=rows, symbol_names=NAMES,
            words=words,
            how_wins_pay=[_("5 reels, 3 rows and 10 fixed lines; total bet = 10 x line bet. Each line pays its highest "
                            "win, left to right from reel 1."),
                          _("The Wild substitutes for every symbol but the Star, and pays its own row.")],
            feature=[_("3, 4 or 5 Stars anywhere pay the Star pays and award {spins} free spins; Stars in free spins "
                       "award more, up to {limit} free spins in all. Free spin wins are multiplied by {multiplier}.",
                       spins=words.list_or(words.number(n) for n in b.free_spins),
                       limit=words.number(b.free_spins_limit), multiplier=words.number(b.free_spins_multiplier))],
            extra={"lines": LINES.tolist(), "free_spins_multiplier": b.free_spins_multiplier})

    # -- the largest win ---------------------------------------------------------------
    def max_win_bound(self, b):
        spin = len(LINES) * max(p[2] for p in b.pays.values()) + max(b.star_pays)
        return Fraction(spin * (1 + b.free_spins_limit * b.free_spins_multiplier), COINS), (
            f"a spin pays at most {len(LINES)} lines x {Fraction(max(p[2] for p in b.pays.values()), COINS)}x + "
            f"{Fraction(max(b.star_pays), COINS)}x of Stars, and a round has the paid spin and at most "
            f"{b.free_spins_limit} free spins at x{b.free_spins_multiplier}")

    def max_win_round(self, b):
        """Stars on three reels, then free spins showing five of the best symbol every reel holds on the
        middle line, until the cap."""
        t = self.make_tables(b)
        codes = [t.codes[r][: t.lens[r]].tolist() for r in range(5)]
        star_reels = [r for r in range(5) if STAR in codes[r]][:3]
        best = max((s for s in "WRBGLC" if all(b.reels[s])), key=lambda s: b.pays[s][2], default=None)
        if len(star_reels) < 3 or best is None:
            return None
        paid = [codes[r].index(STAR) if r in star_reels else 0 for r in range(5)]
        # a reel shows its stop and the two below: the symbol one below the stop is on the middle line
        free = [(codes[r].index(SYMBOLS.index(best)) - 1) % len(codes[r]) for r in range(5)]
        return "paid", self.play_round(b, RecordedDraws(paid + free * b.free_spins_limit)).draws
