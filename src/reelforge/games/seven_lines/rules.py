"""Seven Lines reference rules, step by step, with audit events.

Draw order: every spin, paid or free, draws one stop per reel, reel 1 to 5, uniform over the strip;
a reel shows its stop and the two below. Each of the 10 lines pays its highest win left to right
(the Wild substitutes for every symbol but the Star, and pays its own row); Stars pay anywhere.
3, 4, 5 Stars award free spins, also in free spins (no more than the limit in all); free spin wins
are multiplied. A round's win stops at the cap, which ends it (free spins left are forfeit).
The pays and the free spins of a spin are :func:`.kernel.spin`, which the kernel plays too.
"""

from fractions import Fraction

import numpy as np

from reelforge.buildfile import kernel_tables
from reelforge.game import RulesError, StepResult
from reelforge.mechanics.reels import window_from_stops

from .build import COINS, NAMES, SYMBOLS, tables
from .kernel import spin


def new_state(build, mode):
    return {"left": 0, "played": 0, "total": 0, "done": False}


def play_step(build, state, draws, cap):
    if state["done"]:
        raise RulesError("the round is finished; no step is left to play")
    t = kernel_tables(build, tables)._replace(window=np.zeros((5, 3), np.int64), out=np.zeros((10, 5), np.int64))
    stops = np.array([draws.draw(int(n)) for n in t.lens], dtype=np.int64)
    window_from_stops(t.codes, t.lens, stops, 3, t.window)
    before, free = state["left"], state["left"] > 0
    added, left, played, award, n, stars = (int(v) for v in spin(t, state["total"], before, state["played"], cap))
    mult, total = t.multiplier if free else 1, state["total"] + added
    wins = [(f"{count} {NAMES[SYMBOLS[s]]}", pay, {"line": int(line) + 1}) for line, s, count, pay, _ in t.out[:n]]
    wins += [(f"{stars} Star", t.star_pays[stars], {})] if t.star_pays[stars] else []
    events = [{"type": "reels", "stops": stops.tolist(), "window": [[NAMES[SYMBOLS[c]] for c in r] for r in t.window]}]
    events += [{"type": "win", "pay": pay, **at, "multiplier": mult, "win_x": str(Fraction(int(c) * mult, COINS))}
               for pay, c, at in wins]
    if award:
        events.append({"type": "free_spins_awarded", "spins": left - before + free, "retrigger": free})
    if total == cap:
        events.append({"type": "cap", "cap_x": str(Fraction(cap, COINS))})
    return StepResult("free_spin" if free else "paid_spin", events, Fraction(added, COINS), Fraction(total, COINS),
                      left == 0, None if left == 0 else "free_spin",
                      {"left": left, "played": played, "total": total, "done": left == 0})
