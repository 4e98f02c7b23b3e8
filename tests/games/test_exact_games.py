"""The generic exact evaluator and the tuner on it, on what stays small: a small Seven Lines build's whole win
distribution agrees exactly with a second derivation (Wald's identity on the same enumeration; the enumeration
and the chains themselves are held to brute force in tests/mechanics/test_exact_evaluator.py); the generic tuner
meets two targets at once on exact figures and refuses one it cannot reach; ``reelforge exact`` refuses bad input
in one line, exit 2. The full runs (Seven Lines, Golden Vault, demo_normal's 36061431031/37754526264 through the
generic path: seconds each) are ``bench/exact_games.py``, their figures and times in docs/maths.md; check_game's
``rtp_declared`` holds every shipped build to its exact RTP."""

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from reelforge.cli import main
from reelforge.conformance import CHECKS, ConformanceError, Context
from reelforge.game import rtp_proof
from reelforge.games.registry import get_game
from reelforge.games.seven_lines.exact import search_figures
from reelforge.games.seven_lines.game import SevenLines

SMALL = """game = "seven-lines"
name = "92.0"
version = "1.0"
rtp = "0.92"
free_spins = [3, 4, 5]
free_spins_limit = 6
free_spins_multiplier = 2
star_pays = [10, 50, 250]
tunable = ["reels.C", "reels.L"]

[pays]
W = [50, 100, 100]
R = [40, 80, 100]
B = [20, 60, 100]
G = [10, 30, 100]
L = [5, 15, 50]
C = [3, 10, 30]

[reels]
W = [1, 1, 1, 1, 1]
S = [1, 1, 1, 1, 1]
R = [1, 1, 1, 1, 1]
B = [1, 1, 1, 1, 1]
G = [2, 2, 2, 2, 2]
L = [3, 7, 10, 1, 8]
C = [11, 6, 2, 12, 8]
"""
"""A small Seven Lines build (strips of 18 to 27 stops): a spin pays at most 10 x 100 + 250 coins (125x), a round
at most 125x + 6 free spins x 2 x 125x = 1,625x, below the 2,000x cap; it pays about 127%."""


