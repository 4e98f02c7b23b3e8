"""math-sdk's sample lines game: registered only for the benchmark, the contract kept (kernel = reference
round by round), the sample's rule details, and its Stake books: every book replayed through the rules,
the table and books agreeing row for row, the criteria's shares, and the local RGS serving them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import zstandard

from reelforge.conformance import ConformanceError, check_game
from reelforge.games import mathsdk_lines, registry
from reelforge.games.mathsdk_lines import books
from reelforge.games.mathsdk_lines.build import FILES, SYMBOLS, TENTHS, tables
from reelforge.games.mathsdk_lines.kernel import spin

BUILD = FILES.load("63e9cc6")


def test_the_sample_is_not_in_the_lobby_and_registered_for_a_block():
    assert mathsdk_lines.GAME_ID not in registry.GAME_CLASSES
    with mathsdk_lines.registered() as game_id:
        assert registry.get_game(game_id).cap_x(BUILD) == 5000
    assert mathsdk_lines.GAME_ID not in registry.GAME_CLASSES


@pytest.mark.slow
def test_the_sample_keeps_the_contract():
    # its RTP within 0.05 pp needs more rounds than the suite's budget: said, not passed
    with mathsdk_lines.registered(), pytest.raises(
            ConformanceError, match=r"fails 1 check\(s\):\nrtp_declared: .*undecided: .* needs [\d,]+ rounds \(SD .*\), "
                                    r"more than the 10,000,000 allowed"):
        check_game(registry.get_game(mathsdk_lines.GAME_ID), rounds=300, replay_rounds=30, kernel_rounds=3000,
                   depth_rounds=3000)


def _board(*reels: str, mults: dict[tuple[int, int], int] | None = None):
    t = tables(BUILD)
    for r, cells in enumerate(reels):
        t.window[r] = [SYMBOLS.index(s) for s in cells.split()]
    t.mults[:] = 0
    for (r, row), m in (mults or {}).items():
        t.mults[r, row] = m
    return t


def test_a_line_win_is_multiplied_by_the_sum_of_its_wilds_multipliers():
    # line 1 (top row): H1 W W H1 L5 -> 4 High 1 (20x) with Wilds x3 and x10 on it: 20 x 13 = 260x
    t = _board("H1 L1 L2", "W L3 L4", "W L5 L1", "H1 L2 L3", "L5 L4 L3", mults={(1, 0): 3, (2, 0): 10})
    added, reached, n, scatters = spin(t, 0, 5000 * TENTHS)
    wins = {int(line) + 1: (int(count), int(pay), int(mult)) for line, _, count, pay, mult in t.out[:n]}
    assert wins[1] == (4, 2600, 13)
    assert not reached and scatters == 0 and added == sum(p for _, p, _ in wins.values())


def test_wilds_pay_their_own_row_when_it_pays_more_and_the_symbol_on_a_tie():
    # 3 Wilds then L5 L5: 5 Low 5 pays 1x, 3 Wilds 10x -> the Wilds
    t = _board("W L1 L2", "W L3 L4", "W L1 L2", "L5 L3 L4", "L5 L1 L2")
    spin(t, 0, 5000 * TENTHS)
    assert (int(t.out[0, 0]), int(t.out[0, 1]), int(t.out[0, 2]), int(t.out[0, 3])) == (0, SYMBOLS.index("W"), 3, 100)
    # 3 Wilds then H1 H1: 5 High 1 (50x) beats 3 Wilds (10x)
    t = _board("W L1 L2", "W L3 L4", "W L1 L2", "H1 L3 L4", "H1 L1 L2")
    spin(t, 0, 5000 * TENTHS)
    assert (int(t.out[0, 1]), int(t.out[0, 2]), int(t.out[0, 3])) == (SYMBOLS.index("H1"), 5, 500)


def test_the_round_stops_at_the_cap():
    t = _board("W L1 L2", "W L3 L4", "W L1 L2", "W L3 L4", "W L1 L2", mults={(r, 0): 50 for r in range(5)})
    added, reached, _, _ = spin(t, 4990 * TENTHS, 5000 * TENTHS)
    assert reached and added == 10 * TENTHS


def _lines(path: Path) -> list[str]:
    with path.open("rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as reader:
        return io.TextIOWrapper(reader, encoding="utf-8").read().splitlines()


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> tuple[Path, books.BookRun]:
    out = tmp_path_factory.mktemp("mathsdk-books")
    return out, books.generate(BUILD, 1200, 7, out)


def test_every_book_replays_through_the_rules_and_meets_its_criterion(package):
    out, run = package
    lines = _lines(out / "books_base.jsonl.zst")
    table = [tuple(map(int, row.split(","))) for row in (out / "lookUpTable_base_0.csv").read_text().split()]
    assert len(lines) == len(table) == 1200
    names = [c.name for c in books.CRITERIA]
    counts = dict.fromkeys(names, 0)
    for row, (line, (book_id, weight, payout)) in enumerate(zip(lines, table, strict=True)):
        book = json.loads(line)
        assert (book["id"], book["payoutMultiplier"], weight) == (book_id, payout, 1) and book_id == row
        assert payout % 10 == 0 and payout == run.payouts[row]
        assert books.check_book(BUILD, book) == [], book["id"]
        counts[book["criteria"]] += 1
    assert list(counts.values()) == books.criteria_split(1200).tolist() == [1, 120, 480, 599]
    assert json.loads((out / "index.json").read_text())["modes"] == [
        {"name": "base", "cost": 1.0, "events": "books_base.jsonl.zst", "weights": "lookUpTable_base_0.csv"}]


def test_a_tampered_book_is_caught_by_the_replay(package):
    out, _ = package
    book = next(json.loads(x) for x in _lines(out / "books_base.jsonl.zst") if '"criteria":"freegame"' in x)
    assert books.check_book(BUILD, book) == []
    raised = dict(book, payoutMultiplier=book["payoutMultiplier"] + 10)
    assert any("payoutMultiplier" in w for w in books.check_book(BUILD, raised))
    reveal = next(e for e in book["events"] if e["type"] == "reveal")
    reveal["stops"][0] = (reveal["stops"][0] + 1) % 219
    assert any("the board is not" in w for w in books.check_book(BUILD, book))
    last = max(i for i, e in enumerate(book["events"]) if e["type"] == "reveal")
    shortened = dict(book, events=book["events"][:last] + book["events"][last + 1:])
    assert any("never played" in w for w in books.check_book(BUILD, shortened))


def test_the_books_do_not_depend_on_the_writers_buffer(package):
    out, run = package
    small = books.generate(BUILD, 1200, 7, None, chunk_bytes=books.MARGIN + 4096)
    assert small.bytes_json == run.bytes_json and np.array_equal(small.payouts, run.payouts)


def test_the_local_stake_rgs_serves_the_books(package, tmp_path):
    from fastapi.testclient import TestClient

    from reelforge.server.stake_package import load_package
    from reelforge.server.stake_rgs import StakeRgs, create_stake_app

    out, _ = package
    rgs = StakeRgs(load_package(out), tmp_path / "s.sqlite")
    try:
        front = TestClient(create_stake_app(rgs))
        assert front.post("/wallet/authenticate", json={"sessionID": "p"}).status_code == 200
        balance = 1000 * 1_000_000
        for _ in range(5):
            play = front.post("/wallet/play", json={"sessionID": "p", "amount": 1_000_000, "mode": "base"}).json()
            balance -= 1_000_000
            book = play["round"]["state"]
            assert book[0]["type"] == "reveal" and book[-1] == {"type": "finalWin",
                                                                 "amount": play["round"]["payoutMultiplier"]}
            if play["round"]["active"]:
                balance += 10_000 * play["round"]["payoutMultiplier"]
                assert front.post("/wallet/end-round", json={"sessionID": "p"}).json()["balance"]["amount"] == balance
        assert front.post("/wallet/balance", json={"sessionID": "p"}).json()["balance"]["amount"] == balance
    finally:
        rgs.close()


def test_the_exact_paid_spin_is_every_window_played_on_cut_strips():
    """On strips cut to 7 stops (16,807 windows, a Wild and a Scatter on each), the exact line win and
    trigger equal the mean over every window of what the rules pay."""
    import itertools
    from fractions import Fraction

    from reelforge.games.mathsdk_lines.build import BASE, ROWS, SCATTER
    from reelforge.games.mathsdk_lines.exact import paid_spin_figures
    from reelforge.mechanics.reels import window_from_stops

    data = FILES.to_data(BUILD)
    data["reels"]["BR0"] = [strip[:5] + ["W", "S"] for strip in data["reels"]["BR0"]]
    small = FILES.parse(data, "cut")
    t = tables(small)
    win = triggers = 0
    for stops in itertools.product(range(7), repeat=5):
        t.stops[:] = stops
        window_from_stops(t.codes[BASE], t.lens[BASE], t.stops, ROWS, t.window)
        t.mults[:] = 0
        added, _, _, scatters = spin(t, 0, 5000 * TENTHS)
        win += int(added)
        triggers += int(scatters) >= 3
        assert (t.window == SCATTER).sum() == scatters
    figures = paid_spin_figures(small)
    assert figures["line_win_x"] == Fraction(win, 7 ** 5 * TENTHS)
    assert figures["trigger"] == Fraction(triggers, 7 ** 5)


def test_the_exact_paid_spin_of_the_sample():
    from fractions import Fraction

    from reelforge.games.mathsdk_lines.exact import paid_spin_figures

    figures = paid_spin_figures(BUILD)
    assert figures["line_win_x"] == Fraction(171372403544, 503756397099)
    assert figures["trigger"] == Fraction(1474985, 2073071593)
