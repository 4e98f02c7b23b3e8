"""Stake books of math-sdk's sample lines game, the way its ``create_books`` makes them for the base
mode: every book is drawn under one of the sample's criteria (``game_config.py``'s distributions) and
redrawn until it meets it, its events written as JSON lines, the lines zstandard-compressed, with the
lookup table beside (weight 1 a book, before any optimisation, as the sample's own first tables).

The sample's base-mode criteria, each a share of the books:

* ``wincap`` (0.1%): the paid spin forced to show 4 or 5 Scatters (weights 1:2); free spins on FR0 or
  the WCAP strips (1:5 per spin), Wild multipliers by their own weights; kept when the round pays the
  cap (5,000x).
* ``freegame`` (10%): forced 3, 4 or 5 Scatters (50:20:5); free spins as in play; kept when it pays.
* ``0`` (40%): a paid spin whose board never shows 3 Scatters (redrawn), kept when it pays nothing.
* ``basegame`` (50%): the same, kept when it pays.

A forced board is drawn as the sample draws it: reels chosen one after another, each with probability
proportional to its share of Scatter stops, a Scatter stop of the chosen reel landing on a random row,
the other reels spun freely; redrawn unless the board shows exactly the count.

The writer is numba (one pass writes the JSON bytes); :func:`check_book` reads a book back and replays
it through the readable rules (:mod:`.kernel`'s ``spin`` on its boards), which the tests do book by book.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from reelforge.mechanics.reels import count_symbol, pick_weighted, window_from_stops
from reelforge.mechanics.rng import draw_pcg, pcg_state, store_pcg_state

from .build import BASE, REEL_SETS, ROWS, SCATTER, SYMBOLS, TENTHS, WILD, tables
from .criteria import CRITERIA, criteria_tables
from .kernel import spin

HUNDREDTHS = 100 // TENTHS
"""Stake's payoutMultiplier is in hundredths of the base bet; the game's win unit is a tenth."""


# Every function of the writer and of the drawing is inlined into write_books: a call that passes
# arrays (the tables hold a dozen) costs numba a reference count per array, more than a spin's writing.

# -- the JSON writer: fragments of text, numbers and symbol names into a byte buffer -----------------
_FRAGMENTS = (
    '{"id":', ',"events":[', '],"payoutMultiplier":', ',"criteria":', '}\n',
    '{"type":"reveal","gameType":"basegame","reelSet":', '{"type":"reveal","gameType":"freegame","reelSet":',
    ',"stops":[', '],"board":[', '],"above":[', '],"below":[', ']}', ',"multipliers":[',
    '{"type":"lineWins","amount":', ',"wins":[', '{"line":', ',"symbol":', ',"count":', ',"multiplier":',
    ',"amount":', ',"cells":[', ']}', ']}',
    '{"type":"totalWin","amount":', '}',
    '{"type":"freeSpinsAwarded","spins":', ',"retrigger":false', ',"retrigger":true', ',"scatters":[',
    '{"type":"freeSpin","number":', ',"of":', '{"type":"freeSpinsEnd","amount":', '{"type":"maxWin","amount":',
    '{"type":"finalWin","amount":', ',', '[', ']',
    *[json.dumps(s) for s in SYMBOLS], *[json.dumps(s) for s in REEL_SETS],
)
(F_ID, F_EVENTS, F_PAYOUT, F_CRITERIA, F_END, F_REVEAL_BASE, F_REVEAL_FREE, F_STOPS, F_BOARD, F_ABOVE, F_BELOW,
 F_CLOSE_REVEAL, F_MULTS, F_LINEWINS, F_WINS, F_LINE, F_SYMBOL, F_COUNT, F_MULT, F_AMOUNT, F_CELLS, F_CLOSE_WIN,
 F_CLOSE_WINS, F_TOTAL, F_CLOSE, F_AWARD, F_RETRIGGER_NO, F_RETRIGGER_YES, F_SCATTERS, F_FREESPIN, F_OF,
 F_FREE_END, F_MAXWIN, F_FINAL, F_COMMA, F_OPEN, F_SHUT) = range(37)
F_SYMBOLS = 37
F_SETS = F_SYMBOLS + len(SYMBOLS)
_FRAG_BYTES = np.frombuffer("".join(_FRAGMENTS).encode(), np.uint8).copy()
_FRAG_OFF = np.cumsum([0] + [len(f) for f in _FRAGMENTS]).astype(np.int64)
MARGIN = 1 << 16
"""Bytes a spin's events never exceed: the writer stops a chunk before the buffer has less room."""


