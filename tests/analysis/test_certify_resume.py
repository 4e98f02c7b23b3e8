"""Certification runs resumed: a run killed in the middle of its main stream and resumed equals an
uninterrupted one byte for byte, and a run on Ray and a resume on Ray write a local run's tallies and
figures. A file of its own (the suite's workers take whole files), beside test_certify.py."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reelforge.analysis import certify as cert
from reelforge.analysis.certify_figures import merged_points
from reelforge.analysis.manifest import MANIFEST, verify_package
from reelforge.cli.certify import _finish
from reelforge.games.registry import get_game
from tests.analysis.test_certify import fog_plan, tally_digests


@pytest.mark.slow
def test_a_killed_and_resumed_run_gives_byte_identical_totals(tmp_path):
    whole = tmp_path / "whole"
    cert.run(whole, fog_plan(), resume=False, workers=2)
    killed = tmp_path / "killed"
    cmd = [sys.executable, "-m", "reelforge", "certify", "forge-of-gems", "--build", "96.2", "--out", str(killed),
           "--seed", "7", "--precision", "3", "--pilot-rounds", "200000", "--sample-rounds", "100000",
           "--features-per-piece", "2000", "--workers", "1", "--no-pdf", "--exploratory"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:  # kill it in the middle of the main stream
            state = killed / cert.STATE
            if state.exists() and len(json.loads(state.read_text())["main"]) >= 4:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the run never reached its fourth piece")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done_before = len(json.loads((killed / cert.STATE).read_text())["main"])
    assert done_before < len(json.loads((whole / cert.STATE).read_text())["main"]), "killed after the end"
    progress = cert.run(killed, None, resume=True, workers=2)
    assert progress.finished
    assert tally_digests(killed) == tally_digests(whole)  # every piece and both merged tallies
    assert cert.figures(killed) == cert.figures(whole)


def cut_back_to(out: Path, main_pieces: int) -> None:
    """``out`` as a run killed after its ``main_pieces``-th main checkpoint leaves it (later pieces gone)."""
    state = json.loads((out / cert.STATE).read_text())
    state["main"], state["sample"], state["finished"] = state["main"][:main_pieces], [], False
    progress = cert.Progress.from_json(state)
    game = get_game(progress.plan.game)
    stream = cert.Stream(game, game.load_build(progress.plan.build), progress.plan, progress.plan.estimator, None)
    merged, _, _ = merged_points(stream, out, "main", progress.main)
    merged.save(cert.tally_path(out, "main"))
    for f in (out / cert.TALLIES).glob("*.npz"):
        if f.name != "main.npz" and (f.name.startswith("sample") or int(f.stem.split("-")[1]) >= main_pieces):
            f.unlink()
    (out / cert.STATE).write_text(json.dumps(state))
    for f in ("figures.json", "report.html", MANIFEST):
        (out / f).unlink()


@pytest.mark.slow
def test_a_run_on_ray_and_a_resume_on_ray_write_the_same_tallies_and_figures_as_a_local_run(tmp_path):
    pytest.importorskip("ray")
    import ray

    game = get_game("forge-of-gems")
    # stratified main pieces (one Ray task each) and plain sample pieces (chunks on Ray); 50 pp: the pilot only
    plan = cert.choose_plan(game, game.load_build("96.2"), "paid", 50.0, 7, pilot_rounds=20_000,
                            sample_rounds=10_000, feature_rounds_per_piece=200, exploratory=True)
    _finish(tmp_path / "local", plan, False, 1, 300, False)
    _finish(tmp_path / "resumed", plan, False, 1, 300, False)
    cut_back_to(tmp_path / "resumed", 4)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        _finish(tmp_path / "ray", plan, False, 1, 300, False, backend="ray")
        _finish(tmp_path / "resumed", None, True, 1, 300, False, backend="ray")
    finally:
        ray.shutdown()
    for run in ("ray", "resumed"):
        assert tally_digests(tmp_path / run) == tally_digests(tmp_path / "local"), run
        assert (tmp_path / run / "figures.json").read_bytes() == (tmp_path / "local" / "figures.json").read_bytes()
        assert verify_package(tmp_path / run, unsigned=True, allow_dirty_engine=True) == []
    state = json.loads((tmp_path / "ray" / cert.STATE).read_text())
    assert {(p["backend"], p["address"]) for p in state["main"] + state["sample"]} == {("ray", None)}
    resumed = json.loads((tmp_path / "resumed" / MANIFEST).read_text())["pieces"]["main"]
    assert [p["backend"] for p in resumed] == ["local"] * 4 + ["ray"] * 6  # each piece says where it ran
