"""``reelforge serve`` with parts of the server switched off, to measure through HTTP what each costs.

    python bench/serve_without.py PARTS SERVE_OPTIONS...     (PARTS: comma-separated, from
                                                              server_instructions.WITHOUT; "" for none)

The parts are ``bench/server_instructions.py``'s switches (``pacing``, ``fair_share``, ``provably_fair``,
``metrics``), applied to the configuration ``serve`` loads and to the app module before the app is created
(one server process only: ``--workers 1``). ``python bench/server_bench.py --without PARTS`` starts its
server this way; a production server never runs with any of them off.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from server_instructions import WITHOUT, switched_off  # noqa: E402


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    parts = tuple(p for p in sys.argv[1].split(",") if p)
    if unknown := sorted(set(parts) - set(WITHOUT)):
        raise SystemExit(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(WITHOUT)}")
    if "--workers" in sys.argv and sys.argv[sys.argv.index("--workers") + 1] != "1":
        raise SystemExit("the parts are switched off in this process only: --workers 1")
    from reelforge.cli import main as cli
    from reelforge.server import commands

    loaded = commands._config
    commands._config = lambda *args: switched_off(loaded(*args), parts)
    sys.argv = ["reelforge", "serve", *sys.argv[2:]]
    cli()


if __name__ == "__main__":
    main()
