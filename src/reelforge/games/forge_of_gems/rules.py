"""Forge of Gems reference rules, step by step, with audit events.

The grid is 5 reels x 3 rows of cells; a cell holds one normal symbol in 1 to
3 copies (a "split" cell). Normal symbols land single; only the FORGE REEL's
Splitters add copies ("Symbols can be split up to three!"), so the first
board of every spin is 243 ways. Above it the FORGE REEL holds one forge symbol per
column. Boards are ``[column, row]`` arrays of cell codes ``symbol * 4 +
copies`` (row 0 at the top, ``EMPTY`` = -1), so the shared column gravity
(:func:`reelforge.mechanics.tumble.collapse_column`) moves a cell with its copies.

Decisions where the seed and GAMES.md are silent (the kernel does the same):

* Fresh cells (the first board and every refill) are one copy of a symbol
  drawn from the reel's weighted symbol table. A single fresh cell always
  fits its reel's copy limit: the two other cells hold at most 3 + 3 = 6
  copies, below every limit.
* Rules version 1 (the builds 1.0 of the first release, kept so that the
  rounds played with them replay and finish as they were decided): a fresh
  cell is drawn from the reel's table of (symbol, copies) and may land split;
  one with more copies than its column has room for gets the room left
  (room = limit - copies of the column's other cells, an empty cell counting
  1), at least 1. The first board is drawn column by column, top to bottom.
  The fast kernels play rules version 2 only.
* Ways: for each paying symbol, ``n_r`` = copies of it or WILD on reel r. The
  longest run of reels from reel 1 with ``n_r > 0`` of length k >= 3 pays
  ``paytable(symbol, k) x ways x multiplier`` with ways = prod n_r - prod w_r
  (w_r = WILD copies): WILD does not pay on its own, so ways made only of
  WILDs are not counted. A symbol that does not appear itself pays nothing.
  Every cell of a winning symbol or WILD on reels 1..k is removed.
  (Why not the mechanics library's ``ways_wins``: it pays ways made only of
  WILDs, so it would not play these rules: of 10^6 boards of build 96.2 with
  one column turned WILD, 84 pay differently; ``bench/library_kernels.py``.)
* Cascade order: remove winners; every column falls (shared gravity);
  columns left to right that lost cells: the column's forge symbol lands in
  the lowest empty cell and, unless it is the forge SCATTER, draws its TARGET
  from the build's target table (a paying symbol, 1 copy) which the cell
  holds; then every other empty cell is refilled, columns left to right,
  cells top to bottom; then the landed forge symbols take effect, columns
  left to right, on the full board; then the used FORGE positions redraw,
  left to right. Effects:
  Vertical WILD - every non-SCATTER cell of the column becomes WILD (copies kept);
  Horizontal WILD - the landing cell and every cell on its row holding the
  target symbol become WILD; Vertical Splitter - every cell of the column
  holding the target symbol gains one copy, top to bottom; Horizontal
  Splitter - the landing cell becomes WILD, then every non-SCATTER cell on its
  row gains one copy, left to right; Multiplier - the win multiplier rises by
  one; Blank - nothing; SCATTER - the landing cell is a SCATTER.
  A cell gains a copy only while it has fewer than 3 and its column is below
  its copy limit (9, 9, 8, 8, 7), so ways never exceed 36,288.
* Scatters are counted per cell (a SCATTER is never split). GEMBOX: 3, 4 or
  5+ SCATTER cells on the paid spin's final board.
* Free spins: the FORGE REEL uses the free weights (no BLANK); if no
  MULTIPLIER was drawn at the start of a free spin, one position (a uniform
  draw in [0, 5)) becomes a MULTIPLIER. The win multiplier starts at 1 when
  the feature starts and carries over between free spins. SCATTERs in free
  spins do nothing.
* Cap: after every win (cascade win or GEMBOX prize) the round total is
  checked; at 20,000x total bet the round stops paying exactly the cap.

Draw order (the kernel consumes draws in exactly this order). A spin: 15
cells (column 1..5, row top to bottom, each one draw over the reel's cell
table), 5 FORGE REEL positions (left to right, one draw each over the base or
free forge table), in a free spin the guarantee draw when no MULTIPLIER is
shown; then per cascade: target draws (landing columns left to right, none
for a forge SCATTER), refill draws (columns left to right, top to bottom),
forge redraws (landing columns left to right). The GEMBOX step is one draw
over the scatter class's reward weights.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.core.draws import DrawSource
from reelforge.game.contract import RulesError
from reelforge.game.results import StepResult
from reelforge.games.forge_of_gems.build import (
    COPY_LIMITS,
    F_BLANK,
    F_HSPLIT,
    F_HWILD,
    F_MULT,
    F_SCATTER,
    F_VSPLIT,
    F_VWILD,
    FORGE,
    GEMBOX_REWARDS,
    MAX_COPIES,
    N_PAY,
    NORMAL,
    REELS,
    ROWS,
    SCATTER,
    WILD,
    Build,
    WeightedTable,
    reward_name,
)
from reelforge.mechanics.tumble import EMPTY, collapse_column

PAID, GEMBOX, FREE, DONE = "paid", "gembox", "free", "done"
COMPONENTS = ("base_game", "gembox_prizes", "free_spins")
C_BASE, C_GEMBOX, C_FREE = range(3)
MIN_LENGTH = 3


def code(symbol: int, copies: int = 1) -> int:
    """Cell code of ``copies`` copies of ``symbol``."""
    return symbol * 4 + copies


def cell_name(c: int) -> str:
    """``DIAMOND``, ``K*2`` ... (``EMPTY`` for an empty cell)."""
    if c == EMPTY:
        return "EMPTY"
    s, n = c >> 2, c & 3
    return NORMAL[s] if n == 1 else f"{NORMAL[s]}*{n}"


def board_names(board: np.ndarray) -> list[list[str]]:
    """The board as columns (reel 1..5) of cell names, top to bottom."""
    return [[cell_name(int(c)) for c in col] for col in board]


def ways_shown(board: np.ndarray) -> int:
    """The board's total ways: product over reels of the copies they hold."""
    ways = 1
    for col in board:
        ways *= int(sum(int(c) & 3 for c in col))
    return ways


