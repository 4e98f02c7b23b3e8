"""Stake Engine packages (docs/STAKE.md): the table's weights, the 0.1x grid, the books, and every rule
``reelforge export stake --check`` applies, each broken on its own."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from reelforge.analysis.stake import format as fmt
from reelforge.analysis.stake.books import book, replay
from reelforge.analysis.stake.export import export_stake
from reelforge.analysis.stake.table import (
    Outcomes,
    Source,
    TableError,
    anchor,
    cell,
    integer_weights,
    observe,
    on_grid,
    select,
    spread,
)
from reelforge.cli import app
from reelforge.cli.common import CliError
from reelforge.core.draws import SeededDraws
from reelforge.games.registry import get_game
from reelforge.mechanics.rng import pcg_state

# -- a package written by hand, then broken one rule at a time --------------------------------------------


def _package(folder: Path, modes: dict[str, tuple[float, list[tuple[int, int, int]]]]) -> Path:
    """A package whose books carry only a finalWin event; ``modes``: name -> (cost, rows)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (_, rows) in modes.items():
        (folder / fmt.table_file(name)).write_text("".join(f"{i},{w},{p}\n" for i, w, p in rows))
        with fmt.BookWriter(folder / fmt.books_file(name)) as w:
            for i, _, p in rows:
                w.add(i, p, [{"index": 0, "type": "finalWin", "win_x": str(Fraction(p, 100)), "payoutMultiplier": p,
                              "rounding": "none"}])
    fmt.write_index(folder, [fmt.ModeFiles(n, c, fmt.books_file(n), fmt.table_file(n)) for n, (c, _) in modes.items()])
    return folder


# weights 100 in all; payouts in hundredths of the base bet
BASE = [(1, 50, 0), (2, 30, 120), (3, 19, 200), (4, 1, 2200)]          # (30*120 + 19*200 + 2200) / 10000 = 0.9600
BONUS = [(1, 3, 0), (2, 6, 5000), (3, 1, 20000)]                       # (30000 + 20000) / 10 / 100 / 52 = 0.9615...


def test_a_good_package_passes_with_its_figures(tmp_path):
    result = fmt.check(_package(tmp_path / "p", {"base": (1.0, BASE), "bonus": (52.0, BONUS)}))
    assert result.ok, result.problems
    base, bonus = result.modes
    assert base.rtp == Fraction(96, 100) and base.hit_rate == Fraction(50, 100)
    assert (base.max_payout, base.max_weight, base.total_weight, base.books) == (2200, 1, 100, 4)
    assert bonus.rtp == Fraction(50000, 10 * 100 * 52)


def _problems(tmp_path, modes, mutate=None) -> list[str]:
    folder = _package(tmp_path / "p", modes)
    if mutate:
        mutate(folder)
    return fmt.check(folder).problems


def test_a_payout_off_the_grid_is_named(tmp_path):
    problems = _problems(tmp_path, {"base": (1.0, [(1, 50, 0), (2, 30, 125), (3, 20, 290)])})
    assert any("line 2: pays off the 0.1x grid" in p for p in problems), problems


def test_a_book_paying_another_payout_than_its_line_is_named(tmp_path):
    def swap(folder: Path) -> None:
        with fmt.BookWriter(folder / "books_base.jsonl.zst") as w:
            for i, _, p in BASE:
                w.add(i, p if i != 3 else 240, [])
    problems = _problems(tmp_path, {"base": (1.0, BASE)}, swap)
    assert problems == ["books_base.jsonl.zst: book 3: pays another payoutMultiplier than its table line"]


def test_books_missing_or_out_of_order_are_named(tmp_path):
    def short(folder: Path) -> None:
        with fmt.BookWriter(folder / "books_base.jsonl.zst") as w:
            for i, _, p in reversed(BASE[1:]):
                w.add(i, p, [])
    problems = _problems(tmp_path, {"base": (1.0, BASE)}, short)
    assert "books_base.jsonl.zst: 3 books for 4 table lines (one book per line, in order)" in problems
    assert any(": has another id than its table line" in p for p in problems)


