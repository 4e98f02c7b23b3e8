"""The conformance suite on more rounds than the unit tests play (a long run, outside the test suite).

    python bench/check_games.py [--rounds 100000] [--depth-rounds 100000] [--game forge-of-fortunes ...]
                                [--check kernel_matches_reference ...]

Runs :func:`reelforge.conformance.check_game` on every registered game (or those named), with
``--rounds`` reference rounds per build, mode and seed (the unit tests play 1,000) and
``--depth-rounds`` paid rounds per build streamed through kernel and reference engine by
``kernel_matches_reference_in_depth`` (the unit tests stream 20,000), and prints each check's time. Exit status 1 if any check fails (its message printed), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from reelforge.conformance import CHECKS, ConformanceError, Context  # noqa: E402
from reelforge.conformance.context import RTP_ROUNDS  # noqa: E402
from reelforge.games.registry import game_ids, get_game  # noqa: E402


def positive(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=positive, default=100_000, help="reference rounds per build, mode and seed")
    parser.add_argument("--depth-rounds", type=positive, default=100_000,
                        help="paid rounds per build of the in-depth kernel check (a tenth in other modes)")
    parser.add_argument("--rtp-rounds", type=positive, default=RTP_ROUNDS,
                        help="the most paid rounds the RTP check simulates per build (a simulated game's SD may need "
                             "more to decide within 0.05 pp)")
    parser.add_argument("--game", action="append", choices=game_ids(), help="a game to check (repeatable)")
    parser.add_argument("--check", action="append", choices=list(CHECKS), help="a check to run (repeatable)")
    args = parser.parse_args(argv)
    failed = 0
    for game_id in args.game or game_ids():
        ctx = Context(get_game(game_id), rounds=args.rounds, replay_rounds=min(1000, args.rounds),
                      kernel_rounds=max(20_000, args.rounds), depth_rounds=args.depth_rounds,
                      rtp_rounds=args.rtp_rounds)
        for name in args.check or CHECKS:
            start = time.perf_counter()
            try:
                CHECKS[name](ctx)
                verdict = "ok"
            except ConformanceError as exc:
                failed += 1
                verdict = f"FAILED: {exc}"
            print(f"{game_id:20} {name:36} {time.perf_counter() - start:8.1f} s  {verdict}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
