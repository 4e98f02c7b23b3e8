"""What Gemstones Gold's browser client (``client.js``) shows of a round, for the generic browser tests:
CSS selector -> attribute -> value (``count``: how many match)."""

from __future__ import annotations

import re
from typing import Any

SYMBOL_NAMES = {"G": "GOLD_NUGGET", "R": "RUBY", "A": "AMETHYST", "S": "SAPPHIRE", "E": "EMERALD",
                "B": "BRONZE_ORE", "P": "PINK_STONE", "L": "BLUE_STONE", "X": "SCATTER"}
"""The rules' one-letter symbols by the names the client draws them under."""
BOARD = "[data-testid='gg-board']"
"""The board, whose ``data-board`` is :func:`board_text` of the board drawn."""
COUNTERS = ("gg-free-spins", "gg-total-multiplier", "gg-lanes")
"""The test ids of what the table keeps in view beside the board."""
OPENED_VIEW = {f"{BOARD} .gem-cell[data-symbol]": {"count": 36}}
"""The table on open: a symbol in every cell of the 6x6 board."""
HELP_WORDS = ("8-9", "10-11", "12-14", "15+", "Gold Nugget", "blockers", "Retriggers", "Feature Buy")
"""Words of the game's own features its help must say."""
REPLAY_WORDS = ("Total multiplier", "Cascade")
"""Words the pictures of a replayed feature round say."""
FEATURE_VIEW = {"free_spins": "gg-free-spins", "multiplier": "gg-total-multiplier", "wins": "gg-wins",
                "banner": ".gg-banner",
                "status": re.compile(r"^Free spins left: (?P<left>\d+), (?:total multiplier (?P<mult>\d+)x|"
                                     r"no multiplier revealed yet)\.$")}
"""The free spins as the table tells them: the counters' test ids (``data-value``), the win list's, the banner, and
the message bar's sentence (``left``: spins left, ``mult``: the total multiplier, none revealed: 0)."""


def board_text(board: list[str]) -> str:
    """A board event's board (reels of one-letter symbols) as the grid's ``data-board`` says it."""
    return "|".join(",".join(SYMBOL_NAMES[ch] for ch in reel) for reel in board)


def resumed_view(round_: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The table after a reload of an unfinished round (``round_`` as ``GET /rounds/{id}`` gives it): the last
    board, the free spins left and the total multiplier."""
    events = [ev for step in round_["steps"] for ev in step["events"]]
    state = round_["state"]
    last = [ev for ev in events if "final_board" in ev][-1]
    return {BOARD: {"data-board": board_text(last["final_board"])},
            "[data-testid='gg-free-spins']": {"data-value": str(state["spins_left"])},
            "[data-testid='gg-total-multiplier']": {"data-value": str(state["total_multiplier"])}}


def replayed_cascade(event: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A replay's picture of a cascade event: its board, its winning cells marked, each lane's blockers left."""
    view: dict[str, dict[str, Any]] = {BOARD: {"data-board": board_text(event["board"])},
                                       ".gem-cell.win": {"count": sum(w["count"] for w in event["wins"])}}
    view.update({f"[data-testid='gg-lane-{b['lane']}']": {"data-blockers": str(b["remaining"])} for b in event["blockers"]})
    return view