def _cli(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """``reelforge ARGS`` in this process (its exit status, stdout, stderr): the compiled kernels are reused."""
    monkeypatch.setattr(sys, "argv", ["reelforge", *args])
    with pytest.raises(SystemExit) as stopped:
        main()
    out = capsys.readouterr()
    return stopped.value.code or 0, out.out, out.err


@pytest.fixture
def small(tmp_path: Path) -> SevenLines:
    path = tmp_path / "92.0.toml"
    path.write_text(SMALL)

    class SmallSevenLines(SevenLines):
        def load_build(self, name, version=None):
            return self.build_files.load_file(path)

        def build_versions(self, name):
            return ["1.0"]

    return SmallSevenLines()


def test_a_small_builds_whole_distribution_agrees_exactly_with_walds_identity(small):
    b = small.load_build("92.0")
    ex = small.exact(b)
    assert ex.max_win_x < 1625 < small.cap_x(b)            # the cap is out of reach: nothing is cut
    quick = search_figures(b)
    assert (ex.rtp, ex.hit_rate, ex.feature_rate) == (quick["rtp"], quick["hit"], quick["feature"])
    assert sum(ex.outcomes.values()) == 1 and ex.rtp == sum(w * p for w, p in ex.outcomes.items())
    assert ex.rtp_split["paid_spins"] + ex.rtp_split["free_spins"] == ex.rtp
    assert Fraction(1, 1) < ex.rtp < Fraction(13, 10)


def test_the_tuner_meets_two_targets_at_once_on_exact_figures_and_refuses_one_it_cannot_reach(small, tmp_path):
    out = tmp_path / "tuned.toml"
    result = small.tune("92.0", {"rtp": 0.92, "hit": 0.5}, out=str(out), tolerances={"hit": 0.005})
    tuned = small.build_files.load_file(out, "92.0")
    ex = small.exact(tuned)
    assert tuned.rtp == ex.rtp and abs(ex.rtp - Fraction(92, 100)) <= Fraction(1, 10_000)   # the file states it exactly
    assert abs(ex.hit_rate - Fraction(1, 2)) <= Fraction(5, 1000)
    assert result.method == "exact" and result.figures_ci99 is None and result.figures["rtp"] == float(ex.rtp)
    assert tuned.identity.version == "2.0" and tuned.tunables() != small.load_build("92.0").tunables()
    assert len(tuned.tunables()) == 10 and result.extra["evaluations"] < 400
    with pytest.raises(ValueError, match=r"^cannot reach .*hit=19/20 \(within 0\.005\) by moving reels\.C\.1, .*"
                                         r"the closest found is rtp 0\.\d+, hit 0\.\d+ after \d+ candidates \(exact\); "
                                         r"nothing written$"):
        small.tune("92.0", {"rtp": 0.92, "hit": 0.95}, out=str(tmp_path / "never.toml"), tolerances={"hit": 0.005})
    assert not (tmp_path / "never.toml").exists()
    small.load_build = lambda name, version=None: tuned                # tuned again: met at once, nothing changes
    again = small.tune("92.0", {"rtp": 0.92, "hit": 0.5}, out=str(tmp_path / "again.toml"), tolerances={"hit": 0.005})
    kept = small.build_files.load_file(tmp_path / "again.toml", "92.0")
    assert again.extra["evaluations"] == 1 and kept.identity == tuned.identity   # same content, same version 2.0


@pytest.mark.parametrize("args, message", [
    (["exact", "gemstones-gold"], "gemstones-gold is not enumerable: it has no exact mathematics (its figures are "
                                  "simulated; see `reelforge summary gemstones-gold`)"),
    (["exact", "seven-lines", "--build", "95.0"], "unknown build '95.0' for seven-lines; valid builds: 96.0, 94.0"),
    (["exact", "no-such-game"], "unknown game 'no-such-game'; valid games: "),
])
def test_exact_refuses_bad_input_in_one_line_with_exit_2(args, message, monkeypatch, capsys):
    code, out, err = _cli(monkeypatch, capsys, *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {message}")


def test_exact_json_gives_every_figure_as_a_fraction_and_a_decimal(monkeypatch, capsys):
    code, text, err = _cli(monkeypatch, capsys, "exact", "forge-of-fortunes", "--build", "96.2", "--json")
    assert code == 0, err
    out = json.loads(text)
    g = get_game("forge-of-fortunes")
    assert Fraction(out["rtp"]["exact"]) == g.exact(g.load_build("96.2")).rtp and out["method"] == "exact"
    assert abs(out["rtp"]["value"] - float(Fraction(out["rtp"]["exact"]))) < 1e-15
    assert sum(Fraction(r["probability"]["exact"]) for r in out["distribution"]) == 1


@pytest.mark.parametrize("game_id, name", [("seven-lines", "96.0"), ("seven-lines", "94.0"), ("golden-vault", "96.0"),
                                           ("golden-vault", "94.0")])
def test_a_build_named_for_its_rtp_states_an_rtp_within_a_hundredth_of_a_point_of_it(game_id, name):
    """The declared RTP (an exact fraction) is within 0.01 pp of the name; check_game's rtp_declared holds it to the
    exact RTP (tests/test_conformance.py)."""
    g = get_game(game_id)
    b = g.load_build(name)
    assert abs(b.rtp - Fraction(name) / 100) <= Fraction(1, 10_000) and b.rtp.denominator > 10 ** 6
    assert g.load_build(name, "1.0").rtp == Fraction(name) / 100   # the published 1.0 stays as it was


def test_recorded_exact_figures_are_what_the_lobby_shows_and_check_game_holds_them_to_the_exact_ones(small, tmp_path):
    b = small.load_build("92.0")
    ex = small.exact(b)
    record = tmp_path / "exact_figures.toml"
    small.exact_record_path = lambda: record
    record.write_text(f'["{b.identity.content_hash}"]\nrtp = "{ex.rtp}"\nmax_win_x = "{ex.max_win_x}"\n'
                      f'max_win_probability = "{ex.max_win_probability}"\n')
    shown = small.published_max_win(b)
    assert (shown.x, shown.method, shown.probability) == (ex.max_win_x, "exact", ex.max_win_probability)
    assert "recorded for this build's content" in shown.text
    record.write_text(f'["{b.identity.content_hash}"]\nrtp = "{ex.rtp}"\nmax_win_x = "{ex.max_win_x}"\n'
                      f'max_win_probability = "{ex.max_win_probability * 2}"\n')
    rtp_proof.forget_records(record)  # records are read once per file
    with pytest.raises(ConformanceError, match=r"the exact figures recorded in exact_figures\.toml \(shown in the lobby "
                                               r"and the help\) are not the build's: max_win_probability \d+/\d+ "
                                               r"\(exact \d+/\d+\)$"):
        CHECKS["max_win_reachable"](Context(small))


def test_a_report_of_an_exact_build_says_exact_and_how_its_maximum_win_is_known(small):
    from reelforge.analysis.figures import figure_rows
    from reelforge.analysis.summary import exact_summary

    b = small.load_build("92.0")
    ex = small.exact(b)
    rows = {label: (value, how) for label, value, how in figure_rows(exact_summary(small, b))}
    assert rows["RTP (return to player)"] == (f"{float(ex.rtp) * 100:.5f}%", "exact")
    assert rows["probability of the maximum win"][1] == "exact"
    top = f"{int(ex.max_win_x):,}"
    assert ex.max_win_x < 2000 and rows["maximum win (below the cap)"] == (
        f"{top}x total bet (the cap: 2,000x)", f"{small.max_win_source}; reachable, exactly (every outcome enumerated): "
                                              f"the largest outcome of the exact distribution (below the 2,000x cap)")


def test_the_help_and_the_lobby_show_the_proven_rtp():
    g = get_game("forge-of-fortunes")              # enumerable in milliseconds: its exact RTP, not its name's
    b = g.load_build("96.2")
    assert g.help(b).rtp == g.proven_rtp(b) == g.exact(b).rtp != b.rtp
    for game_id in ("seven-lines", "golden-vault"):  # recorded for the content (check_game holds the record)
        g = get_game(game_id)
        for name in g.build_names():
            b = g.load_build(name)
            assert g.help(b).rtp == g.recorded_exact(b)["rtp"] == b.rtp
            shown = g.published_max_win(b)
            assert shown.method == "exact" and shown.probability == g.recorded_exact(b)["max_win_probability"] > 0
