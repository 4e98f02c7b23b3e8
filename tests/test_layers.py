"""The layering the README's Architecture section draws: a module imports only from its own layer or
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
        assert own in LAYERS, f"{rel}: not in a layer of the README's Architecture section"
        wrong += [f"{rel} imports reelforge.{m}" for m in _imports(path) if _layer(m) > _layer(own)]
    assert not wrong, "imports of a higher layer:\n" + "\n".join(wrong)
