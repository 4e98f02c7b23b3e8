"""Gemstones Gold reference rules, step by step, with audit events.

Board: 6 reels x 6 rows, ``board[reel][row]`` with row 0 at the TOP. Each
reel is a strip; a spin draws one stop per reel and the reel shows
``strip[stop], strip[stop+1], ... strip[stop+5]`` top to bottom (wrapping).
Refills continue UP the strip: after a collapse, the lowest empty cell gets
``strip[stop-1]``, the next one up ``strip[stop-2]`` and so on (no draws).

Draw order (the kernel consumes draws in exactly this order):

* paid spin: reel stops 1..6 (``draw(len(strip_r))``); then the three lanes,
  each ``draw(k)`` over the lanes still free in ascending order (k = 6, 5, 4);
  then the three values in lane-placement order, each ``draw(sum(base_weights))``
  mapped through the cumulative base weights;
* free spin: reel stops 1..6; then the six values for lanes 1..6, each
  ``draw(sum(free_weights))`` through the cumulative free weights.

Nothing else is random: cascades, blockers, scatters and multipliers follow.

A spin: evaluate the board (pay anywhere, :func:`reelforge.mechanics.pays.anywhere_wins`); every
paying symbol with 8+ cells wins its paytable tier (coins, 20 coins = total bet); all winning cells
explode, the board collapses and refills from the strips above the window
(:func:`reelforge.mechanics.cascade.clear_and_fall`, :func:`~reelforge.mechanics.cascade.refill_from_strips`);
repeat until no win. After each cascade with a win, every lane value
whose column holds at least one winning cell of that cascade loses ONE
blocker. At the end the fully revealed values are ADDED into S. Paid spin:
win = W x S (W unmultiplied when S = 0). Free spin: if S > 0 then M := M + S
and the spin pays W x M, else W. Scatters (never exploding) are counted on
the final board: 3+ in the paid spin award 10 + 2 per extra scatter free
spins; 2+ in a free spin award 5 more. The round (paid spin plus feature, or
a bought feature) stops at 7,500x total bet, paying exactly that and
forfeiting any remaining spins.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.core.draws import DrawSource
from reelforge.game.contract import RulesError
from reelforge.game.results import StepResult
from reelforge.games.gemstones_gold.build import (
    BASE_BLOCKERS,
    BASE_LANES,
    COINS_PER_BET,
    FREE_BLOCKERS,
    FREE_SPINS_AWARD,
    FREE_SPINS_PER_EXTRA_SCATTER,
    MIN_COUNT,
    N_PAYING,
    N_SYMBOLS,
    REELS,
    RETRIGGER_SCATTERS,
    RETRIGGER_SPINS,
    ROWS,
    SCATTER,
    SYMBOL_CHARS,
    SYMBOL_NAMES,
    TRIGGER_SCATTERS,
    Build,
    tier_of,
)
from reelforge.mechanics.cascade import clear_and_fall, refill_from_strips
from reelforge.mechanics.features import capped
from reelforge.mechanics.pays import ANYWHERE_COLUMNS, anywhere_wins
from reelforge.mechanics.reels import window_from_stops
from reelforge.mechanics.tumble import EMPTY

PAID, FREE, DONE = "paid", "free", "done"


def x_of(units: int) -> str:
    """Win units (coins) as an exact multiple of total bet, for events."""
    return str(Fraction(units, COINS_PER_BET))


_CHAR_CODES = np.frombuffer(SYMBOL_CHARS.encode("ascii"), dtype=np.uint8)


def board_text(board: np.ndarray) -> list[str]:
    """A board as six strings, one per reel, top to bottom."""
    text = _CHAR_CODES[board].tobytes().decode("ascii")
    return [text[r * ROWS:(r + 1) * ROWS] for r in range(REELS)]


def weighted_value(build: Build, free: bool, draws: DrawSource) -> int:
    """One multiplier value: a uniform draw over the total weight, mapped through the cumulative weights."""
    weights = build.free_weights if free else build.base_weights
    x = draws.draw(build.free_total if free else build.base_total)
    for value, w in zip(build.values, weights, strict=True):
        if x < w:
            return value
        x -= w
    raise AssertionError("unreachable: draw below total weight")


class Spin:
    """One spin (paid or free): the board, the strips' refill pointers and the lanes."""

    def __init__(self, build: Build, stops: list[int], lanes: dict[int, int], blockers: int) -> None:
        self.build = build
        self.stops = stops
        arrays = build.arrays
        self.strips, self.lens = arrays["strips"], arrays["lens"]
        # the paytable by count, nothing below the winning count (read here: the rules' one number)
        self.pays = np.where(np.arange(arrays["pay"].shape[1]) >= MIN_COUNT, arrays["pay"], 0)
        self.board = np.empty((REELS, ROWS), dtype=np.int64)
        window_from_stops(self.strips, self.lens, np.array(stops, dtype=np.int64), ROWS, self.board)
        self.tops = np.array(stops, dtype=np.int64)   # each reel's refill continues up its strip from the stop
        self.removed = np.zeros((REELS, ROWS), dtype=np.bool_)
        self.wins = np.zeros((N_PAYING, len(ANYWHERE_COLUMNS)), dtype=np.int64)
        self.lanes = dict(sorted(lanes.items()))    # lane (0-based column) -> value
        self.blockers = {lane: blockers for lane in self.lanes}
        self.win_coins = 0
        self.cascades = 0

    def cascade(self) -> dict[str, Any] | None:
        """Evaluate once (the library's pay-anywhere counts); on a win explode, remove blockers, collapse
        and refill from the strips above. None when no win."""
        k = anywhere_wins(self.board, self.pays, self.wins)
        if k == 0:
            return None
        self.cascades += 1
        wins, coins, winners = [], 0, []
        for s, c, pay in self.wins[:k].tolist():
            coins += pay
            winners.append(s)
            wins.append({"symbol": SYMBOL_NAMES[s], "count": c, "tier": tier_of(c) + 1,
                         "coins": pay, "amount_x": x_of(pay)})
        self.win_coins += coins
        is_winner = np.zeros(N_SYMBOLS, dtype=bool)
        is_winner[winners] = True
        removed = is_winner[self.board]
        qualifying = removed.any(axis=1).tolist()
        blockers = []
        for lane, value in self.lanes.items():
            before = self.blockers[lane]
            hit = qualifying[lane] and before > 0
            if hit:
                self.blockers[lane] = before - 1   # ONE blocker per cascade, however many winning cells
            blockers.append({"lane": lane + 1, "value": value, "removed": 1 if hit else 0,
                             "remaining": self.blockers[lane],
                             "revealed_now": hit and self.blockers[lane] == 0})
        event = {"type": "cascade", "index": self.cascades, "board": board_text(self.board),
                 "wins": wins, "cascade_win_x": x_of(coins), "columns_with_wins": [r + 1 for r in range(REELS) if qualifying[r]],
                 "blockers": blockers}
        self.removed[:, :] = removed
        empties = clear_and_fall(self.board, self.removed)
        refill_from_strips(self.board, empties, self.strips, self.lens, self.tops)
        assert not (self.board == EMPTY).any()
        return event

    def run(self) -> list[dict[str, Any]]:
        """All cascades until no win; returns their events."""
        events = []
        while (event := self.cascade()) is not None:
            events.append(event)
        return events

    def revealed(self) -> list[int]:
        return [v for lane, v in self.lanes.items() if self.blockers[lane] == 0]

    def scatters(self) -> int:
        return int((self.board == SCATTER).sum())


