"""A PAR sheet a lab can rebuild the game from: the strips in stop order exactly as the engine plays them,
the paylines, every build parameter with its unit, and Forge of Fortunes' exact transition table."""

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from reelforge.analysis.par import par_sheet
from reelforge.games.registry import get_game
from reelforge.games.seven_lines.build import LINES, SYMBOLS, tables

GOLDEN = json.loads((Path(__file__).parent / "data" / "reporting_golden.json").read_text())


def _sheet(game: str, build: str) -> tuple[dict, object]:
    g = get_game(game)
    b = g.load_build(build)
    return {s["title"]: s for s in par_sheet(g, b, GOLDEN["summaries"][game], rounds=20, seed=1)["sections"]}, b


def _decoded(section: dict) -> list[str]:
    return [row[2].replace(" | ", "").replace(" ", "") for row in section["rows"]]


def test_gemstones_gold_strips_are_given_in_stop_order():
    sheet, b = _sheet("gemstones-gold", "96.71")
    assert _decoded(sheet["Reel strips in stop order"]) == list(b.strips)


def test_seven_lines_strips_are_the_ones_the_kernel_plays_and_its_paylines_are_listed():
    sheet, b = _sheet("seven-lines", "96.0")
    t = tables(b)
    kernel = ["".join(SYMBOLS[c] for c in t.codes[r][: t.lens[r]]) for r in range(5)]
    assert _decoded(sheet["Reel strips in stop order"]) == kernel
    rows = sheet["Paylines"]["rows"]
    assert [[("top", "middle", "bottom").index(c) for c in r[1:]] for r in rows] == LINES.tolist()


def test_every_build_parameter_has_its_unit():
    for game, build in (("seven-lines", "96.0"), ("golden-vault", "96.0")):
        rows = _sheet(game, build)[0]["Build data (the build file's values)"]["rows"]
        assert rows and all(r[2] != "-" for r in rows), game


def test_forge_of_fortunes_transition_table_is_exact_and_each_row_adds_up_to_one():
    sheet, b = _sheet("forge-of-fortunes", "96.2")
    rows = sheet["Forging Re-Spins: exact transition table (per re-spin)"]["rows"]
    assert len(rows) == len(b.ladder) - 1
    for i, row in enumerate(rows):
        cells = [Fraction(m) if (m := re.search(r"\((\d+/\d+|\d+)\)", c)) and (m := m.group(1)) else Fraction(0)
                 for c in row[2:]]
        assert sum(cells) == 1, row
        if i in b.safe:
            assert row[3] == "0"  # Coal never steps back from a safe runner


def test_seven_lines_exact_pays_read_line_by_line_add_up_to_the_enumerated_rtp():
    from reelforge.games.seven_lines.exact import exact_pays, search_figures

    b = get_game("seven-lines").load_build("96.0")
    uncapped = search_figures(b)["rtp"]   # the stop-combination enumeration, free spins by Wald's identity
    rtp = Fraction(b.rtp)
    rows = exact_pays(b, rtp)
    pays = [r for r in rows if r[1] != "cap"]
    # 7^5 symbol lines per line and the Stars' windows, read apart, give exactly the enumeration's RTP
    assert sum(r[3] for r in pays) == uncapped
    cap = next(r for r in rows if r[1] == "cap")
    assert sum(r[3] for r in rows) == rtp and -Fraction(1, 10**28) < cap[3] <= 0
    assert {r[0] for r in pays if r[1] == "paid spin"} >= {"3 Cherry", "5 Wild", "3 Star"}


def test_each_rule_cites_its_document_and_section():
    for game in ("forge-of-fortunes", "gemstones-gold", "forge-of-gems", "seven-lines", "golden-vault"):
        g = get_game(game)
        rows = g.report().rule_sources(g.load_build(g.default_build()))
        assert rows and all(rule and "document" in doc and where for rule, doc, where in rows), game
    sheet, _ = _sheet("forge-of-fortunes", "96.2")
    assert "001_80ae9de499b28a2c.txt" in sheet["The rules and where each comes from"]["rows"][0][1]