# The byte writers below are plain calls, not inlined: they are called from some ninety places, and
# numba inlining each of them (type inference once per place) made the first compile of the writer take
# minutes of CPU where it now takes about half a minute; the books are byte for byte the same and the
# generation call as fast (LLVM inlines the calls itself; docs/performance.md, Stake books).
@njit(cache=True)
def _put(buf, pos, frag, off, k):
    for i in range(off[k], off[k + 1]):
        buf[pos] = frag[i]
        pos += 1
    return pos


@njit(cache=True)
def _int(buf, pos, value):
    """``value`` (not negative) in decimal; most are a digit or three (cells, counts, stops)."""
    if value < 10:
        buf[pos] = 48 + value
        return pos + 1
    n = 2
    v = value // 100
    while v > 0:
        v //= 10
        n += 1
    end = pos + n
    while value > 0:
        end -= 1
        buf[end] = 48 + value % 10
        value //= 10
    return pos + n


@njit(cache=True)
def _cells(buf, pos, frag, off, r, row):
    pos = _put(buf, pos, frag, off, F_OPEN)
    pos = _int(buf, pos, r)
    pos = _put(buf, pos, frag, off, F_COMMA)
    pos = _int(buf, pos, row)
    return _put(buf, pos, frag, off, F_SHUT)


