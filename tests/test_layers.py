"""The layering docs/architecture.md draws: a module imports only from its own layer or
the layers below it (imports inside functions included), so the server and the CLI know games only
through the contract and the registry, and a game knows nothing of the server."""

import ast
from pathlib import Path

import reelforge

LAYERS = ["draws", "stats", "mechanics", "chunks", "game", "buildfile", "estimation", "tuning", "calibration", "harness",
          "games", "analysis", "conformance", "server", "client", "bench_server", "reliability", "cli",
          "design_cli", "__main__"]
# "web" is the browser client (no Python)
ROOT = Path(reelforge.__file__).parent


def _layer(module: str) -> int:
    return LAYERS.index(module)


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
        out.update(n.split(".")[1] for n in names if n.startswith("reelforge."))
    return out


def test_every_module_is_in_a_layer_and_imports_no_higher_one():
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.name == "__init__.py" and len(rel.parts) == 1:
            continue
        own = rel.parts[0].removesuffix(".py")
        assert own in LAYERS, f"{rel}: not in a layer of docs/architecture.md"
        wrong += [f"{rel} imports reelforge.{m}" for m in _imports(path) if _layer(m) > _layer(own)]
    assert not wrong, "imports of a higher layer:\n" + "\n".join(wrong)


# Game knowledge lives in games/: outside it no module imports a game's package or names a game id in
# its code (docstrings may use one as an example). The modules listed still do and are to move into their
# games (issue 21); the list only shrinks: a module that no longer does must leave it.
STILL_KNOW_GAMES = {
    "analysis/par.py": "PAR builders per game id (the other games use analysis/par_events.py)",
    "analysis/certificate.py": "GAMES.md's certification targets and the bet levels per game id",
    "design_cli.py": "one design sub-app per game",
    "estimation.py": "legacy sample formats of two games",
    "server/api/common.py": "an example game id in the API description",
}


def _game_knowledge(path: Path, ids: set[str]) -> list[str]:
    tree = ast.parse(path.read_text())
    # docstrings, also of attributes: string statements
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reelforge.games."):
            if node.module.split(".")[2] != "registry":
                found.append(f"imports {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"imports {a.name}" for a in node.names
                      if a.name.startswith("reelforge.games.") and a.name.split(".")[2] != "registry"]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found += [f"names {g!r}" for g in ids if g in node.value]
    return found


def test_no_module_outside_games_knows_a_game_but_those_listed_and_they_still_do():
    from reelforge.games.registry import SHIPPED_GAMES

    knowing = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        # a migration is a dated record of the data it moved (0003 names the builds whose rounds it backfills)
        if rel.startswith(("games/", "server/migrations/")):
            continue
        if (found := _game_knowledge(path, set(SHIPPED_GAMES))):
            knowing[rel] = found
    assert set(knowing) <= set(STILL_KNOW_GAMES), {k: v for k, v in knowing.items() if k not in STILL_KNOW_GAMES}
    assert set(STILL_KNOW_GAMES) <= set(knowing), f"no longer know a game, take them off the list: {set(STILL_KNOW_GAMES) - set(knowing)}"


def _server_imports(path: Path) -> set[str]:
    """The server modules ``path`` imports (anywhere in it, ``TYPE_CHECKING`` blocks included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("reelforge.server."))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("reelforge.server."):
                out.add(node.module)
            elif node.module == "reelforge.server":  # from reelforge.server import store
                out.update(f"reelforge.server.{a.name}" for a in node.names)
    return out


def test_no_two_server_modules_import_each_other():
    """A server module that needs another's helper and is needed by it is two modules' worth of one knot:
    the shared part belongs in a module of its own (as the time helpers live in server/clock.py)."""
    server = ROOT / "server"
    imports = {}
    for path in sorted(server.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(("reelforge", *(parts[:-1] if parts[-1] == "__init__" else parts)))
        imports[name] = _server_imports(path) - {name}
    both = sorted(f"{a} <-> {b}" for a in imports for b in imports[a] if a < b and a in imports.get(b, ()))
    assert not both, "server modules that import each other:\n" + "\n".join(both)
