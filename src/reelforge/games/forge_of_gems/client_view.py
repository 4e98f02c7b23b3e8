"""What Forge of Gems' browser client (``client.js``) shows of a round, for the generic browser tests:
CSS selector -> attribute -> value (``count``: how many match)."""

from __future__ import annotations

import re
from typing import Any

BOARD = "[data-testid='fog-board']"
"""The board, whose ``data-board`` is :func:`board_text` of the board drawn."""
COUNTERS = ("fog-multiplier", "fog-free-spins", "fog-forge-reel")
"""The test ids of what the table keeps in view beside the board."""
OPENED_VIEW = {f"{BOARD} .gem-cell[data-symbol]": {"count": 15}}
"""The table on open: a symbol in every cell of the 5x3 board."""
HELP_WORDS = ("Vertical Wild", "Horizontal Splitter", "Multiplier", "3 Scatters", "5+ Scatters", "8 free spins")
"""Words of the game's own features its help must say."""
REPLAY_WORDS = ("ways", "win multiplier x", "GEMBOX")
"""Words the pictures of a replayed feature round say."""
FEATURE_VIEW = {"free_spins": "fog-free-spins", "multiplier": "fog-multiplier", "wins": "fog-wins",
                "banner": ".fog-banner",
                "status": re.compile(r"^Free spins left: (?P<left>\d+), win multiplier x(?P<mult>\d+)\.$")}
"""The free spins as the table tells them: the counters' test ids (``data-value``), the win list's, the banner, and
the message bar's sentence (``left``: spins left, ``mult``: the multiplier)."""


def board_text(board: list[list[str]]) -> str:
    """A board event's board as the grid's ``data-board`` says it (columns of cells, top to bottom)."""
    return "|".join(",".join(col) for col in board)


def resumed_view(round_: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The table after a reload of an unfinished round (``round_`` as ``GET /rounds/{id}`` gives it): the
    last FORGE REEL and board, the win multiplier, and in the free spins the spins left."""
    events = [ev for step in round_["steps"] for ev in step["events"]]
    state = round_["state"]
    last = [ev for ev in events if "forge_reel" in ev][-1]
    view = {"[data-testid='fog-forge-reel']": {"data-forge": ",".join(last["forge_reel"])},
            BOARD: {"data-board": board_text(last["board"])},
            "[data-testid='fog-multiplier']": {"data-value": str(state["multiplier"])}}
    if state["phase"] == "free":
        view["[data-testid='fog-free-spins']"] = {"data-value": str(state["free_left"])}
    return view
