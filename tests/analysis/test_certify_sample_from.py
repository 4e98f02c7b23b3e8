"""One run's pieces certify every build whose sample is the same (certify --sample-from): the taken pieces are
the tallies the build's own run draws for their seeds and sizes, the package verifies with them re-simulated for its own build,
and a source planned otherwise, of another design or altered is refused before anything is written. A package of
an older build version reads and verifies with that version. Small exploratory runs (3 pp)."""

import json
import random
import shutil

import pytest

from reelforge.analysis import certify as cert
from reelforge.analysis.manifest import MANIFEST, check_package, sha256_file
from reelforge.cli.certify import _finish
from reelforge.games.registry import get_game

FOG = {"pilot_rounds": 200_000, "sample_rounds": 100_000, "feature_rounds_per_piece": 2_000}


def plan_of(name: str, seed: int = 11, version: str | None = None) -> cert.Plan:
    game = get_game("forge-of-gems")
    return cert.choose_plan(game, game.load_build(name, version), "paid", 3.0, seed, **FOG, exploratory=True)


def main_tallies(out) -> dict[str, str]:
    return {p.name: sha256_file(p) for p in sorted((out / cert.TALLIES).glob("main*.npz"))}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    out = tmp_path_factory.mktemp("src") / "96.2"
    _finish(out, plan_of("96.2"), False, 2, 300, False)
    return out


def test_every_shipped_forge_of_gems_build_draws_one_sample_and_other_games_only_their_own():
    fog = get_game("forge-of-gems")
    est = fog.stratified_estimator()
    designs = {est.sample_design(fog.load_build(n)) for n in fog.build_names()}
    assert len(designs) == 1
    for version in ("2.0", "3.0"):  # only the GEMBOX weights moved between versions of rules 2
        assert est.sample_design(fog.load_build("96.2", version)) in designs
    assert est.sample_design(fog.load_build("96.2", "1.0")) not in designs    # rules 1: cells may land split
    gg = get_game("gemstones-gold")
    b = gg.load_build("96.71")
    assert gg.stratified_estimator().sample_design(b) == b.identity.content_hash


def test_a_build_taking_another_builds_pieces_has_the_tallies_of_its_own_run_and_verifies(source, tmp_path):
    taken = tmp_path / "84.2-taken"
    _finish(taken, plan_of("84.2"), False, 2, 300, False, sample_from=source)
    own = tmp_path / "84.2-own"
    cert.run(own, plan_of("84.2"), False, 2)
    state, own_state = (json.loads((d / cert.STATE).read_text()) for d in (taken, own))
    same_size = [p["index"] for p, q in zip(state["main"], own_state["main"], strict=False) if p["rounds"] == q["rounds"]]
    assert len(same_size) >= cert.MIN_CHECKPOINTS
    for i in same_size:  # a piece of the same seed and size: the tally build 84.2's own run draws
        assert sha256_file(cert.tally_path(taken, "main", i)) == sha256_file(cert.tally_path(own, "main", i))
    assert json.loads((taken / "figures.json").read_text())["precision_met"]
    marked = [p for p in state["main"] if p["taken_from"]]
    assert len(marked) >= cert.MIN_CHECKPOINTS
    assert all(p["taken_from"].startswith("forge-of-gems build 96.2 v3.1, manifest SHA-256 ") for p in marked)
    for p in marked:  # copied from the source byte for byte
        assert sha256_file(cert.tally_path(taken, "main", p["index"])) == sha256_file(
            cert.tally_path(source, "main", p["index"]))
    manifest = json.loads((taken / MANIFEST).read_text())
    assert [p.get("taken_from") for p in manifest["pieces"]["main"]] == [p["taken_from"] for p in state["main"]]
    assert "main pieces taken from another package" in (taken / "report.html").read_text()
    # every piece re-simulated for build 84.2 from its seed: the taken ones too
    checked = check_package(taken, unsigned=True, allow_dirty_engine=True, resimulate=100, rng=random.Random(1))
    assert checked.problems == []


def test_a_source_planned_otherwise_of_another_design_or_altered_is_refused_and_nothing_is_written(source, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(cert.CertifyError, match=r"planned with another seed \(seed 11 there, 12 here\)"):
        cert.run(out, plan_of("84.2", seed=12), False, 2, sample_from=source)
    with pytest.raises(cert.CertifyError, match=r"build 96\.2 v3\.1 and build 96\.2 v1\.0 draw different samples"):
        cert.run(out, plan_of("96.2", version="1.0"), False, 2, sample_from=source)
    with pytest.raises(cert.CertifyError, match="not a finished certification package"):
        cert.run(out, plan_of("84.2"), False, 2, sample_from=tmp_path)
    assert not out.exists()
    altered = tmp_path / "altered"
    shutil.copytree(source, altered)
    path = cert.tally_path(altered, "main", 3)
    path.write_bytes(cert.tally_path(altered, "main", 4).read_bytes())
    with pytest.raises(cert.CertifyError, match=r"tallies/main-003\.npz is not the file its manifest lists"):
        cert.run(out, plan_of("84.2"), False, 2, sample_from=altered)


def test_a_package_of_an_older_build_version_reads_and_verifies_with_that_version(tmp_path):
    fof = get_game("forge-of-fortunes")
    assert fof.build_versions("96.2")[-1] != "1.0"  # an older version, its maths not the current one's
    out = tmp_path / "v1"
    plan = cert.choose_plan(fof, fof.load_build("96.2", "1.0"), "paid", None, 11, sample_rounds=100_000)
    _finish(out, plan, False, 2, 300, False)
    assert json.loads((out / cert.STATE).read_text())["plan"]["build_version"] == "1.0"
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["build"]["version"] == "1.0"
    assert check_package(out, unsigned=True, allow_dirty_engine=True, resimulate=1).problems == []
    # a plan written before plans named the version reads it from the manifest
    state = json.loads((out / cert.STATE).read_text())
    del state["plan"]["build_version"]
    (out / cert.STATE).write_text(json.dumps(state))
    assert cert.load_progress(out).plan.build_version == "1.0"


def test_the_command_refuses_a_bad_source_or_a_resume_with_one_line_and_exit_2(source, tmp_path):
    import subprocess
    import sys

    def certify(*args):
        return subprocess.run([sys.executable, "-m", "reelforge", "certify", *args], capture_output=True, text=True,
                              timeout=300)

    out = tmp_path / "new"
    proc = certify("forge-of-gems", "--build", "84.2", "--precision", "3", "--exploratory", "--seed", "12",
                   "--pilot-rounds", "200000", "--sample-from", str(source), "--out", str(out))
    assert proc.returncode == 2 and "planned with another seed" in proc.stderr and not out.exists()
    proc = certify("--out", str(source), "--resume", "--sample-from", str(source))
    assert proc.returncode == 2 and "--resume continues the run kept in --out as it was planned" in proc.stderr