def draw_stops(build: Build, draws: DrawSource) -> list[int]:
    return [draws.draw(len(s)) for s in build.strips]


def draw_paid_lanes(build: Build, draws: DrawSource) -> dict[int, int]:
    """Three distinct lanes (draws over the free lanes in ascending order), then three base values."""
    free_lanes = list(range(REELS))
    chosen = []
    for _ in range(BASE_LANES):
        chosen.append(free_lanes.pop(draws.draw(len(free_lanes))))
    return {lane: weighted_value(build, False, draws) for lane in chosen}


def draw_free_lanes(build: Build, draws: DrawSource) -> dict[int, int]:
    return {lane: weighted_value(build, True, draws) for lane in range(REELS)}


def _spin_start_event(kind: str, spin: Spin, blockers: int) -> dict[str, Any]:
    return {"type": "spin", "kind": kind, "stops": spin.stops, "board": board_text(spin.board),
            "multiplier_reel": [{"lane": lane + 1, "value": v, "blockers": blockers}
                                for lane, v in spin.lanes.items()]}


def play_paid_spin(build: Build, draws: DrawSource) -> tuple[list[dict[str, Any]], int, int]:
    """The paid spin: events, its win in coins (before the round cap) and free spins awarded."""
    stops = draw_stops(build, draws)
    lanes = draw_paid_lanes(build, draws)
    spin = Spin(build, stops, lanes, BASE_BLOCKERS)
    events = [_spin_start_event("paid", spin, BASE_BLOCKERS)]
    events += spin.run()
    revealed = spin.revealed()
    s = sum(revealed)
    win = spin.win_coins * s if s > 0 else spin.win_coins
    scatters = spin.scatters()
    awarded = FREE_SPINS_AWARD + FREE_SPINS_PER_EXTRA_SCATTER * (scatters - TRIGGER_SCATTERS) \
        if scatters >= TRIGGER_SCATTERS else 0
    events.append({"type": "spin_result", "kind": "paid", "final_board": board_text(spin.board),
                   "cascades": spin.cascades, "revealed_values": revealed, "multiplier_sum": s,
                   "win_before_multiplier_x": x_of(spin.win_coins), "win_x": x_of(win),
                   "scatters": scatters})
    return events, win, awarded


