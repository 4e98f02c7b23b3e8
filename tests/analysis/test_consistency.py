"""The report inconsistencies of issue 23, each fixed and held: totals that add up, one interval method
per figure, one unit per kind, the Forge of Gems id, stakes and cap source, exact rationals in full."""

import json
import re
from fractions import Fraction

import pytest

from reelforge.analysis.figures import figure_rows
from reelforge.analysis.par import par_sheet
from reelforge.analysis.simulate import simulate
from reelforge.analysis.summary import exact_summary, simulation_summary
from reelforge.games.registry import all_games, get_game


def test_forge_of_gems_says_none_published_everywhere_and_names_the_caps_source(capsys):
    from reelforge.cli.analysis import games

    g = get_game("forge-of-gems")
    b = g.load_build("96.2")
    help_ = g.help(b)
    s = simulation_summary(g, b, g.simulate_chunk(b, 2000, __import__("numpy").random.SeedSequence(1)), seed=1)
    games(as_json=True)
    listed = {r["id"]: r for r in json.loads(capsys.readouterr().out)["games"]}
    assert help_.game_id == s["game_id"] == listed["forge-of-gems"]["game_id"] == "none published"
    assert help_.published_id is None and s["published_id"] is None
    cap_row = next(r for r in figure_rows(s) if r[0] == "maximum win (the cap)")
    assert cap_row[2].startswith("design document GAMES.md, section 3 (public facts beyond the rules); reachable: "
                                 "a constructed round reaches it: ")
    assert get_game("gemstones-gold").max_win_source != "provider's published figure"


@pytest.mark.parametrize("game", [g.id for g in all_games()])
def test_every_reference_stake_pays_every_win_in_whole_cents(game):
    g = get_game(game)
    b = g.load_build(g.default_build())
    lo, hi = (round(x * 100) for x in g.reference_stakes)
    assert lo % g.win_unit(b) == 0 and hi % g.win_unit(b) == 0, (game, lo, g.win_unit(b))


def test_the_cap_count_has_one_interval_method():
    g = get_game("forge-of-gems")
    b = g.load_build("96.2")
    acc = simulate(g, b, 20_000, 3, 1).accumulator
    s = simulation_summary(g, b, acc, seed=3)
    assert s["extra"]["cap_hits"]["ci99"] == s["max_win_probability_ci99"]  # both exact binomial


def test_forge_of_fortunes_rationals_are_in_full_in_the_json():
    g = get_game("forge-of-fortunes")
    s = exact_summary(g, g.load_build("96.2"))
    ends = s["extra_exact"]["feature_end_runner_probability"]
    assert len(ends) == 15 and sum(Fraction(v) for v in ends.values()) == 1
    for key, v in ends.items():
        assert float(Fraction(v)) == pytest.approx(s["extra"]["feature_end_runner_probability"][key], rel=1e-12)
    json.dumps(s)


def _pp(text: str) -> float:
    return float(re.match(r"(-?[\d.]+) pp", text).group(1))


@pytest.mark.parametrize("game", ["gemstones-gold", "forge-of-gems"])
def test_per_pay_tables_have_totals_that_add_up_to_the_printed_sample_rtp(game):
    g = get_game(game)
    b = g.load_build(g.default_build())
    acc = simulate(g, b, 5000, 1, 1).accumulator
    sheet = par_sheet(g, b, simulation_summary(g, b, acc, seed=1), 400, 9)
    tables = [sec for sec in sheet["sections"] if sec["columns"][0] == "pay"]
    totals = [_pp(sec["rows"][-1][4]) for sec in tables]
    for sec in tables:  # each table's total row is the sum of its rows (in pp, as printed: 3 decimals)
        rows = [_pp(r[4]) for r in sec["rows"][:-1] if r[4].endswith("pp")]
        assert sum(rows) == pytest.approx(_pp(sec["rows"][-1][4]), abs=0.0006 * len(rows) + 1e-9)
        assert all(r[4].endswith(" pp") or r[4] == "not observed" for r in sec["rows"])  # one unit: pp
    summary = next(sec for sec in sheet["sections"] if sec["title"] == "Per-pay tables: totals")
    sample_rtp = _pp(next(r for r in summary["rows"] if r[0].endswith("RTP (all tables)"))[1])  # then the certified
    assert sum(totals) == pytest.approx(sample_rtp, abs=0.001 * len(totals))


@pytest.mark.parametrize("game", ["gemstones-gold", "forge-of-gems"])
def test_the_par_sheet_names_symbols_as_the_help_does(game):
    g = get_game(game)
    b = g.load_build(g.default_build())
    names = set(g.help(b).symbol_names.values())
    sheet = par_sheet(g, b, simulation_summary(g, b, simulate(g, b, 2000, 1, 1).accumulator, seed=1), 50, 2)
    table = next(sec for sec in sheet["sections"] if sec["title"].startswith(("Cell weights", "Reel strips")))
    assert {r[0] for r in table["rows"][:-1]} <= names
    paytable = next(sec for sec in sheet["sections"] if sec["title"].startswith("Paytable"))
    assert {r[0] for r in paytable["rows"]} <= names
