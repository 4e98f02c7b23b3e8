"""Where a paid round's SQLite time goes: each statement's CPU, and the pages each COMMIT writes, by B-tree.

    python bench/server_sqlite.py statements [--rounds 3000]
    python bench/server_sqlite.py pages [--rounds 300]

Both drive the server's ASGI app in process (``server_instructions.py``'s lean driver, a fresh SQLite file,
JSON log lines to ``/dev/null``; padded starts and fair share off, so the rounds follow each other without
waiting and no rate limit refuses them).

* ``statements``: every statement's thread CPU time around the driver's ``execute`` (the sqlite3 cursor
  subclassed for the run), by kind and table as ``server_statements.py`` names them (the two reads apart),
  after 100 warm-up rounds: how many a round, microseconds each and a round.
* ``pages``: the WAL's frames of the last ``--rounds`` rounds' COMMITs, each page named by the B-tree it
  belongs to (SQLite's ``dbstat`` table; the checkpointer is off for the run, so the WAL keeps every frame):
  pages a COMMIT by B-tree. Each page is two ``pwrite`` calls at the COMMIT and a copy at the checkpoint.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import sqlite3
import sqlite3.dbapi2
import struct
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

import server_instructions as driver  # noqa: E402

WITHOUT = ("pacing", "fair_share")


def _name(sql: str) -> str:
    kind = driver._statement(sql)
    if kind != "SELECT":
        return kind
    return "SELECT (the session)" if "FROM sessions" in sql else "SELECT (the start's reads)"


def statements(rounds: int) -> None:
    """Print each statement kind's count a round and its thread CPU (see the module docstring)."""
    spent: dict[str, int] = collections.defaultdict(int)
    count: collections.Counter[str] = collections.Counter()
    clock, measuring = time.thread_time_ns, [False]

    class Timed(sqlite3.Cursor):
        def execute(self, sql, params=()):  # noqa: ANN001, ANN202 - the driver's own signature
            began = clock()
            try:
                return super().execute(sql, params)
            finally:
                if measuring[0]:
                    spent[_name(sql)] += clock() - began
                    count[_name(sql)] += 1

    class Connection(sqlite3.Connection):
        def cursor(self, factory=Timed):  # noqa: ANN001, ANN202
            return super().cursor(factory)

    connect = sqlite3.dbapi2.connect

    def timed_connect(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        return connect(*args, **{**kwargs, "factory": Connection})

    sqlite3.connect = sqlite3.dbapi2.connect = timed_connect
    parent = os.getppid

    def measured() -> int:  # the driver calls os.getppid() before each measured round
        measuring[0] = True
        return parent()

    os.getppid = measured
    driver.play(rounds, 100, None, "json", None, WITHOUT)
    print(f"{rounds} paid rounds in process, SQLite; thread CPU around each statement")
    print(f"{'statement':45s} {'a round':>8s} {'each (us)':>10s} {'a round (us)':>13s}")
    for name, ns in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"{name:45s} {count[name] / rounds:8.2f} {ns / count[name] / 1000:10.1f} {ns / rounds / 1000:13.1f}")
    print(f"{'all':45s} {sum(count.values()) / rounds:8.2f} {'':10s} {sum(spent.values()) / rounds / 1000:13.1f}")


def pages(rounds: int) -> None:
    """Print the pages a COMMIT writes, by B-tree (see the module docstring)."""
    from sqlalchemy.engine import Engine

    from reelforge.server import db

    db.Checkpointer.start = db.Checkpointer.stop = lambda self: None  # the WAL keeps every frame
    kept = Path(tempfile.mkdtemp(prefix="reelforge-pages-"))
    dispose = Engine.dispose

    def copy_then_dispose(engine: Engine, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        path = engine.url.database
        if engine.url.get_backend_name() == "sqlite" and path and not (kept / "db").exists():
            shutil.copy(path, kept / "db")  # before the last connection's close folds the WAL in
            shutil.copy(path + "-wal", kept / "db-wal")
        dispose(engine, *args, **kwargs)

    Engine.dispose = copy_then_dispose
    try:
        driver.play(rounds, 0, None, "json", None, WITHOUT)
        wal = (kept / "db-wal").read_bytes()
        names = dict(sqlite3.connect(kept / "db").execute("SELECT pageno, name FROM dbstat"))
    finally:
        shutil.rmtree(kept, ignore_errors=True)
    size = struct.unpack(">I", wal[8:12])[0]
    commits, frames, at = [], [], 32  # the WAL header, then frames: a 24-byte header and a page each
    while at + 24 + size <= len(wal):
        page, commit = struct.unpack(">II", wal[at:at + 8])
        frames.append(page)
        at += 24 + size
        if commit:  # a COMMIT's last frame holds the database's size in pages
            commits.append(frames)
            frames = []
    last = commits[-rounds:]
    by_tree = collections.Counter(names.get(page, "?") for frames in last for page in frames)
    print(f"{len(last)} COMMITs (of {len(commits)}), {sum(map(len, last)):,} frames, {size}-byte pages")
    for tree, n in by_tree.most_common():
        print(f"{tree:45s} {n / len(last):6.2f} pages a COMMIT")
    print(f"{'all':45s} {sum(by_tree.values()) / len(last):6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("statements", "pages"))
    parser.add_argument("--rounds", type=int, default=None, help="default: 3000 (statements), 300 (pages)")
    args = parser.parse_args()
    if args.what == "statements":
        statements(args.rounds or 3000)
    else:
        pages(args.rounds or 300)


if __name__ == "__main__":
    main()
