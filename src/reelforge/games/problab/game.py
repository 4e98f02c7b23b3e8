"""problab's two demo games behind the game contract (benchmark games: registered by the peer
benchmark and its tests through :func:`reelforge.games.problab.registered`, never in the lobby)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from reelforge.game.contract import Capabilities
from reelforge.game.exact import once_per_build
from reelforge.game.harness import KernelGame
from reelforge.game.help import GameHelp
from reelforge.game.results import TECHNICAL_LIMIT, ExactFigures
from reelforge.game.texts import DEFAULT_LANGUAGE, Words

from . import cascade_kernel, cascade_rules, normal_kernel, normal_rules
from .peer_builds import CASCADE_FILES, CASCADE_ID, NORMAL_FILES, NORMAL_ID, CascadeBuild, NormalBuild, symbol_word

PEER = "zintix-labs/problab (Apache-2.0), demo/demo_configs at b825b02"


def _paytable(symbols: tuple[str, ...], pays: tuple[tuple[int, ...], ...], unit: int, counts: list[int],
              label: str, words: Words) -> dict[str, Any]:
    rows = [{"art": [s] * min(counts[0], 5), "name": symbol_word(s),
             "pays_x": [str(Fraction(row[c - 1], unit)) for c in counts]}
            for s, row in zip(symbols, pays, strict=True) if max(row) > 0]
    return {"title": words("Paytable"), "tiers": [str(c) for c in counts], "tier_label": words(label),
            "note": words("Pays are multiples of the total bet; free rounds pay from their own table."), "rows": rows}


def _page(words: Words, paytable: dict[str, Any], rules_text: tuple[str, ...]) -> dict[str, Any]:
    """The help page of both demos: the paytable, the free rounds, where the game comes from."""
    return {"paytable": paytable, "features": [{"title": words("Free rounds"), "text": [rules_text[1]]}],
            "sections": [{"title": words("Origin"), "text": [rules_text[2]]}]}


class DemoNormal(KernelGame):
    id = NORMAL_ID
    title = "problab demo_normal"
    reference_id = "problab-0"
    published_id = "0"
    version = "b825b02"
    max_win_x = 18_600
    """A bound on a round's win (24,000 + 10 x 72,000 units at 40 a bet), the kernels' cap: the peer applies
    no cap, so neither does this one in effect."""
    max_win_source = TECHNICAL_LIMIT
    feature_name = "Free Rounds"
    build_files = NORMAL_FILES
    components = ("paid_spin", "free_spins")
    counters = ("triggers",)
    rules = normal_rules
    loop = normal_kernel.LOOP
    make_tables = staticmethod(normal_kernel.tables)
    capabilities = Capabilities(exact=True)

    def win_unit(self, build: NormalBuild) -> int:
        return build.bet_unit

    @once_per_build
    def exact(self, build: NormalBuild) -> ExactFigures:
        """Every stop combination of both reel sets, the free rounds composed (the generic evaluator)."""
        from .exact import exact_distribution

        return exact_distribution(build, self.cap_units(build))

    def help(self, build: NormalBuild, lang: str = DEFAULT_LANGUAGE) -> GameHelp:
        _ = words = Words(lang)
        unit = build.bet_unit
        rules_text = (
            _("5 reels, {rows} rows, {lines} lines paid left to right from the first reel; each line pays its "
              "highest win. The Wild substitutes for every paying symbol and pays its own row.",
              rows=build.rows, lines=len(build.lines)),
            _.plural("3 or more Scatters anywhere award {n} free round on their own reels and paytable; free "
                     "rounds award no more.",
                     "3 or more Scatters anywhere award {n} free rounds on their own reels and paytable; free "
                     "rounds award no more.", build.free_rounds),
            _("Reproduced from {peer} for the side-by-side benchmark. The peer declares a maximum win of "
              "{limit}x but never applies it; nor does this game.",
              peer=PEER, limit=words.number(build.max_win_limit // unit)),
        )
        paytable = _paytable(build.symbols, build.base.pays, unit, [3, 4, 5], "Of a kind on a line", words)
        return self.make_help(build, volatility=6, rules=rules_text, words=words,
                              symbol_names={s: symbol_word(s) for s in build.symbols},
                              page=_page(words, paytable, rules_text))


class DemoCascade(KernelGame):
    id = CASCADE_ID
    title = "problab demo_cascade"
    reference_id = "problab-1"
    published_id = "1"
    version = "b825b02"
    max_win_x = cascade_rules.CAP_X
    max_win_source = TECHNICAL_LIMIT
    feature_name = "Free Rounds"
    build_files = CASCADE_FILES
    components = ("paid_spin", "free_spins")
    counters = ("triggers",)
    rules = cascade_rules
    loop = cascade_kernel.LOOP
    make_tables = staticmethod(cascade_kernel.tables)
    scratch = cascade_kernel.SCRATCH

    def win_unit(self, build: CascadeBuild) -> int:
        return build.bet_unit

    def help(self, build: CascadeBuild, lang: str = DEFAULT_LANGUAGE) -> GameHelp:
        _ = words = Words(lang)
        unit = build.bet_unit
        rules_text = (
            _("5 reels, {rows} rows. Clusters of 5 or more of a symbol touching side by side pay by size; Wilds "
              "join clusters of any symbol. Winning cells clear, the rest fall, and new symbols drop in; this "
              "repeats while anything wins.", rows=build.rows),
            _.plural("{trigger} or more Scatters on the final board of the paid spin pay {pay}x and award {n} free "
                     "round on their own reels and paytable.",
                     "{trigger} or more Scatters on the final board of the paid spin pay {pay}x and award {n} free "
                     "rounds on their own reels and paytable.", build.free_rounds,
                     trigger=build.trigger, pay=words.number(Fraction(build.scatter_pay, unit))),
            _("Reproduced from {peer} for the side-by-side benchmark. The peer declares a maximum win of "
              "{limit}x but never applies it; this game stops a round at {top}x.",
              peer=PEER, limit=words.number(build.max_win_limit // unit), top=words.number(self.max_win_x)),
        )
        paytable = _paytable(build.symbols, build.base.pays, unit, [5, 8, 12, 25], "Cluster size", words)
        return self.make_help(build, volatility=6, rules=rules_text, words=words,
                              symbol_names={s: symbol_word(s) for s in build.symbols},
                              page=_page(words, paytable, rules_text))
