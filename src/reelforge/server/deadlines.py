"""How long a request's database waits may take: a deadline per request, on the thread that serves it, that
cuts every wait inside it (a pooled connection, a new connection, SQLite's write lock)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

_request = threading.local()
"""The deadline (``time.monotonic()``) of the request this thread serves, if any (:func:`request_deadline`)."""


@contextmanager
def request_deadline(deadline: float) -> Iterator[None]:
    """Within this block, this thread's waits for the database (a pooled connection, a new connection,
    SQLite's write lock) end at ``deadline`` at the latest, whatever their own bound."""
    _request.deadline = deadline
    try:
        yield
    finally:
        _request.deadline = None


def wait_bound(own: float) -> float:
    """How long a database wait may take: ``own`` seconds, cut to the current request's deadline."""
    deadline = getattr(_request, "deadline", None)
    if deadline is None:
        return own
    return max(0.001, min(own, deadline - time.monotonic()))


@contextmanager
def no_deadline() -> Iterator[None]:
    """Within this block, this thread's waits have their own bounds only (the request's deadline is set aside
    and restored after)."""
    saved, _request.deadline = getattr(_request, "deadline", None), None
    try:
        yield
    finally:
        _request.deadline = saved
