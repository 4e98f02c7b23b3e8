"""Commands imported only when they run: a Typer group whose subcommands are named by module path.

``reelforge --help`` lists every command from its one-line help in the table (no command module is
imported); running or asking for the help of one command imports that command's module alone. A
target is ``"module:attribute"`` naming a Typer command function, a ``typer.Typer`` app (mounted as
a command group, e.g. ``reelforge design GAME ...``) or an already built command.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

SETTINGS: dict[str, Any] = {"add_completion": False, "pretty_exceptions_enable": False, "rich_markup_mode": None}
"""The Typer settings of the ``reelforge`` app, given to every command function it mounts."""


@dataclass(frozen=True)
class LazyCommand:
    """One command of the table: its name, where it lives, and its one-line help for the listing
    (the first sentence of the command's own help: a test holds the two equal)."""

    name: str
    target: str
    help: str

    def load(self) -> Any:
        """Import the target and build its command."""
        module, _, attribute = self.target.partition(":")
        obj = getattr(importlib.import_module(module), attribute)
        if isinstance(obj, typer.Typer):
            command = typer.main.get_command(obj)
        elif isinstance(obj, (TyperCommand, TyperGroup)):
            command = obj
        elif callable(obj):
            sub = typer.Typer(**SETTINGS)
            sub.command(self.name)(obj)
            command = typer.main.get_command(sub)
        else:
            raise TypeError(f"{self.target} is neither a command function, a Typer app nor a command")
        command.name = self.name
        return command

    def placeholder(self) -> TyperCommand:
        """A stand-in carrying only the help, for the listing."""
        return TyperCommand(self.name, help=self.help, rich_markup_mode=None)


class _Commands(MutableMapping):
    """The group's commands: built ones, then table entries built on first access (in table order)."""

    def __init__(self, built: dict[str, Any], table: tuple[LazyCommand, ...]) -> None:
        self.built = dict(built)
        self.table = {c.name: c for c in table}
        self.order = [*self.built, *(n for n in self.table if n not in self.built)]

    def __getitem__(self, name: str) -> Any:
        if name not in self.built:
            if name not in self.table:
                raise KeyError(name)
            self.built[name] = self.table[name].load()
        return self.built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self.order:
            self.order.append(name)
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        self.built.pop(name, None)
        self.table.pop(name, None)
        self.order.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.order))

    def __len__(self) -> int:
        return len(self.order)

    def listed(self, name: str) -> Any:
        """The command if built, else its placeholder (the listing imports nothing)."""
        return self.built[name] if name in self.built else self.table[name].placeholder()


class LazyGroup(TyperGroup):
    """A Typer group whose subclasses name their commands in ``lazy_commands``."""

    lazy_commands: tuple[LazyCommand, ...] = ()

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands(self.commands, self.lazy_commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # names only (TyperGroup's reads the items: it would import them all)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The listing of :class:`TyperGroup`, from placeholders for the commands not imported yet."""
        commands = [(n, self.commands.listed(n)) for n in self.list_commands(ctx)]
        commands = [(n, c) for n, c in commands if not c.hidden]
        if commands:
            limit = formatter.width - 6 - max(len(n) for n, _ in commands)
            with formatter.section("Commands"):
                formatter.write_dl([(n, c.get_short_help_str(limit)) for n, c in commands])