def test_a_weight_over_uint64_and_a_total_over_uint64_are_named(tmp_path):
    over = [(1, 2**64, 0), (2, 1, 100)]
    assert any("line 1: a value over the unsigned 64-bit maximum" in p
               for p in _problems(tmp_path, {"base": (1.0, over)}))
    total = [(1, 2**63, 0), (2, 2**63, 100)]
    assert any("the weights sum to 18446744073709551616, over the unsigned 64-bit maximum" in p
               for p in _problems(tmp_path / "t", {"base": (1.0, total)}))


def test_rtp_out_of_range_and_modes_apart_are_named(tmp_path):
    low = [(1, 60, 0), (2, 40, 200)]                                   # 80%
    assert _problems(tmp_path, {"base": (1.0, low)}) == ["mode base: RTP 80.0000% is outside 90%-98%"]
    apart = [(1, 3, 0), (2, 6, 5000), (3, 1, 20500)]                   # 97.12%: 1.12 pp from base
    problems = _problems(tmp_path / "a", {"base": (1.0, BASE), "bonus": (52.0, apart)})
    assert len(problems) == 1 and "differ by 1.1154 pp, more than 0.5 pp" in problems[0]


def test_malformed_lines_index_and_books_are_named(tmp_path):
    def bad_line(folder: Path) -> None:
        (folder / "lookUpTable_base_0.csv").write_text("1,50,0\n2,-3,100\n3,x,100\n")
    problems = _problems(tmp_path, {"base": (1.0, BASE)}, bad_line)
    assert any("lines 2, 3: not three unsigned integers" in p for p in problems)

    def bad_cost(folder: Path) -> None:
        (folder / "index.json").write_text(json.dumps({"modes": [{"name": "base", "cost": 0, "events":
                                                                  "books_base.jsonl.zst", "weights": "lookUpTable_base_0.csv"}]}))
    assert "cost must be a positive number" in _problems(tmp_path / "c", {"base": (1.0, BASE)}, bad_cost)[0]

    def not_zstd(folder: Path) -> None:
        (folder / "books_base.jsonl.zst").write_bytes(b'{"id": 1}\n')
    assert "not zstandard-compressed" in _problems(tmp_path / "z", {"base": (1.0, BASE)}, not_zstd)[0]
    assert "no index.json" in fmt.check(tmp_path / "empty").problems[0]


def test_check_on_the_command_line_exits_2_with_one_line_per_problem(tmp_path):
    runner = CliRunner()
    good = _package(tmp_path / "good", {"base": (1.0, BASE)})
    ok = runner.invoke(app, ["export", "stake", "--check", str(good)])
    assert ok.exit_code == 0 and "base (cost 1): RTP 96.000000%, hit rate 50.0000%" in ok.output
    bad = _package(tmp_path / "bad", {"base": (1.0, [(1, 60, 0), (2, 39, 200), (3, 1, 15)])})
    res = runner.invoke(app, ["export", "stake", "--check", str(bad)])
    assert res.exit_code == 2
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: lookUpTable_base_0.csv: line 3: pays off the 0.1x grid (payoutMultiplier not a "
                      "multiple of 10)", "error: mode base: RTP 78.1500% is outside 90%-98%"]
    mixed = runner.invoke(app, ["export", "stake", "seven-lines", "--check", str(good)])
    assert isinstance(mixed.exception, CliError) and "give it alone" in str(mixed.exception)  # main(): exit 2


# -- the table: grid, anchoring, books kept, weights ------------------------------------------------------


def _outcomes(unit: int, counts: dict[tuple[int, int], int], cap: int = 200) -> Outcomes:
    c = np.zeros((2, cap + 1), dtype=np.int64)
    for (f, u), n in counts.items():
        c[f, u] = n
    return Outcomes(unit, cap, int(c.sum()), 0, c, np.zeros((2, cap + 1, 4), dtype=np.uint64))


