"""Simulation driver: identical totals for any worker count and backend; stopping rules."""

import copy
import pickle

import pytest

from reelforge.analysis.simulate import SimulationJob, chunk_seed, chunk_sizes, half_width_pp, simulate
from reelforge.games.registry import get_game

GAME = get_game("forge-of-fortunes")
BUILD = GAME.load_build("96.2")
CHUNK = 1 << 16


def test_chunks_are_fixed_whatever_the_workers():
    assert list(chunk_sizes(10, 4)) == [4, 4, 2]
    assert chunk_seed(7, 3).spawn_key == (3,)
    with pytest.raises(ValueError):
        list(chunk_sizes(0, 4))


def test_same_seed_same_totals_for_one_and_two_workers():
    one = simulate(GAME, BUILD, 500_000, seed=3, workers=1, chunk=CHUNK)
    two = simulate(GAME, BUILD, 500_000, seed=3, workers=2, chunk=CHUNK)
    assert one.accumulator.rounds == 500_000
    assert one.accumulator.key() == two.accumulator.key()
    other = simulate(GAME, BUILD, 500_000, seed=4, workers=1, chunk=CHUNK)
    assert other.accumulator.key() != one.accumulator.key()


def test_a_job_crosses_a_process_boundary_as_the_game_id_and_the_builds_name_and_version():
    job = SimulationJob(GAME, BUILD, "paid")
    data = pickle.dumps(job)
    assert len(data) < 300  # small data, not the build's tables
    assert pickle.loads(data) == job  # the same game and build objects, loaded on the other side
    with pytest.raises(ValueError, match="not a shipped build"):
        pickle.dumps(SimulationJob(GAME, copy.copy(BUILD), "paid"))  # the other side would load another one


def test_precision_rule_stops_at_the_first_chunk_prefix_inside_the_target_deterministically():
    a = simulate(GAME, BUILD, seed=8, workers=1, chunk=CHUNK, precision_pp=2.0)
    b = simulate(GAME, BUILD, seed=8, workers=2, chunk=CHUNK, precision_pp=2.0)
    assert a.accumulator.key() == b.accumulator.key()
    assert half_width_pp(a.accumulator) < 2.0
    # one chunk fewer would not have been precise enough
    shorter = simulate(GAME, BUILD, a.accumulator.rounds - CHUNK, seed=8, workers=1, chunk=CHUNK)
    assert half_width_pp(shorter.accumulator) >= 2.0


def test_rounds_caps_a_precision_run():
    r = simulate(GAME, BUILD, 3 * CHUNK, seed=1, workers=1, chunk=CHUNK, precision_pp=1e-6)
    assert r.accumulator.rounds == 3 * CHUNK


@pytest.mark.slow
def test_ray_backend_gives_the_same_totals_as_local():
    pytest.importorskip("ray")
    import ray

    local = simulate(GAME, BUILD, 2_000_000, seed=21, workers=2, chunk=CHUNK)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        remote = simulate(GAME, BUILD, 2_000_000, seed=21, backend="ray", chunk=CHUNK)
    finally:
        ray.shutdown()
    assert remote.backend == "ray"
    assert remote.accumulator.key() == local.accumulator.key()
