"""Fingerprints of the rounds a game plays, to show a change leaves them identical (run before and after).

    python -P bench/round_fingerprints.py [--rounds 300000] [--game canyon-ways ...]

For every build of each game (by default the games built on the mechanics library: Canyon Ways, Seven Lines,
Golden Vault): a hash of the kernel's per-round wins (``kernel_round_wins``, seed 5), of a whole
``simulate_chunk`` tally (seed 6), and of the events and wins of 300 reference rounds (seeds 0-299), one line
each. Two trees whose lines are equal play the same rounds on these streams.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from reelforge.core.draws import SeededDraws  # noqa: E402
from reelforge.games.registry import get_game  # noqa: E402

LIBRARY_GAMES = ("canyon-ways", "seven-lines", "golden-vault")


def digest(value: Any) -> str:
    """A short SHA-256 of ``value`` as JSON (arrays as lists, other objects by their fields)."""
    def plain(o: Any) -> Any:
        return o.tolist() if hasattr(o, "tolist") else vars(o) if hasattr(o, "__dict__") else str(o)
    return hashlib.sha256(json.dumps(value, default=plain, sort_keys=True).encode()).hexdigest()[:16]


def fingerprints(game_id: str, rounds: int) -> list[str]:
    """One line per build: game, build, the kernel wins' hash and sum, the tally's hash, the reference rounds'."""
    game = get_game(game_id)
    lines = []
    for name in game.build_names():
        build = game.load_build(name)
        wins = game.kernel_round_wins(build, rounds, 5)
        tally = game.simulate_chunk(build, rounds, np.random.SeedSequence(6))
        reference = [[(step.events, str(step.total_win)) for step in game.play_round(build, SeededDraws(s)).steps]
                     for s in range(300)]
        lines.append(f"{game_id} {name} {digest(wins.tolist())} {int(wins.sum())} {digest(tally)} {digest(reference)}")
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=float, default=3e5)
    p.add_argument("--game", action="append")
    a = p.parse_args(argv)
    for game_id in a.game or LIBRARY_GAMES:
        print("\n".join(fingerprints(game_id, int(a.rounds))))


if __name__ == "__main__":
    main()
