"""The layering docs/architecture.md draws: a module imports only from its own layer or
the layers below it (imports inside functions included), so the server and the CLI know games only
through the contract and the registry, and a game knows nothing of the server."""

import ast
import re
from pathlib import Path

import reelforge

LAYERS = ["core", "mechanics", "game", "games", "analysis", "conformance", "server", "ops", "bench", "cli",
          "__main__"]
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


# Game knowledge lives in games/ (issue 21): outside it no module imports a game's package or names a
# shipped game's id or package (``forge-of-gems``, ``forge_of_gems``, as in "module:attribute") in its code (docstrings may use one as an example). What the
# reports, the design commands and the server know of a game comes through its Game (and the registry).


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


def _game_ids() -> set[str]:
    """The shipped games' ids and package names (``forge-of-gems``, ``forge_of_gems``)."""
    from reelforge.games.registry import GAME_CLASSES, SHIPPED_GAMES

    return set(SHIPPED_GAMES) | {GAME_CLASSES[g].split(":")[0].split(".")[2] for g in SHIPPED_GAMES}


def test_no_module_outside_games_knows_a_game():
    knowing = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        # a migration is a dated record of the data it moved (0003 names the builds whose rounds it backfills)
        if rel.startswith(("games/", "server/migrations/")):
            continue
        if (found := _game_knowledge(path, _game_ids())):
            knowing[rel] = found
    assert not knowing, knowing


CLIENT_AND_DATA = (".js", ".css", ".html", ".toml", ".json")
"""The browser client's files and the data files: a game's renderer, styles, art, figures and registration live
in its folder (served from there), so none of these names a game outside games/ ..."""
NAMING_ALLOWED = {
    "locales/": "the translation catalogs: a game's texts in every language, filed under the game they come from",
    "server/demo.toml": "an operator's configuration names the games it offers (this one the demo server's ladders)",
}
"""... but these, each for its reason."""


def _names_a_game(path: Path, ids: set[str]) -> list[str]:
    text = path.read_text(errors="replace")
    return sorted(f"names {g!r}" for g in ids if g in text)


def test_no_client_or_data_file_outside_games_names_a_game():
    knowing = {}
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT).as_posix()
        if path.suffix not in CLIENT_AND_DATA or rel.startswith(("games/", *NAMING_ALLOWED)):
            continue
        if (found := _names_a_game(path, _game_ids())):
            knowing[rel] = found
    assert not knowing, knowing
    assert all((ROOT / allowed).exists() for allowed in NAMING_ALLOWED)  # no exception outlives its file


def test_the_client_check_sees_an_id_in_a_stylesheet(tmp_path):
    """The check above cannot pass by seeing nothing."""
    sheet = tmp_path / "style.css"
    sheet.write_text('.game-art[data-game="gemstones-gold"] { background: #000; }\n.fog-gembox { gap: 1px; }\n')
    assert _names_a_game(sheet, _game_ids()) == ["names 'gemstones-gold'"]



# A game's styles live in its folder (its client.css) even where they name no game: a class that only one game's
# own renderer (games/<game>/client.js) makes, styled in a generic stylesheet of web/, is that game's knowledge
# (a class two games' renderers share, such as the cascade games' .cascade-top, is a generic style).
CSS_CLASS = re.compile(r"\.(-?[A-Za-z_][\w-]*)")


def _token(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")


def _game_only_classes(sheet: Path, generic: str, games: dict[str, str]) -> list[str]:
    """The classes ``sheet`` styles that one game's renderer (``games``: its name -> its code) makes and no
    other game's nor the generic client code (``generic``) does."""
    rules = re.sub(r"/\*.*?\*/", "", sheet.read_text(), flags=re.S)
    selectors = " ".join(re.findall(r"([^{}]*)\{", rules))
    found = []
    for name in sorted(set(CSS_CLASS.findall(selectors))):
        owners = sorted(g for g, code in games.items() if _token(name).search(code))
        if len(owners) == 1 and not _token(name).search(generic):
            found.append(f".{name} (made only by {owners[0]})")
    return found


def test_no_generic_stylesheet_styles_a_games_own_classes():
    games = {p.parent.name: p.read_text() for p in sorted((ROOT / "games").glob("*/client.js"))}
    assert games, "no game ships a renderer: the check would see nothing"
    generic = "\n".join(p.read_text() for p in sorted((ROOT / "web").rglob("*")) if p.suffix in (".js", ".html"))
    styled = {p.name: found for p in sorted((ROOT / "web").glob("*.css"))
              if (found := _game_only_classes(p, generic, games))}
    assert not styled, styled


def test_the_stylesheet_check_sees_a_class_only_a_game_makes(tmp_path):
    """The check above cannot pass by seeing nothing: a game's class is seen, a shared one is not."""
    sheet = tmp_path / "style.css"
    sheet.write_text("/* .gg-lane in a comment */\n.cascade-top, .gg-frame > .gem { gap: 1px; }\n")
    games = {"gems": 'el("div.gg-frame.cascade-top", {}, el("span.gem"))', "fog": 'el("div.cascade-top")'}
    assert _game_only_classes(sheet, 'el("span.gem")', games) == [".gg-frame (made only by gems)"]

def test_the_game_knowledge_check_sees_an_import_an_id_and_a_package_string(tmp_path):
    """The check above cannot pass by seeing nothing."""
    module = tmp_path / "m.py"
    module.write_text('"""Docstrings may say forge-of-gems."""\nfrom reelforge.games.forge_of_gems import build\n'
                      'from reelforge.games.registry import get_game\nGAME = "forge-of-gems"\n'
                      'TARGET = "reelforge.games.seven_lines.game:SevenLines"\n')
    assert _game_knowledge(module, _game_ids()) == [
        "imports reelforge.games.forge_of_gems", "names 'forge-of-gems'", "names 'seven_lines'"]


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
