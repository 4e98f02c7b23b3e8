"""The live draw source passes the statistical battery on its mapped outputs (chi-square
uniformity for several n including non-powers of two, serial pairs, runs, gap) at 99% confidence.

Decision rule (see :mod:`reelforge.ops.rng`): the live CSPRNG gives fresh samples every
run, so a test failing at 99% is re-run once on new draws and the battery fails only if it
fails again (false alarm about 1e-4 per test, 1.5e-3 per run of the 15 tests). The same battery
on SeededDraws with a fixed seed is deterministic and checks the mapping itself. The battery's
power is shown on sources that are wrong on purpose.
"""

from __future__ import annotations

import numpy as np

from reelforge.core.draws import SecureDraws, SeededDraws
from reelforge.ops.rng import (
    ALPHA,
    FairRounds,
    chi2_uniform,
    gap_test,
    run_battery,
    runs_coin,
    runs_up_down,
    serial_pairs,
)


def test_the_live_source_passes_the_battery_at_99_percent():
    results = run_battery(SecureDraws(), samples=100_000, retry=True)
    assert len(results) == 15
    failed = [r for r in results if not r.passed]
    assert not failed, failed


def test_the_seeded_source_passes_the_same_battery_deterministically():
    first = run_battery(SeededDraws(0), samples=30_000, retry=False)
    assert all(r.passed for r in first), [r for r in first if not r.passed]
    again = run_battery(SeededDraws(0), samples=30_000, retry=False)
    assert [r.p for r in again] == [r.p for r in first]


def test_the_battery_rejects_bad_sources():
    rng = np.random.Generator(np.random.PCG64(7))
    # Modulo bias: an 8-bit raw value reduced mod 37 (some results 8/7 as likely as others).
    biased = rng.integers(0, 256, 200_000) % 37
    assert chi2_uniform(biased, 37) < ALPHA
    # Uniform values, but each pair's second element depends on the first.
    first = rng.integers(0, 10, 100_000)
    second = np.where(rng.random(100_000) < 0.05, first, rng.integers(0, 10, 100_000))
    pairs = np.stack([first, second], axis=1).ravel()
    assert chi2_uniform(pairs, 10) >= ALPHA  # uniform on its own...
    assert serial_pairs(pairs, 10) < ALPHA  # ...but not independent
    # Sticky coin: repeats the previous value a little too often.
    coin = np.empty(100_000, dtype=np.int64)
    coin[0] = 0
    flips = rng.random(100_000) < 0.48
    for i in range(1, len(coin)):
        coin[i] = coin[i - 1] ^ flips[i]
    assert runs_coin(coin) < ALPHA
    # Smoothed sequence: too few runs up and down.
    smooth = np.convolve(rng.integers(0, 2**31 - 1, 100_010), np.ones(3), "valid").astype(np.int64)
    assert runs_up_down(smooth) < ALPHA
    # Values in [0, 3) spread too evenly (a rotating pattern with noise).
    spread = (np.arange(100_000) * 3 + rng.integers(0, 2, 100_000)) % 10
    assert gap_test(spread) < ALPHA


def test_the_provably_fair_stream_passes_the_battery_at_99_percent():
    """As live play draws: a fresh server seed from the OS CSPRNG each run, consecutive nonces of 40 draws
    (so the same decision rule as the live source: one re-run of a failing test on fresh draws)."""
    results = run_battery(FairRounds(), samples=100_000, retry=True)
    failed = [r for r in results if not r.passed]
    assert len(results) == 15 and not failed, failed


def test_the_fair_raw_stream_is_the_words_the_draws_use():
    """What dieharder reads (--fair --raw) is the words FairDraws maps, round after round."""
    import io

    from reelforge.ops.rng import write_fair_raw

    key, out = bytes(range(32)), io.BytesIO()
    write_fair_raw(4 * 100, out, key)
    source = FairRounds(key, "battery")
    assert np.frombuffer(out.getvalue(), dtype="<u4").tolist() == [source.raw32() for _ in range(100)]