def test_golden_vault_rules_cite_its_design_data_and_the_sheet_says_it_has_no_rules_document():
    sheet, b = _sheet("golden-vault", "96.0")
    rules = sheet["The rules and where each comes from"]
    assert len(rules["rows"]) >= 5 and all("design document" in doc and where for _, doc, where in rules["rows"])
    assert "no published rules document" in rules["note"]
    assert any(f"{b.grand_x:,}x" in rule for rule, _, _ in rules["rows"])  # the build's own figures, not prose
    other = _sheet("forge-of-fortunes", "96.2")[0]["The rules and where each comes from"]["note"]
    assert "no published rules document" not in other


def test_golden_vault_gem_pays_are_binomial_and_hold_and_respin_splits_exactly_by_coin_value():
    from reelforge.games.golden_vault.build import GEMS, UNIT
    from reelforge.mechanics.enumeration import anywhere_cells

    g = get_game("golden-vault")
    b = g.load_build("96.0")
    spin = anywhere_cells(15, {"blank": b.base["blank"], **b.base["gems"], "coin": sum(b.base["coins"])},
                          {gem: b.pays[gem] for gem in GEMS}, 5, "coin")
    weight = sum(spin.values())
    convolved = sum(Fraction(win * w, weight * UNIT) for (win, _), w in spin.items())
    feature = Fraction(b.rtp) - convolved  # the build file's exact RTP less the paid spin: Hold and Respin's share
    summary = {"method": "exact", "rtp_exact": b.rtp, "rtp_split_exact": {"hold_and_respin": str(feature)}}
    rows = g.report().exact_pays(b, summary)
    assert sum(r[3] for r in rows if r[1] == "paid spin") == convolved  # the cells convolved outcome by outcome
    coins = [r for r in rows if r[1] == "feature"]
    # one row per coin value and the Grand, each its expected count times its value, adding up to the exact share
    assert [r[0] for r in coins] == [f"coins of {Fraction(v, UNIT)}x (held and landed)" for v in sorted(b.coin_values)] \
        + [f"Grand {b.grand_x:,}x (a full board)"]
    assert all(r[3] == r[2] * v / UNIT for r, v in zip(coins, sorted(b.coin_values)))
    assert coins[-1][3] == coins[-1][2] * b.grand_x
    assert sum(r[3] for r in coins) == feature
    assert next(r for r in rows if r[1] == "cap")[3] == 0  # 2,600x is the most a round can pay: the cap takes nothing
    by_value, ends = g.report().exact_sections(b, summary)
    assert by_value["rows"][-1][4] == "54.862219 pp" and len(by_value["rows"]) == len(b.coin_values) + 2
    assert [r[0] for r in ends["rows"]] == [str(n) for n in range(b.trigger, 16)]


def test_games_with_their_own_sheet_list_every_build_file_parameter_with_its_unit():
    for game, build, key in (("forge-of-fortunes", "96.2", "two of a kind coins"),
                             ("gemstones-gold", "96.71", "feature buy price x"), ("forge-of-gems", "96.2", "gembox.3")):
        sheet, _ = _sheet(game, build)
        rows = sheet["Build parameters (the build file's values, each with its unit)"]["rows"]
        assert key in {r[0] for r in rows} and all(r[2] != "-" for r in rows), game


def test_gemstones_gold_free_spins_by_award_give_each_mean_win_its_interval():
    import copy
    import math

    from reelforge.core.stats import Z99

    g = get_game("gemstones-gold")
    s = copy.deepcopy(GOLDEN["summaries"]["gemstones-gold/stratified"])
    for f in s["extra"]["features"].values():
        f["sd_score"] = 40.0
    table = g.report().feature_breakdown(g.load_build("96.71"), s)
    assert table["columns"][3] == "99% interval of the mean" and table["formats"][3] == "x_ci"
    for row in table["rows"]:
        n = s["extra"]["features"][row[0].split()[0]]["n"]
        assert row[3] == pytest.approx([row[2] - Z99 * 40 / math.sqrt(n), row[2] + Z99 * 40 / math.sqrt(n)])


