"""How long a request's database waits may take: a deadline per request, in the context that serves it (its
database thread, its greenlet on the event loop, or its task), that cuts every wait inside it (a pooled
connection, a new connection, SQLite's write lock)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# A context variable, not a thread's own: PostgreSQL's requests run in greenlets that share the event loop's
# thread, each in a context of its own (loop_greenlets.run_on_loop), and one's deadline must not end another's.
_deadline: ContextVar[float | None] = ContextVar("reelforge_request_deadline", default=None)
"""The deadline (``time.monotonic()``) of the request served in this context, if any (:func:`request_deadline`)."""


@contextmanager
def request_deadline(deadline: float) -> Iterator[None]:
    """Within this block, this context's waits for the database (a pooled connection, a new connection,
    SQLite's write lock) end at ``deadline`` at the latest, whatever their own bound."""
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def wait_bound(own: float) -> float:
    """How long a database wait may take: ``own`` seconds, cut to the current request's deadline."""
    deadline = _deadline.get()
    if deadline is None:
        return own
    return max(0.001, min(own, deadline - time.monotonic()))
