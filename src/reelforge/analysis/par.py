"""PAR-sheet content of a build: paytable, strips or weights with symbol frequencies per reel, the hit
frequency and RTP contribution of each pay (base game and features apart), the feature's trigger
frequency, average win and win distribution, and the cap with its frequency.

Everything is read from the build data, so a retuned build flows through. Every game gets the generic
sheet built from its win events (:mod:`reelforge.analysis.par_events`); a game whose pays say more than
its win events (exact mathematics, multipliers, instant prizes) gives its own through
:meth:`reelforge.game.contract.Reporting.par_sheet`, made with the toolkit of :mod:`reelforge.game.parsheet`.
"""

from __future__ import annotations

from typing import Any

from reelforge.game.contract import Game
from reelforge.game.parsheet import section

PAR_SAMPLE_ROUNDS = 200_000
"""Default reference-engine rounds behind a simulated game's per-pay figures (about 20 s per game)."""


def par_sheet(game: Game, build: Any, summary: dict[str, Any], rounds: int = PAR_SAMPLE_ROUNDS,
              seed: int = 2026) -> dict[str, Any]:
    """The PAR-sheet content of ``build`` (``{"sample", "sections"}``, see :mod:`reelforge.game.parsheet`);
    ``rounds`` reference-engine rounds back the per-pay figures of simulated games."""
    if rounds < 1:
        raise ValueError("the PAR sample needs at least one round")
    sheet = game.report().par_sheet(build, summary, rounds, seed)
    if sheet is None:
        from reelforge.analysis.par_events import event_par_sheet

        sheet = event_par_sheet(game, build, summary, rounds, seed)
    rules = game.report().rule_sources(build)
    if rules:
        sheet["sections"].insert(1, section("The rules and where each comes from", ["rule", "document", "section"], rules,
                                            "Every rule the engine plays, with the document and section it is read "
                                            "from; where the rules are silent, the design document decides."))
    return sheet
