"""Draw sources: unbiased mapping, reproducibility, recorded replay, kernel twin."""

import numpy as np
import pytest

from reelforge.core.draws import (
    MAX_N,
    DrawError,
    DrawOutOfRange,
    DrawsExhausted,
    RecordedDraws,
    RecordingDraws,
    SecureDraws,
    SeededDraws,
    lemire_map,
)
from reelforge.mechanics.rng import draw_many

TWO32 = 1 << 32


def accepted_count(n: int, v: int) -> int:
    """How many 32-bit raw values Lemire's method maps to ``v`` (computed by ranges)."""
    t = (TWO32 - n) % n
    lo = -(-(v * TWO32 + t) // n)          # smallest x with x*n >= v*2^32 + t
    hi = -(-((v + 1) * TWO32) // n) - 1    # largest x with x*n < (v+1)*2^32
    return hi - lo + 1


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 10, 37, 100, 1000, 2**31 - 1])
def test_every_value_has_the_same_number_of_raw_preimages(n):
    values = range(n) if n <= 1000 else [0, 1, n // 2, n - 2, n - 1]
    counts = {accepted_count(n, v) for v in values}
    assert len(counts) == 1
    assert counts.pop() == (TWO32 - (TWO32 - n) % n) // n


def test_lemire_rejects_exactly_the_biased_low_products():
    n = 3
    t = (TWO32 - n) % n
    assert t == 1  # 2^32 mod 3
    assert lemire_map(0, n) == (0, False)  # product 0 < t: rejected
    assert lemire_map(TWO32 - 1, n)[1]


def test_seeded_draws_are_reproducible_and_in_range():
    a, b = SeededDraws(42), SeededDraws(42)
    xs = [a.draw(7) for _ in range(1000)]
    assert xs == [b.draw(7) for _ in range(1000)]
    assert set(xs) == set(range(7))


@pytest.mark.parametrize("n", [2, 3, 52, 1000, 2**31 - 1])
def test_kernel_draws_equal_seeded_draws(n):
    ref = SeededDraws(np.random.SeedSequence(9))
    expected = [ref.draw(n) for _ in range(5000)]
    got = draw_many(np.random.Generator(np.random.PCG64(np.random.SeedSequence(9))), n, 5000)
    assert got.tolist() == expected


def test_kernel_and_reference_stay_in_step_across_rejections():
    # n close to 2^31 rejects about a quarter of raw values: both must skip the same ones.
    n = 3 * 2**29 + 1
    ref = SeededDraws(5)
    expected = [ref.draw(n) for _ in range(20000)]
    assert draw_many(np.random.Generator(np.random.PCG64(5)), n, 20000).tolist() == expected


def test_secure_draws_in_range_and_cover_values():
    s = SecureDraws()
    xs = [s.draw(6) for _ in range(600)]
    assert set(xs) == set(range(6))


@pytest.mark.parametrize("n", [0, -1, MAX_N + 1, 2.5, True])
def test_bad_ranges_are_refused(n):
    with pytest.raises(DrawError):
        SeededDraws(1).draw(n)


def test_recorded_draws_replay_and_report_exhaustion_and_range():
    r = RecordedDraws([3, 0, 9])
    assert [r.draw(4), r.draw(2)] == [3, 0]
    with pytest.raises(DrawOutOfRange, match="outside the range"):
        r.draw(5)
    r2 = RecordedDraws([1])
    r2.draw(2)
    with pytest.raises(DrawsExhausted, match="exhausted"):
        r2.draw(2)


def test_recording_wrapper_captures_what_was_drawn():
    rec = RecordingDraws(SeededDraws(3))
    xs = [rec.draw(10) for _ in range(5)]
    assert rec.take() == xs
    assert rec.values == []
    replay = RecordedDraws(xs)
    assert [replay.draw(10) for _ in range(5)] == xs
