"""Constructing draws for Forge of Gems tests: the draw value that picks a given table entry."""

from __future__ import annotations

from reelforge.games.forge_of_gems.build import FORGE, NORMAL, PAYING, Build, WeightedTable
from reelforge.games.forge_of_gems.rules import code


def value_for(table: WeightedTable, index: int) -> int:
    """The smallest draw in ``[0, total)`` that picks entry ``index``."""
    assert table.weights[index] > 0, "that entry cannot be drawn in this build"
    return table.cumulative[index] - table.weights[index]


def cell_draw(build: Build, reel: int, name: str, copies: int = 1) -> int:
    """Draw value giving ``copies`` copies of symbol ``name`` on ``reel`` (0-based)."""
    t = build.cells[reel]
    return value_for(t.table, t.entries.index((NORMAL.index(name), copies)))


def forge_draw(table: WeightedTable, name: str) -> int:
    return value_for(table, FORGE.index(name))


def target_draw(build: Build, name: str) -> int:
    return value_for(build.targets, PAYING.index(name))


def board_draws(build: Build, columns: list[list[str]]) -> list[int]:
    """Draws for a first board given as columns of names like ``"K"`` or ``"K*2"``."""
    out = []
    for reel, col in enumerate(columns):
        for name in col:
            sym, _, n = name.partition("*")
            out.append(cell_draw(build, reel, sym, int(n or 1)))
    return out


def cells(columns: list[list[str]]) -> list[list[int]]:
    """Cell codes for columns of names."""
    out = []
    for col in columns:
        row = []
        for name in col:
            sym, _, n = name.partition("*")
            row.append(code(NORMAL.index(sym), int(n or 1)))
        out.append(row)
    return out


class Scripted:
    """Given draws first, then a seeded source (for rounds that go on after the part under test)."""

    def __init__(self, values: list[int], seed: int = 0) -> None:
        from reelforge.draws import SeededDraws
        self.values = list(values)
        self.used = 0
        self.rest = SeededDraws(seed)

    def draw(self, n: int) -> int:
        if self.used < len(self.values):
            v = self.values[self.used]
            self.used += 1
            assert 0 <= v < n, f"scripted draw #{self.used} = {v} outside [0, {n})"
            return v
        return self.rest.draw(n)
