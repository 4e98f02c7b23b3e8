"""``reelforge design GAME ...``: the games' design and calibration commands (one sub-command group
per game), beside ``reelforge tune`` (which retunes one build with the generic tuner).

* ``forge-of-fortunes calibrate``: the exact-maths strip search of a build (what ``tune`` writes);
* ``gemstones-gold calibrate``: strip design, multiplier weights and Feature Buy price;
  ``gemstones-gold verify``: every published figure with its 99% interval from a stratified sample;
* ``forge-of-gems calibrate``: the five builds' GEMBOX weights on one (kept, merged) sample;
  ``forge-of-gems verify``: the five builds' stratified estimates on an independent sample;
  ``forge-of-gems simulate``: a plain simulation of every build (cross-check).

Samples are kept as one kind of file (``--save``/``--load``/``--sample`` S.npz, see
:mod:`reelforge.estimation`); they depend only on the seed and sizes, never on ``--workers``.
Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import typer

from reelforge.cli.common import SEED, CliError, Count

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Design and calibrate a game's builds (the commands that made the shipped files).")
fortunes = typer.Typer(no_args_is_help=True, rich_markup_mode=None, help="Forge of Fortunes: exact strip search.")
gemstones = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                        help="Gemstones Gold: strips, multiplier weights, price; stratified verification.")
gems = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                   help="Forge of Gems: GEMBOX weights on a stratified sample; verification; plain cross-check.")
app.add_typer(fortunes, name="forge-of-fortunes")
app.add_typer(gemstones, name="gemstones-gold")
app.add_typer(gems, name="forge-of-gems")


def fail(message: str) -> NoReturn:
    """Bad input: one line on stderr, exit status 2, nothing written."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def count(value: str, name: str) -> int:
    """A positive whole number: ``1000000``, ``1_000_000`` or ``1e6`` (the CLI's :class:`Count`)."""
    return _parsed(Count(name), value)


def seed_of(value: str | None, default: int) -> int:
    return default if value is None else _parsed(SEED, value)


def _parsed(parse: Callable[[str], int], value: str) -> int:
    """``parse(value)``, its refusal reported this app's way (the sub-app also runs on its own)."""
    try:
        return parse(value)
    except CliError as exc:
        fail(str(exc))


def workers_of(value: str | None) -> int | None:
    return None if value is None else count(value, "--workers")


def new_sample_path(path: Path | None, option: str) -> Path | None:
    """A path to keep a sample at: an .npz file in a folder that exists."""
    if path is None:
        return None
    if path.suffix != ".npz":
        fail(f"{option}: a sample file is an .npz archive; name it {path.with_suffix('.npz').name}")
    if not path.parent.exists():
        fail(f"{option}: folder {path.parent} does not exist")
    return path


def emit(obj: Any, path: Path | None = None) -> None:
    """JSON on stdout, or into ``path``."""
    text = json.dumps(obj, indent=1, default=str)
    if path is None:
        sys.stdout.write(text + "\n")
    else:
        path.write_text(text + "\n")


def load_sample(load, path: Path) -> Any:
    """``load(path)``, or a one-line error naming the file."""
    from reelforge.estimation import SampleError

    try:
        return load(path)
    except SampleError as exc:
        fail(str(exc))


# -- Forge of Fortunes ------------------------------------------------------------------------
@fortunes.command("calibrate")
def fortunes_calibrate(
    build: str = typer.Option(..., "--build", "-b", metavar="NAME", help="Build name (its RTP in percent by default, e.g. 96.2)."),
    rtp: str = typer.Option(None, "--rtp", metavar="FRACTION", help="Target RTP as a fraction of the stake (default: the name / 100)."),
    write: bool = typer.Option(False, "--write", help="Write the build file (the shipped one, or --out)."),
    out: Path = typer.Option(None, "--out", metavar="FILE", help="Where --write writes (default: the game's builds folder)."),
) -> None:
    """Search strips on the exact figures and print them (JSON); the same search as ``reelforge tune``."""
    from fractions import Fraction

    from reelforge.games.forge_of_fortunes import design
    from reelforge.games.forge_of_fortunes.build import BUILDS_DIR

    try:
        target = Fraction(rtp) if rtp is not None else Fraction(build) / 100
    except ValueError:
        fail(f"--rtp must be a fraction of the stake such as 0.962 (or a build name in percent), got {rtp or build!r}")
    if not 0 < target < 1:
        fail(f"--rtp must be between 0 and 1 (a fraction of the stake), got {float(target)}")
    made = design.tune(build, target)
    figures = design.describe(made)
    if write:
        path = out or BUILDS_DIR / f"{build}.toml"
        path.write_text(design.build_toml(made))
        figures["written"] = str(path)
    emit(figures)


