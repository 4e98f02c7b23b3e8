"""Two installed versions of the game server side by side on the same machine: paid rounds per second,
server CPU and client CPU per round, on SQLite and on PostgreSQL.

    python bench/server_compare.py OLD_VENV NEW_VENV [--seconds 15] [--pairs 2] [--pg URL | --durable-pg]
                                   [--analyze ROUNDS] [--instructions ROUNDS] [--without PARTS] [--json]

Each venv's own ``reelforge bench --server --seconds S --json`` is run, the two alternating (old, new,
new, old, ...) so both see the same load; with ``--pg URL`` (a PostgreSQL server, ``postgresql+psycopg://
user@host:port/db``) or ``--durable-pg`` (a durable cluster of its own, started for the comparison) each
run gets a fresh database of its own there, created and dropped around the run. With ``--durable-pg`` the
PostgreSQL table also gives PostgreSQL's own CPU (the postmaster and every backend) and the WAL it wrote per
round, over half of each run: on a machine the database shares, its work per round bounds the rounds per
second as much as the server's does.
Prints a table per database (every run, then the medians) and the ratio new / old of the medians; the
server CPU per round is the figure to compare on a busy machine (its rate moves with the load, the CPU
per round much less). ``--instructions`` adds callgrind's instructions per round of each version
(``bench/server_instructions.py``: the ASGI app in process, SQLite, JSON logs where the version writes
them), which do not move with the load at all. ``--without`` switches parts of the NEW version off (pacing,
fair_share, provably_fair, metrics; ``bench/serve_without.py``), so ``.venv .venv --without PARTS`` measures
through HTTP what those parts cost. ``--analyze ROUNDS`` analyses each PostgreSQL run's database once its
``rounds`` table holds that many rows (during the warm-up), as autovacuum does within a minute of a real
server's start: PostgreSQL keeps the plan each pooled connection prepared, and a plan made on a young,
never-analysed table can read a player's every round where one index probe would do (in our runs the
start's start-key lookup went through ``ix_rounds_player_id`` instead of ``uq_rounds_start_key``), for the
whole of a short run. Analysing replaces those plans; both versions' databases get the same.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIGURES = (("rounds_per_s", "rounds/s", "{:,.1f}"), ("server_cpu_ms_per_round", "server CPU per round (ms)", "{:.3f}"),
           ("client_cpu_ms_per_round", "client CPU per round (ms)", "{:.3f}"))
POSTGRES_FIGURES = (("pg_cpu_ms_per_round", "PostgreSQL CPU per round (ms)", "{:.3f}"),
                    ("wal_bytes_per_round", "WAL per round (bytes)", "{:,.0f}"))
"""Where the cluster is this machine's (``--durable-pg``): PostgreSQL's own work per round, over half of each run."""


def _python(venv: Path) -> str:
    python = venv / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{venv}: no bin/python (give the folder of a virtual environment with reelforge installed)")
    return str(python)


def _fresh_pg(admin_url: str, python: str, create: bool, name: str) -> None:
    """Create (or drop) database ``name`` on the PostgreSQL server of ``admin_url``."""
    code = ("import sys, sqlalchemy as sa; e = sa.create_engine(sys.argv[1], isolation_level='AUTOCOMMIT'); "
            "c = e.connect(); c.execute(sa.text(sys.argv[2])); c.close(); e.dispose()")
    sql = f'CREATE DATABASE "{name}"' if create else f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
    subprocess.run([python, "-c", code, admin_url, sql], check=True)


_WATCH = """
import glob, json, os, sys, time, sqlalchemy as sa
url, rows, postmaster, window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
def cpu():  # PostgreSQL's CPU seconds: the postmaster's own and its ended children's, and its live children's
    fields = open(f"/proc/{postmaster}/stat").read().rpartition(")")[2].split()
    total = sum(int(v) for v in fields[11:15])
    for path in glob.glob("/proc/[0-9]*/stat"):
        try:
            child = open(path).read().rpartition(")")[2].split()
        except OSError:
            continue
        if int(child[1]) == postmaster:
            total += int(child[11]) + int(child[12])
    return total / os.sysconf("SC_CLK_TCK")
engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
began, out = time.monotonic(), {}
with engine.connect() as c:
    def sample():
        count, lsn = c.execute(sa.text("SELECT (SELECT count(*) FROM rounds), pg_current_wal_lsn()")).one()
        return count, lsn, cpu() if postmaster else 0.0, time.monotonic()
    while time.monotonic() - began < 60:
        live = c.execute(sa.text("SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'rounds'")).scalar()
        if (live or 0) >= rows:
            break
        time.sleep(0.1)
    else:
        sys.exit(f"the rounds table never reached {rows} rows")
    if sys.argv[5] == "analyze":
        c.execute(sa.text("ANALYZE"))
        out["analyzed_after_s"] = round(time.monotonic() - began, 2)
    if postmaster:
        first = sample()
        time.sleep(window)
        last = sample()
        rounds = last[0] - first[0]
        if rounds <= 0:
            sys.exit(f"no round was played in the {window} s window")
        wal = c.execute(sa.text("SELECT pg_wal_lsn_diff(:a, :b)"), {"a": last[1], "b": first[1]}).scalar()
        out.update(pg_cpu_ms_per_round=round((last[2] - first[2]) / rounds * 1000, 3),
                   wal_bytes_per_round=round(float(wal) / rounds), pg_window_rounds=rounds)
