"""Canyon Ways reference rules, step by step, with audit events. Draws, every spin: a height per reel (reels 1-6,
2-7 rows by the build's weights), then a stop per reel (reels 1-6, uniform; the reel shows its stop and the symbols
below). Ways pay from reel 1, the Wild standing in for all but the Sun; paid cells tumble until the board pays nothing
(:func:`~reelforge.mechanics.cascade.tumble_tables`; the kernel plays the same on counts). Suns on the paid spin's last
board award free spins, whose winning tumbles pay x the multiplier (x1, +1 after each); the cap forfeits the rest."""

from reelforge.game.contract import RulesError
from reelforge.game.loop import round_tables
from reelforge.game.results import step_in_units
from reelforge.mechanics.cascade import tumble_tables
from reelforge.mechanics.features import cap_events, capped
from reelforge.mechanics.pays import ways_events
from reelforge.mechanics.reels import count_symbol, draw_by_heights, shown_by_heights

from .build import LABELS, SUN, UNIT, WILD, tables


def new_state(build, mode):
    return {"left": 0, "multiplier": 1, "total": 0, "done": False}


def play_step(build, state, draws, cap):
    if state["done"]:
        raise RulesError("the round is finished; no step is left to play")
    t = round_tables(build, tables)
    draw_by_heights(draws, t.codes, t.lens, t.height_cum, t.heights, t.stops, t.board)
    free, multiplier, total = int(state["left"] > 0), state["multiplier"], state["total"]
    events = [{"type": "reels", "stops": t.stops.tolist(), "heights": t.heights.tolist(),
               "board": shown_by_heights(t.board, t.heights, LABELS)}]
    reached, (n, win) = False, tumble_tables(t, WILD)
    while n and not reached:
        added, reached = capped(total, int(win) * multiplier, cap)
        events += ways_events(t.out[:n], LABELS, multiplier, UNIT)
        events.append({"type": "tumble", "board": shown_by_heights(t.board, t.heights, LABELS)})
        total, multiplier = total + added, multiplier + free
        n, win = (0, 0) if reached else tumble_tables(t, WILD)
    left, suns = 0 if reached else state["left"] - free, int(count_symbol(t.board, SUN))
    if not (free or reached) and suns >= build.trigger:
        left = build.free_spins
        events.append({"type": "free_spins_awarded", "spins": left, "suns": suns})
    return step_in_units("free_spin" if free else "paid_spin", events + cap_events(total, cap, UNIT),
                         total - state["total"], total, UNIT, "free_spin" if left else None,
                         {"left": left, "multiplier": multiplier, "total": total, "done": left == 0})