@njit(cache=True)
def _write_spin(buf, pos, frag, off, t, reel_set, free, n, scatters, award, total, spin_number, spins_of):
    """The events of the spin in ``t`` (its board, its line wins, its award, the running total)."""
    if free:
        pos = _put(buf, pos, frag, off, F_FREESPIN)
        pos = _int(buf, pos, spin_number)
        pos = _put(buf, pos, frag, off, F_OF)
        pos = _int(buf, pos, spins_of)
        pos = _put(buf, pos, frag, off, F_CLOSE)
        pos = _put(buf, pos, frag, off, F_COMMA)
    pos = _put(buf, pos, frag, off, F_REVEAL_FREE if free else F_REVEAL_BASE)
    pos = _put(buf, pos, frag, off, F_SETS + reel_set)
    pos = _put(buf, pos, frag, off, F_STOPS)
    codes, lens = t.codes[reel_set], t.lens[reel_set]
    for r in range(5):
        if r:
            pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _int(buf, pos, t.stops[r])
    pos = _put(buf, pos, frag, off, F_BOARD)
    for r in range(5):
        if r:
            pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _put(buf, pos, frag, off, F_OPEN)
        for row in range(ROWS):
            if row:
                pos = _put(buf, pos, frag, off, F_COMMA)
            pos = _put(buf, pos, frag, off, F_SYMBOLS + t.window[r, row])
        pos = _put(buf, pos, frag, off, F_SHUT)
    # the symbols just outside the window, for the reels' motion: above the top row and below the bottom
    pos = _put(buf, pos, frag, off, F_ABOVE)
    for r in range(5):
        if r:
            pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _put(buf, pos, frag, off, F_SYMBOLS + codes[r, (t.stops[r] - 1) % lens[r]])
    pos = _put(buf, pos, frag, off, F_BELOW)
    for r in range(5):
        if r:
            pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _put(buf, pos, frag, off, F_SYMBOLS + codes[r, (t.stops[r] + ROWS) % lens[r]])
    pos = _put(buf, pos, frag, off, F_SHUT)
    if free:
        pos = _put(buf, pos, frag, off, F_MULTS)
        first = True
        for r in range(5):
            for row in range(ROWS):
                if t.mults[r, row] > 0:
                    if not first:
                        pos = _put(buf, pos, frag, off, F_COMMA)
                    first = False
                    pos = _put(buf, pos, frag, off, F_OPEN)
                    pos = _int(buf, pos, r)
                    pos = _put(buf, pos, frag, off, F_COMMA)
                    pos = _int(buf, pos, row)
                    pos = _put(buf, pos, frag, off, F_COMMA)
                    pos = _int(buf, pos, t.mults[r, row])
                    pos = _put(buf, pos, frag, off, F_SHUT)
        pos = _put(buf, pos, frag, off, F_SHUT)
    pos = _put(buf, pos, frag, off, F_CLOSE)
    if n > 0:
        win = 0
        for i in range(n):
            win += t.out[i, 3]
        pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _put(buf, pos, frag, off, F_LINEWINS)
        pos = _int(buf, pos, win * HUNDREDTHS)
        pos = _put(buf, pos, frag, off, F_WINS)
        for i in range(n):
            line = t.out[i, 0]
            if i:
                pos = _put(buf, pos, frag, off, F_COMMA)
            pos = _put(buf, pos, frag, off, F_LINE)
            pos = _int(buf, pos, line + 1)
            pos = _put(buf, pos, frag, off, F_SYMBOL)
            pos = _put(buf, pos, frag, off, F_SYMBOLS + t.out[i, 1])
            pos = _put(buf, pos, frag, off, F_COUNT)
            pos = _int(buf, pos, t.out[i, 2])
            pos = _put(buf, pos, frag, off, F_MULT)
            pos = _int(buf, pos, t.out[i, 4])
            pos = _put(buf, pos, frag, off, F_AMOUNT)
            pos = _int(buf, pos, t.out[i, 3] * HUNDREDTHS)
            pos = _put(buf, pos, frag, off, F_CELLS)
            for r in range(t.out[i, 2]):
                if r:
                    pos = _put(buf, pos, frag, off, F_COMMA)
                pos = _cells(buf, pos, frag, off, r, t.lines[line, r])
            pos = _put(buf, pos, frag, off, F_CLOSE_WIN)
        pos = _put(buf, pos, frag, off, F_CLOSE_WINS)
    if award > 0:
        pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _put(buf, pos, frag, off, F_AWARD)
        pos = _int(buf, pos, award)
        pos = _put(buf, pos, frag, off, F_RETRIGGER_YES if free else F_RETRIGGER_NO)
        pos = _put(buf, pos, frag, off, F_SCATTERS)
        first = True
        for r in range(5):
            for row in range(ROWS):
                if t.window[r, row] == SCATTER:
                    if not first:
                        pos = _put(buf, pos, frag, off, F_COMMA)
                    first = False
                    pos = _cells(buf, pos, frag, off, r, row)
        pos = _put(buf, pos, frag, off, F_CLOSE_WINS)
    pos = _put(buf, pos, frag, off, F_COMMA)
    pos = _put(buf, pos, frag, off, F_TOTAL)
    pos = _int(buf, pos, total * HUNDREDTHS)
    return _put(buf, pos, frag, off, F_CLOSE)


# -- drawing under a criterion --------------------------------------------------------------------
@njit(cache=True, inline="always")
def _free_board(st, t, c, ct, reel_set):
    """A free spin's board on ``reel_set`` with each Wild's multiplier by the criterion's weights."""
    for r in range(5):
        t.stops[r] = draw_pcg(st, t.lens[reel_set, r])
    window_from_stops(t.codes[reel_set], t.lens[reel_set], t.stops, ROWS, t.window)
    total = ct.mult_cum[c, -1]
    for r in range(5):
        for row in range(ROWS):
            m = 0
            if t.window[r, row] == WILD:
                m = ct.mult_values[c, pick_weighted(ct.mult_cum[c], draw_pcg(st, total))]
            t.mults[r, row] = m


