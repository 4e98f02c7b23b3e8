"""math-sdk's sample lines game (``games/0_0_lines``), reference rules, step by step, with events.

* A spin draws one stop per reel, reel 1 to 5, uniform over the strip; a reel shows its stop and the
  two below. The paid spin uses the base strips (BR0), free spins the free strips (FR0).
* Each of the 20 lines pays its highest win left to right: the run of leading Wilds paid as Wilds,
  or the first other symbol with the Wilds before and after it substituting, whichever pays more (a
  tie goes to the symbol), as the sample's ``Lines.get_lines``.
* In free spins every Wild carries a multiplier drawn by the build's weights (after the stops, reel by
  reel, top to bottom); a line win is multiplied by the sum of the multipliers on its winning cells.
* 3, 4, 5 Scatters on the paid spin award 8, 12, 15 free spins; in free spins 2, 3, 4, 5 Scatters
  award 3, 5, 8, 12 more.
* A round's win stops at the cap (5,000x), which ends it. (The sample keeps spinning and pays the
  cap: the same payout.)
The pays of a spin are :func:`.kernel.spin`, which the kernel plays too.
"""

from fractions import Fraction
from typing import Any

from reelforge.game.contract import RulesError
from reelforge.game.loop import round_tables
from reelforge.game.results import step_in_units
from reelforge.mechanics.features import cap_events
from reelforge.mechanics.reels import draw_reels, pick_weighted

from .build import BASE, FREE, NAMES, ROWS, SYMBOLS, TENTHS, WILD, tables
from .kernel import awarded, spin

SCRATCH = ("stops", "window", "mults", "out")


def new_state(build: Any, mode: str) -> dict[str, Any]:
    return {"left": 0, "total": 0, "free": False, "done": False}


def draw_spin(draws: Any, t: Any, reel_set: int, free: bool) -> None:
    """:func:`.kernel.draw_spin` from a :class:`~reelforge.core.draws.DrawSource`, in the same order."""
    draw_reels(draws, t.codes[reel_set], t.lens[reel_set], t.stops, ROWS, t.window)
    for r in range(5):
        for row in range(ROWS):
            wild = free and t.window[r, row] == WILD
            t.mults[r, row] = t.mult_values[pick_weighted(t.mult_cum, draws.draw(int(t.mult_cum[-1])))] if wild else 0


def play_step(build: Any, state: dict[str, Any], draws: Any, cap: int):
    """The next spin of the round from ``state`` (not mutated)."""
    if state["done"]:
        raise RulesError("the round is finished; no step is left to play")
    t = round_tables(build, tables, SCRATCH)
    free = state["free"]
    draw_spin(draws, t, FREE if free else BASE, free)
    added, reached, n, scatters = (int(v) for v in spin(t, state["total"], cap))
    total = state["total"] + added
    events: list[dict[str, Any]] = [{"type": "reels", "stops": t.stops.tolist(),
                                     "window": [[NAMES[SYMBOLS[c]] for c in reel] for reel in t.window]}]
    if free:
        events[0]["wild_multipliers"] = t.mults.tolist()
    for line, symbol, count, pay, mult in t.out[:n].tolist():
        events.append({"type": "line_win", "line": line + 1, "symbol": NAMES[SYMBOLS[symbol]], "count": count,
                       "multiplier": mult, "win_x": str(Fraction(pay, TENTHS))})
    more = int(awarded(t, free, scatters, reached))
    if more:
        events.append({"type": "free_spins_awarded", "spins": more, "scatters": scatters, "retrigger": free})
    events += cap_events(total, cap, TENTHS)
    left = 0 if reached else state["left"] - free + more
    return step_in_units("free_spin" if free else "paid_spin", events, added, total, TENTHS,
                         "free_spin" if left else None, {"left": left, "total": total, "free": True, "done": left == 0})