def _draw(table: WeightedTable, draws: DrawSource) -> int:
    return bisect_right(table.cumulative, draws.draw(table.total))


def draw_cell(build: Build, reel: int, draws: DrawSource) -> int:
    """A fresh cell for ``reel``: one copy of a symbol drawn from the reel's table."""
    return code(_draw(build.cells[reel], draws))


def _room(col: Any, row: int, limit: int) -> int:
    """Rules 1: copies the cell at ``row`` may hold given the column's other cells (an empty one counts 1)."""
    others = 0
    for r in range(ROWS):
        if r != row:
            c = int(col[r])
            others += 1 if c == EMPTY else c & 3
    return limit - others


def draw_split_cell(build: Build, reel: int, col: Any, row: int, draws: DrawSource) -> int:
    """Rules 1: a fresh cell for ``col[row]`` drawn from the reel's (symbol, copies) table, clamped to
    the reel's copy limit."""
    symbol, copies = divmod(_draw(build.cells[reel], draws), MAX_COPIES)
    copies += 1
    if copies > 1:  # a single copy always fits
        copies = max(1, min(copies, _room(col, row, COPY_LIMITS[reel])))
    return code(symbol, copies)


def _first_board(build: Build, draws: DrawSource) -> np.ndarray:
    """A spin's first board, columns left to right, cells top to bottom."""
    if build.rules == "2":
        return np.array([[draw_cell(build, c, draws) for _ in range(ROWS)] for c in range(REELS)], dtype=np.int64)
    board = np.full((REELS, ROWS), EMPTY, dtype=np.int64)
    for c in range(REELS):
        for r in range(ROWS):
            board[c, r] = draw_split_cell(build, c, board[c], r, draws)
    return board


