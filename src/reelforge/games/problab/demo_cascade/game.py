"""problab's demo_cascade behind the game contract (a benchmark game: registered by the peer benchmark and its
tests through :func:`reelforge.games.problab.registered`, never in the lobby)."""

from __future__ import annotations

from fractions import Fraction

from reelforge.game.help import GameHelp
from reelforge.game.texts import DEFAULT_LANGUAGE, Words
from reelforge.games.problab.peer_game import PeerGame
from reelforge.games.problab.peer_help import PEER

from . import kernel, rules
from .build import CASCADE_FILES, CASCADE_ID, CascadeBuild


class DemoCascade(PeerGame):
    id = CASCADE_ID
    title = "problab demo_cascade"
    reference_id = "problab-1"
    published_id = "1"
    max_win_x = rules.CAP_X
    build_files = CASCADE_FILES
    rules = rules
    loop = kernel.LOOP
    make_tables = staticmethod(kernel.tables)
    scratch = kernel.SCRATCH

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
        return self.peer_help(build, words, rules_text, [5, 8, 12, 25], "Cluster size")
