"""problab's two demo games on reelforge's kernels, and on the peer's own engine where its binary is given.

    .venv/bin/python bench/peers/race.py --json [--rounds N] [--seed S] [--peer PATH] [--games demo_normal,...]

Prints a JSON list, one object per game: ``game`` (the peer's name), ``rounds``, ``seed``, ``rtp``,
``rtp_ci99``, ``hit_rate``, ``trigger_rate``, ``sd`` (round win, x bet), ``rounds_per_second_per_core``
(thread CPU time) and ``raw_draws_per_second`` (numpy's PCG64 float fill in the same run) with their
ratio ``rounds_per_million_raw_draws``; demo_normal adds its ``exact`` figures. With ``--peer`` (a
built problab ``run`` binary, made from the configurations in /work/shared/peers/problab), the
rounds are split into ``--repeats`` parts and the two engines alternate part by part, each part
after a raw-rate run; ``peer`` holds the peer's figures from its own report (its rate per CPU
second of the child process, and the ``sps`` it prints), ``speed_ratio`` ours per peer, and
``agreement`` whether each figure lies inside the other engine's 99% interval.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

from reelforge.bench.kernels import RAW_ARRAY, _raw_fill, _size, _timed
from reelforge.core.stats import Z99, wilson_ci
from reelforge.games import problab
from reelforge.games.registry import get_game

GAMES = {"demo_normal": ("problab-demo-normal", 0), "demo_cascade": ("problab-demo-cascade", 1)}
"""The peer's game name -> (our registry id, the peer's ``-game`` id)."""


def raw_rate(seconds: float = 0.3) -> float:
    """PCG64 float64 draws per CPU second (one timed fill of about ``seconds``)."""
    rng = np.random.Generator(np.random.PCG64(12345))
    buf = np.empty(RAW_ARRAY)
    fills = _size(lambda k: _raw_fill(rng, buf, k), seconds)
    return fills * RAW_ARRAY / _timed(lambda: _raw_fill(rng, buf, fills))


def run_ours(game_id: str, rounds: int, seed: int, part: int):
    """(accumulator, CPU seconds) of ``rounds`` kernel rounds from child ``part`` of ``seed``."""
    game = get_game(game_id)
    build = game.load_build(game.default_build())
    t0 = time.thread_time()
    acc = game.simulate_chunk(build, rounds, np.random.SeedSequence(seed).spawn(part + 1)[part])
    return acc, time.thread_time() - t0


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run_peer(binary: str, peer_game: int, rounds: int, seed: int) -> tuple[dict[str, float], float]:
    """(the peer's report figures, CPU seconds of the child) for ``rounds`` spins on one worker."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary, "-game", str(peer_game), "-worker", "1", "-spins", str(rounds), "-seed", str(seed)],
                         capture_output=True, text=True, check=True, env={**os.environ, "GOMAXPROCS": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = _ANSI.sub("", out.stdout + out.stderr)
    figures: dict[str, float] = {}
    for key, label in (("rounds", "Total Rounds"), ("bet", "Total Bet"), ("win", "Total Win"), ("base", "Base Win"),
                       ("free", "Free Win"), ("no_win", "NoWin Rounds"), ("triggers", "Trigger"), ("sd", "STD")):
        m = re.search(rf"\|\s*{label}\s*\|\s*([\d,.]+)", text)
        if not m:
            raise RuntimeError(f"the peer's report has no {label!r}:\n{text[-2000:]}")
        figures[key] = float(m.group(1).replace(",", ""))
    m = re.search(r"sps\s*:\s*([\d,]+)", text)
    figures["sps"] = float(m.group(1).replace(",", "")) if m else float("nan")
    return figures, cpu


def _peer_summary(parts: list[dict[str, float]], seeds: list[int]) -> dict:
    """The peer's parts pooled: RTP from its totals, SD from each part's mean and SD."""
    n = sum(p["rounds"] for p in parts)
    bet_per_round = parts[0]["bet"] / parts[0]["rounds"]
    mean = sum(p["win"] for p in parts) / sum(p["bet"] for p in parts)
    second = sum(p["rounds"] * (p["sd"] ** 2 + (p["win"] / p["bet"]) ** 2) for p in parts) / n
    sd = math.sqrt(max(second - mean * mean, 0.0))
    half = Z99 * sd / math.sqrt(n)
    hits = n - sum(p["no_win"] for p in parts)
    triggers = sum(p["triggers"] for p in parts)
    return {"rounds": int(n), "seeds": seeds, "bet_units": bet_per_round, "rtp": mean, "rtp_ci99": [mean - half, mean + half],
            "rtp_split": {"paid_spin": sum(p["base"] for p in parts) / sum(p["bet"] for p in parts),
                          "free_spins": sum(p["free"] for p in parts) / sum(p["bet"] for p in parts)},
            "hit_rate": hits / n, "hit_rate_ci99": list(wilson_ci(int(hits), int(n))),
            "trigger_rate": triggers / n, "trigger_rate_ci99": list(wilson_ci(int(triggers), int(n))), "sd": sd}


def _inside(x: float, ci: list[float] | tuple[float, float]) -> bool:
    return ci[0] <= x <= ci[1]


def race(name: str, rounds: int, seed: int, peer: str | None, repeats: int) -> dict:
    game_id, peer_game = GAMES[name]
    run_ours(game_id, 1000, seed, 0)                     # compile and load outside the timing
    parts = [rounds // repeats + (i < rounds % repeats) for i in range(repeats)]
    acc, cpu, raws, peer_parts, peer_cpu, rates, peer_rates = None, 0.0, [], [], 0.0, [], []
    for i, n in enumerate(parts):
        raws.append(raw_rate())
        a, c = run_ours(game_id, n, seed, i)
        acc = a if acc is None else acc.merge(a)
        cpu += c
        rates.append(n / c)
        if peer:
            figures, pc = run_peer(peer, peer_game, n, seed + i)
            peer_parts.append(figures)
            peer_cpu += pc
            peer_rates.append(n / pc)
    raw = statistics.median(raws)
    triggers = acc.counter("triggers")
    out = {"game": name, "rounds": rounds, "seed": seed, "rtp": acc.rtp, "rtp_ci99": list(acc.rtp_ci99()),
           "rtp_split": {k: v / acc.total_stake for k, v in zip(acc.component_names, acc.components, strict=True)},
           "hit_rate": acc.hit_rate, "hit_rate_ci99": list(acc.rate_ci99(acc.hits)),
           "trigger_rate": triggers / acc.rounds, "trigger_rate_ci99": list(acc.rate_ci99(triggers)),
           "sd": acc.sd, "sd_ci99": list(acc.sd_ci99()),
           "rounds_per_second_per_core": rounds / cpu, "raw_draws_per_second": raw,
           "rounds_per_million_raw_draws": rounds / cpu / raw * 1e6,
           "load_average": os.getloadavg()[0]}
    if name == "demo_normal":
        from reelforge.games.problab.demo_normal.exact import exact

        e = exact(get_game(game_id).load_build(get_game(game_id).default_build()))
        out["exact"] = {"rtp": float(e.rtp), "rtp_fraction": str(e.rtp), "paid_spin_rtp": float(e.paid_spin_rtp),
                        "trigger_rate": float(e.trigger_probability),
                        "free_rounds_win_x": float(e.free_rounds_win_x)}
    if peer:
        p = _peer_summary(peer_parts, [seed + i for i in range(repeats)])
        p["rounds_per_second_per_core"] = rounds / peer_cpu
        p["rounds_per_million_raw_draws"] = rounds / peer_cpu / raw * 1e6
        p["sps_reported"] = statistics.median(f["sps"] for f in peer_parts)
        out["peer"] = p
        out["speed_ratio"] = out["rounds_per_second_per_core"] / p["rounds_per_second_per_core"]
        out["speed_ratio_by_part"] = [a / b for a, b in zip(rates, peer_rates, strict=True)]
        out["agreement"] = {
            "rtp": _inside(out["rtp"], p["rtp_ci99"]) and _inside(p["rtp"], out["rtp_ci99"]),
            "hit_rate": _inside(out["hit_rate"], p["hit_rate_ci99"]) and _inside(p["hit_rate"], out["hit_rate_ci99"]),
            "trigger_rate": _inside(out["trigger_rate"], p["trigger_rate_ci99"])
            and _inside(p["trigger_rate"], out["trigger_rate_ci99"]),
            "sd": _inside(p["sd"], out["sd_ci99"]),
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the JSON list (the only output there is)")
    ap.add_argument("--rounds", type=float, default=2e7, help="rounds per game (default 2e7)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--peer", default=None, help="a built problab 'run' binary: race it part by part")
    ap.add_argument("--repeats", type=int, default=3, help="parts the rounds are split into (alternating engines)")
    ap.add_argument("--games", default="demo_normal,demo_cascade")
    args = ap.parse_args()
    names = [g.strip() for g in args.games.split(",") if g.strip()]
    bad = [g for g in names if g not in GAMES]
    if bad or args.rounds < args.repeats or args.repeats < 1:
        print(f"race.py: unknown game(s) {bad} (games: {', '.join(GAMES)})" if bad
              else "race.py: --rounds must be at least --repeats (>= 1)", file=sys.stderr)
        return 2
    if args.peer and not os.access(args.peer, os.X_OK):
        print(f"race.py: --peer {args.peer!r} is not an executable file", file=sys.stderr)
        return 2
    with problab.registered():
        results = [race(g, int(args.rounds), args.seed, args.peer, args.repeats) for g in names]
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
