"""Retune the five Forge of Gems builds to their names on every independent sample there is (issue 34).

    .venv/bin/python bench/fog_retune.py TALLIES_DIR VERSION [--write]

The five builds share one design and differ only in the 3-scatter GEMBOX prize weight, and the RTP
estimate of a sample is a function of that weight (the samples do not depend on it: one sample measures
every candidate, with common random numbers). Three independent samples measured the builds of
version 2.0 (docs/maths.md, "Forge of Gems"):

* **T**, the tuning sample (seeds 20261201, 1201001-1201003: 2e9 paid spins + 1e8 features, the strata
  estimator): each build was tuned to read exactly its name there. Its 99% half-width is the verify
  sample's scaled by sqrt(2.4e9 / 2e9) (the same estimator, 5/6 of the spins);
* **V**, the verify sample (seeds 1201011-1201016: 2.4e9 paid spins + 1.2e8 features): the table of
  docs/maths.md;
* **C**, the first 21 main pieces of ``reelforge certify forge-of-gems --build 96.2 --precision 0.025``
  at its default seed 2026 (2,048,000,000 paid spins, the split-spins estimator; ``--max-rounds
  2048000000`` stops the run there). ``TALLIES_DIR`` is that run's folder; this script reads its
  ``tallies/main-000.npz`` .. ``main-020.npz`` and nothing else.

For each build, the three readings of the version 2.0 weight are combined by inverse variance (each 99%
half-width h gives variance (h / 2.576)^2); the offset of the combined reading from the name is then
removed by moving the prize weight along C's reading (a difference of two estimates on one sample, so
far more precise than either). The chosen weight is the integer whose combined reading is nearest the
name. Nothing of a later certification enters: the weights are a function of the inputs above alone,
so they are fixed before any run that certifies them.

With ``--write`` the builds are written as ``VERSION`` (the published files kept under
``builds/older/<name>/<their version>.toml``); lock them with ``python -m reelforge.games.published --add``.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
from pathlib import Path

from reelforge.game.buildfile import OLDER
from reelforge.game.estimation import Sample
from reelforge.games.forge_of_gems.template import BUILD_NAMES, make_build
from reelforge.games.registry import get_game

Z99 = 2.5758293035489004
C_PIECES = 21
VERIFY = {  # build: (prize weight of version 2.0, V's RTP in %, V's 99% half-width in pp) -- docs/maths.md
    "96.2": (3100, 96.220, 0.071), "94.2": (3442, 94.217, 0.069), "91.2": (3954, 91.218, 0.066),
    "87.2": (4637, 87.219, 0.062), "84.2": (5150, 84.215, 0.059)}
T_SCALE = math.sqrt(2.4e9 / 2.0e9)
"""T's half-width over V's: the same estimator on 2e9 paid spins + 1e8 features against 2.4e9 + 1.2e8."""


def c_sample(folder: Path) -> Sample:
    """C: the first :data:`C_PIECES` main pieces of the seed-2026 certification run, merged in order."""
    game = get_game("forge-of-gems")
    est = game.stratified_estimator()
    merged = None
    for i in range(C_PIECES):
        s = Sample.load(folder / "tallies" / f"main-{i:03d}.npz", game.id, est.kind)
        merged = s if merged is None else est.merge(merged, s)
    return merged


def combine(readings: list[tuple[float, float]]) -> tuple[float, float]:
    """Inverse-variance mean of independent (value, 99% half-width) readings, and its 99% half-width."""
    w = [1 / (h / Z99) ** 2 for _, h in readings]
    value = sum(wi * v for wi, (v, _) in zip(w, readings, strict=True)) / sum(w)
    return value, Z99 / math.sqrt(sum(w))


def retune(name: str, sample: Sample) -> dict:
    """The prize weight whose combined reading is nearest ``name``, with the readings behind it."""
    est = get_game("forge-of-gems").stratified_estimator()

    def c_rtp(prize: int) -> tuple[float, float]:
        e = est.estimate(sample, make_build(name, prize))
        return 100 * e.rtp, 100 * (e.rtp_ci99[1] - e.rtp_ci99[0]) / 2

    p0, v_rtp, v_h = VERIFY[name]
    c0, c_h = c_rtp(p0)
    combined, h = combine([(float(name), v_h * T_SCALE), (v_rtp, v_h), (c0, c_h)])
    offset = combined - c0  # the combined reading of any weight p: C's reading of p plus this
    slope = (c_rtp(p0 + 100)[0] - c_rtp(p0 - 100)[0]) / 200
    p = round(p0 + (float(name) - combined) / slope)
    best = min(range(p - 3, p + 4), key=lambda q: abs(c_rtp(q)[0] + offset - float(name)))
    c_best, c_best_h = c_rtp(best)
    return {"name": name, "old_prize": p0, "T": (float(name), v_h * T_SCALE), "V": (v_rtp, v_h), "C": (c0, c_h),
            "combined": (combined, h), "slope_pp_per_weight": slope, "prize": best,
            "C_new": (c_best, c_best_h), "combined_new": c_best + offset}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tallies", type=Path)
    ap.add_argument("version")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    sample = c_sample(args.tallies)
    game = get_game("forge-of-gems")
    files = game.build_files
    for name in BUILD_NAMES:
        r = retune(name, sample)
        print(f"{name}: weight {r['old_prize']} reads T {r['T'][0]:.4f} +-{r['T'][1]:.4f}, V {r['V'][0]:.4f} "
              f"+-{r['V'][1]:.4f}, C {r['C'][0]:.4f} +-{r['C'][1]:.4f}; combined {r['combined'][0]:.4f} "
              f"+-{r['combined'][1]:.4f} pp. Slope {r['slope_pp_per_weight']:.6f} pp a unit. New weight "
              f"{r['prize']}: combined {r['combined_new']:.4f}% (C alone {r['C_new'][0]:.4f}%)")
        if not args.write:
            continue
        old = game.load_build(name)
        kept = files.folder / OLDER / name / f"{old.identity.version}.toml"
        if not kept.exists():
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(files.folder / f"{name}.toml", kept)
        data = files.to_data(make_build(name, r["prize"]))
        data["version"] = args.version
        files.write(files.parse(data, name), files.folder / f"{name}.toml",
                    f"Forge of Gems build {name}, version {args.version}: retuned by bench/fog_retune.py on three "
                    f"independent samples\n(T, V and C of its docstring): 3-scatter prize weight {r['prize']} "
                    f"(version {old.identity.version}: {r['old_prize']}), combined reading {r['combined_new']:.4f}% "
                    f"+-{r['combined'][1]:.4f} pp.\nrtp: the name; its proof is the certification "
                    "(docs/maths.md, \"Forge of Gems\").")
    return 0


if __name__ == "__main__":
    sys.exit(main())
