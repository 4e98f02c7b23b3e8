"""Instructions per paid round inside the game server, counted with callgrind: a figure that does not move
with the machine's load, so two versions can be compared on a busy machine.

Drives the server's ASGI app in process (the middleware, the money routes, validation, the round
transaction, JSON, the metrics and, with ``--log-format json``, the log lines written to ``/dev/null``),
the same lean driver as ``bench/server_cpu.py``, on a fresh SQLite file (or ``--db``). After the warm-up
rounds it calls ``os.getppid()`` between rounds, so under

    REELFORGE_CALLGRIND_ON=1 valgrind --tool=callgrind --instr-atstart=no --dump-before=getppid \\
        --callgrind-out-file=OUT/cg.%p PYTHON bench/server_instructions.py --rounds 100 --out OUT/rounds.json

each dump holds one round; :func:`summarise` (``--summarise OUT``) reads them with the rounds' request
counts and prints the median instructions of the rounds of each length (one request: the round ended on
its paid spin). With ``REELFORGE_CALLGRIND_ON`` set the script switches callgrind's instrumentation on
itself (``callgrind_control -i on``) after the warm-up, so the imports and start-up run uninstrumented
(four times faster). The driver reads only the round's id and status from each answer, so its own work
does not grow with the steps. ``--without`` switches parts of the server off, to count what each costs. Runs with any installed version of the server that has ``create_app(config, url)`` and
``open_session(engine, config, name, operator_key)`` (so the previous release's too); the log lines only
where the version has ``reelforge.server.logs``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import uuid
from pathlib import Path


async def asgi_request(app, method: str, path: str, body: dict, headers: list[tuple[bytes, bytes]]) -> tuple[int, bytes]:
    """One request straight into the ASGI app (no sockets, no server): its status and body."""
    data = json.dumps(body).encode()
    messages = [{"type": "http.request", "body": data, "more_body": False}]
    out: list[dict] = []

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        out.append(message)

    raw = headers + [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": raw,
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
    await app(scope, receive, send)
    if out[0]["status"] not in (200, 201):
        raise SystemExit(f"{method} {path}: {out}")
    return out[0]["status"], out[1]["body"]


async def _call(app, method: str, path: str, body: dict, headers: list[tuple[bytes, bytes]]) -> dict:
    # Only the round's id and status (the answer's first of each, before its steps): decoding the whole
    # answer would count the driver's work, which grows with the round's steps, as the server's.
    _status, answer = await asgi_request(app, method, path, body, headers)
    return {"id": int(_ID.search(answer).group(1)), "status": _STATUS.search(answer).group(1).decode()}


_ID = re.compile(rb'"id":(\d+)')
_STATUS = re.compile(rb'"status":"(\w+)"')


WITHOUT = ("pacing", "fair_share", "provably_fair", "metrics")
"""Parts of the server ``--without`` switches off, to count what each costs (this version's server only)."""


class _PassThrough:
    """Stands in for a middleware switched off by ``--without``."""

    def __init__(self, app, **_settings) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        await self.app(scope, receive, send)


TRACED: list[str] = []
"""With ``--statements``: every SQL statement the database driver ran since the last request began (SQLite's
or psycopg's, COMMIT included)."""
STATEMENTS: list[tuple[str, tuple[str, ...]]] = []
"""With ``--statements``: per measured request, its kind (start, step) and its statements."""


def _traced_sqlite() -> None:
    """Make every SQLite connection opened from now on report its statements into :data:`TRACED`."""
    import sqlite3
    import sqlite3.dbapi2  # what SQLAlchemy's SQLite dialect connects through

    connect = sqlite3.dbapi2.connect

    def traced(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(TRACED.append)
        return conn

    sqlite3.connect = sqlite3.dbapi2.connect = traced


def _traced_postgresql() -> None:
    """Make psycopg report every statement (an ``executemany`` once, as ``MANY ...``) and COMMIT into
    :data:`TRACED` (its cursor and connection methods wrapped, for the rest of the process)."""
    try:
        import psycopg
    except ImportError:  # no PostgreSQL driver: nothing to trace
        return
    execute, executemany, commit = psycopg.Cursor.execute, psycopg.Cursor.executemany, psycopg.Connection.commit

    def traced_execute(self, query, params=None, **kwargs):
        TRACED.append(str(query))
        return execute(self, query, params, **kwargs)

    def traced_executemany(self, query, params_seq, **kwargs):
        TRACED.append("MANY " + str(query))
        return executemany(self, query, params_seq, **kwargs)

    def traced_commit(self):
        TRACED.append("COMMIT")
        return commit(self)

    psycopg.Cursor.execute, psycopg.Cursor.executemany = traced_execute, traced_executemany
    psycopg.Connection.commit = traced_commit


def _statement(sql: str) -> str:
    """A statement's kind and table (``INSERT INTO ledger``, ``SELECT``, ``BEGIN IMMEDIATE``); a statement
    with a ``WITH`` clause also names the tables it writes (``WITH: INSERT INTO rounds + UPDATE players``)."""
    sql = " ".join(sql.split())
    found = re.match(r"(MANY |)(INSERT INTO \w+|UPDATE \w+|DELETE FROM \w+|BEGIN IMMEDIATE|BEGIN|COMMIT|ROLLBACK|"
                     r"WITH|SELECT|PRAGMA)", sql, re.I)
    if not found:
        return sql.split(None, 1)[0]
    writes = re.findall(r"\b(INSERT INTO \w+|UPDATE \w+ SET|DELETE FROM \w+)", sql, re.I)
    if found.group(2).upper() == "WITH" and writes:
        return found.group(0) + ": " + " + ".join(w.removesuffix(" SET") for w in writes)
    return found.group(0)


def switched_off(config, without: tuple[str, ...] | list[str]):
    """``config`` with the parts named in ``without`` (:data:`WITHOUT`) off; the middlewares among them are
    replaced by a pass-through in the app module (for the apps created from now on)."""
    import dataclasses

    from reelforge.server import app as app_module

    if "pacing" in without:
        config = dataclasses.replace(config, round_start_quantum_ms=0.0)
    if "provably_fair" in without:
        config = dataclasses.replace(config, provably_fair=False)
    if "fair_share" in without:
        app_module.FairShare = _PassThrough  # create_app adds its middleware by this name
    if "metrics" in without:
        app_module.Observe = _PassThrough
    return config


def play(rounds: int, warmup: int, db: str | None, log_format: str | None, game: str | None,
         without: tuple[str, ...] = (), statements: bool = False) -> list[int]:
    """Play ``warmup`` then ``rounds`` paid rounds through the ASGI app, ``os.getppid()`` before each
    measured round and after the last; the measured rounds' request counts (``statements``: each measured
    request's SQLite statements into :data:`STATEMENTS`)."""
    from reelforge.games.registry import game_ids
    from reelforge.server.app import create_app
    from reelforge.server.auth import open_session
    from reelforge.server.config import load_config

    if log_format:
        try:
            from reelforge.server.logs import configure_logging
        except ImportError:  # a version from before the server wrote logs
            print("this version writes no log lines", file=sys.stderr)
        else:
            configure_logging(log_format, open(os.devnull, "w"))  # noqa: SIM115 - lives as long as the run
    config = switched_off(load_config(None), without)
    if statements:
        _traced_sqlite()
        _traced_postgresql()
    game = game or game_ids()[0]
    bet = config.games[game].bet_ladder[0]
    measured = [False]

    def traced(kind: str) -> None:
        if measured[0]:
            STATEMENTS.append((kind, tuple(_statement(sql) for sql in TRACED)))
        TRACED.clear()
    with tempfile.TemporaryDirectory(prefix="reelforge-instructions-") as tmp:
        app = create_app(config, db or f"sqlite:///{Path(tmp) / 'instructions.db'}")
        token = open_session(app.state.engine, config, f"cg-{uuid.uuid4().hex[:8]}", None)["token"]
        auth = [(b"authorization", f"Bearer {token}".encode())]

        async def one_round() -> int:
            TRACED.clear()
            rnd = await _call(app, "POST", f"/api/v1/games/{game}/rounds", {"bet": bet},
                              auth + [(b"idempotency-key", uuid.uuid4().hex.encode())])
            traced("start")
            requests = 1
            while rnd["status"] == "open":
                rnd = await _call(app, "POST", f"/api/v1/rounds/{rnd['id']}/steps", {},
                                  auth + [(b"idempotency-key", uuid.uuid4().hex.encode())])
                traced("step")
                requests += 1
            return requests

        async def run() -> list[int]:
            for _ in range(warmup):
                await one_round()
            if os.environ.get("REELFORGE_CALLGRIND_ON"):  # started with --instr-atstart=no: count from here
                import subprocess

                subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True,
                               stdout=subprocess.DEVNULL)
            counts = []
            measured[0] = True
            for _ in range(rounds):
                os.getppid()  # callgrind dumps here: the dump holds the round before
                counts.append(await one_round())
            os.getppid()
            return counts

        counts = asyncio.run(run())
        app.state.engine.dispose()
    return counts


def summarise(folder: Path) -> dict:
    """Instructions per round from the dumps in ``folder`` (``cg.PID.N``, with ``rounds.json``)."""
    counts = json.loads((folder / "rounds.json").read_text())["requests"]
    dumps = sorted((p for p in folder.glob("cg.*") if re.fullmatch(r"cg\.\d+\.\d+", p.name)),
                   key=lambda p: int(p.name.rsplit(".", 1)[1]))
    totals = []
    for path in dumps:
        match = re.search(r"^(?:summary|totals): (\d+)", path.read_text(errors="replace"), re.M)
        totals.append(int(match.group(1)) if match else 0)
    # dump 1 ends at the first getppid (start-up, warm-up); dumps 2 .. n+1 are the rounds
    per_round = totals[1:1 + len(counts)]
    if len(per_round) != len(counts):
        raise SystemExit(f"{len(counts)} rounds but {len(dumps)} dumps in {folder}")
    by_length: dict[int, list[int]] = {}
    for n, instructions in zip(counts, per_round, strict=True):
        by_length.setdefault(n, []).append(instructions)
    return {"rounds": len(counts), "requests": sum(counts),
            "instructions_per_round": round(sum(per_round) / len(counts)),
            "instructions_per_request": round(sum(per_round) / sum(counts)),
            "median_by_requests_per_round": {n: {"rounds": len(v), "median": round(statistics.median(v))}
                                             for n, v in sorted(by_length.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--log-format", choices=("json", "human"), default=None,
                        help="write the request and round-event lines (to /dev/null)")
    parser.add_argument("--game", default=None, help="default: the registry's first game")
    parser.add_argument("--without", default="", help="comma-separated: " + ", ".join(WITHOUT))
    parser.add_argument("--statements", action="store_true",
                        help="instead of timing anything: print the statements of a start and of a step, "
                             "with how often each sequence occurred")
    parser.add_argument("--out", type=Path, default=None, help="write the rounds' request counts here (JSON)")
    parser.add_argument("--summarise", type=Path, default=None, metavar="FOLDER",
                        help="instead: read the callgrind dumps and rounds.json in FOLDER")
    args = parser.parse_args()
    if args.summarise:
        print(json.dumps(summarise(args.summarise), indent=2))
        return
    without = tuple(part for part in args.without.split(",") if part)
    if unknown := sorted(set(without) - set(WITHOUT)):
        parser.error(f"--without: unknown part(s) {', '.join(unknown)}; choose from {', '.join(WITHOUT)}")
    counts = play(args.rounds, args.warmup, args.db, args.log_format, args.game, without, args.statements)
    if args.statements:
        seen: dict[str, int] = {}
        for kind, sqls in STATEMENTS:
            line = f"{kind}: {len(sqls)} statements: {', '.join(sqls)}"
            seen[line] = seen.get(line, 0) + 1
        for line, n in sorted(seen.items(), key=lambda item: -item[1]):
            print(f"{n:5d} x {line}")
    if args.out:
        args.out.write_text(json.dumps({"requests": counts}))
    print(json.dumps({"rounds": len(counts), "requests": sum(counts)}), file=sys.stderr)


if __name__ == "__main__":
    main()
