"""problab's demo_normal behind the game contract (a benchmark game: registered by the peer benchmark and its
tests through :func:`reelforge.games.problab.registered`, never in the lobby)."""

from __future__ import annotations

from reelforge.game.contract import Capabilities
from reelforge.game.exact import once_per_build
from reelforge.game.help import GameHelp
from reelforge.game.results import ExactFigures
from reelforge.game.texts import DEFAULT_LANGUAGE, Words
from reelforge.games.problab.peer_game import PeerGame
from reelforge.games.problab.peer_help import PEER

from . import kernel, rules
from .build import NORMAL_FILES, NORMAL_ID, NormalBuild


class DemoNormal(PeerGame):
    id = NORMAL_ID
    title = "problab demo_normal"
    reference_id = "problab-0"
    published_id = "0"
    max_win_x = 18_600
    """A bound on a round's win (24,000 + 10 x 72,000 units at 40 a bet), the kernels' cap: the peer applies
    no cap, so neither does this one in effect."""
    build_files = NORMAL_FILES
    rules = rules
    loop = kernel.LOOP
    make_tables = staticmethod(kernel.tables)
    capabilities = Capabilities(exact=True)

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
        return self.peer_help(build, words, rules_text, [3, 4, 5], "Of a kind on a line")
