"""``reelforge design GAME ...`` (design_cli.app): the design commands on small samples, kept samples
reused, and bad input refused in one line. (``forge-of-fortunes calibrate`` is the search that
tests/games/forge_of_fortunes/test_tune.py reruns byte for byte.)"""

import json

import pytest
from typer.testing import CliRunner

from reelforge.cli.design import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


@pytest.mark.slow
def test_gemstones_gold_verify_from_a_kept_sample_repeats_the_simulated_figures(tmp_path):
    kept = tmp_path / "v.npz"
    first = run("gemstones-gold", "verify", "--paid", "2e5", "--features", "2e4", "--seed", "3", "--workers", "1",
                "--save", str(kept))
    assert first.exit_code == 0, first.output
    est = json.loads(first.stdout)
    assert est["rounds"] == 200_000 and est["seed"] == 3
    lo, hi = est["rtp_ci99"]
    assert lo < est["rtp"] < hi and est["feature_buy"]["price_x"] == "561/10" and "hit_rate_split" in est["extra"]
    again = run("gemstones-gold", "verify", "--load", str(kept), "--json", str(tmp_path / "v.json"))
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "v.json").read_text()) == est


def test_gemstones_gold_calibrate_keeps_its_sample_and_reuses_it(tmp_path):
    kept = tmp_path / "t.npz"
    args = ("gemstones-gold", "calibrate", "--reuse-strips", "--paid", "3e5", "--features", "2e4", "--seed", "5",
            "--workers", "1", "--sample", str(kept))
    first = run(*args)
    assert first.exit_code == 0, first.output
    assert kept.exists() and "kept the sample" in first.stdout
    text = first.stdout[first.stdout.index("# Gemstones Gold build 96.71"):]
    second = run(*args)
    assert second.exit_code == 0, second.output
    assert "sample reused" in second.stdout and second.stdout.endswith(text)


