"""Where a paid round's CPU goes inside the game server, by area, for two installed versions side by side.

    python bench/server_areas.py OLD_VENV NEW_VENV [--rounds 1500] [--pairs 3] [--without PARTS] [--json]
    python bench/server_areas.py --one [--rounds 1500] [--without PARTS]   (this Python's version; one JSON line)

Each version's own Python drives its ASGI app in process (the lean driver of ``server_instructions.py``,
SQLite on a fresh file, JSON log lines to ``/dev/null`` where the version writes them) and times each area
with the thread's CPU clock, exclusively: an area's time is its own, less the areas it called (the SQLite
statements are an area of their own wherever they run). Functions of one version that the other lacks are
simply not found there (their time stays with the area that called them). The runs alternate (old, new,
new, old, ...) so both see the same load, and the table gives the medians in microseconds per paid round.
Process CPU per round is printed beside them: the areas add up to it less the event loop's own work.
``--without`` switches parts of the NEW version off (``server_instructions.py``'s switches), so the same
venv given twice compares a version with and without a part.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import inspect
import json
import os
import sqlite3
import sqlite3.dbapi2
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OTHER = "HTTP framework, driver and other"
"""The area of what no other area claims: Starlette and FastAPI's own layers, the lean driver, the loop."""
AREAS: list[tuple[str, str]] = [
    # (module:qualified name, area); the previous release's names beside this one's where they differ
    ("reelforge.server.metrics:Observe.__call__", "metrics (latency, status, request id)"),
    ("reelforge.server.metrics:Metrics.observe_request", "metrics (latency, status, request id)"),
    ("reelforge.server.metrics:log_request", "JSON log lines"),
    ("reelforge.server.rounds:RoundService._logged", "JSON log lines"),
    ("reelforge.server.fairshare:FairShare.__call__", "fair share (rate limits, turns)"),
    ("reelforge.server.fairshare:StartPacer.pace", "padded starts"),
    ("reelforge.server.hardening:Hardening.__call__", "hardening (body limit, security headers)"),
    ("reelforge.server.api.rounds:MoneyRoutes.__call__", "routing and sending the answer"),
    ("reelforge.server.api.rounds:MoneyRequest.read", "reading and checking the request"),
    ("reelforge.server.api.rounds:_money_request", "reading and checking the request"),
    ("reelforge.server.api.common:Context.call", "round service (other)"),
    ("reelforge.server.rounds:RoundService._lock", "session check and player lock"),
    ("reelforge.server.rounds:RoundService._decide", "deciding the round (rules, draws)"),
    ("reelforge.server.rounds:RoundService._decide_start", "deciding the round (rules, draws)"),
    ("reelforge.server.rounds:draws_of", "provably fair draws (seed pair, HMAC)"),
    ("reelforge.core.draws:FairDraws.raw32", "provably fair draws (seed pair, HMAC)"),
    ("reelforge.server.roundids:RoundIds._public", "public round id (keyed permutation)"),
    ("reelforge.server.round_json:RoundViews.round_answer", "answer JSON"),
    ("reelforge.server.rounds:RoundService.round_answer", "answer JSON"),
    ("reelforge.server.store.tx:Tx.write_start", "writes (Python side)"),
    ("reelforge.server.store.tx:Tx.write_step", "writes (Python side)"),
    ("reelforge.server.store:Tx.write_start", "writes (Python side)"),
    ("reelforge.server.store:Tx.write_step", "writes (Python side)"),
]
SQLITE = "SQLite statements (COMMIT included)"