def play_free_spin(build: Build, total_multiplier: int, draws: DrawSource) -> tuple[list[dict[str, Any]], int, int, int]:
    """One free spin: events, its win in coins (before the cap), the new M and spins awarded."""
    stops = draw_stops(build, draws)
    lanes = draw_free_lanes(build, draws)
    spin = Spin(build, stops, lanes, FREE_BLOCKERS)
    events = [_spin_start_event("free", spin, FREE_BLOCKERS)]
    events += spin.run()
    revealed = spin.revealed()
    s = sum(revealed)
    new_m = total_multiplier + s if s > 0 else total_multiplier
    win = spin.win_coins * new_m if s > 0 else spin.win_coins
    scatters = spin.scatters()
    awarded = RETRIGGER_SPINS if scatters >= RETRIGGER_SCATTERS else 0
    events.append({"type": "spin_result", "kind": "free", "final_board": board_text(spin.board),
                   "cascades": spin.cascades, "revealed_values": revealed, "multiplier_sum": s,
                   "total_multiplier_before": total_multiplier, "total_multiplier_after": new_m,
                   "multiplier_applied": new_m if s > 0 else 1,
                   "win_before_multiplier_x": x_of(spin.win_coins), "win_x": x_of(win),
                   "scatters": scatters})
    return events, win, new_m, awarded


def new_state(mode: str) -> dict[str, Any]:
    if mode == "buy":
        return {"mode": "buy", "phase": FREE, "spins_left": FREE_SPINS_AWARD, "spins_played": 0,
                "total_multiplier": 0, "total_units": 0, "paid_units": 0, "bought": True}
    return {"mode": "paid", "phase": PAID, "spins_left": 0, "spins_played": 0,
            "total_multiplier": 0, "total_units": 0, "paid_units": 0, "bought": False}


def _settle(build: Build, state: dict[str, Any], win: int) -> tuple[int, bool]:
    """Apply the round cap: the units this step adds and whether the cap was reached (the kernel's
    :func:`reelforge.mechanics.features.capped`)."""
    added, reached = capped(int(state["total_units"]), win, build.cap_units)
    return int(added), bool(reached)


def play_step(build: Build, state: dict[str, Any], draws: DrawSource) -> StepResult:
    """Play the next step of a round from ``state`` (not mutated)."""
    phase = state.get("phase")
    st = dict(state)
    if phase == PAID:
        events, win, awarded = play_paid_spin(build, draws)
        added, capped = _settle(build, st, win)
        st["total_units"] = int(st["total_units"]) + added
        st["paid_units"] = st["total_units"]
        kind = "paid_spin"
        if awarded and not capped:
            st["spins_left"] = awarded
            events.append({"type": "free_spins_awarded", "scatters": events[-1]["scatters"],
                           "awarded": awarded, "remaining": awarded})
    elif phase == FREE:
        spins_left = int(st["spins_left"])
        if spins_left <= 0:
            raise RulesError("invalid state: free-spin phase with no spins left")
        kind = "free_spin"
        m_before = int(st["total_multiplier"])
        events, win, new_m, awarded = play_free_spin(build, m_before, draws)
        added, capped = _settle(build, st, win)
        st["total_units"] = int(st["total_units"]) + added
        st["total_multiplier"] = new_m
        st["spins_played"] = int(st["spins_played"]) + 1
        st["spins_left"] = spins_left - 1 + awarded
        if awarded and not capped:
            events.append({"type": "free_spins_awarded", "scatters": events[-1]["scatters"],
                           "awarded": awarded, "remaining": st["spins_left"]})
        events.append({"type": "free_spins_remaining", "played": st["spins_played"],
                       "remaining": st["spins_left"] if not capped else 0,
                       "total_multiplier_before": m_before, "total_multiplier_after": new_m})
    else:
        raise RulesError("the round is finished; no step is left to play")
    if capped:
        events.append({"type": "cap_reached", "win_x": x_of(build.cap_units),
                       "forfeited_spins": int(st["spins_left"])})
        st["spins_left"] = 0
    finished = capped or int(st["spins_left"]) == 0
    st["phase"] = DONE if finished else FREE
    total = Fraction(int(st["total_units"]), COINS_PER_BET)
    if finished:
        events.append({"type": "round_end", "total_win_x": str(total),
                       "paid_spin_x": x_of(int(st["paid_units"])),
                       "free_spins_x": x_of(int(st["total_units"]) - int(st["paid_units"])),
                       "cap_reached": capped})
    return StepResult(kind, events, Fraction(added, COINS_PER_BET), total, finished,
                      None if finished else "free_spin", st)