@njit(cache=True, inline="always")
def _paid_board(st, t, c, ct):
    """The paid spin's board: forced to show the criterion's Scatter count, or free of any trigger."""
    lens = t.lens[BASE]
    if ct.forced[c]:
        want = ct.scatter_counts[c, pick_weighted(ct.scatter_cum[c], draw_pcg(st, ct.scatter_cum[c, -1]))]
        while True:
            weight = ct.reel_weight.copy()
            chosen = np.zeros(5, np.int64)
            for _ in range(want):
                total = weight.sum()
                if total == 0:
                    break
                u = draw_pcg(st, total)
                r = 0
                while u >= weight[r]:
                    u -= weight[r]
                    r += 1
                weight[r] = 0
                chosen[r] = 1
                stop = ct.scatter_stops[r, draw_pcg(st, ct.scatter_n[r])]
                t.stops[r] = (stop - draw_pcg(st, ROWS)) % lens[r]
            for r in range(5):
                if not chosen[r]:
                    t.stops[r] = draw_pcg(st, lens[r])
            window_from_stops(t.codes[BASE], lens, t.stops, ROWS, t.window)
            if count_symbol(t.window, SCATTER) == want:
                break
    else:
        while True:
            for r in range(5):
                t.stops[r] = draw_pcg(st, lens[r])
            window_from_stops(t.codes[BASE], lens, t.stops, ROWS, t.window)
            if t.base_awards[min(count_symbol(t.window, SCATTER), t.base_awards.shape[0] - 1)] == 0:
                break
    t.mults[:] = 0


@njit(cache=True)
def _spin(t, total, cap):
    """The kernel's spin, compiled once for both of :func:`_book`'s calls."""
    return spin(t, total, cap)


@njit(cache=True, inline="always")
def _book(st, t, c, ct, cap, buf, pos, frag, off):
    """One attempt at a book under criterion ``c`` written from ``pos``: (end, round win in units)."""
    _paid_board(st, t, c, ct)
    added, reached, n, scatters = _spin(t, 0, cap)
    want = ct.win[c]
    if not ct.forced[c] and not ((want < 0 and added > 0) or added == want):
        return pos, added       # an unforced round is its paid spin: one that misses is not worth writing
    left = 0 if reached else t.base_awards[min(scatters, t.base_awards.shape[0] - 1)]
    total = added
    pos = _write_spin(buf, pos, frag, off, t, BASE, False, n, scatters, left, total, 0, 0)
    played = 0
    of = left
    free_total = 0
    while left > 0:
        if pos > buf.shape[0] - MARGIN:
            return -1, 0
        reel_set = pick_weighted(ct.set_cum[c], draw_pcg(st, ct.set_cum[c, -1]))     # BASE weighs nothing
        _free_board(st, t, c, ct, reel_set)
        added, reached, n, scatters = _spin(t, total, cap)
        total += added
        free_total += added
        played += 1
        more = 0 if reached else t.free_awards[min(scatters, t.free_awards.shape[0] - 1)]
        of += more
        pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _write_spin(buf, pos, frag, off, t, reel_set, True, n, scatters, more, total, played, of)
        left = 0 if reached else left - 1 + more
    if of > 0:
        pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _put(buf, pos, frag, off, F_FREE_END)
        pos = _int(buf, pos, free_total * HUNDREDTHS)
        pos = _put(buf, pos, frag, off, F_CLOSE)
    if total == cap:
        pos = _put(buf, pos, frag, off, F_COMMA)
        pos = _put(buf, pos, frag, off, F_MAXWIN)
        pos = _int(buf, pos, total * HUNDREDTHS)
        pos = _put(buf, pos, frag, off, F_CLOSE)
    pos = _put(buf, pos, frag, off, F_COMMA)
    pos = _put(buf, pos, frag, off, F_FINAL)
    pos = _int(buf, pos, total * HUNDREDTHS)
    pos = _put(buf, pos, frag, off, F_CLOSE)
    return pos, total