def test_a_win_between_grid_steps_pays_the_steps_around_it_keeping_its_mean():
    # unit 20: 3 units = 0.15x (halfway), 4 units = 0.2x (on the grid), 27 units = 1.35x
    mass, source, added = on_grid(_outcomes(20, {(0, 0): 10, (0, 3): 4, (0, 4): 2, (1, 27): 2}))
    assert mass == {(0, 0): 10, (0, 10): 2, (0, 20): 4, (1, 130): 1, (1, 140): 1}
    assert source[(0, 20)] == Source(0, 4, "none")                     # a round on the grid shows it
    assert source[(0, 10)] == Source(0, 3, "down") and source[(1, 140)] == Source(1, 27, "up")
    assert added == 0
    # unit 40: 7 units = 0.175x pays 0.1x with chance 1/4, 0.2x with 3/4; 1 unit (0.025x) pays 0.1x
    mass, _, added = on_grid(_outcomes(40, {(0, 7): 4, (0, 1): 1}))
    assert mass == {(0, 10): 1 + 1, (0, 20): 3} and added == Fraction(10 - Fraction(100, 40), 100) / 5


def test_kept_books_carry_each_cells_probability_and_mean():
    mass = {(0, 0): Fraction(50), (0, 30): Fraction(20), (0, 50): Fraction(9), (0, 90): Fraction(7),
            (0, 120): Fraction(5), (0, 170): Fraction(4), (1, 300): Fraction(2), (1, 2500): Fraction(1),
            (1, 3000): Fraction(1), (1, 200000): Fraction(1), (0, 60): Fraction(3), (0, 70): Fraction(1)}
    cap = 200000                                # 2,000x: the cap is a cell of its own
    kept = select(mass, 10, cap)                # 9 cells' smallest and largest payouts, then the most probable
    assert set(kept) == set(mass) - {(0, 60), (0, 70)}
    out = spread(mass, kept, cap)
    assert set(out) == set(kept)
    for c in {cell(k, cap) for k in mass}:
        inside = [k for k in mass if cell(k, cap) == c]
        assert sum(out.get(k, 0) for k in inside) == sum(mass[k] for k in inside)
        assert sum(out.get(k, 0) * k[1] for k in inside) == sum(mass[k] * k[1] for k in inside)
    with pytest.raises(TableError, match="at least 9 books are needed"):
        select(mass, 8, cap)


def test_anchoring_meets_every_figure_and_weights_are_unsigned_64_bit():
    mass = {(0, 0): Fraction(600), (0, 50): Fraction(250), (0, 200): Fraction(120), (1, 400): Fraction(25),
            (1, 5000): Fraction(4), (1, 10000): Fraction(1)}
    targets = {"rtp": 0.97, "hit_rate": 0.41, "feature_rate": 0.031, "max_win_rate": 0.0008}
    p = anchor(mass, Fraction(1), targets, 1_000_000)
    assert sum(p.values()) == pytest.approx(1, abs=1e-14)
    assert sum(v * k[1] / 100 for k, v in p.items()) == pytest.approx(0.97, abs=1e-12)
    assert sum(v for k, v in p.items() if k[1]) == pytest.approx(0.41, abs=1e-12)
    assert sum(v for k, v in p.items() if k[0]) == pytest.approx(0.031, abs=1e-12)
    assert p[(1, 10000)] == pytest.approx(0.0008, abs=1e-15)
    w = integer_weights(p)
    assert 2**61 < sum(w.values()) <= fmt.U64_MAX
    assert sum(v * k[1] for k, v in w.items()) / sum(w.values()) / 100 == pytest.approx(0.97, abs=1e-14)
    with pytest.raises(TableError, match="anchor rtp=120.0"):
        anchor(mass, Fraction(1), {"rtp": 120.0}, 1_000_000)
    # counts stay exact: halves (a split win) times 2
    assert integer_weights({(0, 0): Fraction(3), (0, 10): Fraction(5, 2)}) == {(0, 0): 6, (0, 10): 5}


# -- a real export: the table is the observed distribution, the books are its rounds -----------------------


@pytest.fixture(scope="module")
def seven_lines_package(tmp_path_factory):
    game = get_game("seven-lines")
    build = game.load_build("96.0")
    out = tmp_path_factory.mktemp("stake") / "seven-lines"
    done = export_stake(game, build, out, ["base"], {"base": 20_000}, seed=5,
                        anchors={"base": {"rtp": 0.96}})
    plain = observe(game, build, "paid", 20_000, 5)
    return game, build, out, done[0], plain


