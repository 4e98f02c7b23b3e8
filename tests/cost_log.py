"""Per-test cost log, on when ``REELFORGE_TEST_COSTS`` names a folder (off otherwise: nothing is recorded).

Each test process appends one JSON line per test to ``<folder>/<worker>.jsonl``: the test's CPU seconds
(this process, user + system, all its threads; ``children``: processes it started, such as Chromium or a
server, counted when they are reaped, so a browser kept for a package lands on the test it ends after), its
wall seconds, and the numba compilations it triggered (CPU seconds of the
compiling thread, per kernel). Setup and teardown count with the test, so a module fixture's cost lands on
the module's first test: sum per file (``python bench/suite_costs.py <folder>``). CPU rather than wall,
because the suite is measured on machines shared with other work."""

from __future__ import annotations

import json
import os
import resource
import time
from collections import defaultdict
from pathlib import Path

import pytest

ENV = "REELFORGE_TEST_COSTS"


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


class _CompileTimes:
    """A numba event listener: CPU seconds of each outermost compilation, by kernel."""

    def __init__(self) -> None:
        self.depth = 0
        self.started = 0.0
        self.name = ""
        self.seconds: dict[str, float] = defaultdict(float)

    def on_start(self, event) -> None:
        if self.depth == 0:
            self.started = time.thread_time()
            dispatcher = event.data["dispatcher"]
            self.name = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"
        self.depth += 1

    def on_end(self, event) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.seconds[self.name] += time.thread_time() - self.started


class CostLog:
    """The plugin: registered by tests/conftest.py when :data:`ENV` is set."""

    def __init__(self, folder: str) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        Path(folder).mkdir(parents=True, exist_ok=True)
        self.out = open(Path(folder) / f"{worker}.jsonl", "a")  # noqa: SIM115 - open for the session
        self.compiles = _CompileTimes()
        from numba.core import event

        listener = self.compiles

        class _Listener(event.Listener):
            def on_start(self, ev) -> None:
                listener.on_start(ev)

            def on_end(self, ev) -> None:
                listener.on_end(ev)

        event.register("numba:compile", _Listener())

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem):
        self.compiles.seconds.clear()
        self.outcome = "passed"
        cpu, children, wall = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.monotonic()
        yield
        record = {
            "test": item.nodeid,
            "cpu": round(_cpu(resource.RUSAGE_SELF) - cpu, 3),
            "children": round(_cpu(resource.RUSAGE_CHILDREN) - children, 3),
            "wall": round(time.monotonic() - wall, 3),
            "compile": {name: round(s, 3) for name, s in self.compiles.seconds.items()},
            "outcome": self.outcome,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "end": time.time(),
        }
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call):
        report = (yield).get_result()
        if report.failed or (report.skipped and self.outcome == "passed"):
            self.outcome = report.outcome
