"""Retune an enumerable game's build to its name on exact figures: the builds named "96.0" and "94.0"
of Seven Lines and Golden Vault pay their name within +-0.01 pp, exactly (issue 34).

    .venv/bin/python bench/exact_retune.py GAME BUILD VERSION [--tolerance-pp 0.004]

A coordinate search over the build's ``tunable`` integers (every single +-1 and +-2 step, then pairs of
opposite unit steps), each candidate's RTP exact (the paid spin's every outcome counted; the feature's
mean by its Markov chain, free spins by Wald's identity); it stops inside the tolerance. The chosen build
is then computed whole by the exact evaluator (the cap included), written as ``builds/BUILD.toml`` with
``version = VERSION`` and its exact RTP as its ``rtp``, the published file kept under
``builds/older/BUILD/<its version>.toml``. Lock it with ``python -m reelforge.games.published --add``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

from reelforge.game.buildfile import OLDER, with_values
from reelforge.game.exact import exact_figures
from reelforge.games.registry import get_game
from reelforge.mechanics.enumeration import anywhere_cells


def seven_lines_rtp(b: Any) -> Fraction:
    """Seven Lines' RTP without the cap (the cap moves it by less than 1e-30): Wald's identity on the enumeration."""
    from reelforge.games.seven_lines.exact import search_figures

    return search_figures(b)["rtp"]


def golden_vault_rtp(b: Any) -> Fraction:
    """Golden Vault's RTP (its cap cannot be reached)."""
    from reelforge.games.golden_vault.build import GEMS, UNIT

    coin_weight = sum(b.base["coins"])
    base_coin = Fraction(sum(v * w for v, w in zip(b.coin_values, b.base["coins"], strict=True)), coin_weight)
    spin = anywhere_cells(15, {"blank": b.base["blank"], **b.base["gems"], "coin": coin_weight},
                          {g: b.pays[g] for g in GEMS}, 5, "coin")
    total = sum(spin.values())
    rw = b.respin["blank"] + sum(b.respin["coins"])
    q = Fraction(sum(b.respin["coins"]), rw)
    respin_coin = Fraction(sum(v * w for v, w in zip(b.coin_values, b.respin["coins"], strict=True)),
                           sum(b.respin["coins"]))

    @cache
    def chain(held: int, left: int) -> tuple[Fraction, Fraction]:   # (expected coins landed, P(full board))
        if held == 15:
            return Fraction(0), Fraction(1)
        if left == 0:
            return Fraction(0), Fraction(0)
        e = 15 - held
        landed = full = Fraction(0)
        for k in range(e + 1):
            p = comb(e, k) * q ** k * (1 - q) ** (e - k)
            more, f = chain(held + k, b.respins if k else left - 1)
            landed += p * (k + more)
            full += p * f
        return landed, full

    value = Fraction(0)
    for (win, n), w in spin.items():
        value += w * win
        if n >= b.trigger:
            landed, full = chain(n, b.respins)
            value += w * (n * base_coin + landed * respin_coin + full * b.grand_x * UNIT)
    return value / total / UNIT


RTP = {"seven-lines": seven_lines_rtp, "golden-vault": golden_vault_rtp}


def search(game: Any, name: str, tolerance: Fraction) -> tuple[Any, Fraction, list[str]]:
    files = game.build_files
    build = game.load_build(name)
    target = Fraction(name) / 100
    values = dict(build.tunables())
    base = files.to_data(build)

    def make(v: dict[str, int]) -> Any:
        return files.parse(with_values(base, v), name)

    rtp = RTP[game.id]
    best = rtp(make(values))
    log = [f"start {values}: {float(best) * 100:.5f}%"]
    keys = list(values)
    while abs(best - target) > tolerance:
        moves = [{**values, k: values[k] + d} for k in keys for d in (-2, -1, 1, 2)]
        moves += [{**values, i: values[i] + 1, j: values[j] - 1} for i in keys for j in keys if i != j]
        moves = [m for m in moves if all(x >= 0 for x in m.values())]
        scored = [(abs(rtp(make(m)) - target), m) for m in moves]
        err, pick = min(scored, key=lambda s: s[0])
        if err >= abs(best - target):
            log.append(f"stuck at {values}: {float(best) * 100:.5f}%")
            break
        values, best = pick, rtp(make(pick))
        log.append(f"{values}: {float(best) * 100:.5f}%")
    return make(values), best, log


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game", choices=sorted(RTP))
    ap.add_argument("build")
    ap.add_argument("version")
    ap.add_argument("--tolerance-pp", type=Fraction, default=Fraction(4, 1000))
    args = ap.parse_args(argv)
    game = get_game(args.game)
    files = game.build_files
    old = game.load_build(args.build)
    t0 = time.process_time()
    tuned, fast, log = search(game, args.build, args.tolerance_pp / 100)
    print("\n".join(log))
    data = files.to_data(tuned)
    ex = exact_figures(game, files.parse(data, args.build))
    if ex.rtp != fast and abs(ex.rtp - fast) > Fraction(1, 10**20):
        print(f"the evaluator's RTP {float(ex.rtp)} differs from the search's {float(fast)}", file=sys.stderr)
        return 1
    target = Fraction(args.build) / 100
    if abs(ex.rtp - target) > Fraction(1, 10000):
        print(f"missed: exact RTP {float(ex.rtp) * 100:.5f}% is not within 0.01 pp of {args.build}%", file=sys.stderr)
        return 1
    kept = files.folder / OLDER / args.build / f"{old.identity.version}.toml"
    if not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files.folder / f"{args.build}.toml", kept)
    data.update({"rtp": str(ex.rtp), "version": args.version})
    new = files.parse(data, args.build)
    files.write(new, files.folder / f"{args.build}.toml",
                f"{game.id} build {args.build}: tuned on exact figures by bench/exact_retune.py (tolerance "
                f"+-{float(args.tolerance_pp)} pp);\nrtp: exact (reelforge exact {game.id} --build {args.build}), "
                f"{float(ex.rtp) * 100:.6f}%")
    print(f"{game.id} {args.build} v{args.version}: exact RTP {float(ex.rtp) * 100:.6f}% "
          f"({time.process_time() - t0:.1f} CPU s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
