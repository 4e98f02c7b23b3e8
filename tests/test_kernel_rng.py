"""The kernels' own PCG64 steps numpy's stream exactly: raw outputs, draws and the state after."""

import numpy as np
import pytest

from reelforge.core.draws import SeededDraws
from reelforge.mechanics.rng import draw_held, draw_many, draw_many_pcg, next64, pcg_state, store_pcg_state


def test_outputs_equal_random_raw_and_the_state_follows():
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(2026)))
    twin = np.random.Generator(np.random.PCG64(np.random.SeedSequence(2026)))
    st = pcg_state(rng)
    got = [int(next64(st)) for _ in range(3000)]
    assert got == twin.bit_generator.random_raw(3000).tolist()
    store_pcg_state(rng, st)
    assert rng.bit_generator.state == twin.bit_generator.state
    assert rng.random() == twin.random()  # the Generator continues where the kernel stopped


@pytest.mark.parametrize("n", [1, 2, 3, 6, 138, 1_000_000, 2**31 - 1])
def test_draws_equal_seeded_draws_and_generator_draws(n):
    ref = SeededDraws(np.random.SeedSequence(9))
    expected = [ref.draw(n) for _ in range(5000)]
    st = pcg_state(np.random.Generator(np.random.PCG64(np.random.SeedSequence(9))))
    assert draw_many_pcg(st, n, 5000).tolist() == expected
    assert draw_many(np.random.Generator(np.random.PCG64(np.random.SeedSequence(9))), n, 5000).tolist() == expected


def test_rejections_consume_outputs_like_the_reference():
    # 2^32 mod n is about n here, so Lemire's method rejects about a third of the raw values
    n = 1_431_655_766
    ref = SeededDraws(5)
    expected = [ref.draw(n) for _ in range(300)]
    rng = np.random.Generator(np.random.PCG64(5))
    st = pcg_state(rng)
    assert draw_many_pcg(st, n, 300).tolist() == expected
    store_pcg_state(rng, st)
    used = 0
    probe = np.random.Generator(np.random.PCG64(5))
    while probe.bit_generator.state != rng.bit_generator.state:
        probe.bit_generator.random_raw()
        used += 1
    assert 340 < used < 500  # rejected draws took further outputs, as in SeededDraws
    assert int(rng.bit_generator.random_raw()) >> 32 == ref.raw32()


def test_draws_on_a_held_state_are_the_draws_on_the_array_rejections_included():
    """A kernel may hold the state in values through a run of draws (draw_held): the same draws, the same
    state after, with Lemire's rejections (a third of the raw values at this n) taking further outputs."""
    from numba import njit

    @njit
    def held(st, ns):
        hi, lo, out = st[0], st[1], np.empty(ns.shape[0], np.int64)
        for i in range(ns.shape[0]):
            hi, lo, out[i] = draw_held(hi, lo, st[2], st[3], ns[i])
        st[0], st[1] = hi, lo
        return out

    ref = SeededDraws(5)
    ns = np.array([1_431_655_766, 7, 1_431_655_766, 100] * 75, np.int64)
    st = pcg_state(np.random.Generator(np.random.PCG64(5)))
    assert held(st, ns).tolist() == [ref.draw(int(n)) for n in ns]
    assert int(next64(st)) >> 32 == ref.raw32()      # the state moved on exactly as the reference's


def test_other_bit_generators_are_refused():
    with pytest.raises(TypeError, match="PCG64"):
        pcg_state(np.random.Generator(np.random.Philox(1)))
