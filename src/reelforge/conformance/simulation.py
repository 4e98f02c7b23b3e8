"""Checks of simulation: chunk totals against the kernel's rounds, and independence of the worker count."""

from __future__ import annotations

from dataclasses import fields

from reelforge.conformance.context import Context, context_of
from reelforge.core.stats import bucket_edges_units, bucket_index
from reelforge.game.contract import Game
from reelforge.games.registry import UnknownGame, get_game


def check_simulation_matches_kernel_rounds(game: Game | Context) -> None:
    """A chunk simulated from a seed holds exactly the totals of the kernel's rounds from it."""
    ctx = context_of(game)
    g = ctx.game
    seed = ctx.seeds[0]
    for build in ctx.builds():
        for mode in ctx.modes(build):
            wins = [int(w) for w in g.kernel_round_wins(build, ctx.kernel_rounds, seed, mode)]
            acc = g.simulate_chunk(build, ctx.kernel_rounds, seed, mode)
            hist = [0] * len(acc.hist)
            edges = bucket_edges_units(acc.unit)
            for w in wins:
                hist[bucket_index(w, edges, acc.cap_units)] += 1
            top = max(wins)
            expected = {"rounds": len(wins), "hits": sum(w > 0 for w in wins), "win": sum(wins),
                        "win_sq": sum(w * w for w in wins), "win_cube": sum(w ** 3 for w in wins),
                        "win_quad": sum(w ** 4 for w in wins), "max_win": top,
                        "max_count": wins.count(top) if top else 0, "hist": hist}
            for name, want in expected.items():
                if getattr(acc, name) != want:
                    raise ctx.fail(f"simulate_chunk's {name} is {getattr(acc, name)}, the kernel's "
                                   f"{len(wins)} rounds give {want}", build, mode, seed)
            if sum(acc.components) != acc.win:
                raise ctx.fail(f"the components add up to {sum(acc.components)} units, the win is {acc.win}",
                               build, mode, seed)


def check_simulation_independent_of_workers(game: Game | Context) -> None:
    """``simulate`` gives identical totals on one worker and on two (the game must be registered)."""
    from reelforge.analysis.simulate import simulate

    ctx = context_of(game)
    g = ctx.game
    try:
        registered = get_game(g.id)
    except UnknownGame as exc:
        raise ctx.fail("the game is not registered (reelforge.games.registry.register), so simulate "
                       "cannot find it") from exc
    if type(registered) is not type(g):
        raise ctx.fail(f"the registry gives {type(registered).__name__} for {g.id!r}, not {type(g).__name__}")
    build = ctx.build(g.default_build())
    chunk = ctx.kernel_rounds // 4
    for mode in ctx.modes(build):
        runs = {workers: simulate(g, build, 4 * chunk, ctx.seeds[0], workers, mode, chunk=chunk)
                for workers in (1, 2)}
        one, two = (runs[w].accumulator for w in (1, 2))
        if one.rounds != 4 * chunk or runs[2].workers != 2:
            raise ctx.fail(f"simulate played {one.rounds} rounds on {runs[2].workers} workers; {4 * chunk} rounds "
                           "on 2 were asked", build, mode)
        if one.key() != two.key():
            diff = [f.name for f in fields(one) if getattr(one, f.name) != getattr(two, f.name)]
            raise ctx.fail(f"simulation totals depend on the worker count: 1 and 2 workers differ in {diff}",
                           build, mode, ctx.seeds[0])
