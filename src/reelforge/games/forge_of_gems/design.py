"""Calibration of the Forge of Gems builds (rerunnable, deterministic by seed).

Every build is the shared design of :mod:`.template` (one win unit, paytable, cell, FORGE REEL and
target weights) with its own GEMBOX weights of the 3-scatter class (instant 20x prize versus 8 or 10
free spins), which set its RTP linearly: a feature is worth far more than 20x, so the prize weight
is a wide knob (about 6 pp of RTP per 1000 of 10000 weight, from about 56% at 10000 to 116% at 0:
every target is inside it) and fine (0.006 pp per step).

The RTP of a candidate is the stratified estimate of :mod:`.stratified` on one sample (in paytable
units, independent of the GEMBOX weights: one sample serves every candidate and every build). The
builds are tuned on one sample (:func:`calibrate`) and reported on an independent one (``verify``),
so the reported interval is not fitted to its own noise. The tuning is the generic tuner
(:mod:`reelforge.core.tuning`) over one free parameter per build, the class-3 prize weight
(:func:`tuning_space`). The shipped builds are reproduced byte for byte by::

    reelforge tune forge-of-gems --build 96.2 [--sample S.npz]   # likewise 94.2 91.2 87.2 84.2

which simulates and merges :data:`SHIPPED_SAMPLES` (seeds 20261201, 1201001-1201003:
2e9 paid spins + 1e8 features; with ``--sample`` kept for the other builds), and by the design
commands (``D`` = ``reelforge design forge-of-gems``; samples kept as .npz)::

    D calibrate --seed 20261201 --spins 800000000 --features 40000000 --save t.npz
    D verify --seed 1201001 --spins 400000000 --features 20000000 --save v1.npz   # likewise 1201002, 1201003
    D calibrate --load t.npz --load v1.npz --load v2.npz --load v3.npz --write    # the shipped builds
    D verify --seed 1201011 --spins 400000000 --features 20000000 --save w1.npz   # likewise 1201012..1201016
    D verify --load w1.npz ... --load w6.npz   # the reported figures (docs/maths.md): +-0.059..0.071 pp
"""

from __future__ import annotations

from pathlib import Path

from reelforge.core.tuning import Param, TuningSpace, climb, pattern_steps
from reelforge.game.results import TuneResult
from reelforge.games.forge_of_gems.build import BUILDS_DIR, GAME_ID, Build, build_to_toml
from reelforge.games.forge_of_gems.stratified import TAIL_THRESHOLD, Strata, estimate, estimate_of, simulate_strata
from reelforge.games.forge_of_gems.template import BUILD_NAMES, GEMBOX_TOTAL, make_build


def tuning_space(st: Strata, name: str) -> TuningSpace:
    """One build's free parameter for the generic tuner: the class-3 GEMBOX prize weight (the
    instant 20x prize instead of 8 or 10 free spins lowers the RTP: a feature is worth far more
    than 20x). Every candidate is measured on the same sample ``st`` (common random numbers)."""
    return TuningSpace(params=[Param("prize3", 0, GEMBOX_TOTAL)], start={"prize3": GEMBOX_TOTAL // 2},
                       make_build=lambda v: make_build(name, v["prize3"]),
                       measure=lambda b: {"rtp": estimate(st, b)["rtp"]}, tolerances={"rtp": 1e-5})


def calibrate_one(st: Strata, name: str, target: float) -> Build:
    """One build tuned to ``target`` RTP on the sample ``st``."""
    space = tuning_space(st, name)
    return space.make_build(climb(space, {"rtp": target}, steps=pattern_steps(GEMBOX_TOTAL)))


def calibrate(st: Strata) -> list[Build]:
    """Every shipped build, tuned on the sample ``st``."""
    return [calibrate_one(st, name, float(name) / 100) for name in BUILD_NAMES]


SHIPPED_SAMPLES = ((20261201, 800_000_000, 40_000_000), (1201001, 400_000_000, 20_000_000),
                   (1201002, 400_000_000, 20_000_000), (1201003, 400_000_000, 20_000_000))
"""(seed, paid spins, features) of the samples the shipped builds were tuned on (merged)."""


def header(name: str, st: Strata) -> str:
    """The comment lines on top of a tuned build's file (the sample it was tuned on)."""
    return (f"Forge of Gems build {name}: written by reelforge.games.forge_of_gems.design (do not edit by hand).\n"
            f"Tuned on seed(s) {', '.join(map(str, st.seeds))}: {st.spins:,} paid spins, {st.features:,} features.")


def tune_build(name: str, rtp: float | None = None, out: Path | None = None, sample_path: Path | None = None,
               samples: tuple[tuple[int, int, int], ...] = SHIPPED_SAMPLES) -> TuneResult:
    """``reelforge tune forge-of-gems --build NAME [-t rtp=...] [--sample S.npz]``: simulate the
    ``samples`` and merge them (or load the kept ``sample_path``), tune one build with the generic
    tuner, write it. The defaults reproduce the shipped builds."""
    if sample_path is not None and Path(sample_path).exists():
        st = Strata.load(Path(sample_path))
    else:
        st = merged_sample(samples)
        if sample_path is not None:
            st.save(Path(sample_path))
    build = calibrate_one(st, name, rtp if rtp is not None else float(name) / 100)
    path = Path(out) if out else BUILDS_DIR / f"{name}.toml"
    path.write_text(build_to_toml(build, comment=header(name, st)))
    e = estimate_of(st, build)
    return TuneResult(game=GAME_ID, build=name, file=str(path), method="simulation (common random numbers)",
                      figures={"rtp": e.rtp, "rtp_split": e.rtp_split, "feature_rate": e.feature_rate,
                               "gembox_weights": {k: list(build.gembox[k].weights) for k in (3, 4, 5)}},
                      figures_ci99={"rtp": e.rtp_ci99},
                      note="figures on the tuning sample; `reelforge design forge-of-gems verify` reports them "
                           "on an independent sample",
                      extra={"sample": {"seeds": st.seeds, "paid_spins": st.spins, "features": st.features},
                             "estimate": e.to_json()})


def merged_sample(samples: tuple[tuple[int, int, int], ...], log: bool = True,
                  workers: int | None = None) -> Strata:
    """The given (seed, spins, features) samples simulated and merged into one."""
    st = None
    for seed, spins, features in samples:
        one = simulate_strata(spins, features, seed, TAIL_THRESHOLD, log=log, workers=workers)
        st = one if st is None else st.merge(one)
    return st


def write_builds(builds: list[Build], st: Strata, folder: Path = BUILDS_DIR) -> list[Path]:
    """Write tuned builds into ``folder`` (default: the shipped builds)."""
    paths = []
    for b in builds:
        path = Path(folder) / f"{b.name}.toml"
        path.write_text(build_to_toml(b, comment=header(b.name, st)))
        paths.append(path)
    return paths
