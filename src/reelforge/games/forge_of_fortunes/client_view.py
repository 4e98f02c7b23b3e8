"""What Forge of Fortunes' browser client (``client.js``) shows of a round, for the generic browser tests:
CSS selector -> attribute -> value (a pattern where the attribute holds more; ``count``: how many match)."""

from __future__ import annotations

import re
from typing import Any

BOARD = ".fof-machine"
"""The machine: the three reels and the payline."""
COUNTERS = ("fof-ladder",)
"""The test ids of what the table keeps in view beside the board (the ladder)."""
OPENED_VIEW = {".fof-reels": {"data-symbols": re.compile(r"^\w+ \w+ \w+$")}}
"""The table on open: a symbol on each reel."""
HELP_WORDS = ("Coal", "Slag")
"""Words of the game's own features its help must say."""
REPLAY_WORDS = ("Ladder:", "runner reached last")
"""Words the pictures of a replayed feature round say."""


def help_view(help_: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The help dialog of ``GET /games/{id}/help``'s answer ``help_``: every safe runner on the ladder."""
    return {"[data-testid='help-ladder'] li.safe": {"count": len(help_["extra"]["safe_runners_x"])}}


def resumed_view(round_: dict[str, Any]) -> dict[str, dict[str, str | re.Pattern[str]]]:
    """The table after a reload of an unfinished round (``round_`` as ``GET /rounds/{id}`` gives it): the
    ladder's marker on the runner reached, the reels showing the last re-spin's symbols."""
    runner = round_["state"]["runner"]
    symbols = round_["steps"][-1]["events"][0]["symbols"]
    return {"[data-testid='fof-ladder']": {"data-marker": str(runner)},
            f"[data-testid='runner-{runner}']": {"class": re.compile(r"\bmarker\b")},
            ".fof-reels": {"data-symbols": " ".join(symbols)}}
