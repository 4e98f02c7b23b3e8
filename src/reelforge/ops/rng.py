"""Statistical battery for draw sources, on their mapped outputs ``draw(n)``.

Tests (each gives a p-value under the hypothesis "independent uniform draws"):

* ``chi2[n]``: chi-square uniformity of ``draw(n)`` for several ``n``, powers
  of two and not (large ``n`` are binned into 256 classes with their exact
  class probabilities);
* ``serial[n]``: chi-square of non-overlapping pairs ``(x, y)`` of ``draw(n)``
  over the ``n * n`` cells;
* ``runs_up_down``: the number of runs up and down of ``draw(2**31 - 1)``
  (normal approximation, mean ``(2N - 1) / 3``, variance ``(16N - 29) / 90``);
* ``runs_coin``: Wald-Wolfowitz runs of ``draw(2)``;
* ``gap``: Knuth's gap test on ``draw(10)``: lengths of the gaps between
  values in ``[0, 3)`` follow a geometric law (chi-square, tail class pooled).

Decision rule (:func:`run_battery`): a test passes when ``p >= alpha``
(``alpha = 0.01``, i.e. 99% confidence). A source whose samples are fresh
each time (the live CSPRNG) gets one re-run of a failing test on new
samples and fails only if that fails too; for a good source a test then
fails with probability ``alpha**2 = 1e-4`` (about 1.5e-3 for the whole battery
of 15 tests). A seeded source is deterministic: no re-run.

``python -m reelforge.ops.rng --raw BYTES`` writes the live source's raw
stream to stdout (for ``dieharder -g 200``); see docs/RELIABILITY.md.

``--fair`` runs both on the provably fair stream instead, as live play uses it
(:class:`FairRounds`): a fresh server seed from the OS CSPRNG, and consecutive
rounds (nonces 0, 1, 2, ...) of :data:`ROUND_DRAWS` draws each.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from scipy import stats

from reelforge.core.draws import DrawSource, FairDraws

ALPHA = 0.01
CHI2_NS = (2, 3, 6, 7, 10, 37, 100, 1000, 65537, 2**31 - 1)
SERIAL_NS = (6, 10)
BIG_N_CLASSES = 256
ROUND_DRAWS = 40
"""Draws per round of :class:`FairRounds` (a paid spin's draws are 3 to about 40: one to five HMAC blocks)."""


@dataclass(frozen=True)
class TestResult:
    name: str
    samples: int
    p: float
    p_retry: float | None
    passed: bool


class FairRounds:
    """Provably fair draws as live play makes them: one seed pair, consecutive nonces, ``per_round``
    draws from each round's stream (:class:`~reelforge.core.draws.FairDraws`). The server seed is fresh from
    the OS CSPRNG unless given."""

    def __init__(self, server_seed: bytes | None = None, client_seed: str = "battery",
                 per_round: int = ROUND_DRAWS) -> None:
        import secrets

        self.server_seed = server_seed if server_seed is not None else secrets.token_bytes(32)
        self.client_seed, self.per_round = client_seed, per_round
        self.nonce, self.left = -1, 0
        self.round: FairDraws | None = None

    def _next_round(self) -> FairDraws:
        self.nonce += 1
        self.left = self.per_round
        self.round = FairDraws(self.server_seed, self.client_seed, self.nonce)
        return self.round

    def draw(self, n: int) -> int:
        source = self.round if self.left > 0 else self._next_round()
        self.left -= 1
        return source.draw(n)

    def raw32(self) -> int:
        """The next raw word, rounds of ``per_round`` words each (the raw stream dieharder reads)."""
        source = self.round if self.left > 0 else self._next_round()
        self.left -= 1
        return source.raw32()


def sample(source: DrawSource, n: int, count: int) -> np.ndarray:
    """``count`` draws of ``source.draw(n)``."""
    draw = source.draw
    return np.fromiter((draw(n) for _ in range(count)), dtype=np.int64, count=count)


def chi2_uniform(values: np.ndarray, n: int) -> float:
    """p-value of chi-square uniformity of ``values`` in ``[0, n)`` (binned into 256 classes when n is large)."""
    if n <= 4096:
        counts = np.bincount(values, minlength=n)
        return float(stats.chisquare(counts).pvalue)
    classes = values * BIG_N_CLASSES // n
    counts = np.bincount(classes, minlength=BIG_N_CLASSES)
    # Exact class sizes: class k holds the v with k*n <= v*K < (k+1)*n.
    bounds = np.array([-(-k * n // BIG_N_CLASSES) for k in range(BIG_N_CLASSES + 1)], dtype=np.int64)
    expected = np.diff(bounds) / n * len(values)
    return float(stats.chisquare(counts, expected).pvalue)


def serial_pairs(values: np.ndarray, n: int) -> float:
    pairs = values[: len(values) // 2 * 2].reshape(-1, 2)
    counts = np.bincount(pairs[:, 0] * n + pairs[:, 1], minlength=n * n)
    return float(stats.chisquare(counts).pvalue)


def runs_up_down(values: np.ndarray) -> float:
    """Runs up and down (values from a range so large that ties are negligible)."""
    signs = np.sign(np.diff(values))
    signs = signs[signs != 0]
    n = len(signs) + 1
    runs = 1 + int(np.count_nonzero(signs[1:] != signs[:-1]))
    mean = (2 * n - 1) / 3
    sd = math.sqrt((16 * n - 29) / 90)
    return float(2 * stats.norm.sf(abs(runs - mean) / sd))


def runs_coin(values: np.ndarray) -> float:
    """Wald-Wolfowitz runs test of a 0/1 sequence."""
    n1 = int(np.count_nonzero(values))
    n0 = len(values) - n1
    runs = 1 + int(np.count_nonzero(values[1:] != values[:-1]))
    n = n0 + n1
    mean = 2 * n0 * n1 / n + 1
    var = 2 * n0 * n1 * (2 * n0 * n1 - n) / (n * n * (n - 1))
    return float(2 * stats.norm.sf(abs(runs - mean) / math.sqrt(var)))


def gap_test(values: np.ndarray, low: int = 0, high: int = 3, n: int = 10, tail: int = 20) -> float:
    """Knuth's gap test: gaps between successive values in ``[low, high)`` of ``draw(n)``."""
    p = (high - low) / n
    marks = np.flatnonzero((values >= low) & (values < high))
    gaps = np.diff(marks) - 1
    counts = np.bincount(np.minimum(gaps, tail), minlength=tail + 1)
    probs = np.array([p * (1 - p) ** r for r in range(tail)] + [(1 - p) ** tail])
    return float(stats.chisquare(counts, probs * len(gaps)).pvalue)


def battery(samples: int) -> list[tuple[str, int, Callable[[DrawSource], float]]]:
    """The tests: (name, draws used, test on a source)."""
    tests: list[tuple[str, int, Callable[[DrawSource], float]]] = []
    for n in CHI2_NS:
        count = max(samples, 20 * min(n, BIG_N_CLASSES if n > 4096 else n))
        tests.append((f"chi2[n={n}]", count, lambda s, n=n, c=count: chi2_uniform(sample(s, n, c), n)))
    for n in SERIAL_NS:
        count = max(samples, 40 * n * n)
        tests.append((f"serial[n={n}]", count, lambda s, n=n, c=count: serial_pairs(sample(s, n, c), n)))
    tests.append(("runs_up_down[n=2**31-1]", samples, lambda s: runs_up_down(sample(s, 2**31 - 1, samples))))
    tests.append(("runs_coin[n=2]", samples, lambda s: runs_coin(sample(s, 2, samples))))
    tests.append(("gap[n=10, [0,3)]", samples, lambda s: gap_test(sample(s, 10, samples))))
    return tests


def run_battery(source: DrawSource, samples: int = 100_000, retry: bool = True,
                alpha: float = ALPHA) -> list[TestResult]:
    """Run every test at confidence ``1 - alpha``; with ``retry``, re-run a failing test once on fresh draws."""
    results = []
    for name, count, test in battery(samples):
        p = test(source)
        p_retry = None
        passed = p >= alpha
        if not passed and retry:
            p_retry = test(source)
            passed = p_retry >= alpha
        results.append(TestResult(name, count, p, p_retry, passed))
    return results


def write_fair_raw(nbytes: int, out=None, server_seed: bytes | None = None, per_round: int = ROUND_DRAWS) -> None:
    """Write ``nbytes`` of the provably fair raw stream (:class:`FairRounds`' words, ``per_round`` per nonce, a
    fresh server seed unless given), each 32-bit word little-endian, as dieharder ``-g 200`` reads them."""
    import hashlib
    import hmac
    import secrets

    out = out or sys.stdout.buffer
    keyed = hmac.new(server_seed or secrets.token_bytes(32), digestmod=hashlib.sha256)
    blocks = -(-per_round // 8)
    nonce, left = 0, nbytes
    while left > 0:
        chunk = bytearray()
        for _ in range(4096):  # rounds per write
            for block in range(blocks):  # the same bytes FairDraws.raw32 takes, word by word (big-endian)
                mac = keyed.copy()
                mac.update(f"battery:{nonce}:{block}".encode())
                chunk += mac.digest()[: min(32, 4 * (per_round - 8 * block))]
            nonce += 1
        data = np.frombuffer(bytes(chunk), dtype=">u4").astype("<u4").tobytes()[:left]
        try:
            out.write(data)
        except BrokenPipeError:
            return
        left -= len(data)
    out.flush()


def write_raw(nbytes: int, out=None) -> None:
    """Write ``nbytes`` of the live source's raw stream: ``secrets.randbits(32)`` words, little-endian.

    ``secrets.randbits(32)`` is ``int.from_bytes(os.urandom(4))``, so the raw
    stream is the kernel CSPRNG's byte stream; it is read here in large blocks
    from the same ``os.urandom`` for speed (dieharder needs gigabytes).
    """
    import os

    write_chunks(iter(lambda: os.urandom(1 << 20), None), nbytes, out)


def write_chunks(chunks: Iterator[bytes], nbytes: int, out=None) -> None:
    """Write the first ``nbytes`` of the byte chunks to ``out`` (default: standard output), stopping quietly
    when the reader closes the pipe (dieharder stops reading when it is done)."""
    out = out or sys.stdout.buffer
    left = nbytes
    for chunk in chunks:
        if left <= 0:
            break
        data = chunk[:left]
        try:
            out.write(data)
        except BrokenPipeError:
            return
        left -= len(data)
    out.flush()


def main(argv: list[str] | None = None) -> None:
    import argparse

    from reelforge.core.draws import SecureDraws, SeededDraws

    parser = argparse.ArgumentParser(description="RNG battery on mapped draws, or the raw stream for dieharder")
    parser.add_argument("--raw", type=int, metavar="BYTES", help="write BYTES of the live raw stream to stdout")
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, help="test SeededDraws(SEED) instead of the live source")
    parser.add_argument("--fair", action="store_true",
                        help="the provably fair stream (a fresh server seed, consecutive rounds) instead")
    args = parser.parse_args(argv)
    if args.raw is not None:
        (write_fair_raw if args.fair else write_raw)(args.raw)
        return
    source = FairRounds() if args.fair else SecureDraws() if args.seed is None else SeededDraws(args.seed)
    for r in run_battery(source, args.samples, retry=args.seed is None):
        retry = "" if r.p_retry is None else f"  retry p={r.p_retry:.4f}"
        print(f"{r.name:26s} samples={r.samples:>9d}  p={r.p:.4f}{retry}  {'PASS' if r.passed else 'FAIL'}")


if __name__ == "__main__":
    main()
