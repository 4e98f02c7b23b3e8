"""Forge of Fortunes builds: strips and ladder as data, validated on load.

Strips are strings, one character per stop:
``G`` Gold Nugget, ``S`` Slag, ``C`` Coal (feature reel 3 only), ``-`` blank.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from reelforge.game.buildfile import BuildFiles, build_dir
from reelforge.game.buildschema import RTP, Array, At, Field, Integer, Mapping, Table, Text, fraction_text
from reelforge.game.registration import id_beside
from reelforge.mechanics.reels import strip_codes

GAME_ID = id_beside(__file__)  # from the game.toml beside it
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


STRIPS_NOTE = ("Strips: one character per stop: G Gold Nugget, S Slag, C Coal (feature reel 3 only), "
               "- blank.")


def _reels() -> Table:
    return Table((Field("reels", Array(Text(GOLD + SLAG + COAL + BLANK, min_length=1), length=3, noun="strips",
                                       multiline=True)),))


SCHEMA = Table((
    Field("game", Text()),
    Field("name", Text()),
    Field("rtp", RTP),
    Field("coins", Integer(low=1)),
    Field("two_of_a_kind_coins", Integer(low=0)),
    Field("max_stake", Integer(low=1), required=False, default=100),
    Field("ladder", Array(Integer(low=1), min_length=2, noun="runners")),
    Field("safe", Array(Integer(low=1), noun="runners")),
    Field("base", _reels()),
    Field("feature", Table((
        Field("runner_sets", Array(Text(min_length=1), noun="strip set names", multiline=True,
                                   item_comment=lambda i, d: f"runner {i + 1}: {d['ladder'][i]}x")),
        Field("sets", Mapping(_reels(), noun="strip set")),
    ))),
))
"""The build file's layout (:mod:`reelforge.game.buildfile`)."""


def _strip_set(reels: list[str], at: At, coal_reel3: bool) -> StripSet:
    for i, strip in enumerate(reels):
        ok = GOLD + SLAG + BLANK + (COAL if coal_reel3 and i == 2 else "")
        bad = sorted(set(strip) - set(ok))
        if bad:
            raise (at / (i + 1)).error(f"holds symbol(s) {''.join(bad)!r} not allowed there (allowed: {ok!r})")
        if GOLD not in strip:
            raise (at / (i + 1)).error("has no GOLD; the feature could never be reached or advanced")
    return StripSet(reels=tuple(reels))  # type: ignore[arg-type]


def _from_data(d: dict[str, Any], name: str, at: At) -> Build:
    ladder = tuple(d["ladder"])
    if list(ladder) != sorted(set(ladder)):
        raise (at / "ladder").error("must be at least two strictly increasing positive integers")
    safe_values = d["safe"]
    missing = [v for v in safe_values if v not in ladder]
    if missing:
        raise (at / "safe").error(f"names runners {missing} that are not on the ladder")
    ends = [v for v in (ladder[0], ladder[-1]) if v not in safe_values]
    if ends:
        raise (at / "safe").error(f"lacks {ends}: the first and the top runner must be safe (Coal has nowhere "
                                  "to move them)")
    base = _strip_set(d["base"]["reels"], at / "base" / "reels", coal_reel3=False)
    feature = d["feature"]
    sets = {k: _strip_set(v["reels"], at / "feature" / "sets" / k / "reels", coal_reel3=True)
            for k, v in feature["sets"].items()}
    runner_sets = tuple(feature["runner_sets"])
    if len(runner_sets) != len(ladder) - 1:
        raise (at / "feature" / "runner_sets").error(
            f"needs {len(ladder) - 1} entries (every runner below the top), found {len(runner_sets)}")
    unknown = sorted({s for s in runner_sets if s not in sets})
    if unknown:
        raise (at / "feature" / "runner_sets").error(f"names unknown strip sets {unknown}; defined: {sorted(sets)}")
    return Build(
        name=name, rtp=d["rtp"], coins=d["coins"], two_of_a_kind_coins=d["two_of_a_kind_coins"], ladder=ladder,
        safe=frozenset(ladder.index(v) for v in safe_values), base=base,
        feature_sets=sets, runner_sets=runner_sets, max_stake=d["max_stake"],
    )


def _to_data(b: Build) -> dict[str, Any]:
    return {
        "game": GAME_ID, "name": b.name, "rtp": fraction_text(b.rtp), "coins": b.coins,
        "two_of_a_kind_coins": b.two_of_a_kind_coins, "max_stake": b.max_stake, "ladder": list(b.ladder),
        "safe": [b.ladder[i] for i in sorted(b.safe)],
        "base": {"reels": list(b.base.reels)},
        "feature": {"runner_sets": list(b.runner_sets),
                    "sets": {k: {"reels": list(s.reels)} for k, s in b.feature_sets.items()}},
    }


FILES: BuildFiles[Build] = BuildFiles(GAME_ID, BUILDS_DIR, SCHEMA, _from_data, _to_data)
"""List, load and write Forge of Fortunes build files."""


def parse_build(data: dict[str, Any], name: str) -> Build:
    """Validate parsed TOML data as build ``name`` (raises BuildError naming the key)."""
    return FILES.parse(data, name)


def build_names() -> list[str]:
    return FILES.names()


def load_build(name: str) -> Build:
    """Load a shipped build by name."""
    return FILES.load(name)


# -- the build flattened for the kernel and the rules -----------------------------------------------
ALPHABET = (BLANK, GOLD, SLAG, COAL)
"""Symbol codes: a symbol's index here."""
G, S, C = (ALPHABET.index(s) for s in (GOLD, SLAG, COAL))


class Tables(NamedTuple):
    """A build flattened into arrays once, at load."""

    base: np.ndarray          # int64 [3, max_len]: base strips as codes
    base_len: np.ndarray      # int64 [3]
    feature: np.ndarray       # int64 [n_sets, 3, max_len]
    feature_len: np.ndarray   # int64 [n_sets, 3]
    runner_set: np.ndarray    # int64 [top]: strip set index per runner
    safe: np.ndarray          # bool [top + 1]
    ladder_units: np.ndarray  # int64 [top + 1]
    two_units: int


def tables(build: Build) -> Tables:
    """Flatten ``build`` for the kernel (win units: the two-of-a-kind award's denominator)."""
    unit = build.two_of_a_kind_x.denominator
    names = list(build.feature_sets)
    width = max(len(s) for ss in [build.base, *build.feature_sets.values()] for s in ss.reels)

    def codes(reels: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        c, n = strip_codes(reels, ALPHABET)
        return np.pad(c, ((0, 0), (0, width - c.shape[1]))), n

    base, base_len = codes(build.base.reels)
    feature = np.zeros((len(names), 3, width), dtype=np.int64)
    feature_len = np.zeros((len(names), 3), dtype=np.int64)
    for k, name in enumerate(names):
        feature[k], feature_len[k] = codes(build.feature_sets[name].reels)
    top = build.top
    return Tables(
        base=base, base_len=base_len, feature=feature, feature_len=feature_len,
        runner_set=np.array([names.index(s) for s in build.runner_sets], dtype=np.int64),
        safe=np.array([r in build.safe for r in range(top + 1)], dtype=np.bool_),
        ladder_units=np.array([v * unit for v in build.ladder], dtype=np.int64),
        two_units=int(build.two_of_a_kind_x * unit))
