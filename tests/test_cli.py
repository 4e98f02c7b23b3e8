"""The command line, run as a user would: JSON contracts, worker-independent totals, bad input."""

import json
import re
import subprocess
import sys
from fractions import Fraction

import pytest

KEYS = {"game", "build", "method", "rounds", "rtp", "rtp_ci99", "rtp_split", "hit_rate", "feature_rate", "sd",
        "volatility_level", "max_win_x", "max_win_probability", "max_exposure", "distribution"}


def cli(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "reelforge", *args], capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def games_json() -> dict:
    """``reelforge games --json``, run once for the tests that read it (the same command, the same output)."""
    return json.loads(cli("games", "--json").stdout)


def test_games_lists_forge_of_fortunes_builds(games_json):
    fof = next(g for g in games_json["games"] if g["id"] == "forge-of-fortunes")
    assert fof["builds"] == ["96.2", "94.2", "91.2", "87.2", "84.2"]


def test_games_and_the_help_give_the_maximum_win_a_round_can_reach_and_how_it_is_known(games_json):
    games = {g["id"]: g for g in games_json["games"]}
    fof, vault = games["forge-of-fortunes"]["max_win"], games["golden-vault"]["max_win"]
    assert (fof["x"], fof["method"], fof["reachable"]) == ("2500", "exact", True) and Fraction(fof["probability"]) > 0
    # never the 5,000x it once stated; exact, its probability recorded for the build's content (check_game holds it)
    assert (vault["x"], vault["method"], vault["reachable"]) == ("2600", "exact", True)
    assert "recorded for this build's content" in vault["text"] and games["golden-vault"]["max_win_x"] == 2600
    from reelforge.games.registry import get_game

    vault_help = get_game("golden-vault").help(get_game("golden-vault").load_build("96.0"))
    assert vault_help.max_win_x == 2600 and vault_help.max_win["method"] == "exact"
    assert ("The maximum win of a round is 2,600x the total bet, reached on average once in 4.46 × 10⁴³ rounds; "
            "reaching it ends the round.") in vault_help.rules


def test_exact_summary_json_contract():
    s = json.loads(cli("summary", "forge-of-fortunes", "--build", "96.2", "--json").stdout)
    assert KEYS <= s.keys()
    assert s["method"] == "exact" and s["rounds"] is None
    assert s["rtp_ci99"] is None and s["sample"]["kind"] == "exact"  # exact figures carry no interval
    assert abs(s["rtp"] - 0.962) < 1e-5
    assert s["max_win_x"] == 2500 and s["max_exposure"] == 250000
    assert s["volatility_level"] == 7
    assert abs(sum(d["probability"] for d in s["distribution"]) - 1) < 1e-12
    assert set(s["rtp_split"]) == {"paid_spin", "feature"}


@pytest.mark.slow
def test_simulate_gives_the_same_totals_whatever_the_worker_count():
    # the round count written as people write it: 5e6 is read exactly
    args = ["simulate", "forge-of-fortunes", "--build", "94.2", "--rounds", "5e6", "--seed", "99", "--json"]
    one = json.loads(cli(*args, "--workers", "1").stdout)
    two = json.loads(cli(*args, "--workers", "2").stdout)
    assert one["method"] == "simulation" and one["rounds"] == 5_000_000
    for key in ("rtp", "hit_rate", "sd", "distribution", "rtp_split", "max_win_observed_x", "feature_rate"):
        assert one[key] == two[key]
    assert one["exact_rtp_inside_ci99"] in (True, False)
    lo, hi = one["rtp_ci99"]
    assert lo < one["rtp"] < hi