@njit(cache=True)
def write_books(st, t, ct, cap, criteria, first_id, buf, frag, off, payouts, attempts, saved):
    """Books for ``criteria`` (one criterion index a book), ids from ``first_id``, as JSON lines into
    ``buf`` while it has room: each book redrawn until it meets its criterion. Returns (books written,
    bytes); ``payouts[i]`` is book i's payoutMultiplier, ``attempts[i]`` its draws of the round.

    A round too long for the room left is taken back (the random state as before it, in ``saved``),
    so the next call plays it again from the same state: the books never depend on the buffer's size."""
    pos = 0
    for i in range(criteria.shape[0]):
        if pos > buf.shape[0] - MARGIN:
            return i, pos
        c = criteria[i]
        start = pos
        tries = 0
        while True:
            tries += 1
            saved[:] = st
            pos = _put(buf, start, frag, off, F_ID)
            pos = _int(buf, pos, first_id + i)
            pos = _put(buf, pos, frag, off, F_EVENTS)
            pos, win = _book(st, t, c, ct, cap, buf, pos, frag, off)
            if pos < 0:
                st[:] = saved
                return i, start     # the caller writes what is done and calls again with room
            want = ct.win[c]
            if (want < 0 and win > 0) or win == want:
                break
        pos = _put(buf, pos, frag, off, F_PAYOUT)
        pos = _int(buf, pos, win * HUNDREDTHS)
        pos = _put(buf, pos, frag, off, F_CRITERIA)
        pos = _put(buf, pos, ct.name_bytes, ct.name_off, c)
        pos = _put(buf, pos, frag, off, F_END)
        payouts[i] = win * HUNDREDTHS
        attempts[i] = tries
    return criteria.shape[0], pos


def criteria_split(books: int) -> np.ndarray:
    """How many books each criterion gets: its quota of ``books`` rounded down (at least one), the
    remainder handed out by largest fraction, so the counts sum to ``books``."""
    quotas = np.array([c.quota for c in CRITERIA])
    share = quotas / quotas.sum() * books
    counts = np.maximum(np.floor(share).astype(np.int64), 1)
    order = np.argsort(-(share - np.floor(share)), kind="stable")
    k = 0
    while counts.sum() < books:
        counts[order[k % len(order)]] += 1
        k += 1
    while counts.sum() > books:
        counts[np.argmax(counts)] -= 1
    return counts


@dataclass
class BookRun:
    books: int
    bytes_json: int
    bytes_compressed: int
    attempts: int
    payouts: np.ndarray
    criteria: np.ndarray


def generate(build: Any, books: int, seed: int, out: Path | None, level: int = 3,
             chunk_bytes: int = 1 << 24) -> BookRun:
    """``books`` books of the sample's base mode from ``seed``: ``books_base.jsonl.zst``,
    ``lookUpTable_base_0.csv`` (weight 1 a book) and ``index.json`` in ``out`` (None: compressed, not
    written). The criteria are shuffled over the ids as the sample's ``create_books`` does."""
    import zstandard

    rng = np.random.Generator(np.random.PCG64(seed))
    counts = criteria_split(books)
    criteria = np.repeat(np.arange(len(CRITERIA), dtype=np.int64), counts)
    rng.shuffle(criteria)
    st = pcg_state(rng)
    t = tables(build)
    ct = criteria_tables(build)
    cap = int(build.cap_x) * TENTHS
    buf = np.empty(chunk_bytes, np.uint8)
    saved = st.copy()
    payouts = np.zeros(books, np.int64)
    attempts = np.zeros(books, np.int64)
    compressor = zstandard.ZstdCompressor(level=level).compressobj()
    parts: list[bytes] = []
    done = raw = 0
    while done < books:
        n, used = write_books(st, t, ct, cap, criteria[done:], done, buf, _FRAG_BYTES, _FRAG_OFF, payouts[done:],
                              attempts[done:], saved)
        parts.append(compressor.compress(buf[:used]))
        raw += used
        if n == 0 and used == 0:
            buf = np.empty(2 * buf.shape[0], np.uint8)     # one round longer than the buffer: a bigger one
        done += n
    parts.append(compressor.flush())
    store_pcg_state(rng, st)
    blob = b"".join(parts)
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "books_base.jsonl.zst").write_bytes(blob)
        ids = np.arange(books)
        table = np.stack([ids, np.ones(books, np.int64), payouts], axis=1)
        np.savetxt(out / "lookUpTable_base_0.csv", table, fmt="%d", delimiter=",")
        (out / "index.json").write_text(json.dumps({"modes": [{"name": "base", "cost": 1.0,
                                                                "events": "books_base.jsonl.zst",
                                                                "weights": "lookUpTable_base_0.csv"}]}, indent=2))
    return BookRun(books, raw, len(blob), int(attempts.sum()), payouts, criteria)


