"""Convert problab's two published demo configurations (YAML, Apache-2.0) once into reelforge build
files, with the peer's LICENSE and NOTICE copied beside them.

    .venv/bin/python bench/peers/problab_builds.py [--peer-dir /work/shared/peers/problab]

A published build file never changes: this refuses to overwrite one that differs.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from fractions import Fraction
from pathlib import Path

from reelforge.games.problab.demo_cascade.build import CASCADE_FILES
from reelforge.games.problab.demo_normal.build import NORMAL_FILES
from reelforge.games.problab.peer_yaml import from_peer_yaml

NAME = "b825b02"
"""The build name: the upstream commit the files come from."""
FILES = {"game_0_demonormal.yaml": NORMAL_FILES, "game_1_democascade.yaml": CASCADE_FILES}
HEADER = ("Converted from problab's {src} (zintix-labs/problab {name}, Apache-2.0; LICENSE and NOTICE\n"
          "beside this file) by bench/peers/problab_builds.py. Codes index 'symbols'; pays[symbol][count - 1]\n"
          "in units of the bet unit, as the peer's pay_table. rtp: {rtp_note}\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-dir", default="/work/shared/peers/problab")
    ap.add_argument("--rtp", nargs=2, default=None, metavar=("NORMAL", "CASCADE"),
                    help="the builds' rtp fields (exact fractions): demo_normal's exact RTP, demo_cascade's estimate")
    args = ap.parse_args()
    peer = Path(args.peer_dir)
    rtps = [Fraction(x) for x in args.rtp] if args.rtp else [Fraction(0), Fraction(0)]
    notes = ["exact (reelforge.games.problab.demo_normal.exact)", "estimated by simulation, 4e7 rounds (README: problab demo games)"]
    for (src, files), rtp, note in zip(FILES.items(), rtps, notes, strict=True):
        build = from_peer_yaml(peer / src, NAME, rtp)
        text = files.text(build, HEADER.format(src=src, name=NAME, rtp_note=note))
        path = files.folder / f"{NAME}.toml"
        if path.exists() and path.read_text() != text:
            print(f"{path} exists and differs: a published build never changes", file=sys.stderr)
            return 1
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        for legal in ("LICENSE", "NOTICE"):
            shutil.copyfile(peer / legal, files.folder / legal)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