def test_an_export_passes_the_check_at_the_anchored_rtp(seven_lines_package):
    _, _, out, done, _ = seven_lines_package
    result = fmt.check(out)
    assert result.ok, result.problems
    assert float(result.modes[0].rtp) == pytest.approx(0.96, abs=1e-12)
    assert json.loads((out / "index.json").read_text()) == {"modes": [{
        "name": "base", "cost": 1.0, "events": "books_base.jsonl.zst", "weights": "lookUpTable_base_0.csv"}]}
    assert done.table["rtp"] == pytest.approx(0.96, abs=1e-12)


def test_unanchored_weights_are_the_observed_counts(tmp_path, seven_lines_package):
    game, build, _, _, plain = seven_lines_package
    export_stake(game, build, tmp_path, ["base"], {"base": 20_000}, seed=5, use_exact=False)
    rows = fmt.read_table(tmp_path / fmt.table_file("base"))
    counts = plain.counts
    # Seven Lines pays in tenths of the bet: every outcome is on the grid, one book per (feature, win)
    assert sorted(w for _, w, _ in rows) == sorted(int(v) for v in counts[counts > 0])
    figures = fmt.table_figures("base", 1.0, rows)
    units = np.arange(counts.shape[1])
    assert figures.rtp == Fraction(int((counts * units).sum()), 20_000 * 10)
    assert figures.hit_rate == Fraction(int(counts[:, 1:].sum()), 20_000)


def test_books_are_the_rounds_the_rules_play_with_positions_on_wins(seven_lines_package):
    game, build, out, _, _ = seven_lines_package
    rows = fmt.read_table(out / fmt.table_file("base"))
    line_wins = 0
    for (_, _, payout), b in zip(rows, fmt.iter_books(out / fmt.books_file("base")), strict=True):
        events = b["events"]
        assert [e["index"] for e in events] == list(range(len(events)))
        steps, final = events[:-1], events[-1]
        assert final == {"index": len(steps), "type": "finalWin", "win_x": steps[-1]["total_win_x"],
                         "payoutMultiplier": payout, "rounding": "none"}
        assert sum(Fraction(s["win_x"]) for s in steps) == Fraction(payout, 100) == Fraction(final["win_x"])
        for s in steps:
            window = next(e["window"] for e in s["events"] if e["type"] == "reels")
            for e in s["events"]:
                if e["type"] == "win" and "line" in e:
                    count, name = e["pay"].split(" ", 1)
                    assert len(e["positions"]) == int(count)
                    assert all(window[r][row] in (name, "Wild") for r, row in e["positions"])
                    line_wins += 1
    assert line_wins > 100


def test_a_book_whose_rules_disagree_with_the_kernel_is_refused():
    game = get_game("seven-lines")
    build = game.load_build("96.0")
    state = pcg_state(np.random.Generator(np.random.PCG64(7)))
    won = replay(game, build, "paid", state)[-1].total_win
    wrong = Source(0, int(won * 10) + 1, "none")
    with pytest.raises(TableError, match="rules and kernel disagree"):
        book(game, build, "paid", wrong, state, 10, 0)


def test_gemstones_gold_win_positions_are_the_cells_of_the_winning_symbol():
    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    seen = 0
    for seed in range(60):
        for step in game.play_round(build, SeededDraws(seed)).steps:
            for e in game.with_win_positions(build, step.events):
                for w in e.get("wins", []) if e["type"] == "cascade" else []:
                    assert len(w["positions"]) == w["count"]
                    letters = {e["board"][r][row] for r, row in w["positions"]}
                    assert len(letters) == 1
                    seen += 1
    assert seen > 10


def test_export_refuses_modes_the_game_does_not_have(tmp_path):
    game = get_game("seven-lines")
    with pytest.raises(TableError, match="seven-lines has no bonus mode"):
        export_stake(game, game.load_build("96.0"), tmp_path, ["bonus"], {"bonus": 10}, seed=1)
    with pytest.raises(TableError, match="unknown mode"):
        export_stake(game, game.load_build("96.0"), tmp_path, ["free"], {"free": 10}, seed=1)