def _refill(build: Build, board: np.ndarray, c: int, r: int, draws: DrawSource) -> int:
    """A fresh cell for the empty ``board[c, r]`` of a cascade."""
    return draw_cell(build, c, draws) if build.rules == "2" else draw_split_cell(build, c, board[c], r, draws)


@dataclass
class Win:
    symbol: int
    length: int
    ways: int
    units: int


def evaluate(build: Build, board: np.ndarray, multiplier: int) -> list[Win]:
    """Every paying symbol's longest left-to-right way win on ``board``."""
    counts = []
    for col in board.tolist():
        n = [0] * len(NORMAL)
        for c in col:
            n[c >> 2] += c & 3
        counts.append(n)
    wins = []
    for s in range(N_PAY):
        ways = wild_ways = 1
        k = 0
        for n in counts:
            w = n[WILD]
            m = n[s] + w
            if m == 0:
                break
            ways *= m
            wild_ways *= w
            k += 1
        if k >= MIN_LENGTH and ways > wild_ways:
            pay = build.paytable[s][k]
            if pay:
                wins.append(Win(s, k, ways - wild_ways, pay * (ways - wild_ways) * multiplier))
    return wins


def _gain(board: np.ndarray, c: int, r: int) -> bool:
    """One more copy in cell (c, r) if it and its column have room."""
    cell = int(board[c, r])
    if (cell & 3) >= MAX_COPIES:
        return False
    if int(sum(int(x) & 3 for x in board[c])) >= COPY_LIMITS[c]:
        return False
    board[c, r] = cell + 1
    return True


def apply_forge(board: np.ndarray, forge_symbol: int, c: int, r: int, target: int) -> tuple[list[list[int]], int]:
    """Apply a landed forge symbol; return the changed cells and the multiplier rise."""
    changed: list[list[int]] = []
    if forge_symbol == F_VWILD:
        for rr in range(ROWS):
            cell = int(board[c, rr])
            if cell >> 2 not in (SCATTER, WILD):
                board[c, rr] = code(WILD, cell & 3)
                changed.append([c, rr])
    elif forge_symbol == F_HWILD:
        for cc in range(REELS):
            cell = int(board[cc, r])
            if (cc == c or cell >> 2 == target) and cell >> 2 not in (SCATTER, WILD):
                board[cc, r] = code(WILD, cell & 3)
                changed.append([cc, r])
    elif forge_symbol == F_VSPLIT:
        for rr in range(ROWS):
            if int(board[c, rr]) >> 2 == target and _gain(board, c, rr):
                changed.append([c, rr])
    elif forge_symbol == F_HSPLIT:
        cell = int(board[c, r])
        if cell >> 2 != SCATTER:
            board[c, r] = code(WILD, cell & 3)
        for cc in range(REELS):
            if int(board[cc, r]) >> 2 != SCATTER and _gain(board, cc, r) or cc == c:
                changed.append([cc, r])
    elif forge_symbol == F_MULT:
        return changed, 1
    return changed, 0


@dataclass
class SpinResult:
    """What one spin (paid or free) did."""

    win: int
    """Units this spin added to the round (after the cap)."""
    multiplier: int
    scatters: int
    capped: bool
    ways: int
    """Total ways of the spin's first board (0 when played without events)."""
    cascades: int