engine.dispose()
print(json.dumps(out))
"""
"""Watch a PostgreSQL run's database (``argv``: its URL, the rounds to wait for, the postmaster's process id or
0, the window's seconds, ``analyze`` or not): once its ``rounds`` table holds that many rows (PostgreSQL's count
of live rows, a second or so behind), analyse it if asked, then, where
the postmaster is known (a cluster of this machine's), PostgreSQL's CPU (the postmaster and all its children)
and the WAL it wrote per round over the window. Prints one JSON object."""


def bench_once(venv: Path, seconds: float, clients: int, pg: str | None, without: str | None = None,
               analyze: int = 0, postmaster: int = 0) -> dict:
    """One ``reelforge bench --server`` run of ``venv``'s version (on a fresh PostgreSQL database with ``pg``,
    analysed once its rounds table holds ``analyze`` rows when that is not 0, and with ``postmaster``, the
    cluster's process id, PostgreSQL's own CPU and WAL per round measured over half the run); ``without``:
    parts switched off, through this checkout's ``bench/server_bench.py --without``."""
    python = _python(venv)
    command = [python, "-m", "reelforge", "bench", "--server", "--json"] if without is None else \
        [python, str(HERE / "server_bench.py"), "--without", without]
    command += ["--seconds", str(seconds), "--clients", str(clients)]
    name = watcher = None
    if pg:
        name = f"reelforge_compare_{uuid.uuid4().hex[:10]}"
        _fresh_pg(pg, python, True, name)
        command += ["--db", pg.rsplit("/", 1)[0] + "/" + name]
    try:
        if pg and (analyze or postmaster):
            # The window starts once the table holds the rows asked for (500 without --analyze: a few tenths of
            # a second into the bench's 3 s warm-up) and ends well inside the measured run.
            watcher = subprocess.Popen([python, "-c", _WATCH, command[-1], str(analyze or 500), str(postmaster),
                                        str(seconds / 2), "analyze" if analyze else "no"],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = subprocess.run(command, capture_output=True, text=True, cwd=tempfile.gettempdir())
    finally:
        watched = watcher.communicate() if watcher is not None else ("", "")
        if name:
            _fresh_pg(pg, python, False, name)
    if out.returncode:
        raise SystemExit(f"{venv}: bench failed ({out.returncode}):\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout[out.stdout.index("{"):])
    if result.get("error_count"):
        raise SystemExit(f"{venv}: the bench's clients had errors: {result['errors']}")
    if watcher is not None:
        if watcher.returncode:
            raise SystemExit(f"{venv}: watching the run's database failed: {watched[1][-1000:]}")
        result.update(json.loads(watched[0]))
    return result


def instructions(venv: Path, rounds: int) -> dict:
    """callgrind's instructions per round of ``venv``'s version (see ``bench/server_instructions.py``)."""
    python = _python(venv)
    script = str(HERE / "server_instructions.py")
    with tempfile.TemporaryDirectory(prefix="reelforge-cg-") as tmp:
        # counting starts after the warm-up rounds (the script switches callgrind's instrumentation on)
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-before=getppid",
                        f"--callgrind-out-file={tmp}/cg.%p", python, script, "--rounds", str(rounds),
                        "--out", f"{tmp}/rounds.json", "--log-format", "json"], check=True, capture_output=True,
                       cwd=tmp, env={**os.environ, "REELFORGE_CALLGRIND_ON": "1"})
        out = subprocess.run([python, script, "--summarise", tmp], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def table(title: str, runs: dict[str, list[dict]]) -> list[str]:
    """A markdown table of ``runs`` (per version label) with the medians and the ratio new / old."""
    figures = FIGURES + tuple(f for f in POSTGRES_FIGURES if all(f[0] in r for rs in runs.values() for r in rs))
    lines = [f"### {title}", "", "| version | run | " + " | ".join(label for _, label, _ in figures) + " |",
             "|---|---|" + "---|" * len(figures)]
    medians: dict[str, dict[str, float]] = {}
    for version, results in runs.items():
        for i, r in enumerate(results, 1):
            lines.append(f"| {version} | {i} | " + " | ".join(fmt.format(r[key]) for key, _, fmt in figures) + " |")
        medians[version] = {key: statistics.median(r[key] for r in results) for key, _, _ in figures}
    for version, m in medians.items():
        lines.append(f"| {version} | median | " + " | ".join(fmt.format(m[key]) for key, _, fmt in figures) + " |")
    old, new = medians.values()
    lines.append("| new / old | | " + " | ".join(f"{new[key] / old[key]:.3f}" for key, _, _ in figures) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the previous version's virtual environment")
    parser.add_argument("new", type=Path, help="the new version's virtual environment")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--pairs", type=int, default=2, help="alternating old/new pairs per database")
    parser.add_argument("--pg", default=None, help="a PostgreSQL server URL: also compare on PostgreSQL")
    parser.add_argument("--durable-pg", action="store_true",
                        help="also compare on PostgreSQL: a durable cluster of its own (fsync, synchronous_commit "
                             "and full_page_writes on; reelforge.ops.pgcluster), started for the run")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    parser.add_argument("--instructions", type=int, default=0, metavar="ROUNDS",
                        help="also count callgrind's instructions over ROUNDS rounds per version")
    parser.add_argument("--without", default=None, metavar="PARTS",
                        help="switch these parts of NEW off (bench/serve_without.py; NEW must be this checkout's "
                             "venv, and the same venv given twice compares a version with and without them)")
    parser.add_argument("--analyze", type=int, default=0, metavar="ROUNDS",
                        help="analyse each PostgreSQL run's database once it holds ROUNDS rounds (0: never)")
    parser.add_argument("--json", action="store_true", help="print every run as JSON after the tables")
    args = parser.parse_args()
    versions = {"old": args.old.resolve(), "new": args.new.resolve()}  # the runs start in a temporary folder
    cluster = None
    args.postmaster = 0
    if args.durable_pg:
        from reelforge.ops.pgcluster import PostgresCluster

        cluster = PostgresCluster(max_connections=200)
        cluster.start()
        args.pg = cluster.url
        args.postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
    try:
        compare(args, versions)
    finally:
        if cluster is not None:
            cluster.close()


def compare(args: argparse.Namespace, versions: dict[str, Path]) -> None:
    """The runs and tables of :func:`main`."""
    title_pg = "PostgreSQL (durable)" if args.durable_pg else "PostgreSQL"
    databases = ([] if args.no_sqlite else [("SQLite", None)]) + ([(title_pg, args.pg)] if args.pg else [])
    results: dict[str, dict[str, list[dict]]] = {}
    for title, pg in databases:
        results[title] = {v: [] for v in versions}
        for pair in range(args.pairs):
            # alternate which goes first, so neither always follows the other
            order = list(versions.items()) if pair % 2 == 0 else list(versions.items())[::-1]
            for version, venv in order:
                r = bench_once(venv, args.seconds, args.clients, pg, args.without if version == "new" else None,
                               args.analyze, args.postmaster if pg else 0)
                results[title][version].append(r)
                print(f"{title} {version}: {r['rounds_per_s']} rounds/s, server {r['server_cpu_ms_per_round']} ms, "
                      f"client {r['client_cpu_ms_per_round']} ms per round, load {r['load_average_1min']}"
                      + (f", analysed after {r['analyzed_after_s']} s" if "analyzed_after_s" in r else "")
                      + (f", PostgreSQL {r['pg_cpu_ms_per_round']} ms and {r['wal_bytes_per_round']} WAL bytes per "
                         "round" if "pg_cpu_ms_per_round" in r else ""),
                      file=sys.stderr, flush=True)
    lines = [f"old: {args.old}  new: {args.new}{f' without {args.without}' if args.without is not None else ''}  "
             f"({args.clients} clients, {args.seconds:g} s a run"
             + (f"; each PostgreSQL database analysed once it held {args.analyze} rounds" if args.analyze else "")
             + ")", ""]
    for title, runs in results.items():
        lines += table(title, runs) + [""]
    if args.instructions:
        counted = {v: instructions(venv, args.instructions) for v, venv in versions.items()}
        lines += ["### Instructions per round (callgrind, ASGI app in process, SQLite, JSON logs)", "",
                  "| version | requests per round | rounds | median instructions of such a round |",
                  "|---|---|---|---|"]
        for version, c in counted.items():
            for n, m in c["median_by_requests_per_round"].items():
                lines.append(f"| {version} | {n} | {m['rounds']} | {m['median']:,} |")
            lines.append(f"| {version} | all ({c['requests']} requests) | {c['rounds']} | "
                         f"{c['instructions_per_round']:,} a round (mean), {c['instructions_per_request']:,} a request |")
        one = [c["median_by_requests_per_round"].get("1", {}).get("median") for c in counted.values()]
        if all(one):
            lines.append(f"| new / old | 1 | | {one[1] / one[0]:.3f} |")
        results["instructions"] = counted  # type: ignore[assignment]
    print("\n".join(lines))
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
