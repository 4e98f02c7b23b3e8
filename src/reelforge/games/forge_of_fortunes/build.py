"""Forge of Fortunes builds: strips and ladder as data, validated on load.

Strips are strings, one character per stop:
``G`` Gold Nugget, ``S`` Slag, ``C`` Coal (feature reel 3 only), ``-`` blank.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from reelforge.buildfile import build_dir, list_builds, read_build, require
from reelforge.game import BuildError

GAME_ID = "forge-of-fortunes"
GOLD, SLAG, COAL, BLANK = "G", "S", "C", "-"
SYMBOL_NAMES = {GOLD: "GOLD", SLAG: "SLAG", COAL: "COAL", BLANK: "BLANK"}
REFERENCE_LADDER = (2, 3, 5, 8, 10, 15, 20, 30, 50, 75, 100, 200, 500, 1000, 2500)
REFERENCE_SAFE = (2, 5, 20, 100, 2500)
BUILDS_DIR: Path = build_dir(__file__)


@dataclass(frozen=True)
class StripSet:
    """Three reel strips (reels 1..3)."""

    reels: tuple[str, str, str]

    def probability(self, reel: int, symbol: str) -> Fraction:
        strip = self.reels[reel]
        return Fraction(strip.count(symbol), len(strip))


@dataclass(frozen=True)
class Build:
    """One Forge of Fortunes math model."""

    name: str
    rtp: Fraction
    """The nominal RTP the build is named for."""
    coins: int
    two_of_a_kind_coins: int
    ladder: tuple[int, ...]
    safe: frozenset[int]
    """Indices of the safe runners on the ladder."""
    base: StripSet
    feature_sets: dict[str, StripSet]
    runner_sets: tuple[str, ...]
    """Feature strip set used while the marker is on runner i (all but the top)."""
    max_stake: int = 100
    feature_buy_price_x: None = None

    @property
    def two_of_a_kind_x(self) -> Fraction:
        return Fraction(self.two_of_a_kind_coins, self.coins)

    @property
    def top(self) -> int:
        return len(self.ladder) - 1

    def feature_strips(self, runner: int) -> StripSet:
        return self.feature_sets[self.runner_sets[runner]]


def _strip_set(raw: Any, where: str, allowed: str, coal_reel3: bool) -> StripSet:
    if not isinstance(raw, dict):
        raise BuildError(f"{where}: must be a table with 'reels'")
    reels = require(raw, "reels", list, where)
    if len(reels) != 3:
        raise BuildError(f"{where}: 'reels' must hold 3 strips, found {len(reels)}")
    for i, strip in enumerate(reels):
        if not isinstance(strip, str) or not strip:
            raise BuildError(f"{where}: reel {i + 1} strip must be a non-empty string")
        ok = allowed + (COAL if coal_reel3 and i == 2 else "")
        bad = sorted(set(strip) - set(ok))
        if bad:
            raise BuildError(f"{where}: reel {i + 1} holds symbol(s) {''.join(bad)!r} not allowed there (allowed: {ok!r})")
        if GOLD not in strip:
            raise BuildError(f"{where}: reel {i + 1} has no GOLD; the feature could never be reached or advanced")
    return StripSet(reels=tuple(reels))  # type: ignore[arg-type]


def parse_build(data: dict[str, Any], name: str) -> Build:
    """Validate a parsed TOML build."""
    where = f"{GAME_ID} build {name}"
    rtp = Fraction(str(require(data, "rtp", (str, float, int), where)))
    coins = require(data, "coins", int, where)
    two = require(data, "two_of_a_kind_coins", int, where)
    if coins <= 0 or two < 0:
        raise BuildError(f"{where}: coins must be positive and two_of_a_kind_coins non-negative")
    ladder = tuple(require(data, "ladder", list, where))
    if len(ladder) < 2 or any(not isinstance(v, int) or v <= 0 for v in ladder) or list(ladder) != sorted(set(ladder)):
        raise BuildError(f"{where}: 'ladder' must be at least two strictly increasing positive integers")
    safe_values = require(data, "safe", list, where)
    missing = [v for v in safe_values if v not in ladder]
    if missing:
        raise BuildError(f"{where}: safe runners {missing} are not on the ladder")
    if ladder[0] not in safe_values or ladder[-1] not in safe_values:
        raise BuildError(f"{where}: the first and the top runner must be safe (Coal has nowhere to move them)")
    base = _strip_set(data.get("base"), f"{where} [base]", GOLD + SLAG + BLANK, coal_reel3=False)
    feature = require(data, "feature", dict, where)
    sets_raw = require(feature, "sets", dict, f"{where} [feature]")
    sets = {k: _strip_set(v, f"{where} [feature.sets.{k}]", GOLD + SLAG + BLANK, coal_reel3=True)
            for k, v in sets_raw.items()}
    runner_sets = tuple(require(feature, "runner_sets", list, f"{where} [feature]"))
    if len(runner_sets) != len(ladder) - 1:
        raise BuildError(f"{where}: feature.runner_sets needs {len(ladder) - 1} entries (every runner below the top), "
                         f"found {len(runner_sets)}")
    unknown = sorted({s for s in runner_sets if s not in sets})
    if unknown:
        raise BuildError(f"{where}: feature.runner_sets names unknown strip sets {unknown}; defined: {sorted(sets)}")
    max_stake = data.get("max_stake", 100)
    return Build(
        name=name, rtp=rtp, coins=coins, two_of_a_kind_coins=two, ladder=ladder,
        safe=frozenset(ladder.index(v) for v in safe_values), base=base,
        feature_sets=sets, runner_sets=runner_sets, max_stake=max_stake,
    )


def build_names() -> list[str]:
    return list_builds(BUILDS_DIR)


@cache
def load_build(name: str) -> Build:
    """Load a shipped build by name."""
    return parse_build(read_build(BUILDS_DIR, name, GAME_ID), name)
