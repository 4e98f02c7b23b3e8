"""Game-server benchmark (HTTP rounds/s and latency): see :mod:`reelforge.bench.server`.

    python bench/server_bench.py [--clients 16] [--seconds 20] [--workers 1] [--db URL] [--game forge-of-fortunes]
                                 [--without PARTS]

(the same as ``reelforge bench --server``; this script runs the checkout's own ``src``). ``--without``
switches parts of the server off (``bench/serve_without.py``: pacing, fair_share, provably_fair, metrics),
to measure through HTTP what each costs.
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from reelforge.bench.server import main  # noqa: E402

if __name__ == "__main__":
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--without", default=None)
    known, rest = pre.parse_known_args()
    main(rest, None if known.without is None else [sys.executable, str(HERE / "serve_without.py"), known.without])
