"""Certification runs on a real two-node Ray cluster (a head and a worker started with ``ray start`` on this
machine, one CPU each, ports of their own): the pieces run in parallel on both nodes and the tallies equal a
local run's byte for byte; a worker node killed in the middle of a run loses nothing that was written, the
pieces it held are re-run, and the run resumed with --resume ends with the local run's tallies.
A plain run's pieces after its pilot, each the only work left, spread their chunks over both nodes. The
tests share one cluster; the one that kills the worker node comes last. Every Ray process the tests start
is killed at the end, even on failure (tests/analysis/ray_cluster.py)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reelforge.analysis import certify as cert
from reelforge.games.registry import get_game
from reelforge.ops import rng_report
from tests.analysis.ray_cluster import LOCAL_ONLY, Cluster, ray_cluster
from tests.analysis.test_certify import tally_digests

pytest.importorskip("ray")

# Forge of Gems, stratified: 50 pp is the pilot alone, so ten main and ten sample pieces, all of known size
SIZES = {"pilot_rounds": 600_000, "sample_rounds": 300_000, "feature_rounds_per_piece": 3_000}
CLI_SIZES = ["--pilot-rounds", "600000", "--sample-rounds", "300000", "--features-per-piece", "3000"]


def plan() -> cert.Plan:
    game = get_game("forge-of-gems")
    return cert.choose_plan(game, game.load_build("96.2"), "paid", 50.0, 7, **SIZES, exploratory=True)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "run"
    cert.run(out, plan(), resume=False, workers=1)
    return out


@pytest.fixture(scope="module")
def cluster():
    with ray_cluster(workers=1) as c:
        yield c


def _nodes(out: Path) -> set[str]:
    state = json.loads((out / cert.STATE).read_text())
    return {p["node"] for p in state["main"] + state["sample"]}


@pytest.mark.slow
def test_a_run_on_a_two_node_cluster_uses_both_nodes_and_writes_the_local_tallies(local_run, cluster, tmp_path):
    out = tmp_path / "cluster"
    cert.run(out, plan(), resume=False, workers=1, backend="ray", address=cluster.address)
    assert tally_digests(out) == tally_digests(local_run)  # every piece and both merged tallies
    assert cert.figures(out) == cert.figures(local_run)
    assert len(_nodes(out)) == 2, "the pieces ran on one node only"
    state = json.loads((out / cert.STATE).read_text())
    assert {(p["backend"], p["address"]) for p in state["main"] + state["sample"]} == {("ray", cluster.address)}
    assert state["early"] == {"main": [], "sample": []}  # every piece finished ahead was merged in its turn
    # a run stopped while main piece 1 ran on the cluster and pieces 2 to 9 were already written ahead of it
    state["main"], state["early"]["main"], state["finished"] = state["main"][:1], state["main"][2:], False
    cert.tally_path(out, "main", 1).unlink()
    (out / cert.STATE).write_text(json.dumps(state))
    game = get_game("forge-of-gems")
    cert.Stream(game, game.load_build("96.2"), plan(), "stratified", None).load(
        cert.tally_path(local_run, "main", 0)).save(cert.tally_path(out, "main"))  # the merge of piece 0 alone
    cert.run(out, None, resume=True, workers=1, backend="ray", address=cluster.address)
    assert tally_digests(out) == tally_digests(local_run)
    resumed = json.loads((out / cert.STATE).read_text())
    assert resumed["main"][2:] == state["early"]["main"]  # pieces 2 to 9 kept, not re-run; piece 1 re-run
    assert [p["index"] for p in resumed["main"]] == list(range(10)) and resumed["early"]["main"] == []


@pytest.mark.slow
def test_a_plain_run_spreads_the_chunks_of_each_piece_after_its_pilot_over_the_cluster(cluster, tmp_path):
    game = get_game("gemstones-gold")
    buy = cert.choose_plan(game, game.load_build("96.71"), "buy", 3.0, 5, pilot_rounds=20_000, exploratory=True)
    cert.run(tmp_path / "local", buy, resume=False, workers=1)
    cert.run(tmp_path / "cluster", buy, resume=False, workers=1, backend="ray", address=cluster.address)
    assert tally_digests(tmp_path / "cluster") == tally_digests(tmp_path / "local")
    main = json.loads((tmp_path / "cluster" / cert.STATE).read_text())["main"]
    assert len(main) > cert.MIN_CHECKPOINTS  # the pilot's ten pieces, then pieces sized one after another
    assert all(p["node"] for p in main[:cert.MIN_CHECKPOINTS])  # each a Ray task on one node
    assert all(p["node"] is None for p in main[cert.MIN_CHECKPOINTS:])  # alone: chunks over the whole cluster


@pytest.mark.slow
def test_a_worker_node_killed_mid_run_loses_no_written_piece_and_the_run_ends_with_the_local_tallies(
        local_run, cluster: Cluster, tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "reelforge", "certify", "forge-of-gems", "--build", "96.2", "--out", str(out),
           "--seed", "7", "--precision", "50", "--exploratory", *CLI_SIZES, "--workers", "1", "--no-pdf", "--par-rounds", "300",
           "--backend", "ray", "--address", cluster.address, "--rng-report", str(_rng_folder(tmp_path))]
    run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                           env={**os.environ, **LOCAL_ONLY})
    try:
        at_kill = _wait_for(out, 3, run, time.monotonic() + 180)
        Cluster.kill(cluster.nodes[1])  # the worker node dies with the pieces it was running
        _, err = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert not at_kill["finished"]
    print(f"run after the node kill: exit {run.returncode}")  # 0: Ray re-ran the lost pieces by itself
    if run.returncode != 0:  # Ray gave up on the lost pieces: the run says so and is resumed
        assert run.returncode == 2 and b"--resume" in err, err
        cert.run(out, None, resume=True, workers=1, backend="ray", address=cluster.address)
    assert tally_digests(out) == tally_digests(local_run)  # the lost pieces were re-run from their seeds
    assert cert.figures(out) == cert.figures(local_run)
    final = json.loads((out / cert.STATE).read_text())
    for name in ("main", "sample"):  # every piece written before the kill is kept as it was, not re-run
        kept = {p["index"]: p for p in final[name]}
        for p in at_kill[name] + at_kill["early"][name]:
            assert kept[p["index"]] == p, (name, p["index"])


def _rng_folder(tmp_path: Path) -> Path:
    """A small RNG report for the package (the certify command's own quick one takes minutes)."""
    folder = tmp_path / "rng"
    rng_report.write_report(folder, rng_report.build_report(samples=20_000, dieharder="off", streams=("simulation",)))
    return folder


def _wait_for(out: Path, pieces: int, proc: subprocess.Popen, deadline: float) -> dict:
    """The run's state once it has merged at least ``pieces`` pieces (failing if it ends or stalls first)."""
    while time.monotonic() < deadline:
        state_file = out / cert.STATE
        if state_file.exists():
            state = json.loads(state_file.read_text())
            if len(state["main"]) + len(state["sample"]) >= pieces:
                return state
        if proc.poll() is not None:
            pytest.fail(f"the run ended (exit {proc.returncode}) before its piece {pieces}")
        time.sleep(0.02)
    pytest.fail(f"the run never merged {pieces} pieces")