def play_spin(build: Build, draws: DrawSource, free: bool, multiplier: int, total_before: int,
              events: list[dict[str, Any]] | None) -> SpinResult:
    """One spin and all its cascades. ``events`` is None in fast (simulation) use."""
    unit = build.unit
    forge_table = build.forge_free if free else build.forge_base
    board = _first_board(build, draws)
    forge = [_draw(forge_table, draws) for _ in range(REELS)]
    guaranteed = None
    if free and F_MULT not in forge:
        guaranteed = draws.draw(REELS)
        forge[guaranteed] = F_MULT
    ways = ways_shown(board) if events is not None else 0
    if events is not None:
        ev: dict[str, Any] = {"type": "spin", "board": board_names(board), "ways": ways,
                              "forge_reel": [FORGE[f] for f in forge], "multiplier": multiplier}
        if free:
            ev["guaranteed_multiplier_position"] = guaranteed
        events.append(ev)
    win = 0
    cascades = 0
    while True:
        wins = evaluate(build, board, multiplier)
        if not wins:
            break
        amount = sum(w.units for w in wins)
        capped = total_before + win + amount >= build.cap_units
        if events is not None:
            for w in wins:
                events.append({"type": "win", "symbol": NORMAL[w.symbol], "length": w.length, "ways": w.ways,
                               "pay_x": str(build.pay_x(w.symbol, w.length)), "multiplier": multiplier,
                               "win_x": str(Fraction(w.units, unit))})
        if capped:
            paid = build.cap_units - total_before - win
            win += paid
            if events is not None:
                events.append({"type": "cap", "cap_x": str(build.cap_x), "paid_x": str(Fraction(paid, unit))})
            return SpinResult(win, multiplier, count_scatters(board), True, ways, cascades)
        win += amount
        cascades += 1
        # Remove every cell of a winning symbol or WILD on the winning reels.
        removed = np.zeros((REELS, ROWS), dtype=bool)
        for w in wins:
            for c in range(w.length):
                for r in range(ROWS):
                    s = int(board[c, r]) >> 2
                    if s == w.symbol or s == WILD:
                        removed[c, r] = True
        landings = []
        for c in range(REELS):
            empty = collapse_column(board[c], removed[c])
            if empty:
                landings.append([c, empty - 1, forge[c], -1])
        for land in landings:
            c, r, f, _ = land
            if f == F_SCATTER:
                board[c, r] = code(SCATTER)
            else:
                land[3] = _draw(build.targets, draws)
                board[c, r] = code(land[3])
        for c in range(REELS):
            for r in range(ROWS):
                if board[c, r] == EMPTY:
                    board[c, r] = _refill(build, board, c, r, draws)
        landing_events = []
        before_effects = multiplier
        for c, r, f, target in landings:
            changed, rise = apply_forge(board, f, c, r, target)
            multiplier += rise
            if events is not None:
                landing_events.append({"column": c + 1, "row": r + 1, "forge": FORGE[f],
                                       "target": NORMAL[target] if target >= 0 else None,
                                       "effect": _effect_text(f, rise, multiplier),
                                       "cells_changed": [[cc + 1, rr + 1] for cc, rr in changed]})
        for land in landings:
            forge[land[0]] = _draw(forge_table, draws)
        if events is not None:
            if multiplier != before_effects:
                events.append({"type": "multiplier", "from": before_effects, "to": multiplier})
            events.append({"type": "cascade", "number": cascades,
                           "removed": [[c + 1, r + 1] for c in range(REELS) for r in range(ROWS) if removed[c, r]],
                           "landings": landing_events, "board": board_names(board), "ways": ways_shown(board),
                           "forge_reel": [FORGE[f] for f in forge], "multiplier": multiplier})
    return SpinResult(win, multiplier, count_scatters(board), False, ways, cascades)


def _effect_text(f: int, rise: int, multiplier: int) -> str:
    return {
        F_VWILD: "column turned WILD (except SCATTER)",
        F_HWILD: "target and matching symbols on the row turned WILD",
        F_VSPLIT: "matching symbols in the column split",
        F_HSPLIT: "target turned WILD, symbols on the row split",
        F_MULT: f"win multiplier +{rise} to {multiplier}",
        F_BLANK: "nothing",
        F_SCATTER: "SCATTER landed",
    }[f]


def count_scatters(board: np.ndarray) -> int:
    return int(sum(1 for col in board.tolist() for c in col if c >> 2 == SCATTER))


# -- the step machine --------------------------------------------------------------
def new_state() -> dict[str, Any]:
    return {"phase": PAID, "scatters": 0, "free_total": 0, "free_left": 0, "multiplier": 1,
            "total_units": 0, "components": [0, 0, 0], "total_win_x": "0"}


def _finish(state: dict[str, Any], unit: int) -> dict[str, Any]:
    state["total_win_x"] = str(Fraction(state["total_units"], unit))
    return state