def _kernel_sheet(g, b, summary: dict, rounds: int) -> tuple[dict, object, dict]:
    """The PAR sheet on ``rounds`` per-pay kernel rounds (seed 4) by title, the run's tally, and the totals table's
    rows, checked: the integer cells add up to the run's total win exactly, and the total is the run's RTP with its
    interval."""
    from reelforge.game.parsheet import kernel_pay_sample

    sheet = {s["title"]: s for s in par_sheet(g, b, summary, rounds=rounds, seed=4)["sections"]}
    tally, acc = kernel_pay_sample(g, b, rounds, 4, workers=1)
    assert sum(tally.total.values()) == acc.win  # integer cells: the round wins exactly, the cap's reduction included
    totals = {r[0]: r for r in sheet["Per-pay tables: totals"]["rows"]}
    lo, hi = acc.rtp_ci99()
    assert totals["the per-pay sample's RTP (all tables)"][1].endswith(f"= {acc.rtp * 100:.3f}%")
    assert totals["the per-pay sample's RTP (all tables)"][2] == f"[{lo * 100:.3f}%, {hi * 100:.3f}%]"
    return sheet, tally, totals


def test_gemstones_gold_per_pay_tables_are_kernel_tallies_adding_up_to_their_total_beside_the_certified_rtp():
    from reelforge.analysis.par import default_par_rounds
    from reelforge.game.parsheet import kernel_pay_rounds

    g = get_game("gemstones-gold")
    summary = GOLDEN["summaries"]["gemstones-gold/stratified"]
    sheet, _, totals = _kernel_sheet(g, g.load_build("96.71"), summary, 30_000)
    assert totals["the certified RTP (the package's estimate)"][1] == f"{summary['rtp'] * 100:.3f}%"
    assert "30,000 paid rounds" in sheet["Pays in the paid spin: hit frequency and RTP contribution"]["note"]
    # the default run is sized from the SD for a 0.25 pp half-width: (2.5758 x 15 / 0.0025)^2 rounds for an SD of 15
    figures = {"build": "96.71", "mode": "paid", "summary": {"sd": 15.0}, "sample_summary": {"sd": 14.0}}
    assert default_par_rounds(g, figures) == kernel_pay_rounds(15.0) == 238_856_278
    # Forge of Gems has its per-pay kernel too; a game without one plays the reference engine's 200,000 rounds
    assert default_par_rounds(get_game("forge-of-gems"), {**figures, "build": "96.2"}) == 238_856_278
    assert default_par_rounds(get_game("golden-vault"), {**figures, "build": "96.0"}) == 200_000


def test_forge_of_gems_per_pay_and_prize_cells_are_kernel_tallies_adding_up_to_their_total_beside_the_certified_rtp():
    """Once 200,000 reference-engine rounds (cells like Emerald x5 in free spins 14.9 pp [0, 39.0], tables adding up
    to 91.3% beside a certified 96.7%): now the per-pay kernel's run, sized by certify from the SD, every cell an
    integer tally of it with its interval, the tables adding up exactly to its RTP, shown beside the certified one."""
    from reelforge.core.numbers import pp
    from reelforge.core.stats import mean_ci99

    g = get_game("forge-of-gems")
    b = g.load_build("96.2")
    summary = GOLDEN["summaries"]["forge-of-gems"]
    sheet, tally, totals = _kernel_sheet(g, b, summary, 4_000)
    assert totals["the certified RTP (the package's estimate)"][1:] == [
        f"{summary['rtp'] * 100:.3f}%", f"[{summary['rtp_ci99'][0] * 100:.3f}%, {summary['rtp_ci99'][1] * 100:.3f}%]"]
    assert totals["their difference"][2].endswith(("within it", "OUTSIDE it"))
    paid = sheet["Pays in the paid spin: hit frequency and RTP contribution"]
    assert "4,000 paid rounds (seed 4) on the per-pay kernel" in paid["note"]
    # each cell is its key's tally, with its own interval: the paid spin's Diamond x5 and the GEMBOX's 3-scatter prize
    for label, key, table in (("Diamond x5", "DIAMOND|5|paid spin", paid),
                              ("3 scatters: instant prize", "gembox|3|prize",
                               sheet["GEMBOX instant prizes: hit frequency and RTP contribution"])):
        row = {r[0]: r for r in table["rows"]}[label]
        units = tally.total.get(key, 0)
        if units:
            clo, chi = mean_ci99(units, tally.total_sq[key], tally.rounds)
            assert row[4] == pp(units / tally.rounds / b.unit) and row[5] == pp_ci_of(clo / b.unit, chi / b.unit)
        else:
            assert row[4] == "not observed"


def pp_ci_of(lo: float, hi: float) -> str:
    from reelforge.core.numbers import pp_ci

    return pp_ci([max(lo, 0.0), hi])
