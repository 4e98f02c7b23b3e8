"""The one seeded chunk runner: streams are SeedSequence children, and any split of the work gives the same
results in the same order."""

import numpy as np
import pytest
from numba import njit

from reelforge.core.chunks import ChunkRun, chunk_sizes, chunk_stream, run_chunks


def _draws(rounds: int, stream: np.random.SeedSequence) -> tuple[int, float]:
    x = np.random.default_rng(stream).random(rounds)
    return rounds, float(x.sum())


def test_chunk_streams_are_the_children_spawn_gives_without_spawning():
    for root in (np.random.SeedSequence(7), np.random.SeedSequence([7, 0]), np.random.SeedSequence(7).spawn(2)[1]):
        children = np.random.SeedSequence(root.entropy, spawn_key=root.spawn_key).spawn(5)
        for i, child in enumerate(children):
            assert chunk_stream(root, i).generate_state(4).tolist() == child.generate_state(4).tolist()
        assert root.n_children_spawned == 0  # the root is left as it was
    assert chunk_stream(7, 3).spawn_key == (3,)


def test_results_come_in_chunk_order_and_do_not_depend_on_workers_or_batches():
    sizes = list(chunk_sizes(10_003, 1_000))
    assert sizes == [1_000] * 10 + [3]
    one = list(run_chunks(_draws, sizes, 11, workers=1))
    two = list(run_chunks(_draws, sizes, 11, workers=2))
    batched = list(run_chunks(_draws, sizes, 11, workers=2, batch=3))
    assert [i for i, _ in one] == list(range(11))
    assert one == two == batched  # floats included, bit for bit
    assert list(run_chunks(_draws, sizes, 12, workers=1)) != one


def test_an_early_stop_cancels_the_rest_and_workers_never_exceed_the_chunks():
    run = ChunkRun(_draws, chunk_sizes(None, 1_000), 5, workers=2)
    results = iter(run)
    first = [next(results) for _ in range(3)]
    results.close()  # an endless run: only closing ends it
    assert [i for i, _ in first] == [0, 1, 2]
    assert ChunkRun(_draws, [10], 5, workers=8, chunks=1).workers == 1
    with pytest.raises(ValueError, match="backend"):
        ChunkRun(_draws, [10], 5, backend="cloud")
    with pytest.raises(ValueError):
        list(chunk_sizes(0, 10))


@njit
def _sum_of_draws(x: np.ndarray) -> float:
    return x.sum()


def _compiled_before_call(rounds: int, stream: np.random.SeedSequence) -> tuple[int, float]:
    """How many compiled versions of the kernel this process had before calling it, and its result."""
    before = len(_sum_of_draws.signatures)
    return before, _sum_of_draws(np.random.default_rng(stream).random(rounds))


def test_forked_workers_inherit_the_kernels_compiled_once_before_the_fork():
    results = list(run_chunks(_compiled_before_call, [100] * 4, 3, workers=2))
    assert [found for _, (found, _) in results] == [1] * 4  # no worker compiled it again
    assert [s for _, (_, s) in results] == [s for _, (_, s) in run_chunks(_compiled_before_call, [100] * 4, 3, 1)]
