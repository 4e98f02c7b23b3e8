"""The threads that run the server's blocking database calls (PostgreSQL's transactions; on SQLite the one
writer that would have waited for the write lock), handed their work from the event loop.

``loop.run_in_executor`` on a ``ThreadPoolExecutor`` passes every call through a concurrent future (its
condition variable and callbacks), a work item and a chain of callbacks back to an asyncio future. The same
hand-off here is a queue put, the call, and one ``call_soon_threadsafe`` that settles the asyncio future:
4.8 us of CPU a hand-off against 21 us with 16 calls in flight, 35 against 82 us with one
(``docs/performance.md``, "Sixth pass"). Threads start as work needs them, up to ``size``.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any


def settle(future: asyncio.Future, result: Any, error: BaseException | None,
           unwanted: Callable[[Any], None] | None = None) -> None:
    """Give a thread's outcome to ``future`` (on its loop); when nobody waits for it any more (the request went
    away), ``unwanted(result)`` disposes of what the call made, if anything."""
    if future.cancelled():
        if unwanted is not None and result is not None:
            unwanted(result)
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


class DatabaseThreads:
    """Up to ``size`` threads named ``{name}_{n}``; :meth:`submit` from the event loop, :meth:`shutdown` at the end."""

    def __init__(self, size: int, name: str) -> None:
        self.size = size
        self.name = name
        self._work: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future, Callable[..., Any],
                                            tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0  # threads waiting for work that no submitted call has counted on yet
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future:
        """Run ``fn(*args)`` on one of the threads; its outcome as a future of the running event loop. A call
        whose future was cancelled before a thread took it is not run (as with ``run_in_executor``)."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the database threads are shut down")
            if self._idle:  # a waiting thread takes it
                self._idle -= 1
            elif len(self._threads) < self.size:  # a new thread for it
                thread = threading.Thread(target=self._run, name=f"{self.name}_{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._work.put((loop, future, fn, args))
        return future

    def _run(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                return
            loop, future, fn, args = item
            if not future.cancelled():
                try:
                    outcome = (fn(*args), None)
                except BaseException as exc:  # noqa: BLE001 - the caller's to handle, as with an executor
                    outcome = (None, exc)
                try:
                    loop.call_soon_threadsafe(settle, future, *outcome)
                except RuntimeError:  # the event loop closed meanwhile: nobody waits for the answer
                    pass
            with self._lock:
                self._idle += 1

    def shutdown(self, wait: bool = True) -> None:
        """Stop the threads once the work already given is done (``wait``: return after they stopped)."""
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        for _ in threads:
            self._work.put(None)
        if wait:
            for thread in threads:
                thread.join()