def test_gemstones_gold_both_modes_off_grid_wins_rounded_and_fewer_books_keep_the_mean(tmp_path):
    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    done = export_stake(game, build, tmp_path, ["base", "bonus"], {"base": 3000, "bonus": 400}, seed=11,
                        books={"bonus": 40})
    base, bonus = done
    assert [m["name"] for m in json.loads((tmp_path / "index.json").read_text())["modes"]] == ["base", "bonus"]
    assert json.loads((tmp_path / "index.json").read_text())["modes"][1]["cost"] == 56.1
    # every book's payout is its win on the grid, rounded as its finalWin says
    roundings = set()
    for mode in ("base", "bonus"):
        rows = fmt.read_table(tmp_path / fmt.table_file(mode))
        for (_, _, payout), b in zip(rows, fmt.iter_books(tmp_path / fmt.books_file(mode)), strict=True):
            final = b["events"][-1]
            h = Fraction(final["win_x"]) * 100
            roundings.add(final["rounding"])
            assert {"none": payout == h, "down": payout < h < payout + 10,
                    "up": payout - 10 < h < payout}[final["rounding"]], (final, payout)
    assert roundings == {"none", "down", "up"}
    # all books: the weights are the counts (off-grid ones split in halves, so doubled), the RTP the sample's
    assert base.table["rtp"] == base.sample["rtp"] and base.table["total_weight"] == 2 * 3000
    # 40 books for the Feature Buy: each band's probability and mean kept, so the RTP too
    assert bonus.books == 40 < bonus.outcomes
    assert bonus.table["rtp"] == pytest.approx(bonus.sample["rtp"], rel=1e-14)
    assert bonus.table["feature_rate"] == 1.0


@pytest.mark.slow  # the exact enumeration of Seven Lines: about 14 CPU s
def test_a_game_with_exact_figures_gets_them_in_its_table(tmp_path):
    """Seven Lines is enumerable (reelforge exact): its table's RTP, feature frequency and the probability of
    every win band the sample reached are the exact ones (the unreached top bands' probability, 1e-7 here,
    goes to the highest reached one)."""
    game = get_game("seven-lines")
    build = game.load_build("96.0")
    (done,) = export_stake(game, build, tmp_path, ["base"], {"base": 20_000}, seed=5)
    ex = game.exact(build)
    assert done.anchors["rtp"] == float(ex.rtp) and done.exact["rtp"] == str(ex.rtp)
    rows = fmt.read_table(tmp_path / fmt.table_file("base"))
    assert float(fmt.table_figures("base", 1.0, rows).rtp) == pytest.approx(float(ex.rtp), rel=1e-12)
    assert done.table["feature_rate"] == pytest.approx(float(ex.feature_rate), rel=1e-12)
    assert done.table["hit_rate"] == pytest.approx(float(ex.hit_rate), rel=1e-12)
    for label, p in done.band_anchors.items():
        assert done.table["bands"][label] == pytest.approx(p, rel=1e-12, abs=1e-18)
    assert fmt.check(tmp_path).ok


def test_export_on_the_command_line_and_its_bad_input(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["export", "stake", "seven-lines", "--build", "96.0", "--out", str(tmp_path / "p"),
                              "--rounds", "1e4", "--seed", "3", "--sample"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("base (paid, cost 1): ") and "sample of 10,000 rounds" in res.stdout
    for args, message in [(["--rounds", "1e4,1e4"], "--rounds: one count, or one per mode (1: base), got 2"),
                          (["--modes", "bonus"], "seven-lines has no bonus mode"),
                          (["--books", "0"], "--books must be a positive integer")]:
        bad = runner.invoke(app, ["export", "stake", "seven-lines", "--out", str(tmp_path / "q"), *args])
        assert isinstance(bad.exception, CliError) and message in str(bad.exception), (args, bad.output)
    assert not (tmp_path / "q").exists()
