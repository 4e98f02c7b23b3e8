"""The padded starts' quantum follows the last starts' deciding times exactly as sorting them would, with
the times kept in order as they come and go (:class:`reelforge.server.fairshare.StartPacer`)."""

from __future__ import annotations

import asyncio
import math
import random
from collections import deque

from reelforge.server import fairshare
from reelforge.server.fairshare import StartPacer


def test_the_quantum_is_the_one_sorting_the_last_starts_gives(monkeypatch):
    now = 1000.0
    monkeypatch.setattr(fairshare.time, "monotonic", lambda: now)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(fairshare.asyncio, "sleep", sleep)
    pacer = StartPacer(0.004)
    reference: deque[float] = deque(maxlen=StartPacer.RECENT)
    rng = random.Random(7)
    values = [0.001, 0.002, 0.003, 0.01, 0.02]  # repeated values: the ones leaving must be found among equals

    async def starts() -> None:
        for _ in range(3 * StartPacer.RECENT):
            began = now - rng.choice([*values, rng.uniform(0, 0.05)])
            elapsed = now - began
            ordered = sorted(reference)
            quantum = max(0.004, 2 * ordered[int(0.95 * len(ordered))]) if ordered else 0.004
            await pacer.pace(began, 201, '{"id":1,"status":"open","steps":[]}')
            reference.append(elapsed)
            assert slept[-1] == max(1, math.ceil(elapsed / quantum)) * quantum - elapsed
            assert pacer.ordered == sorted(reference) and list(pacer.recent) == list(reference)

    asyncio.run(starts())
    assert len(pacer.recent) == StartPacer.RECENT and len(slept) == 3 * StartPacer.RECENT
    # a start whose round finished on its first step is not padded
    asyncio.run(pacer.pace(now, 201, '{"id":1,"status":"finished","steps":[]}'))
    assert len(slept) == 3 * StartPacer.RECENT
