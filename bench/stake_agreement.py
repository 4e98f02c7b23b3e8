"""Do reelforge's sample lines game and math-sdk's own agree? Figures of ``games/0_0_lines`` from both.

1. The paid spin: reelforge's exact figures (:mod:`reelforge.games.mathsdk_lines.exact`: the expected line
   win, the Scatter counts) against math-sdk's own board drawing and line evaluation
   (``create_board_reelstrips``, ``Lines.get_lines``) run on ``--spins`` boards here.
2. The books: each criterion's mean payout in math-sdk's ``create_books`` books (``--books`` of the base
   mode, made here, or those already in the checkout with ``--reuse``) against reelforge's books of the
   same criteria (``--ours`` books).

Every simulated figure comes with its standard error; ``z`` is the difference over the combined error
(|z| < 3 is agreement at the 99.7% level).

    python bench/stake_agreement.py /tmp/math-sdk /tmp/math-sdk-venv/bin/python --spins 200000 --books 100000
"""

from __future__ import annotations

import argparse
import io
import json
import math
import subprocess
import sys
from pathlib import Path

SPIN_DRIVER = r"""
import json, os, random, sys
sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "games", "0_0_lines")]
from game_config import GameConfig
from gamestate import GameState
from src.calculations.lines import Lines
n, seed = int(sys.argv[1]), int(sys.argv[2])
config = GameConfig()
state = GameState(config)
state.betmode, state.criteria = "base", "basegame"
state.reset_book()
random.seed(seed)
win = win2 = 0.0
scatters = {}
for _ in range(n):
    state.create_board_reelstrips()
    w = Lines.get_lines(state.board, config)["totalWin"]
    win += w
    win2 += w * w
    k = len(state.special_syms_on_board["scatter"])
    scatters[k] = scatters.get(k, 0) + 1
print("AGREE " + json.dumps({"n": n, "win": win, "win2": win2, "scatters": scatters}))
"""

BOOK_DRIVER = r"""
import os, sys
sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "games", "0_0_lines")]
from game_config import GameConfig
from gamestate import GameState
from src.state.run_sims import create_books
config = GameConfig()
create_books(GameState(config), config, {"base": int(sys.argv[1])}, 5000, 1, True, False)
"""


def _by_criterion(lines: list[dict]) -> dict[str, tuple[int, float, float]]:
    """Per criterion: books, mean payout (multiples of the bet), standard error of the mean."""
    groups: dict[str, list[float]] = {}
    for book in lines:
        groups.setdefault(str(book["criteria"]), []).append(book["payoutMultiplier"] / 100)
    out = {}
    for name, xs in groups.items():
        n = len(xs)
        mean = sum(xs) / n
        var = sum((x - mean) ** 2 for x in xs) / max(n - 1, 1)
        out[name] = (n, mean, math.sqrt(var / n))
    return out


def _read_books(path: Path) -> list[dict]:
    import zstandard

    with path.open("rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as reader:
        return [json.loads(x) for x in io.TextIOWrapper(reader, encoding="utf-8") if x.strip()]


def _z(a: float, sa: float, b: float, sb: float) -> str:
    se = math.hypot(sa, sb)
    return f"{(a - b) / se:+.2f}" if se > 0 else ("equal" if a == b else "DIFFERENT")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mathsdk", type=Path)
    parser.add_argument("python")
    parser.add_argument("--spins", type=int, default=200_000)
    parser.add_argument("--books", type=int, default=100_000)
    parser.add_argument("--ours", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--reuse", action="store_true", help="use the books already in the checkout's library")
    args = parser.parse_args()

    from reelforge.games.mathsdk_lines import books
    from reelforge.games.mathsdk_lines.build import FILES
    from reelforge.games.mathsdk_lines.exact import paid_spin_figures

    build = FILES.load("63e9cc6")
    exact = paid_spin_figures(build)
    done = subprocess.run([args.python, "-c", SPIN_DRIVER, str(args.spins), str(args.seed)], cwd=args.mathsdk,
                          capture_output=True, text=True, check=True)
    spins = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("AGREE "))[6:])
    n = spins["n"]
    mean = spins["win"] / n
    se = math.sqrt((spins["win2"] / n - mean * mean) / n)
    print(f"Paid spin (BR0): reelforge exact against math-sdk's own evaluation of {n:,} boards")
    print(f"  line win per spin   exact {float(exact['line_win_x']):.6f}x   math-sdk {mean:.6f}x +- {se:.6f}   "
          f"z {_z(mean, se, float(exact['line_win_x']), 0)}")
    for k in range(6):
        p = float(exact.get(f"scatters_{k}", 0))
        seen = spins["scatters"].get(str(k), 0) / n
        sp = math.sqrt(p * (1 - p) / n)
        print(f"  {k} Scatters          exact {p:.6f}    math-sdk {seen:.6f} ({spins['scatters'].get(str(k), 0):,})   "
              f"z {_z(seen, sp, p, 0)}")

    publish = args.mathsdk / "games" / "0_0_lines" / "library" / "publish_files" / "books_base.jsonl.zst"
    if not args.reuse or not publish.exists():
        subprocess.run([args.python, "-c", BOOK_DRIVER, str(args.books)], cwd=args.mathsdk, capture_output=True,
                       check=True)
    theirs = _by_criterion(_read_books(publish))
    run = books.generate(build, args.ours, args.seed, None)
    ours: dict[str, tuple[int, float, float]] = {}
    for i, c in enumerate(books.CRITERIA):
        xs = run.payouts[run.criteria == i] / 100
        ours[c.name] = (len(xs), float(xs.mean()), float(xs.std(ddof=1) / math.sqrt(len(xs))) if len(xs) > 1 else 0.0)
    print(f"Books of the base mode by criterion: mean payout (x the bet) +- standard error "
          f"(math-sdk {sum(v[0] for v in theirs.values()):,} books, reelforge {args.ours:,})")
    for name, (n_o, m_o, s_o) in ours.items():
        n_t, m_t, s_t = theirs.get(name, (0, float("nan"), 0.0))
        print(f"  {name:9s} math-sdk {m_t:10.4f} +- {s_t:.4f} ({n_t:,})   reelforge {m_o:10.4f} +- {s_o:.4f} ({n_o:,})   "
              f"z {_z(m_t, s_t, m_o, s_o)}")


if __name__ == "__main__":
    sys.exit(main())