@pytest.mark.parametrize("args, message", [
    (["summary", "no-such-game"], "valid games: forge-of-fortunes"),
    (["monitor-figures", "no-such-game"], "valid games: forge-of-fortunes"),
    (["summary", "forge-of-fortunes", "--build", "99"], "valid builds: 96.2, 94.2, 91.2, 87.2, 84.2"),
    (["simulate", "forge-of-fortunes", "--rounds", "0"], "--rounds must be a positive integer"),
    (["simulate", "forge-of-fortunes", "--rounds", "-5"], "--rounds must be a positive integer"),
    (["simulate", "forge-of-fortunes", "--rounds", "1.5"], "--rounds must be a positive integer"),
    (["simulate", "forge-of-fortunes", "--rounds", "abc"], "--rounds must be a positive integer"),
    (["simulate", "forge-of-fortunes", "--rounds", "100", "--workers", "0"], "--workers must be a positive"),
    (["bench", "nope"], "unknown game"),
    (["bench", "nope", "--server"], "unknown game"),
    (["tune", "gemstones-gold", "--build", "96.71", "-t", "hit_rate=0.35"], "set by the strip design"),
    (["tune", "forge-of-gems", "--build", "96.2", "-t", "rtp=2"], "rtp target must be a fraction"),
    (["tune", "forge-of-fortunes", "--build", "96.2", "--sample", "s.json"], "--sample does not apply"),
    (["tune", "forge-of-gems", "--build", "96.2", "-t", "rtp"], "--target must look like name=number"),
])
def test_bad_input_is_one_clear_line_and_a_non_zero_exit(args, message):
    proc = cli(*args, check=False)
    assert proc.returncode != 0
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert message in lines[0]
    assert "Traceback" not in proc.stderr


def test_text_summary_shows_split_hit_rates_with_intervals_and_the_estimator(capsys, monkeypatch):
    from rich.console import Console

    from reelforge.analysis.summary import simulation_summary
    from reelforge.cli import output
    from reelforge.games.registry import get_game

    monkeypatch.setattr(output, "console", Console(width=200))
    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    acc = game.new_accumulator(build)
    acc.add_round([0, 0])
    acc.add_round([20, 0])
    acc.add_round([10, 400], {"triggers": 1, "trigger_hits": 1})
    s = simulation_summary(game, build, acc, seed=3)
    s["estimator"] = {"used": "plain", "reason": "requested with --plain"}
    output.print_summary(s)
    out = capsys.readouterr().out
    assert "winning rounds that trigger free spins" in out and "_" not in out.replace("__", "")
    assert "plain: requested with --plain" in out


def test_games_keeps_every_full_id_on_80_columns_and_shows_only_published_ids():
    import os

    proc = subprocess.run([sys.executable, "-m", "reelforge", "games"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "80"})
    lines = proc.stdout.splitlines()
    assert max(len(ln.rstrip()) for ln in lines) <= 80
    for gid, published in (("forge-of-fortunes", "622"), ("gemstones-gold", "1671262"), ("forge-of-gems", "none")):
        row = next(ln for ln in lines if ln.split() and ln.split()[0] == gid)
        assert row.split()[0] == gid and published in row.split()
    assert "Play'n GO" not in proc.stdout
    assert "Forge of Gems: no published game id" in proc.stdout