# -- reading a book back through the rules ---------------------------------------------------------
def read_books(path: Path) -> Iterator[dict[str, Any]]:
    import io

    import zstandard

    with Path(path).open("rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as reader:
        for line in io.TextIOWrapper(reader, encoding="utf-8"):
            if line.strip():
                yield json.loads(line)


def check_book(build: Any, book: dict[str, Any]) -> list[str]:
    """What is wrong with ``book`` by the game's rules (empty: nothing): every board is the one its
    stops show on its strips, its line wins and totals are what the rules pay, the free spins are the
    ones the Scatters award, the payout is the round's, and the book meets its criterion."""
    t = tables(build)
    cap = int(build.cap_x) * TENTHS
    wrong: list[str] = []
    total = left = 0
    criterion = next(c for c in CRITERIA if c.name == book["criteria"])
    events = book["events"]
    reveals = [i for i, e in enumerate(events) if e["type"] == "reveal"]
    for k, at in enumerate(reveals):
        ev = events[at]
        free = ev["gameType"] == "freegame"
        if free != (k > 0):
            wrong.append(f"spin {k}: a {ev['gameType']} spin")
        if free and left <= 0:
            wrong.append(f"spin {k}: a free spin no Scatters awarded")
        reel_set = REEL_SETS.index(ev["reelSet"])
        t.stops[:] = ev["stops"]
        window_from_stops(t.codes[reel_set], t.lens[reel_set], t.stops, ROWS, t.window)
        if [[SYMBOLS[c] for c in reel] for reel in t.window] != ev["board"]:
            wrong.append(f"spin {k}: the board is not what stops {ev['stops']} show on {ev['reelSet']}")
        t.mults[:] = 0
        for r, row, m in ev.get("multipliers", []):
            t.mults[r, row] = m
        if free and any((t.mults[r, row] > 0) != (t.window[r, row] == WILD) for r in range(5) for row in range(ROWS)):
            wrong.append(f"spin {k}: a free-spin Wild without a multiplier, or a multiplier off a Wild")
        added, reached, n, scatters = (int(v) for v in spin(t, total, cap))
        total += added
        more = 0 if reached else int((t.free_awards if free else t.base_awards)[min(scatters, 5)])
        left = 0 if reached else left - free + more
        after = events[at + 1:reveals[k + 1] if k + 1 < len(reveals) else len(events)]
        paid = sum(e["amount"] for e in after if e["type"] == "lineWins")
        if paid != int(t.out[:n, 3].sum()) * HUNDREDTHS:
            wrong.append(f"spin {k}: line wins {paid}, the rules pay {int(t.out[:n, 3].sum()) * HUNDREDTHS}")
        if [e["spins"] for e in after if e["type"] == "freeSpinsAwarded"] != ([more] if more else []):
            wrong.append(f"spin {k}: free spins awarded differ from the {more} its {scatters} Scatters award")
    if left != 0:
        wrong.append(f"{left} awarded free spins never played")
    if book["payoutMultiplier"] != total * HUNDREDTHS or events[-1] != {"type": "finalWin", "amount": total * HUNDREDTHS}:
        wrong.append(f"payoutMultiplier {book['payoutMultiplier']}, the rules pay {total * HUNDREDTHS}")
    if criterion.win is None and total == 0 or criterion.win is not None and total != criterion.win:
        wrong.append(f"a {criterion.name} book paying {total * HUNDREDTHS}")
    if (criterion.forced_scatters is not None) != (len(reveals) > 1):
        wrong.append(f"a {criterion.name} book {'without' if criterion.forced_scatters else 'with'} free spins")
    return wrong
