"""Constructing draws for Forge of Gems tests: the draw value that picks a given table entry."""

from __future__ import annotations

from reelforge.games.forge_of_gems.build import FORGE, NORMAL, PAYING, Build, WeightedTable
from reelforge.games.forge_of_gems.rules import code


def value_for(table: WeightedTable, index: int) -> int:
    """The smallest draw in ``[0, total)`` that picks entry ``index``."""
    assert table.weights[index] > 0, "that entry cannot be drawn in this build"
    return table.cumulative[index] - table.weights[index]


def cell_draw(build: Build, reel: int, name: str) -> int:
    """Draw value landing symbol ``name`` (single, as every fresh cell) on ``reel`` (0-based)."""
    return value_for(build.cells[reel], NORMAL.index(name))


def forge_draw(table: WeightedTable, name: str) -> int:
    return value_for(table, FORGE.index(name))


def target_draw(build: Build, name: str) -> int:
    return value_for(build.targets, PAYING.index(name))


def board_draws(build: Build, columns: list[list[str]]) -> list[int]:
    """Draws for a first board given as columns of symbol names (fresh cells land single)."""
    return [cell_draw(build, reel, name) for reel, col in enumerate(columns) for name in col]


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
        from reelforge.core.draws import SeededDraws
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


class EveryDraw:
    """A draw source answering every draw by its table: each fresh cell lands as ``cell``, each
    target is ``target`` and each FORGE REEL position shows ``forge`` (the tables' totals differ)."""

    def __init__(self, build: Build, cell: str, target: str, forge: str, forge_table: WeightedTable) -> None:
        self.answers = {forge_table.total: forge_draw(forge_table, forge),
                        build.targets.total: target_draw(build, target)}
        for reel in range(len(build.cells)):
            self.answers[build.cells[reel].total] = cell_draw(build, reel, cell)
        assert len(self.answers) == 2 + len({t.total for t in build.cells}), "table totals collide"

    def draw(self, n: int) -> int:
        return self.answers[n]
