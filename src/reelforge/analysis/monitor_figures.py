"""A game's live-monitor figures: per build, current version and mode, the expected return per unit of
cost and the SD of one round's win per unit of cost (what the server's RTP monitor judges against,
``reelforge/server/monitor.py``). They live beside the game's builds, in ``monitor_figures.toml`` of its
folder, written by ``reelforge monitor-figures GAME``: exact where the game has exact mathematics, else a
kernel simulation whose round count and seed the file records.
"""

from __future__ import annotations

import inspect
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

from reelforge.game.contract import Game

FIGURES_FILE = "monitor_figures.toml"
DEFAULT_ROUNDS = 10_000_000
DEFAULT_SEED = 26
CHUNK = 2_000_000
"""Rounds simulated at once (chunk ``i`` from seed + ``i``): bounded memory, the same figures for any total."""


def figures_path(game: Game) -> Path:
    """The game's ``monitor_figures.toml``: in its folder, beside its builds."""
    return Path(inspect.getfile(type(game))).parent / FIGURES_FILE


def read_game_figures(game: Game) -> dict[tuple[str, str, str], dict[str, Any]]:
    """``(build, version, mode) -> {"rtp": str, "sd": float, "source": str}`` from the game's file (empty: none)."""
    path = figures_path(game)
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text())
    return {(build, version, mode): figures for build, versions in data.items()
            for version, modes in versions.items() for mode, figures in modes.items()}


def expected_keys(game: Game) -> list[tuple[str, str, str]]:
    """Every ``(build, current version, mode)`` the game's figures must cover: each build's modes on sale."""
    keys = []
    for name in game.build_names():
        build = game.load_build(name)
        keys += [(name, build.identity.version, mode) for mode in game.modes
                 if mode == "paid" or game.feature_buy_price_x(build) is not None]
    return keys


def round_returns(game: Game, build: str, rounds: int, seed: int, mode: str = "paid") -> Any:
    """Per-round win per unit of cost of ``rounds`` kernel rounds of a build (float64 array)."""
    import numpy as np

    b = game.load_build(build)
    wins = game.kernel_round_wins(b, rounds, seed, mode)
    return np.asarray(wins, dtype=np.float64) / (game.win_unit(b) * float(game.stake_x(b, mode)))


def mode_figures(game: Game, name: str, mode: str, rounds: int, seed: int) -> tuple[str, float, str]:
    """``(rtp, sd, source)`` of one build and mode: exact where the game allows, else simulated."""
    import numpy as np

    build = game.load_build(name)
    if mode == "paid" and game.capabilities.exact:
        exact = game.exact(build)
        return str(exact.rtp), math.sqrt(exact.variance), "exact"
    total = total_sq = 0.0
    for start in range(0, rounds, CHUNK):
        x = round_returns(game, name, min(CHUNK, rounds - start), seed + start // CHUNK, mode)
        total, total_sq = total + float(np.sum(x)), total_sq + float(np.dot(x, x))
    mean = total / rounds
    sd = math.sqrt(total_sq / rounds - mean * mean)
    rtp = str(build.rtp) if mode == "paid" else repr(round(mean, 6))
    return rtp, sd, f"kernel, {rounds:,} rounds, seeds from {seed}, simulated RTP {mean:.5f}"


def write_game_figures(game: Game, rounds: int = DEFAULT_ROUNDS, seed: int = DEFAULT_SEED) -> Path:
    """Compute the game's figures (every build's current version, each mode on sale) and write its file; the
    figures of an older published version stay (the monitor judges the rounds played with it by them)."""
    kept = {key: f for key, f in read_game_figures(game).items() if key[1] in _older_versions(game, key[0])}
    lines = ["# The RTP monitor's figures per build, version and mode (reelforge/server/monitor.py):",
             "# rtp: expected return per unit of cost; sd: SD of one round's win per unit of cost.",
             f"# Written by `reelforge monitor-figures {game.id} --rounds {rounds} --seed {seed}`",
             "# (exact where the game has exact mathematics, else a kernel simulation of that many rounds)."]
    wanted = expected_keys(game)
    for build in game.build_names():  # build by build: its current version's figures, then its older ones
        for name, version, mode in (key for key in wanted if key[0] == build):
            rtp, sd, source = mode_figures(game, name, mode, rounds, seed)
            lines += _entry(name, version, mode, {"rtp": rtp, "sd": sd, "source": source})
            print(f"{game.id} {name} {mode}: sd {sd:.4g} ({source})", file=sys.stderr)
        for (name, version, mode), figures in kept.items():
            if name == build:
                lines += _entry(name, version, mode, figures)
    path = figures_path(game)
    path.write_text("\n".join(lines) + "\n")
    return path


def _entry(name: str, version: str, mode: str, figures: dict[str, Any]) -> list[str]:
    return ["", f'["{name}"."{version}".{mode}]', f'rtp = "{figures["rtp"]}"', f"sd = {figures['sd']:.6g}",
            f'source = "{figures["source"]}"']


def _older_versions(game: Game, name: str) -> list[str]:
    """The published versions of build ``name`` before its current one (none for a build no longer shipped)."""
    return game.build_versions(name)[:-1] if name in game.build_names() else []


def stale_figures(game: Game) -> list[str]:
    """Why the game's figures are not current (one line each; empty: current): a build's current version or a
    mode on sale without figures, figures of a build, version or mode never published or sold, a simulated RTP
    not the build's. Figures of an older published version may stay (for the rounds played with it)."""
    have = read_game_figures(game)
    want = expected_keys(game)
    command = f"reelforge monitor-figures {game.id}"
    out = [f"{game.id} build {b} version {v} ({m}) has no monitor figures: run `{command}`"
           for b, v, m in want if (b, v, m) not in have]
    out += [f"{game.id} {figures_path(game).name} holds figures of build {b} version {v} ({m}), which is not "
            f"on sale: run `{command}`" for b, v, m in sorted(set(have) - set(want)) if v not in _older_versions(game, b)]
    for b, v, m in want:
        figures = have.get((b, v, m))
        if figures and m == "paid" and figures["source"] != "exact" and figures["rtp"] != str(game.load_build(b).rtp):
            out.append(f"{game.id} build {b} version {v}: monitor RTP {figures['rtp']} is not the build's "
                       f"{game.load_build(b).rtp}: run `{command}`")
    return out