def play_step(build: Build, state: dict[str, Any], draws: DrawSource, action: str | None = None,
              record: bool = True) -> StepResult:
    """Play the next step from ``state`` (not mutated): paid spin, GEMBOX or free spin.

    ``record=False`` skips the per-cascade events (same rules and draws; used for speed).
    """
    phase = state.get("phase")
    if phase not in (PAID, GEMBOX, FREE):
        raise RulesError("the round is finished; no step is left to play")
    if phase == GEMBOX:
        if action not in (None, "open"):
            raise RulesError(f"the GEMBOX step accepts the action 'open' (or none), not {action!r}")
    elif action is not None:
        raise RulesError(f"a {phase} step takes no action, got {action!r}")
    out_events: list[dict[str, Any]] = []
    spin_events = out_events if record else None
    st = {**state, "components": list(state["components"])}
    before = int(st["total_units"])
    unit = build.unit
    if phase == PAID:
        kind = "paid_spin"
        spin = play_spin(build, draws, False, 1, before, spin_events)
        st["components"][C_BASE] += spin.win
        st["total_units"] = before + spin.win
        st["multiplier"] = 1
        if spin.capped:
            st["phase"] = DONE
        elif spin.scatters >= 3:
            k = min(spin.scatters, 5)
            st["phase"], st["scatters"] = GEMBOX, k
            out_events.append({"type": "gembox_awarded", "scatters": spin.scatters, "scatter_class": k})
        else:
            st["phase"] = DONE
    elif phase == GEMBOX:
        kind = "gembox"
        k = int(st["scatters"])
        if k not in GEMBOX_REWARDS:
            raise RulesError(f"invalid GEMBOX state: scatter class {k}")
        index = _draw(build.gembox[k], draws)
        prize_x, spins = GEMBOX_REWARDS[k][index]
        prize = prize_x * unit
        paid = min(prize, build.cap_units - before)
        st["components"][C_GEMBOX] += paid
        st["total_units"] = before + paid
        out_events.append({"type": "gembox_reward", "scatter_class": k, "reward": reward_name(k, index),
                           "prize_x": str(prize_x), "free_spins": spins})
        if before + prize >= build.cap_units:
            out_events.append({"type": "cap", "cap_x": str(build.cap_x), "paid_x": str(Fraction(paid, unit))})
            st["phase"] = DONE
        elif spins:
            st.update(phase=FREE, free_total=spins, free_left=spins, multiplier=1)
            out_events.append({"type": "free_spins_awarded", "free_spins": spins})
        else:
            st["phase"] = DONE
    else:
        kind = "free_spin"
        left = int(st["free_left"])
        if left <= 0:
            raise RulesError("invalid free-spin state: no free spins left")
        spin = play_spin(build, draws, True, int(st["multiplier"]), before, spin_events)
        st["components"][C_FREE] += spin.win
        st["total_units"] = before + spin.win
        st["multiplier"] = spin.multiplier
        st["free_left"] = left - 1
        out_events.append({"type": "free_spins_remaining", "played": int(st["free_total"]) - left + 1,
                           "remaining": left - 1, "multiplier": spin.multiplier})
        st["phase"] = DONE if spin.capped or left == 1 else FREE
    _finish(st, unit)
    finished = st["phase"] == DONE
    if finished:
        out_events.append({"type": "round_end", "total_win_x": st["total_win_x"],
                           "capped": st["total_units"] >= build.cap_units})
    step_win = Fraction(int(st["total_units"]) - before, unit)
    next_step = None if finished else {GEMBOX: "gembox", FREE: "free_spin"}[st["phase"]]
    return StepResult(kind, out_events, step_win, Fraction(int(st["total_units"]), unit), finished, next_step, st)


def round_units(build: Build, draws: DrawSource) -> tuple[int, list[int]]:
    """A whole paid round without events (fast path for conformance): total units and components."""
    state = new_state()
    while True:
        step = play_step(build, state, draws, None, record=False)
        state = step.state
        if step.finished:
            return int(state["total_units"]), list(state["components"])
