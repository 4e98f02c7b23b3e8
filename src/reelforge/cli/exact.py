"""``reelforge exact``: the exact figures of an enumerable game."""

from __future__ import annotations

import typer

from reelforge.cli.common import BUILD_OPT, JSON_OPT, emit_json, fail, load, register_game_class
from reelforge.cli.output import console


def exact(
    game: str = typer.Argument(..., metavar="GAME", help="Game id (see `reelforge games`)."),
    build: str = BUILD_OPT,
    game_class: str = typer.Option(None, "--game-class", metavar="MODULE:CLASS",
                                   help="Register GAME's class for this run: a game outside the lobby, such as "
                                        "a benchmark game (reelforge.games.problab.demo_normal.game:DemoNormal)."),
    distribution: bool = typer.Option(False, "--distribution", help="Also print every outcome and its probability."),
    as_json: bool = JSON_OPT,
) -> None:
    """Exact figures of an enumerable game: RTP and its split, hit rate, feature frequency, SD, the largest
    reachable win and its probability, the full win distribution (every outcome counted, no sample)."""
    from reelforge.game.exact import NotEnumerable, exact_figures, figures_json

    register_game_class(game, game_class)
    g, b = load(game, build)
    try:
        ex = exact_figures(g, b)
    except NotEnumerable as exc:
        fail(str(exc))
    out = figures_json(g, b, ex)
    if as_json:
        emit_json(out)
        return
    console.print(f"{g.title} build {b.identity.label}: exact figures (every outcome counted; no sample)")
    rows = [("RTP", f"{out['rtp_percent']}%", out["rtp"]["exact"])]
    rows += [(f"  from {k.replace('_', ' ')}", f"{v['value'] * 100:.6f}%", v["exact"]) for k, v in out["rtp_split"].items()]
    rows += [("hit rate", f"{out['hit_rate']['value'] * 100:.4f}%", out["hit_rate"]["exact"]),
             (f"{g.feature_name} frequency", f"1 in {out['feature_frequency_one_in']:,.2f}", out["feature_rate"]["exact"]),
             ("SD (x bet)", f"{out['sd']:.4f}", f"variance {out['variance']['exact']}"),
             ("volatility index", f"{out['volatility_index']:.4f}", f"{out['volatility_index_z']} x SD (90%)"),
             ("largest reachable win", f"{out['max_win_x']['exact']}x", ""),
             ("  its probability", f"1 in {out['max_win_one_in']:,.4g}", out["max_win_probability"]["exact"]),
             ("outcomes", f"{out['outcomes']:,} distinct wins", "")]
    for label, value, exact_text in rows:
        short = exact_text if len(exact_text) <= 60 else f"{exact_text[:28]}...{exact_text[-28:]} ({len(exact_text)} chars)"
        console.print(f"{label:<28} {value:>22}  {short}", highlight=False, soft_wrap=True)
    if distribution:
        for row in out["distribution"]:
            console.print(f"{row['win_x']['exact']:>12}x  {row['probability']['value']:.6e}  {row['probability']['exact']}",
                          highlight=False, soft_wrap=True)
