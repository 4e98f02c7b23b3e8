"""The database threads (issue 33): work handed from the event loop without an executor, threads started as
calls need them (one per call in flight, up to the size), results and errors given back, cancelled calls not
run, and shutdown waiting for the work already given."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from reelforge.server.dbthreads import DatabaseThreads


def test_calls_run_on_the_named_threads_and_give_back_results_and_errors():
    threads = DatabaseThreads(2, "reelforge-db")

    def fails() -> None:
        raise LookupError("from the thread")

    async def run() -> tuple[str, object]:
        name = await threads.submit(lambda: threading.current_thread().name)
        with pytest.raises(LookupError, match="from the thread"):
            await threads.submit(fails)
        return name, await threads.submit(lambda a, b: a + b, 2, 3)

    try:
        assert asyncio.run(run()) == ("reelforge-db_0", 5)
    finally:
        threads.shutdown()


def test_every_call_in_flight_gets_a_thread_up_to_the_size():
    """Eight calls that each wait for all eight to be running at once finish only if each got a thread of its
    own as it came (a pool that queued one behind a busy thread would leave the barrier short)."""
    threads = DatabaseThreads(8, "reelforge-db")
    barrier = threading.Barrier(8, timeout=10)

    async def run() -> list[str]:
        return await asyncio.gather(*(threads.submit(lambda: (barrier.wait(), threading.current_thread().name)[1])
                                      for _ in range(8)))

    try:
        names = asyncio.run(run())
    finally:
        threads.shutdown()
    assert sorted(names) == sorted(f"reelforge-db_{i}" for i in range(8))


def test_beyond_the_size_calls_wait_for_a_thread_and_threads_are_reused():
    threads = DatabaseThreads(2, "reelforge-db")
    running, most = [0], [0]
    lock = threading.Lock()

    def work(i: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return i

    async def run() -> list[int]:
        first = await asyncio.gather(*(threads.submit(work, i) for i in range(10)))
        return first + [await threads.submit(work, i) for i in range(10, 13)]  # one at a time: the idle threads

    try:
        assert asyncio.run(run()) == list(range(13))
    finally:
        threads.shutdown()
    assert most[0] == 2 and len(threads._threads) == 2


def test_a_call_cancelled_before_a_thread_took_it_is_not_run():
    threads = DatabaseThreads(1, "reelforge-db")
    release = threading.Event()
    ran: list[str] = []

    async def run() -> None:
        busy = threads.submit(release.wait, 10)
        waiting = threads.submit(ran.append, "cancelled call")
        waiting.cancel()
        release.set()
        await busy
        await threads.submit(ran.append, "later call")

    try:
        asyncio.run(run())
    finally:
        threads.shutdown()
    assert ran == ["later call"]


def test_shutdown_finishes_the_work_given_and_refuses_more():
    threads = DatabaseThreads(1, "reelforge-db")
    done: list[int] = []

    async def give() -> None:
        threads.submit(lambda: (time.sleep(0.05), done.append(1)))
        threads.shutdown(wait=True)
        with pytest.raises(RuntimeError, match="shut down"):
            threads.submit(done.append, 2)

    asyncio.run(give())
    assert done == [1]
