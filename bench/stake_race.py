"""The Stake book-generation race: math-sdk's own ``create_books`` on its sample lines game
(``games/0_0_lines``, base mode) against reelforge's writer of the same game's books
(:mod:`reelforge.games.mathsdk_lines.books`), the same number of books, one core each, one after the
other in this run.

Both sides simulate every book under the sample's criteria (wincap, freegame, 0, basegame, redrawn until
met), write its events as JSON lines, zstandard-compress them (level 3, math-sdk's default) and write the
lookup table. Each side runs in a process of its own pinned to one CPU; the figure is the CPU seconds
of the generation call in that process (``time.process_time`` around ``create_books`` / ``generate``),
and the whole process's CPU seconds beside it (interpreter start and imports included). The machine
may be shared: CPU seconds, not wall time, are compared.

    python bench/stake_race.py /tmp/math-sdk /tmp/math-sdk-venv/bin/python --books 100000

``MATHSDK`` is a math-sdk checkout (StakeEngine/math-sdk; its games/0_0_lines writes into its own
``library/`` folder there), ``PYTHON`` a Python with its requirements installed. math-sdk's code runs
from the checkout; none of it is part of reelforge.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MATHSDK_DRIVER = r"""
import json, os, sys, time
sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "games", "0_0_lines")]
from game_config import GameConfig
from gamestate import GameState
from src.state.run_sims import create_books
books = int(sys.argv[1])
config = GameConfig()
state = GameState(config)
start = time.process_time()
create_books(state, config, {"base": books}, 5000, 1, True, False)
cpu = time.process_time() - start
path = os.path.join(os.getcwd(), "games", "0_0_lines", "library", "publish_files", "books_base.jsonl.zst")
print("RACE " + json.dumps({"cpu": cpu, "compressed": os.path.getsize(path)}))
"""

REELFORGE_DRIVER = r"""
import json, sys, time
from pathlib import Path
from reelforge.games.mathsdk_lines import books, registered
from reelforge.games.registry import get_game
n, seed, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
with registered():
    build = get_game("mathsdk-lines").load_build("63e9cc6")
    books.generate(build, 1000, seed + 1, None)     # loads the compiled kernels (numba's cache)
    start = time.process_time()
    run = books.generate(build, n, seed, out)
    cpu = time.process_time() - start
print("RACE " + json.dumps({"cpu": cpu, "compressed": run.bytes_compressed, "json": run.bytes_json,
                            "attempts": run.attempts}))
"""


def _one_core() -> None:
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})


def _run(cmd: list[str], cwd: Path | None) -> dict:
    """Run a side in a process of its own on one CPU: its RACE figures and its whole CPU seconds."""
    before = os.times()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, preexec_fn=_one_core,
                          env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
    after = os.times()
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(cmd[:2])} failed:\n{done.stderr[-2000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("RACE "))
    figures = json.loads(line[5:])
    figures["process_cpu"] = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mathsdk", type=Path, help="a StakeEngine/math-sdk checkout")
    parser.add_argument("python", help="a Python with math-sdk's requirements")
    parser.add_argument("--books", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    if not (args.mathsdk / "games" / "0_0_lines" / "game_config.py").exists():
        sys.exit(f"error: {args.mathsdk} is not a math-sdk checkout (no games/0_0_lines/game_config.py)")
    if args.books < 1000:
        sys.exit("error: --books must be at least 1000 (the sample's criteria need a book each)")

    started = time.time()
    theirs = _run([args.python, "-c", MATHSDK_DRIVER, str(args.books)], args.mathsdk)
    with tempfile.TemporaryDirectory(prefix="stake-race-") as out:
        ours = _run([sys.executable, "-c", REELFORGE_DRIVER, str(args.books), str(args.seed), out], None)
    n = args.books
    print(f"Stake books of math-sdk's sample lines game (base mode), {n:,} books, one core each "
          f"(CPU seconds of the generation call; whole process in brackets); {time.time() - started:.0f} s wall")
    for name, f in (("math-sdk create_books", theirs), ("reelforge books.generate", ours)):
        print(f"  {name:26s} {f['cpu']:9.2f} s CPU ({f['process_cpu']:.2f})  {n / f['cpu']:12,.0f} books/s  "
              f"{f['compressed'] / n:7.1f} compressed bytes a book")
    print(f"  reelforge wrote {ours['json'] / n:.0f} JSON bytes a book, {ours['attempts'] / n:.2f} rounds drawn a book")
    print(f"  ratio: {theirs['cpu'] / ours['cpu']:.0f}x (generation call), "
          f"{theirs['process_cpu'] / ours['process_cpu']:.0f}x (whole processes)")


if __name__ == "__main__":
    main()