def test_forge_of_gems_verify_and_calibrate_on_kept_samples(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    for seed, path in (("1", a), ("2", b)):
        r = run("forge-of-gems", "verify", "--spins", "2e5", "--features", "2000", "--seed", seed, "--workers", "1",
                "--save", str(path))
        assert r.exit_code == 0, r.output
    r = run("forge-of-gems", "verify", "--load", str(a), "--load", str(b), "--json", str(tmp_path / "v.json"))
    assert r.exit_code == 0, r.output
    rows = json.loads((tmp_path / "v.json").read_text())
    assert [row["build"] for row in rows] == ["96.2", "94.2", "91.2", "87.2", "84.2"]
    assert all(row["rounds"] == 400_000 and row["extra"]["seeds"] == [1, 2] for row in rows)
    assert rows[0]["rtp"] > rows[-1]["rtp"]          # the GEMBOX prize weight orders the builds
    r = run("forge-of-gems", "calibrate", "--load", str(a))
    assert r.exit_code == 0, r.output
    assert [line.split(":")[0] for line in r.stdout.splitlines()] == ["96.2", "94.2", "91.2", "87.2", "84.2"]


def test_forge_of_gems_plain_cross_check(tmp_path):
    r = run("forge-of-gems", "simulate", "--rounds", "2000", "--seed", "4", "--json", str(tmp_path / "p.json"))
    assert r.exit_code == 0, r.output
    rows = json.loads((tmp_path / "p.json").read_text())
    assert len(rows) == 5 and all(row["rounds"] == 2000 for row in rows)


@pytest.mark.parametrize("args, message", [
    (["gemstones-gold", "verify", "--paid", "0"], "--paid must be a positive integer (at least 1), got '0'"),
    (["gemstones-gold", "verify", "--features", "1.5"], "--features must be a positive integer, got '1.5'"),
    (["gemstones-gold", "verify", "--seed", "-1"], "--seed must be a non-negative integer, got '-1'"),
    (["gemstones-gold", "verify", "--build", "99"], "unknown build '99' for gemstones-gold; valid builds: 96.71"),
    (["gemstones-gold", "verify", "--save", "v.json"], "--save: a sample file is an .npz archive; name it v.npz"),
    (["gemstones-gold", "verify", "--load", "nothing.npz"], "nothing.npz: no such sample file"),
    (["gemstones-gold", "calibrate", "--sample", "s.json"], "--sample: a sample file is an .npz archive"),
    (["forge-of-gems", "verify", "--spins", "abc"], "--spins must be a positive integer, got 'abc'"),
    (["forge-of-gems", "calibrate", "--save", "/no/such/folder/s.npz"], "folder /no/such/folder does not exist"),
    (["forge-of-gems", "simulate", "--rounds", "-3"], "--rounds must be a positive integer"),
    (["forge-of-fortunes", "calibrate", "--build", "x"], "--rtp must be a fraction of the stake"),
    (["forge-of-fortunes", "calibrate", "--build", "96.2", "--rtp", "1.5"], "--rtp must be between 0 and 1"),
    (["no-such-game", "tune"], "unknown game 'no-such-game'; valid games: forge-of-fortunes, gemstones-gold"),
])
def test_bad_input_is_one_line_and_exit_status_2(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run(*args)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines == [f"error: {message}"] or (len(lines) == 1 and message in lines[0]), r.stderr
    assert not list(tmp_path.iterdir())   # nothing written


def test_a_sample_of_the_other_game_is_refused(tmp_path):
    from reelforge.game.estimation import Sample

    path = Sample("forge-of-gems", "strata", {}).save(tmp_path / "s.npz")
    r = run("gemstones-gold", "verify", "--load", str(path))
    assert r.exit_code == 2
    assert "a forge-of-gems sample of kind 'strata', not a gemstones-gold 'verify' sample" in r.stderr


def test_every_registered_game_is_mounted_from_the_registry_with_the_generic_tuner_where_tunable():
    from reelforge.games import registry

    with registry.registered("toy-line", "tests.toy_game.game:ToyLine"):
        listing = run("--help")
        assert listing.exit_code == 0, listing.output
        for game_id in registry.game_ids():
            assert f"\n  {game_id} " in listing.output
        assert "Toy Line: no design commands (not tunable)." in run("toy-line", "--help").output
    assert "toy-line" not in run("--help").output      # the registry as it was: gone with the registration
    for game_id in ("seven-lines", "golden-vault", "forge-of-gems"):
        group = run(game_id, "--help")
        assert group.exit_code == 0 and "\n  tune " in group.output, group.output


@pytest.mark.parametrize("args, message", [
    (["seven-lines", "tune", "--build", "96.0", "-t", "hit_rate=0.3"],
     "unknown target(s) ['hit_rate']; seven-lines tunes rtp, hit, feature"),
    (["golden-vault", "tune", "--build", "96.0", "-t", "feature=1/0"],
     "--target must look like name=number (e.g. rtp=0.96 or feature=1/180), got 'feature=1/0'"),
    (["golden-vault", "tune", "--build", "96.0", "--tolerance", "rtp"],
     "--tolerance must look like name=number (e.g. rtp=0.96 or feature=1/180), got 'rtp'"),
    (["golden-vault", "tune", "--build", "96.0", "-t", "feature=3/2"],
     "cannot reach feature=1.5: a share of rounds is between 0 and 1"),
    (["golden-vault", "tune", "--build", "96.0", "-t", "rtp=0.96", "--tolerance", "hit=0.01"],
     "a tolerance for ['hit'], which is no target"),
    (["forge-of-gems", "tune", "--build", "96.2", "--tolerance", "rtp=0.001", "--max-rounds", "1e6"],
     "forge-of-gems is tuned by its own design tuner: --max-rounds, --tolerance do not apply"),
    (["golden-vault", "tune", "--build", "nope"], "unknown build 'nope' for golden-vault"),
    (["seven-lines", "tune", "--build", "96.0", "-t", "rtp"],
     "--target must look like name=number (e.g. rtp=0.96 or feature=1/180), got 'rtp'"),
])
def test_the_generic_tune_of_a_mounted_game_refuses_bad_input_in_one_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert [ln for ln in r.stderr.splitlines() if ln.strip()] == [f"error: {message}"] or message in r.stderr, r.stderr
    assert not list(tmp_path.iterdir())
