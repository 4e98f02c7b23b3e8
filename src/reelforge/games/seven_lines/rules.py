"""Seven Lines reference rules, step by step, with audit events.

Draw order: every spin, paid or free, draws one stop per reel, reel 1 to 5, uniform over the strip;
a reel shows its stop and the two below. Each of the 10 lines pays its highest win left to right
(the Wild substitutes for every symbol but the Star, and pays its own row); Stars pay anywhere.
3, 4, 5 Stars award free spins, also in free spins (no more than the limit in all); free spin wins
are multiplied. A round's win stops at the cap, which ends it (free spins left are forfeit).
The pays and the free spins of a spin are :func:`.kernel.spin`, which the kernel plays too.
"""

from fractions import Fraction

from reelforge.game.contract import RulesError
from reelforge.game.loop import round_tables
from reelforge.game.results import step_in_units
from reelforge.mechanics.features import by_count, cap_events
from reelforge.mechanics.reels import draw_reels

from .build import COINS, NAMES, SYMBOLS, tables
from .kernel import spin


def new_state(build, mode):
    return {"left": 0, "played": 0, "total": 0, "done": False}


def play_step(build, state, draws, cap):
    if state["done"]:
        raise RulesError("the round is finished; no step is left to play")
    t = round_tables(build, tables, ("stops", "window", "out"))
    draw_reels(draws, t.codes, t.lens, t.stops, 3, t.window)
    before, free = state["left"], state["left"] > 0
    added, left, played, award, n, stars = (int(v) for v in spin(t, state["total"], before, state["played"], cap))
    mult, total = t.multiplier if free else 1, state["total"] + added
    wins = [(f"{count} {NAMES[SYMBOLS[s]]}", pay, {"line": int(line) + 1}) for line, s, count, pay, _ in t.out[:n]]
    star_pay = int(by_count(stars, t.star_pays))
    wins += [(f"{stars} Star", star_pay, {})] if star_pay else []
    events = [{"type": "reels", "stops": t.stops.tolist(), "window": [[NAMES[SYMBOLS[c]] for c in r] for r in t.window]}]
    events += [{"type": "win", "pay": pay, **at, "multiplier": mult, "win_x": str(Fraction(int(c) * mult, COINS))}
               for pay, c, at in wins]
    if award:
        events.append({"type": "free_spins_awarded", "spins": left - before + free, "retrigger": free})
    events += cap_events(total, cap, COINS)
    return step_in_units("free_spin" if free else "paid_spin", events, added, total, COINS, "free_spin" if left else None,
                         {"left": left, "played": played, "total": total, "done": left == 0})
