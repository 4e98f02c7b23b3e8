"""Where a kernel's cycles go per paid round: variants of the kernel with parts removed, timed.

    python bench/kernel_profile.py [canyon-ways|gemstones-gold|forge-of-gems|forge-of-fortunes] [--rounds 5e5] [--repeats 9]

Each variant is the shipped kernel's own code (the same inlined helpers) cut after one more
stage; every stage row adds one part (draws, first-board count, board and cascades, features,
tally and counters) and the ``+ns`` column is what that part costs per paid round. Times are
thread CPU time, best of ``--repeats`` alternated runs (interference only slows a run), beside
numpy's PCG64 float fill measured in the same runs. Variants that stop early consume fewer
draws per round, so they play other rounds of the same game (the same distribution).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from reelforge.core.stats import Tally, bucket_edges_units  # noqa: E402
from reelforge.game.buildfile import kernel_tables  # noqa: E402
from reelforge.game.loop import round_function, round_tables  # noqa: E402
from reelforge.games.registry import get_game  # noqa: E402
from reelforge.mechanics.rng import draw_pcg, pcg_state  # noqa: E402


def shipped_loop(game, build, t, loop, cap: int) -> Callable[[np.ndarray, int], object]:
    """``n`` paid rounds of the game's shipped harness loop on tables ``t`` (its tally and counters included)."""
    def full(st: np.ndarray, n: int) -> None:
        tally = Tally.empty(len(game.components), len(game.counters))
        loop(st, t, n, 0, cap, bucket_edges_units(game.win_unit(build)), np.zeros(0, np.int64),
             tally.totals, tally.components, tally.hist, tally.counters)
    return full


def gemstones_gold() -> dict[str, Callable[[np.ndarray, int], object]]:
    from reelforge.games.gemstones_gold import kernel as k

    game = get_game("gemstones-gold")
    build = game.load_build(game.default_build())
    t = k.tables(build)
    cap = build.cap_units
    # the stages compile as the shipped round does (round_function: no reference counting), on its scratch
    @round_function
    def draws(st, n, t):
        acc = 0
        for _ in range(n):
            k.paid_draws(st, t.lens, t.base_cum, t.rules, t.stops, t.picks, t.xs)
            acc += t.stops[0] + t.xs[0]
        return acc

    @round_function
    def first_count(st, n, t):
        acc = 0
        for _ in range(n):
            k.paid_draws(st, t.lens, t.base_cum, t.rules, t.stops, t.picks, t.xs)
            tally = 0
            for r in range(k.REELS):
                tally += t.packed[r, t.stops[r]]
            acc += ((tally + t.rules[k.R_ADD]) & t.rules[k.R_HIGH]) != 0
        return acc

    @round_function
    def paid_spin(st, n, t):
        acc = 0
        for _ in range(n):
            w, sc, s = k.paid_spin(st, t.strips, t.lens, t.packed, t.pay, t.values, t.base_cum, t.rules, t.stops,
                                   t.board, t.q, t.above, t.picks, t.xs)
            acc += w + sc + s
        return acc

    @round_function
    def with_features(st, n, t, cap):
        acc = 0
        for _ in range(n):
            p, sc, s = k.paid_spin(st, t.strips, t.lens, t.packed, t.pay, t.values, t.base_cum, t.rules, t.stops,
                                   t.board, t.q, t.above, t.picks, t.xs)
            spins = k.feature_spins(t.rules, sc)
            if p < cap and spins:
                p += k.play_free_spins(st, t.strips, t.lens, t.packed, t.pay, t.values, t.free_cum, t.rules,
                                       t.stops, t.board, t.q, t.above, t.xs, spins, p, cap, t.fout,
                                       k.NO_KEYS, k.NO_PAYS, k.NO_PAYS)
            acc += p + s
        return acc

    full = shipped_loop(game, build, t, k.LOOP, cap)

    return {
        "draws: 6 stops, 3 lanes, 3 values": lambda st, n: draws(st, n, t),
        "first board's count (packed, 6 adds)": lambda st, n: first_count(st, n, t),
        "board, cascades, lanes and values": lambda st, n: paid_spin(st, n, t),
        "free-spin features": lambda st, n: with_features(st, n, t, cap),
        "tally and counters (the shipped kernel)": full,
    }


