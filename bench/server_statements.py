"""Statements per paid round inside the game server, on SQLite or PostgreSQL: every statement the database
driver runs (COMMIT included) for each money request, by kind and table, and their total per round.

    python bench/server_statements.py [--rounds 60] [--warmup 10] [--pg ADMIN_URL | --db URL] [--json]

Drives the server's ASGI app in process as ``bench/server_instructions.py`` does (its driver and its
statement tracer: SQLite's trace callback, psycopg's cursor methods; SQLAlchemy's events would miss SQLite's
money requests, which run on the driver's connection), on a fresh SQLite file, or with ``--pg`` on a fresh
database created (and dropped) on that PostgreSQL server. Prints each request kind's statement sequences
with how often each occurred, then the statements per paid round: in all, and by kind and table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import uuid
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("server_instructions", HERE / "server_instructions.py")
instructions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(instructions)


def count(rounds: int, warmup: int, db: str | None, game: str | None = None) -> dict:
    """Play ``warmup`` then ``rounds`` paid rounds; the measured rounds' statements, summarised."""
    instructions.STATEMENTS.clear()
    requests = instructions.play(rounds, warmup, db, "json", game, (), statements=True)
    sequences: dict[str, Counter] = {}
    per_round: Counter = Counter()
    for kind, sqls in instructions.STATEMENTS:
        sequences.setdefault(kind, Counter())[", ".join(sqls)] += 1
        per_round.update(sqls)
    total = sum(per_round.values())
    return {"rounds": rounds, "requests": sum(requests),
            "statements_per_round": round(total / rounds, 3),
            "per_round_by_statement": {sql: round(n / rounds, 3) for sql, n in per_round.most_common()},
            "sequences": {kind: [{"count": n, "statements": len(seq.split(", ")), "sequence": seq}
                                 for seq, n in seqs.most_common()] for kind, seqs in sequences.items()}}


def _pg(admin_url: str, sql: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(sql))
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    where.add_argument("--pg", default=None, metavar="ADMIN_URL",
                       help="a PostgreSQL server (postgresql+psycopg://user@host:port/db): a fresh database there")
    parser.add_argument("--game", default=None, help="default: the registry's first game")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args()
    if args.rounds < 1 or args.warmup < 0:
        parser.error("--rounds must be at least 1 and --warmup at least 0")
    db, name = args.db, None
    if args.pg:
        name = f"reelforge_statements_{uuid.uuid4().hex[:10]}"
        _pg(args.pg, f'CREATE DATABASE "{name}"')
        db = args.pg.rsplit("/", 1)[0] + "/" + name
    try:
        result = count(args.rounds, args.warmup, db, args.game)
    finally:
        if name:
            _pg(args.pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    result["database"] = "postgresql" if args.pg or (db or "").startswith("postgresql") else "sqlite"
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['database']}: {result['rounds']} paid rounds, {result['requests']} requests, "
          f"{result['statements_per_round']} statements a round")
    for kind, seqs in result["sequences"].items():
        for seq in seqs:
            print(f"  {seq['count']:5d} x {kind}: {seq['statements']} statements: {seq['sequence']}")
    print("  per round, by kind and table:")
    for sql, n in result["per_round_by_statement"].items():
        print(f"    {n:8.3f}  {sql}")


if __name__ == "__main__":
    main()
