"""``reelforge exact`` on every enumerable game, each in a fresh process: its CPU seconds (user + system of the
process, the import and the cached kernels' loading included) and wall seconds, and its figures held to what is
published (a long run, outside the test suite; the figures and times go to docs/maths.md).

    .venv/bin/python bench/exact_games.py [--limit-s 60] [--record]

Checks, exit status 1 if one fails: demo_normal's exact RTP through the generic evaluator is the fraction
36061431031/37754526264 its linear derivation gives; every Seven Lines and Golden Vault build's file states its
exact RTP and it is within 0.01 pp of the build's name; Golden Vault's largest reachable win is 2,600x; each run
takes at most ``--limit-s`` CPU seconds. ``--record`` writes each Seven Lines and Golden Vault build's exact RTP,
largest win and its probability to the game's ``exact_figures.toml`` (by content hash: what the lobby, the help and
``reelforge games`` show; check_game holds every entry to the exact figures).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from fractions import Fraction

RUNS = [
    ("seven-lines", "96.0", []), ("seven-lines", "94.0", []),
    ("golden-vault", "96.0", []), ("golden-vault", "94.0", []),
    ("forge-of-fortunes", "96.2", []),
    ("problab-demo-normal", None, ["--game-class", "reelforge.games.problab.demo_normal.game:DemoNormal"]),
]
DEMO_NORMAL_RTP = Fraction(36061431031, 37754526264)


def run(game: str, build: str | None, extra: list[str]) -> tuple[dict, float, float]:
    """One ``reelforge exact --json`` in a fresh process: (its JSON, CPU seconds, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    args = [sys.executable, "-m", "reelforge", "exact", game, *extra, "--json"] + (["--build", build] if build else [])
    proc = subprocess.run(args, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout), cpu, wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit-s", type=float, default=60.0, help="the most CPU seconds a run may take")
    ap.add_argument("--record", action="store_true", help="write the exact figures to the games' exact_figures.toml")
    args = ap.parse_args(argv)
    from reelforge.games.registry import get_game

    failed = []
    records: dict[str, dict[str, dict[str, str]]] = {}
    for game, build, extra in RUNS:
        out, cpu, wall = run(game, build, extra)
        rtp = Fraction(out["rtp"]["exact"])
        print(f"{game:20} {out['build']:8} v{out['build_version']:5} RTP {out['rtp_percent']}%  hit "
              f"{out['hit_rate']['value'] * 100:.4f}%  feature 1 in {out['feature_frequency_one_in']:,.2f}  SD "
              f"{out['sd']:.4f}  max {out['max_win_x']['exact']}x (1 in {out['max_win_one_in']:,.4g})  "
              f"{cpu:6.1f} CPU s {wall:6.1f} wall s", flush=True)
        if cpu > args.limit_s:
            failed.append(f"{game} {out['build']}: {cpu:.1f} CPU s, more than {args.limit_s}")
        if game == "problab-demo-normal" and rtp != DEMO_NORMAL_RTP:
            failed.append(f"demo_normal's generic RTP {rtp} is not {DEMO_NORMAL_RTP}")
        if game in ("seven-lines", "golden-vault"):
            records.setdefault(game, {})[out["build_hash"]] = {
                "build": out["build"], "version": out["build_version"], "rtp": out["rtp"]["exact"],
                "max_win_x": out["max_win_x"]["exact"], "max_win_probability": out["max_win_probability"]["exact"]}
            b = get_game(game).load_build(out["build"])
            if b.rtp != rtp or abs(rtp - Fraction(out["build"]) / 100) > Fraction(1, 10_000):
                failed.append(f"{game} {out['build']}: file states {float(b.rtp):.8%}, exact {float(rtp):.8%}")
        if game == "golden-vault" and Fraction(out["max_win_x"]["exact"]) != 2600:
            failed.append(f"golden-vault {out['build']}: largest reachable win {out['max_win_x']['exact']}x, not 2,600x")
    for line in failed:
        print(f"FAILED: {line}")
    if args.record and not failed:
        for game, entries in records.items():
            path = get_game(game).exact_record_path()
            lines = [f"# {game}: exact figures of its builds by content hash (bench/exact_games.py --record, from "
                     "`reelforge exact`): shown in\n# the lobby, the help and `reelforge games`; check_game's "
                     "max_win_reachable holds every entry to the exact figures."]
            for digest, e in entries.items():
                lines += ["", f'["{digest}"]', *(f'{k} = "{v}"' for k, v in e.items())]
            path.write_text("\n".join(lines) + "\n")
            print(f"recorded {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
