"""Loading build files (TOML) with clear errors."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from reelforge.game import BuildError


def build_dir(package_file: str) -> Path:
    """The ``builds/`` folder next to a game package's module."""
    return Path(package_file).resolve().parent / "builds"


def list_builds(folder: Path) -> list[str]:
    """Build names (file stems) in ``folder``, highest RTP first."""
    names = [p.stem for p in folder.glob("*.toml")]

    def key(n: str) -> tuple[float, str]:
        try:
            return (-float(n), n)
        except ValueError:
            return (0.0, n)

    return sorted(names, key=key)


def read_build(folder: Path, name: str, game_id: str) -> dict[str, Any]:
    """Read ``folder/name.toml``; unknown names list the valid ones."""
    names = list_builds(folder)
    if name not in names:
        raise BuildError(f"unknown build {name!r} for {game_id}; valid builds: {', '.join(names)}")
    path = folder / f"{name}.toml"
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BuildError(f"{path.name}: not valid TOML: {exc}") from exc
    if data.get("game") != game_id:
        raise BuildError(f"{path.name}: 'game' must be {game_id!r}, found {data.get('game')!r}")
    if str(data.get("name")) != name:
        raise BuildError(f"{path.name}: 'name' must be {name!r}, found {data.get('name')!r}")
    return data


def require(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``data[key]`` checked for presence and type, else a BuildError naming it."""
    if key not in data:
        raise BuildError(f"{where}: missing '{key}'")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise BuildError(f"{where}: '{key}' has the wrong type ({type(value).__name__})")
    return value