def forge_of_gems() -> dict[str, Callable[[np.ndarray, int], object]]:
    from reelforge.games.forge_of_gems import kernel as k

    game = get_game("forge-of-gems")
    build = game.load_build(game.default_build())
    t = k.tables(build)
    rt = round_tables(build, k.make_tables, k.SCRATCH)
    # the stages compile as the shipped round does (round_function: no reference counting), on its scratch
    args = (t.cell_code, t.cell_total, t.forge_base, t.targets, t.paytable, t.limits, t.cap_units,
            rt.board, rt.forge, rt.packs, rt.remove, rt.land, rt.res)

    @round_function
    def draws(st, n, cell_code, cell_total, forge_tab, targets, paytable, limits, cap_units, board, forge, packs, remove,
             land, res):
        acc = 0
        for _ in range(n):
            acc += k._first_board(st, cell_code, cell_total, forge_tab, board, forge) + board[0, 0]
        return acc

    @round_function
    def first_eval(st, n, cell_code, cell_total, forge_tab, targets, paytable, limits, cap_units, board, forge, packs, remove,
             land, res):
        acc = 0
        for _ in range(n):
            k._first_board(st, cell_code, cell_total, forge_tab, board, forge)
            acc += k._evaluate(board, paytable, 1, packs, remove)
        return acc

    @round_function
    def spin(st, n, cell_code, cell_total, forge_tab, targets, paytable, limits, cap_units, board, forge, packs, remove,
             land, res):
        acc = 0
        for _ in range(n):
            acc += k._spin(st, cell_code, cell_total, forge_tab, targets, paytable, limits, cap_units,
                           False, 1, 0, board, forge, packs, remove, land, res)
        return acc

    def full(st, n):
        tally = Tally.empty(3, len(k.COUNTERS))
        k.LOOP(st, rt, n, 0, t.cap_units, bucket_edges_units(build.unit), np.zeros(0, dtype=np.int64),
               tally.totals, tally.components, tally.hist, tally.counters)

    return {
        "draws: 15 cells, 5 forge positions": lambda st, n: draws(st, n, *args),
        "first board's ways evaluation": lambda st, n: first_eval(st, n, *args),
        "cascades (removal, gravity, forge, refills)": lambda st, n: spin(st, n, *args),
        "GEMBOX, free spins, tally and counters (shipped)": full,
    }


def forge_of_fortunes() -> dict[str, Callable[[np.ndarray, int], object]]:
    from reelforge.games.forge_of_fortunes import build as b
    from reelforge.games.forge_of_fortunes import kernel as k

    game = get_game("forge-of-fortunes")
    build = game.load_build(game.default_build())
    t = kernel_tables(build, b.tables)

    @round_function
    def draws(st, n, base, base_len):
        acc = 0
        for _ in range(n):
            acc += base[0, draw_pcg(st, base_len[0])] + base[1, draw_pcg(st, base_len[1])]
            acc += base[2, draw_pcg(st, base_len[2])]
        return acc

    def full(st, n):
        tally = Tally.empty(len(game.components), len(game.counters))
        k.loop(st, t, n, 0, game.cap_units(build), bucket_edges_units(game.win_unit(build)),
               np.zeros(0, dtype=np.int64), tally.totals, tally.components, tally.hist, tally.counters)

    return {"draws: 3 reel stops": lambda st, n: draws(st, n, t.base, t.base_len),
            "re-spins, tally and counters (shipped)": full}


