"""Record a simulated build's round-win SD and its 99% interval beside its game (``volatility_figures.toml``), from
which the help states the volatility level (reelforge.game.volatility_proof): refused unless the interval lies
inside one level of the scale.

    python bench/volatility_record.py canyon-ways --build 96.0 [--version 2.0] --rounds 1e9 --seed 39001 [--workers 2]
    python bench/volatility_record.py canyon-ways --build 96.0 --from-json run.json   # reelforge simulate --json

Plain kernel rounds (``reelforge simulate``'s), the same totals for any number of workers; about 3 CPU minutes per
10^9 Canyon Ways rounds on this machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from types import SimpleNamespace

from reelforge.analysis.simulate import simulate
from reelforge.core.stats import volatility_levels
from reelforge.game.rtp_proof import beside_game, load_records, write_records
from reelforge.game.volatility_proof import RECORD_KEYS, VOLATILITY_RECORD, proven_volatility
from reelforge.games.registry import get_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--build", required=True)
    parser.add_argument("--version", default=None, help="a published older version (default: the current one)")
    parser.add_argument("--rounds", type=float)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--game-class", metavar="MODULE:CLASS", help="a game outside the registry (a benchmark game)")
    parser.add_argument("--from-json", metavar="FILE", help="the output of `reelforge simulate GAME --build B --json` "
                        "of this build (plain rounds) instead of simulating here")
    args = parser.parse_args()
    if args.game_class:
        module, _, name = args.game_class.partition(":")
        game = getattr(importlib.import_module(module), name)()
        if game.id != args.game:
            sys.exit(f"{args.game_class} is the game {game.id!r}, not {args.game!r}")
    else:
        game = get_game(args.game)
    build = game.load_build(args.build, args.version)
    if args.from_json:
        run = json.loads(open(args.from_json).read())
        if (run.get("game"), run.get("build_hash"), run.get("mode"), run.get("method")) != \
                (game.id, build.identity.content_hash, "paid", "simulation"):
            sys.exit(f"not recorded: {args.from_json} is not a plain paid simulation of {game.id} "
                     f"{build.identity.label}")
        acc, (lo, hi), args.seed = SimpleNamespace(sd=run["sd"], rounds=run["rounds"]), run["sd_ci99"], run["seed"]
    elif args.rounds is None or args.seed is None:
        sys.exit("give --rounds and --seed (or --from-json)")
    else:
        acc = simulate(game, build, rounds=int(args.rounds), seed=args.seed, workers=args.workers).accumulator
        lo, hi = acc.sd_ci99()
    levels = volatility_levels(lo, hi)
    print(f"{game.id} {build.identity.label}: SD {acc.sd:.4f}x, 99% interval [{lo:.4f}, {hi:.4f}] on {acc.rounds:,} "
          f"rounds (seed {args.seed}): level{'s' * (len(levels) > 1)} {'-'.join(map(str, levels))}")
    if len(levels) != 1:
        sys.exit("not recorded: the interval spans two levels; run more rounds")
    version = f" --version {args.version}" if args.version else ""
    version += f" --game-class {args.game_class}" if args.game_class else ""
    command = (f"python bench/volatility_record.py {game.id} --build {build.name}{version} --rounds {acc.rounds} "
               f"--seed {args.seed}")
    path = beside_game(game, VOLATILITY_RECORD)
    records = dict(load_records(path))
    key = build.identity.content_hash
    if key in records:
        sys.exit(f"not recorded: {path.name} already has {build.identity.label} (a record is never rewritten)")
    records[key] = {"build": build.name, "version": build.identity.version, "sd": f"{acc.sd:.6f}",
                    "sd_low": f"{lo:.6f}", "sd_high": f"{hi:.6f}", "confidence": "0.99", "rounds": acc.rounds,
                    "seed": args.seed, "method": "plain kernel rounds; the SD interval by the delta method with the "
                    "fourth moment", "command": command}
    header = [f"{game.id}: the round-win SD of its builds by content hash, each with its 99% interval (delta method "
              "with", "the fourth moment) from plain kernel rounds, written by bench/volatility_record.py: the help "
              "states the", "volatility level the interval lies in (reelforge.game.volatility_proof); check_game's "
              "volatility_declared", "holds the help to a simulation of its own."]
    write_records(path, header, records, RECORD_KEYS)
    print(f"recorded in {path}: level {proven_volatility(game, build)}")


if __name__ == "__main__":
    main()