@pytest.mark.parametrize("command", ["summary", "simulate", "tune"])
def test_help_texts_wrap_cleanly_on_80_columns(command):
    import os

    proc = subprocess.run([sys.executable, "-m", "reelforge", command, "--help"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= 80
    # the description's paragraphs are refilled: inside a paragraph no line stops far short of the width
    description = lines[1: next(i for i, ln in enumerate(lines) if ln.endswith(":") and not ln.startswith(" "))]
    paragraphs = "\n".join(description).strip().split("\n\n")
    for para in paragraphs:
        body = para.splitlines()[:-1]
        assert all(len(ln) >= 50 for ln in body), para


HEAVY = ("numpy", "numba", "scipy", "fastapi", "sqlalchemy", "rich", "httpx")


@pytest.mark.parametrize("code", ["import reelforge.cli",
                                  "import sys; sys.argv = ['reelforge', '--help']\nfrom reelforge.cli import main\n"
                                  "try:\n    main()\nexcept SystemExit:\n    pass"])
def test_the_command_line_and_its_help_import_no_heavy_library(code):
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_the_listing_gives_each_command_its_own_one_line_help():
    """The table's help (shown without importing the command) is the first sentence of the command's own."""
    from reelforge.cli import COMMANDS, app
    from reelforge.cli.lazy import LazyGroup

    for entry in COMMANDS:
        command = entry.load()
        for limit in (45, 60, 200):
            assert entry.placeholder().get_short_help_str(limit) == command.get_short_help_str(limit), entry.name
    from typer.main import get_command

    group = get_command(app)
    assert isinstance(group, LazyGroup) and list(group.commands) == [c.name for c in COMMANDS]


DESIGN = None  # a Typer sub-app mounted by module path in the next test


def test_a_typer_sub_app_mounts_as_a_command_group_by_module_path():
    import typer
    from typer.testing import CliRunner

    from reelforge.cli import COMMANDS, SETTINGS
    from reelforge.cli.lazy import LazyCommand, LazyGroup

    global DESIGN
    DESIGN = typer.Typer(**SETTINGS, help="Design a game's builds.")

    @DESIGN.command()
    def sample(game: str, spins: int = 10) -> None:
        """Simulate the design sample."""
        typer.echo(f"sample {game} {spins}")

    @DESIGN.command()
    def fit(game: str) -> None:
        """Fit the builds."""
        typer.echo(f"fit {game}")

    class WithDesign(LazyGroup):
        lazy_commands = (*COMMANDS, LazyCommand("design", f"{__name__}:DESIGN", "Design a game's builds."))

    app = typer.Typer(cls=WithDesign, **SETTINGS)
    app.callback()(lambda: None)
    runner = CliRunner()
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and re.search(r"\n  design +Design a game's builds\.\n", result.output)
    assert runner.invoke(app, ["design", "sample", "forge-of-gems", "--spins", "3"]).output == "sample forge-of-gems 3\n"
    assert runner.invoke(app, ["design", "fit", "gemstones-gold"]).output == "fit gemstones-gold\n"
    result = runner.invoke(app, ["design", "--help"])
    assert "sample" in result.output and "fit" in result.output


@pytest.mark.parametrize("text, number", [("1000000", 10**6), ("2_000_000", 2 * 10**6), ("1e9", 10**9),
                                          ("1.5e3", 1500), (" 7 ", 7), ("123456789012345678901e3", 123456789012345678901000)])
def test_counts_are_read_exactly_as_people_write_them(text, number):
    from reelforge.cli.common import ROUNDS

    assert ROUNDS(text) == number


@pytest.mark.parametrize("text", ["0", "-5", "1.5", "abc", "100M", "inf", "nan", "", "1e-3"])
def test_anything_but_a_positive_whole_number_is_refused_naming_the_option(text):
    from reelforge.cli.common import ROUNDS, CliError

    with pytest.raises(CliError, match="^--rounds must be a positive integer"):
        ROUNDS(text)


def test_targets_seeds_and_precisions_have_their_own_types():
    from reelforge.cli.common import PRECISION, SEED, CliError, Target

    assert Target()("rtp=0.962") == ("rtp", 0.962) and Target()(" hit_rate =0.3") == ("hit_rate", 0.3)
    assert SEED("0") == 0 and PRECISION("0.01") == 0.01
    for parse, bad, message in ((Target(), "rtp", "--target must look like name=number"),
                                (Target(), "rtp=x", "--target must look like name=number"),
                                (SEED, "-1", "--seed must be a non-negative integer"),
                                (SEED, "1e3", "--seed must be a non-negative integer"),
                                (PRECISION, "0", "--precision must be a positive number"),
                                (PRECISION, "nan", "--precision must be a positive number")):
        with pytest.raises(CliError, match=message):
            parse(bad)
