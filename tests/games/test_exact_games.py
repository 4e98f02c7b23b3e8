"""The shipped enumerable games through the generic exact evaluator: demo_normal's exact RTP is the
fraction computed independently (by linearity, :mod:`reelforge.games.problab.exact`); Golden Vault's
largest reachable win is 2,600x (15 coins of 100x, the 1,000x Grand, 100x of gems); Seven Lines' figures
agree with themselves; ``reelforge exact`` refuses a game that is not enumerable in one line, exit 2."""

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from reelforge.game.exact import exact_figures
from reelforge.games.problab import registered
from reelforge.games.problab.exact import exact as linear_exact
from reelforge.games.registry import get_game


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reelforge", *args], capture_output=True, text=True, timeout=300)


def test_demo_normal_through_the_generic_evaluator_is_its_published_exact_rtp():
    with registered():
        g = get_game("problab-demo-normal")
        b = g.load_build(g.default_build())
        ex = exact_figures(g, b)
    assert ex.rtp == Fraction(36061431031, 37754526264) == linear_exact(b).rtp
    assert ex.feature_rate == linear_exact(b).trigger_probability
    assert sum(ex.outcomes.values()) == 1


def test_golden_vault_reaches_2600x_at_most():
    g = get_game("golden-vault")
    ex = exact_figures(g, g.load_build("96.0"))
    assert ex.max_win_x == g.max_win_x == 2600 and max(ex.outcomes) == 2600 and ex.max_win_probability > 0
    assert sum(ex.outcomes.values()) == 1
    assert ex.rtp == sum(w * p for w, p in ex.outcomes.items())


def test_seven_lines_figures_agree_with_their_distribution_and_reach_the_cap():
    g = get_game("seven-lines")
    ex = exact_figures(g, g.load_build("94.0"))
    assert sum(ex.outcomes.values()) == 1 and ex.rtp == sum(w * p for w, p in ex.outcomes.items())
    assert ex.max_win_x == g.max_win_x == 2000 and ex.max_win_probability > 0
    assert ex.hit_rate == 1 - ex.outcomes[Fraction(0)]


@pytest.mark.parametrize("game_id, name", [("seven-lines", "96.0"), ("seven-lines", "94.0"), ("golden-vault", "96.0"),
                                           ("golden-vault", "94.0")])
def test_a_build_named_for_its_rtp_pays_it_within_a_hundredth_of_a_point_and_states_it_exactly(game_id, name):
    g = get_game(game_id)
    b = g.load_build(name)
    ex = exact_figures(g, b)
    assert abs(ex.rtp - Fraction(name) / 100) <= Fraction(1, 10_000)
    assert b.rtp == ex.rtp == Fraction(g.help(b).rtp)      # the file, the help and the lobby show the proven RTP
    assert g.load_build(name, "1.0").rtp == Fraction(name) / 100   # the published 1.0 stays as it was


def test_exact_refuses_a_game_that_is_not_enumerable_in_one_line():
    proc = _cli("exact", "gemstones-gold")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "error: gemstones-gold is not enumerable: it has no exact mathematics (its figures are simulated; "
        "see `reelforge summary gemstones-gold`)"]


def test_exact_json_gives_every_figure_as_a_fraction_and_a_decimal():
    proc = _cli("exact", "forge-of-fortunes", "--build", "96.2", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert Fraction(out["rtp"]["exact"]) == get_game("forge-of-fortunes").exact(
        get_game("forge-of-fortunes").load_build("96.2")).rtp
    assert abs(out["rtp"]["value"] - float(Fraction(out["rtp"]["exact"]))) < 1e-15
    assert sum(Fraction(r["probability"]["exact"]) for r in out["distribution"]) == 1
