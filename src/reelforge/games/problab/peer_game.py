"""What both of problab's demo games declare alike: the peer's version, the technical cap, the free rounds
and their two round components, the bet unit as the win unit, and the help page's shape."""

from __future__ import annotations

from typing import Any

from reelforge.game.harness import KernelGame
from reelforge.game.help import GameHelp
from reelforge.game.results import TECHNICAL_LIMIT
from reelforge.game.texts import Words
from reelforge.games.problab.peer_builds import PeerBuild, symbol_word
from reelforge.games.problab.peer_help import help_page, paytable_page


class PeerGame(KernelGame):
    """A demo game of the peer (benchmark only); the subclass gives its ids, rules, kernel and help text."""

    version = "b825b02"
    max_win_source = TECHNICAL_LIMIT
    feature_name = "Free Rounds"
    components = ("paid_spin", "free_spins")
    counters = ("triggers",)

    def win_unit(self, build: Any) -> int:
        return build.bet_unit

    def peer_help(self, build: PeerBuild, words: Words, rules_text: tuple[str, ...], counts: list[int],
                  label: str) -> GameHelp:
        """The help of ``build``: its rules text, and the paytable of the base game by ``counts`` of a kind."""
        paytable = paytable_page(build.symbols, build.base.pays, build.bet_unit, counts, label, words)
        return self.make_help(build, volatility=6, rules=rules_text, words=words,
                              symbol_names={s: symbol_word(s) for s in build.symbols},
                              page=help_page(words, paytable, rules_text))
