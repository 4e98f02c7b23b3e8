"""Game-server benchmark (HTTP rounds/s and latency): see :mod:`reelforge.bench.server`.

    python bench/server_bench.py [--clients 16] [--seconds 20] [--workers 1] [--db URL] [--game forge-of-fortunes]

(the same as ``reelforge bench --server``; this script runs the checkout's own ``src``).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from reelforge.bench.server import main  # noqa: E402

if __name__ == "__main__":
    main()
