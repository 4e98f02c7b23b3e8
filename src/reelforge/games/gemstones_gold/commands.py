"""``reelforge design gemstones-gold ...``: ``calibrate`` designs the strips, the multiplier weights and the
Feature Buy price; ``verify`` gives every published figure with its 99% interval from a stratified sample."""

from __future__ import annotations

from pathlib import Path

import typer

from reelforge.game.options import count, emit, fail, load_sample, new_sample_path, seed_of, workers_of

app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                  help="Gemstones Gold: strips, multiplier weights, price; stratified verification.")


@app.command("calibrate")
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


@app.command("verify")
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
    from reelforge.game.contract import BuildError
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