# -- Gemstones Gold ---------------------------------------------------------------------------
@gemstones.command("calibrate")
def gemstones_calibrate(
    paid: str = typer.Option(None, "--paid", metavar="N", help="Boards for the paid-spin coefficients (default: the shipped "
                             "sample's 2.5e9)."),
    features: str = typer.Option(None, "--features", metavar="N", help="Features for the free-spin coefficients (default 5e7)."),
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed (default: the shipped sample's 20261130)."),
    reuse_strips: bool = typer.Option(False, "--reuse-strips", help="Keep the shipped build's strips (the search "
                                      "reproduces them) and recalibrate the weights."),
    write: bool = typer.Option(False, "--write", help="Write builds/96.71.toml (else print the file)."),
    workers: str = typer.Option(None, "--workers", metavar="N", help="Worker processes (default: all cores; the figures do not "
                                "depend on it)."),
    progress: bool = typer.Option(False, "--progress", help="Print chunk progress to stderr."),
    sample: Path = typer.Option(None, "--sample", metavar="FILE.npz", help="Tuning sample file (.npz): reused if it exists, else kept "
                                "there."),
) -> None:
    """Design the Gemstones Gold build: strips (hit and trigger rates), the multiplier weights (RTP
    split, by the generic tuner), then the Feature Buy price."""
    from reelforge.games.gemstones_gold import design, sampling
    from reelforge.games.gemstones_gold.build import BUILDS_DIR, load_build

    shipped = design.SHIPPED_SAMPLE
    paid_n = count(paid, "--paid") if paid else shipped["paid_n"]
    feature_n = count(features, "--features") if features else shipped["feature_n"]
    s = seed_of(seed, shipped["seed"])
    n_workers = workers_of(workers)
    kept = None
    if sample is not None and sample.exists():
        kept = load_sample(sampling.load_sample, sample)
    else:
        new_sample_path(sample, "--sample")
    strips = list(load_build("96.71").strips) if reuse_strips else None
    cal = design.calibrate(paid_n=paid_n, feature_n=feature_n, seed=s, strips=strips, workers=n_workers,
                           log_progress=progress, sample=kept)
    for line in cal.log:
        typer.echo(line)
    text = design.build_toml(cal)
    if sample is not None and kept is None:
        sampling.save_sample(sample, cal.sample)
        typer.echo(f"kept the sample in {sample}")
    if write:
        path = BUILDS_DIR / "96.71.toml"
        path.write_text(text)
        typer.echo(f"wrote {path}")
    else:
        typer.echo(text, nl=False)


@gemstones.command("verify")
def gemstones_verify(
    build: str = typer.Option("96.71", "--build", "-b", metavar="NAME", help="Build to verify."),
    paid: str = typer.Option("1e8", "--paid", metavar="N", help="Paid boards (the multiplier reel integrated exactly per board)."),
    features: str = typer.Option("2e6", "--features", metavar="N", help="Features, split over the trigger classes."),
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed (default 31337; use one the build was not tuned on)."),
    workers: str = typer.Option(None, "--workers", metavar="N", help="Worker processes (default: all cores)."),
    progress: bool = typer.Option(False, "--progress", help="Print chunk progress to stderr."),
    save: Path = typer.Option(None, "--save", metavar="FILE.npz", help="Keep the sample in this .npz file."),
    load: Path = typer.Option(None, "--load", metavar="FILE.npz", help="Estimate from this kept sample instead of simulating."),
    json_out: Path = typer.Option(None, "--json", metavar="FILE", help="Write the figures here instead of stdout."),
) -> None:
    """Every published figure of a build with its 99% interval, from an independent stratified
    simulation (JSON: the common stratified-estimate fields, the report's detail under ``extra``)."""
    from reelforge.game import BuildError
    from reelforge.games.gemstones_gold.build import load_build
    from reelforge.games.gemstones_gold.stratified import GemstonesGoldEstimator

    try:
        b = load_build(build)
    except BuildError as exc:
        fail(str(exc))
    est = GemstonesGoldEstimator()
    if load is not None:
        smp = load_sample(est.load, load)
    else:
        save = new_sample_path(save, "--save")
        smp = est.sample(b, count(paid, "--paid"), count(features, "--features"), seed_of(seed, 31337),
                         workers_of(workers), progress)
        if save is not None:
            smp.save(save)
    try:
        result = est.estimate(smp, b)
    except ValueError as exc:
        fail(str(exc))
    emit(result.to_json(), json_out)


# -- Forge of Gems ----------------------------------------------------------------------------
def _strata(spins: str, features: str, seed: str | None, default_seed: int, workers: str | None,
            save: Path | None, load: list[Path] | None):
    """The sample of a calibrate/verify run: the kept ones merged, or a new one (kept with --save)."""
    from reelforge.games.forge_of_gems.stratified import TAIL_THRESHOLD, Strata, simulate_strata

    if load:
        pieces = [load_sample(Strata.load, p) for p in load]
        st = pieces[0]
        for other in pieces[1:]:
            try:
                st = st.merge(other)
            except ValueError as exc:
                fail(str(exc))
    else:
        save = new_sample_path(save, "--save")
        st = simulate_strata(count(spins, "--spins"), count(features, "--features"), seed_of(seed, default_seed),
                             TAIL_THRESHOLD, workers=workers_of(workers))
        if save is not None:
            st.save(save)
    typer.echo(f"sampled {st.spins:,} paid spins and {st.features:,} features in {st.seconds:.0f} s", err=True)
    return st


SPINS_HELP = "Paid spins in the paid-spin stratum."
FEATURES_HELP = "20-spin features in the feature stratum."
LOAD_HELP = "Use kept samples instead of simulating (repeatable: merged)."


@gems.command("calibrate")
def gems_calibrate(
    spins: str = typer.Option("1e8", "--spins", metavar="N", help=SPINS_HELP),
    features: str = typer.Option("4e6", "--features", metavar="N", help=FEATURES_HELP),
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed (default 20261129)."),
    workers: str = typer.Option(None, "--workers", metavar="N", help="Worker processes (default: all cores; the sample does "
                                "not depend on it)."),
    save: Path = typer.Option(None, "--save", metavar="FILE.npz", help="Keep the sample in this .npz file."),
    load: list[Path] = typer.Option(None, "--load", metavar="FILE.npz", help=LOAD_HELP),
    write: bool = typer.Option(False, "--write", help="Write the five build files."),
) -> None:
    """Tune the five builds' 3-scatter GEMBOX weights on one sample."""
    from reelforge.games.forge_of_gems import design, stratified

    st = _strata(spins, features, seed, 20261129, workers, save, load)
    builds = design.calibrate(st)
    for b in builds:
        e = stratified.estimate(st, b)
        typer.echo(f"{b.name}: unit {b.unit} gembox3 {list(b.gembox[3].weights)} tuned-sample rtp {e['rtp']:.5f}")
    if write:
        for path in design.write_builds(builds, st):
            typer.echo(f"wrote {path}")


@gems.command("verify")
def gems_verify(
    spins: str = typer.Option("1e8", "--spins", metavar="N", help=SPINS_HELP),
    features: str = typer.Option("4e6", "--features", metavar="N", help=FEATURES_HELP),
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed (default 9620842)."),
    workers: str = typer.Option(None, "--workers", metavar="N", help="Worker processes (default: all cores)."),
    save: Path = typer.Option(None, "--save", metavar="FILE.npz", help="Keep the sample in this .npz file."),
    load: list[Path] = typer.Option(None, "--load", metavar="FILE.npz", help=LOAD_HELP),
    json_out: Path = typer.Option(None, "--json", metavar="FILE", help="Write every build's estimate here (JSON)."),
) -> None:
    """Every shipped build's stratified estimate on one (independent) sample."""
    from reelforge.games.forge_of_gems.build import load_build
    from reelforge.games.forge_of_gems.stratified import estimate_of
    from reelforge.games.forge_of_gems.template import BUILD_NAMES

    st = _strata(spins, features, seed, 9620842, workers, save, load)
    out = []
    for name in BUILD_NAMES:
        try:
            e = estimate_of(st, load_build(name))
        except ValueError as exc:
            fail(str(exc))
        out.append({"build": name, **e.to_json()})
        lo, hi = e.rtp_ci99
        typer.echo(f"{name}: rtp {100 * e.rtp:.3f}% 99% CI [{100 * lo:.3f}, {100 * hi:.3f}] "
                   f"(half-width {100 * e.extra['half_width']:.3f} pp) paid spin {100 * e.rtp_split['paid_spins']:.2f}% "
                   f"free spins 1 in {1 / e.extra['free_spin_frequency']:.0f}")
    if json_out is not None:
        emit(out, json_out)


@gems.command("simulate")
def gems_simulate(
    rounds: str = typer.Option("1e7", "--rounds", metavar="N", help="Plain rounds per build."),
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed (default 9620842; build i draws from [seed, i])."),
    json_out: Path = typer.Option(None, "--json", metavar="FILE", help="Write the figures here (JSON)."),
) -> None:
    """Cross-check: plain full-round simulation of every shipped build with the production kernel."""
    import numpy as np

    from reelforge.games.forge_of_gems.template import BUILD_NAMES
    from reelforge.games.registry import get_game
    from reelforge.stats import volatility_level

    n = count(rounds, "--rounds")
    s = seed_of(seed, 9620842)
    game = get_game("forge-of-gems")
    out = []
    for i, name in enumerate(BUILD_NAMES):
        build = game.load_build(name)
        start = time.time()
        acc = game.simulate_chunk(build, n, np.random.SeedSequence([s, i]))
        dt = time.time() - start
        lo, hi = acc.rtp_ci99()
        out.append({"build": name, "rounds": n, "rtp": acc.rtp, "ci99": [lo, hi], "sd_x": acc.sd,
                    "volatility_level": volatility_level(acc.sd), "components": acc.component_rtp(),
                    "hit_rate": acc.hit_rate, "max_win_x": acc.max_win / acc.unit,
                    "rounds_per_second": n / dt, "extra": game.extra_summary(build, acc)})
        typer.echo(f"{name}: rtp {100 * acc.rtp:.2f}% 99% CI [{100 * lo:.2f}, {100 * hi:.2f}] sd {acc.sd:.1f} "
                   f"max {acc.max_win / acc.unit:.0f}x caps {acc.counter('cap_hits')} "
                   f"free spins 1 in {n / max(acc.counter('free_spin_triggers'), 1):.0f} ({n / dt:,.0f} rounds/s)")
    if json_out is not None:
        emit(out, json_out)
