"""Golden Vault reference rules, step by step, with audit events.

Draw order: the paid spin draws one outcome per cell (blank, a gem or a coin, by the base weights),
reel 1 to 5, each top to bottom. Gems pay anywhere by their count. ``trigger`` coins or more start
Hold and Respin: the coins stay, the other cells empty, ``respins`` respins. Each respin draws one
outcome per empty cell (blank or a coin, by the respin weights) in the same order; a new coin
resets the respins. It ends with no respin left or a full board; it pays the coins' values, plus
the grand prize for a full board. A round's win stops at the cap.
"""

from fractions import Fraction

import numpy as np

from reelforge.game.buildfile import kernel_tables
from reelforge.game.contract import RulesError
from reelforge.game.results import StepResult
from reelforge.mechanics.features import cap_events, capped
from reelforge.mechanics.holdspin import board_full, collect, empty_cells, land_coins, respins_after
from reelforge.mechanics.pays import anywhere_wins
from reelforge.mechanics.reels import window_from_weights

from .build import GEMS, NAMES, UNIT, cell_name, tables


def new_state(build, mode):
    return {"phase": "paid", "values": None, "respins": 0, "total": 0}


def _result(kind, events, before, total, values, left, cap):
    done = left == 0 or total == cap
    return StepResult(kind, events, Fraction(total - before, UNIT), Fraction(total, UNIT), done,
                      None if done else "respin", {"phase": "done" if done else "respin", "respins": left,
                                                   "values": None if values is None else values.tolist(), "total": total})


def play_step(build, state, draws, cap):
    t = kernel_tables(build, tables)
    if state["phase"] == "paid":
        window = np.zeros((5, 3), dtype=np.int64)
        window_from_weights(t.base_cum, np.array([draws.draw(int(t.base_cum[0, -1])) for _ in range(15)], np.int64), window)
        values = t.base_values[window]
        events = [{"type": "board", "board": [[cell_name(c, v) for c, v in zip(*cv)] for cv in zip(window, values)]}]
        out = np.zeros_like(t.out)
        wins = out[: anywhere_wins(window, t.pays, out)]
        events += [{"type": "win", "pay": f"{min(count, 9)}{'+' if count >= 9 else ''} {NAMES[GEMS[code - 1]]}",
                    "count": int(count), "win_x": str(Fraction(int(pay), UNIT))} for code, count, pay in wins]
        total = int(capped(0, int(wins[:, 2].sum()), cap)[0])
        if np.count_nonzero(values) < t.trigger or total == cap:
            return _result("paid_spin", events, 0, total, None, 0, cap)
        events.append({"type": "hold_and_respin", "coins": int(np.count_nonzero(values)), "respins": t.respins})
        return _result("paid_spin", events, 0, total, values, t.respins, cap)
    if state["phase"] != "respin":
        raise RulesError("the round is finished; no step is left to play")
    values = np.array(state["values"], dtype=np.int64)
    drawn = np.array([draws.draw(int(t.respin_cum[-1])) for _ in range(empty_cells(values))], dtype=np.int64)
    landed = land_coins(values, t.respin_cum, t.respin_values, drawn)
    left = respins_after(state["respins"], landed, t.respins)
    events = [{"type": "board", "board": [[cell_name(0, v) for v in reel] for reel in values], "landed": int(landed),
               "respins": int(left)}]
    win = 0
    if board_full(values) or left == 0:
        pays = [("Coins collected", int(collect(values)))] + [("Grand (full board)", t.grand)] * board_full(values)
        events += [{"type": "win", "pay": pay, "win_x": str(Fraction(units, UNIT))} for pay, units in pays]
        win = sum(units for _, units in pays)
    added, reached = capped(state["total"], win, cap)
    left = 0 if board_full(values) or reached else left
    events += cap_events(state["total"] + int(added), cap, UNIT)
    return _result("respin", events, state["total"], state["total"] + int(added), values, left, cap)