class AreaClock:
    """Exclusive thread CPU per area: a stack of the areas running, each charged its time less its callees'."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.stack: list[list[Any]] = []
        self.on = False

    def enter(self, area: str) -> None:
        self.stack.append([area, time.thread_time(), 0.0])

    def leave(self) -> None:
        area, began, inner = self.stack.pop()
        elapsed = time.thread_time() - began
        if self.on:
            self.seconds[area] += elapsed - inner
        if self.stack:
            self.stack[-1][2] += elapsed

    def wrap(self, path: str, area: str) -> bool:
        """Time ``module:Qualified.name`` as ``area`` (False where this version has no such function)."""
        module, qualname = path.split(":")
        try:
            owner: Any = importlib.import_module(module)
        except ImportError:
            return False
        *outer, name = qualname.split(".")
        for part in outer:
            owner = getattr(owner, part, None)
            if owner is None:
                return False
        found = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
        if found is None:
            return False
        static = isinstance(found, staticmethod)
        fn = found.__func__ if static else found
        clock = self
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def timed(*args: Any, **kwargs: Any) -> Any:
                clock.enter(area)
                try:
                    return await fn(*args, **kwargs)
                finally:
                    clock.leave()
        else:
            @functools.wraps(fn)
            def timed(*args: Any, **kwargs: Any) -> Any:
                clock.enter(area)
                try:
                    return fn(*args, **kwargs)
                finally:
                    clock.leave()
        setattr(owner, name, staticmethod(timed) if static else timed)
        return True

    def time_sqlite(self) -> None:
        """Every SQLite connection opened from now on times its statements as :data:`SQLITE`."""
        clock = self

        def timed(name: str) -> Any:
            def run(cursor: sqlite3.Cursor, *args: Any) -> Any:
                clock.enter(SQLITE)
                try:
                    return getattr(sqlite3.Cursor, name)(cursor, *args)
                finally:
                    clock.leave()
            return run

        class Cursor(sqlite3.Cursor):
            execute = timed("execute")
            executemany = timed("executemany")

        class Connection(sqlite3.Connection):
            def cursor(self, factory: Any = Cursor) -> Any:
                return super().cursor(factory)

            def execute(self, *args: Any) -> Any:
                return self.cursor().execute(*args)

        connect = sqlite3.dbapi2.connect
        sqlite3.connect = sqlite3.dbapi2.connect = lambda *a, **k: connect(*a, **{**k, "factory": Connection})


def measure(rounds: int, warmup: int = 100, without: tuple[str, ...] = ()) -> dict[str, Any]:
    """``rounds`` paid rounds of the registry's first game through this Python's server, in process: the
    process CPU per round and each area's exclusive thread CPU per round (microseconds). ``without``: parts
    switched off as ``server_instructions.py --without`` does."""
    sys.path.insert(0, str(HERE))
    from server_instructions import asgi_request, switched_off  # bench/, beside this script

    clock = AreaClock()
    clock.time_sqlite()
    found = [path for path, area in AREAS if clock.wrap(path, area)]
    from reelforge.games.registry import game_ids
    from reelforge.server.app import create_app
    from reelforge.server.auth import open_session
    from reelforge.server.config import load_config

    try:
        from reelforge.server.logs import configure_logging
    except ImportError:  # a version from before the server wrote logs
        pass
    else:
        configure_logging("json", open(os.devnull, "w"))  # noqa: SIM115 - lives as long as the run
    config = switched_off(load_config(None), without)
    game = game_ids()[0]
    bet = config.games[game].bet_ladder[0]
    requests = 0
    with tempfile.TemporaryDirectory(prefix="reelforge-areas-") as tmp:
        app = create_app(config, f"sqlite:///{Path(tmp) / 'areas.db'}")
        token = open_session(app.state.engine, config, f"areas-{uuid.uuid4().hex[:8]}", None)["token"]
        auth = [(b"authorization", f"Bearer {token}".encode())]

        async def call(path: str, body: dict) -> dict:
            nonlocal requests
            requests += clock.on
            clock.enter(OTHER)
            try:
                headers = auth + [(b"idempotency-key", uuid.uuid4().hex.encode())]
                return json.loads((await asgi_request(app, "POST", path, body, headers))[1])
            finally:
                clock.leave()

        async def play(n: int) -> None:
            for _ in range(n):
                rnd = await call(f"/api/v1/games/{game}/rounds", {"bet": bet})
                while rnd["status"] == "open":
                    rnd = await call(f"/api/v1/rounds/{rnd['id']}/steps", {})

        asyncio.run(play(warmup))
        clock.on = True
        cpu = time.process_time()
        asyncio.run(play(rounds))
        cpu = time.process_time() - cpu
        clock.on = False
        app.state.engine.dispose()
    return {"rounds": rounds, "without": list(without), "requests": requests, "cpu_us_per_round": round(cpu / rounds * 1e6, 1),
            "areas_us_per_round": {k: round(v / rounds * 1e6, 1) for k, v in clock.seconds.items()},
            "found": found, "load_average_1min": round(os.getloadavg()[0], 2)}


def table(runs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """A markdown table of the medians per area, old and new, largest difference first."""
    old, new = runs.values()
    areas = {a for r in old + new for a in r["areas_us_per_round"]}

    def median(rs: list[dict[str, Any]], area: str) -> float:
        return statistics.median(r["areas_us_per_round"].get(area, 0.0) for r in rs)

    rows = sorted(((median(new, a) - median(old, a), a) for a in areas), reverse=True)
    lines = ["| area | old (us a round) | new | new - old |", "|---|---|---|---|"]
    lines += [f"| {a} | {median(old, a):.0f} | {median(new, a):.0f} | {d:+.0f} |" for d, a in rows]
    cpu = [statistics.median(r["cpu_us_per_round"] for r in rs) for rs in (old, new)]
    lines.append(f"| process CPU per round (median of {len(old)} and {len(new)} runs) | {cpu[0]:.0f} | {cpu[1]:.0f} | "
                 f"{cpu[1] - cpu[0]:+.0f} ({cpu[1] / cpu[0]:.2f}x) |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, nargs="?", help="the previous version's virtual environment")
    parser.add_argument("new", type=Path, nargs="?", help="the new version's virtual environment")
    parser.add_argument("--rounds", type=int, default=1500)
    parser.add_argument("--pairs", type=int, default=3, help="alternating old/new pairs")
    parser.add_argument("--one", action="store_true", help="measure this Python's version only (one JSON line)")
    parser.add_argument("--without", default="", help="comma-separated parts switched off in NEW's runs (and "
                        "with --one): pacing, fair_share, provably_fair, metrics")
    parser.add_argument("--json", action="store_true", help="print every run as JSON after the table")
    args = parser.parse_args()
    without = tuple(part for part in args.without.split(",") if part)
    if args.one:
        print(json.dumps(measure(args.rounds, without=without)))
        return
    if args.old is None or args.new is None:
        parser.error("give OLD_VENV and NEW_VENV (or --one)")
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    versions = {"old": args.old.resolve(), "new": args.new.resolve()}
    for pair in range(args.pairs):
        order = list(versions.items()) if pair % 2 == 0 else list(versions.items())[::-1]
        for version, venv in order:
            python = venv / "bin" / "python"
            if not python.exists():
                raise SystemExit(f"{venv}: no bin/python (give the folder of a virtual environment)")
            command = [str(python), str(Path(__file__).resolve()), "--one", "--rounds", str(args.rounds)]
            if version == "new" and without:
                command += ["--without", ",".join(without)]
            out = subprocess.run(command, capture_output=True, text=True, cwd=tempfile.gettempdir())
            if out.returncode:
                raise SystemExit(f"{venv}: failed ({out.returncode}):\n{out.stderr[-2000:]}")
            result = json.loads(out.stdout.strip().splitlines()[-1])
            runs[version].append(result)
            print(f"{version}: {result['cpu_us_per_round']} us CPU a round, load {result['load_average_1min']}",
                  file=sys.stderr, flush=True)
    print(f"old: {args.old}  new: {args.new}  ({args.rounds} rounds a run, {args.pairs} pairs)\n")
    print("\n".join(table(runs)))
    if args.json:
        print(json.dumps(runs, indent=2))


if __name__ == "__main__":
    main()
