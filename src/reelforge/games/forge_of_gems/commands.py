"""``reelforge design forge-of-gems ...``: ``calibrate`` tunes the five builds' GEMBOX weights on one (kept,
merged) sample; ``verify`` gives their stratified estimates on an independent sample; ``simulate`` a plain
simulation of every build (cross-check)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from reelforge.game.options import count, emit, fail, load_sample, new_sample_path, seed_of, workers_of

app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                  help="Forge of Gems: GEMBOX weights on a stratified sample; verification; plain cross-check.")


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


@app.command("calibrate")
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


@app.command("verify")
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


@app.command("simulate")
def gems_simulate(
    rounds: str = typer.Option("1e7", "--rounds", metavar="N", help="Plain rounds per build."),
    seed: str = typer.Option(None, "--seed", metavar="SEED", help="Seed (default 9620842; build i draws from [seed, i])."),
    json_out: Path = typer.Option(None, "--json", metavar="FILE", help="Write the figures here (JSON)."),
) -> None:
    """Cross-check: plain full-round simulation of every shipped build with the production kernel."""
    import numpy as np

    from reelforge.core.stats import volatility_level
    from reelforge.games.forge_of_gems.build import GAME_ID
    from reelforge.games.forge_of_gems.template import BUILD_NAMES
    from reelforge.games.registry import get_game

    n = count(rounds, "--rounds")
    s = seed_of(seed, 9620842)
    game = get_game(GAME_ID)
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
