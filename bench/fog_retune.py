"""Retune the five Forge of Gems builds to their names on every independent sample there is (issue 34).

    .venv/bin/python bench/fog_retune.py VERSION --run DIR[:PIECES] [--run DIR[:PIECES] ...] [--write]

The five builds share one design and differ only in the 3-scatter GEMBOX prize weight, and the RTP
estimate of a sample is a function of that weight (the samples do not depend on it: one sample measures
every candidate, with common random numbers). The readings combined, all of the version 2.0 weights:

* **T**, the tuning sample (seeds 20261201, 1201001-1201003: 2e9 paid spins + 1e8 features, the strata
  estimator): each build was tuned to read its name there. Its 99% half-width is the verify sample's
  scaled by sqrt(2.4e9 / 2e9) (the same estimator, 5/6 of the spins);
* **V**, the verify sample (seeds 1201011-1201016: 2.4e9 paid spins + 1.2e8 features): the table of
  docs/maths.md;
* each ``--run DIR[:PIECES]``: the first PIECES main pieces (default all) of a Forge of Gems certification
  run's folder DIR (the split-spins estimator), merged. Runs of one seed share their spins, so two runs
  with the same seed are refused.

Version 3.0 is ``fog_retune.py 3.0 --run C:21 --write``, C being ``reelforge certify forge-of-gems --build 96.2
--precision 0.025`` at its default seed 2026 (its first 21 pieces, 2,048,000,000 paid spins; ``--max-rounds
2048000000`` stops it there).

For each build, the readings are combined by inverse variance (each 99% half-width h gives variance
(h / 2.576)^2); the offset of the combined reading from the name is then removed by moving the prize weight
along the first run's reading (a difference of two estimates on one sample, so far more precise than
either). The chosen weight is the integer whose combined reading is nearest the name. Nothing of a later
certification enters: the weights are a function of the inputs above alone, so they are fixed before any
run that certifies them.

With ``--write`` the builds are written as ``VERSION`` (the published files kept under
``builds/older/<name>/<their version>.toml``); lock them with ``python -m reelforge.games.published --add``.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path

from reelforge.game.buildfile import OLDER
from reelforge.game.estimation import Sample
from reelforge.games.forge_of_gems.template import BUILD_NAMES, make_build
from reelforge.games.registry import get_game

Z99 = 2.5758293035489004
VERIFY = {  # build: (prize weight of version 2.0, V's RTP in %, V's 99% half-width in pp) -- docs/maths.md
    "96.2": (3100, 96.220, 0.071), "94.2": (3442, 94.217, 0.069), "91.2": (3954, 91.218, 0.066),
    "87.2": (4637, 87.219, 0.062), "84.2": (5150, 84.215, 0.059)}
T_SCALE = math.sqrt(2.4e9 / 2.0e9)
"""T's half-width over V's: the same estimator on 2e9 paid spins + 1e8 features against 2.4e9 + 1.2e8."""


def run_sample(spec: str) -> tuple[Sample, str]:
    """``DIR[:PIECES]``: the first PIECES main pieces (default all) of a certification run's folder, merged in
    order, and a label naming them."""
    folder, _, count = spec.partition(":")
    state = json.loads((Path(folder) / "state.json").read_text())
    pieces = state["main"][: int(count)] if count else state["main"]
    game = get_game("forge-of-gems")
    est = game.stratified_estimator()
    merged = None
    for p in pieces:
        s = Sample.load(Path(folder) / "tallies" / f"main-{p['index']:03d}.npz", game.id, est.kind)
        merged = s if merged is None else est.merge(merged, s)
    return merged, f"seed {state['plan']['seed']}, {len(pieces)} pieces, {sum(p['rounds'] for p in pieces):,} paid spins"


def combine(readings: list[tuple[float, float]]) -> tuple[float, float]:
    """Inverse-variance mean of independent (value, 99% half-width) readings, and its 99% half-width."""
    w = [1 / (h / Z99) ** 2 for _, h in readings]
    value = sum(wi * v for wi, (v, _) in zip(w, readings, strict=True)) / sum(w)
    return value, Z99 / math.sqrt(sum(w))


def retune(name: str, samples: list[Sample]) -> dict:
    """The prize weight whose combined reading is nearest ``name``, with the readings behind it."""
    est = get_game("forge-of-gems").stratified_estimator()

    def rtp(sample: Sample, prize: int) -> tuple[float, float]:
        e = est.estimate(sample, make_build(name, prize))
        return 100 * e.rtp, 100 * (e.rtp_ci99[1] - e.rtp_ci99[0]) / 2

    p0, v_rtp, v_h = VERIFY[name]
    runs = [rtp(s, p0) for s in samples]
    combined, h = combine([(float(name), v_h * T_SCALE), (v_rtp, v_h), *runs])
    first = samples[0]
    offset = combined - runs[0][0]  # the combined reading of any weight p: the first run's reading of p plus this
    slope = (rtp(first, p0 + 100)[0] - rtp(first, p0 - 100)[0]) / 200
    p = round(p0 + (float(name) - combined) / slope)
    best = min(range(p - 3, p + 4), key=lambda q: abs(rtp(first, q)[0] + offset - float(name)))
    return {"name": name, "old_prize": p0, "T": (float(name), v_h * T_SCALE), "V": (v_rtp, v_h), "runs": runs,
            "combined": (combined, h), "slope_pp_per_weight": slope, "prize": best,
            "combined_new": rtp(first, best)[0] + offset}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("version")
    ap.add_argument("--run", action="append", required=True, metavar="DIR[:PIECES]")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    loaded = [run_sample(spec) for spec in args.run]
    seeds = [label.split(",")[0] for _, label in loaded]
    if len(set(seeds)) != len(seeds):
        print(f"two runs of one seed share their spins: {', '.join(seeds)}", file=sys.stderr)
        return 2
    for _, label in loaded:
        print(f"run: {label}")
    samples = [s for s, _ in loaded]
    game = get_game("forge-of-gems")
    files = game.build_files
    for name in BUILD_NAMES:
        r = retune(name, samples)
        runs = ", ".join(f"run {i + 1} {v:.4f} +-{h:.4f}" for i, (v, h) in enumerate(r["runs"]))
        print(f"{name}: weight {r['old_prize']} reads T {r['T'][0]:.4f} +-{r['T'][1]:.4f}, V {r['V'][0]:.4f} "
              f"+-{r['V'][1]:.4f}, {runs}; combined {r['combined'][0]:.4f} +-{r['combined'][1]:.4f} pp. Slope "
              f"{r['slope_pp_per_weight']:.6f} pp a unit. New weight {r['prize']}: combined {r['combined_new']:.4f}%")
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
                    f"Forge of Gems build {name}, version {args.version}: retuned by bench/fog_retune.py on the "
                    f"independent samples\nof its docstring ({'; '.join(label for _, label in loaded)}): 3-scatter "
                    f"prize weight {r['prize']}\n(version 2.0: {r['old_prize']}), combined reading "
                    f"{r['combined_new']:.4f}% +-{r['combined'][1]:.4f} pp. rtp: the name; its proof is the\n"
                    "certification (docs/maths.md, \"Forge of Gems\").")
    return 0


if __name__ == "__main__":
    sys.exit(main())
