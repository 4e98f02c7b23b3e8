"""Game folders of one shape: build files through the shared mechanism, and design code that never
imports the Game (no game <-> design import cycle)."""

import ast
import importlib
from pathlib import Path

import pytest

from reelforge.game.buildfile import BuildFiles
from reelforge.game.buildschema import Table

GAMES = Path(importlib.import_module("reelforge.games").__file__).parent
FOLDERS = sorted(p for p in GAMES.iterdir() if (p / "build.py").exists())


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_game_declares_its_build_files_once(folder):
    mod = importlib.import_module(f"reelforge.games.{folder.name}.build")
    assert isinstance(mod.FILES, BuildFiles) and isinstance(mod.SCHEMA, Table) and mod.FILES.schema is mod.SCHEMA
    assert mod.FILES.folder == folder / "builds"


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_no_module_below_the_game_imports_it(folder):
    game = f"reelforge.games.{folder.name}.game"
    for path in folder.glob("*.py"):
        if path.name != "game.py":
            assert game not in _imports(path), f"{path.name} imports {game}"

