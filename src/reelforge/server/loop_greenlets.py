"""Blocking database code run on the event loop's thread, in a greenlet that gives the loop back at every wait
(PostgreSQL): the request's transaction is the same synchronous code, but no thread is handed the request and
no thread waits for the interpreter's lock after each round trip."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from greenlet import getcurrent, greenlet

T = TypeVar("T")


class _LoopGreenlet(greenlet):
    """A greenlet run by :func:`run_on_loop`: its waits go back to the loop (:func:`suspend`)."""


def on_loop() -> bool:
    """Whether the caller runs in :func:`run_on_loop`'s greenlet (its waits must not block the loop)."""
    return isinstance(getcurrent(), _LoopGreenlet)


def suspend(awaitable: Awaitable[T]) -> T:
    """From inside :func:`run_on_loop`: wait for ``awaitable`` on the event loop, the greenlet set aside."""
    current = getcurrent()
    if not isinstance(current, _LoopGreenlet):
        raise RuntimeError("suspend() outside run_on_loop(): nothing would resume it")
    return current.parent.switch(awaitable)


async def run_on_loop(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on this thread, in a greenlet with a copy of the caller's context; each awaitable it hands
    to :func:`suspend` is awaited here, and the greenlet resumed with its outcome."""
    runner = _LoopGreenlet(fn)
    runner.gr_context = contextvars.copy_context()
    step = runner.switch(*args)
    while not runner.dead:
        try:
            value = await step
        except BaseException as exc:  # noqa: BLE001 - raised where the greenlet waited
            step = runner.throw(exc)
        else:
            step = runner.switch(value)
    return step


def pause(seconds: float) -> None:
    """``time.sleep`` that, inside :func:`run_on_loop`, lets the loop run meanwhile."""
    if on_loop():
        suspend(asyncio.sleep(seconds))
    else:
        time.sleep(seconds)