def canyon_ways() -> dict[str, Callable[[np.ndarray, int], object]]:
    from numba import njit

    from reelforge.games.canyon_ways import kernel as k
    from reelforge.mechanics.counts import spin_tables_counted, symbol_count, tumble_tables_counted

    game = get_game("canyon-ways")
    build = game.load_build(game.default_build())
    t = round_tables(build, game.make_tables)
    cap = game.cap_units(build)

    @round_function
    def spin(st, n, t):
        acc = 0
        for _ in range(n):
            spin_tables_counted(st, t)
            acc += t.counts[0]
        return acc

    @round_function
    def first_tumble(st, n, t):
        acc = 0
        for _ in range(n):
            spin_tables_counted(st, t)
            w, win = tumble_tables_counted(t, k.WILD)
            acc += win
        return acc

    @njit(inline="always")
    def tumbled_spin(st, t):
        """A paid spin tumbled until its board pays nothing: what its tumbles paid."""
        spin_tables_counted(st, t)
        paid = 0
        w, win = tumble_tables_counted(t, k.WILD)
        while w:
            paid += win
            w, win = tumble_tables_counted(t, k.WILD)
        return paid

    @round_function
    def all_tumbles(st, n, t):
        acc = 0
        for _ in range(n):
            acc += tumbled_spin(st, t)
        return acc

    @round_function
    def suns(st, n, t):
        acc = 0
        for _ in range(n):
            acc += tumbled_spin(st, t) + (symbol_count(t.counts, k.SUN) >= t.trigger)
        return acc

    full = shipped_loop(game, build, t, k.LOOP, cap)

    return {
        "paid spin: 6 heights, 6 stops, the board's counts": lambda st, n: spin(st, n, t),
        "first evaluation (and its tumble where it pays)": lambda st, n: first_tumble(st, n, t),
        "every further tumble": lambda st, n: all_tumbles(st, n, t),
        "Sun count": lambda st, n: suns(st, n, t),
        "free spins, tally and counters (the shipped kernel)": full,
    }


PROFILES = {"canyon-ways": canyon_ways, "gemstones-gold": gemstones_gold, "forge-of-gems": forge_of_gems, "forge-of-fortunes": forge_of_fortunes}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("game", choices=sorted(PROFILES))
    p.add_argument("--rounds", type=float, default=5e5)
    p.add_argument("--repeats", type=int, default=9)
    a = p.parse_args()
    variants = PROFILES[a.game]()
    n = int(a.rounds)

    def state(seed: int) -> np.ndarray:
        return pcg_state(np.random.Generator(np.random.PCG64(seed)))

    for run in variants.values():
        run(state(1), 1000)  # compile
    rng = np.random.Generator(np.random.PCG64(3))
    buf = np.empty(1_000_000)
    best = dict.fromkeys(variants, float("inf"))
    raw = 0.0
    load = os.getloadavg()[0]
    for rep in range(a.repeats):
        t0 = time.thread_time()
        rng.random(out=buf)
        rng.random(out=buf)
        raw = max(raw, 2 * buf.size / (time.thread_time() - t0))
        for name, run in variants.items():
            t0 = time.thread_time()
            run(state(2026 + rep), n)
            best[name] = min(best[name], (time.thread_time() - t0) / n * 1e9)
    print(f"{a.game}: {n:,} rounds x {a.repeats} runs; raw PCG64 fill {raw / 1e6:.0f} M float64/s "
          f"({1e9 / raw:.2f} ns each); load {load:.1f} -> {os.getloadavg()[0]:.1f}")
    print("| stage (each adds one part) | ns per paid round | + ns | share |")
    print("|---|---|---|---|")
    prev = 0.0
    total = list(best.values())[-1]
    for name, v in best.items():
        print(f"| {name} | {v:.1f} | {v - prev:+.1f} | {(v - prev) / total:.0%} |")
        prev = v
    print(f"shipped kernel: {1e3 / total:.2f} M rounds/s, {1e9 / total / raw:.4f} rounds per raw draw")


if __name__ == "__main__":
    main()
