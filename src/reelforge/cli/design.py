"""``reelforge design GAME ...``: each registered game's design and calibration commands, mounted from
the registry: the game's own (:attr:`reelforge.game.contract.Game.design_commands`, a Typer app in its folder, e.g.
``reelforge design forge-of-gems verify``) and, for every tunable game, ``tune`` (the generic tuner, the
same as ``reelforge tune GAME``).

Samples are kept as one kind of file (``--save``/``--load``/``--sample`` S.npz, see
:mod:`reelforge.game.estimation`); they depend only on the seed and sizes, never on ``--workers``.
Bad input is one line on stderr and exit status 2 (:class:`reelforge.game.options.CliError`).
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup

from reelforge.cli.lazy import SETTINGS
from reelforge.game.options import CliError


def _tune(game_id: str) -> Any:
    """``reelforge tune`` with the game given: ``reelforge design GAME tune --build ...``."""
    from reelforge.cli.tune import tune

    sub = typer.Typer(**SETTINGS)
    sub.command("tune")(tune)
    command = typer.main.get_command(sub)
    command.params = [p for p in command.params if p.name != "game"]
    command.callback = functools.partial(command.callback, game=game_id)
    return command


def game_group(game_id: str) -> Any:
    """The design command group of one registered game."""
    from reelforge.games.registry import get_game

    game = get_game(game_id)
    if game.design_commands:
        module, _, attribute = game.design_commands.partition(":")
        group = typer.main.get_group(getattr(importlib.import_module(module), attribute))
    else:
        what = "the generic tuner" if game.capabilities.tunable else "no design commands (not tunable)"
        group = TyperGroup(name=game_id, help=f"{game.title}: {what}.", rich_markup_mode=None)
    if game.capabilities.tunable and "tune" not in group.commands:
        group.add_command(_tune(game_id), "tune")
    group.name = game_id
    return group


class DesignGroup(TyperGroup):
    """One sub-group per registered game (imported when listed or run); a command's bad input is one line."""

    def list_commands(self, ctx: Any) -> list[str]:
        from reelforge.games.registry import game_ids

        return game_ids()

    def get_command(self, ctx: Any, name: str) -> Any:
        from reelforge.games.registry import game_ids

        return game_group(name) if name in game_ids() else None

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        from reelforge.games.registry import UnknownGame, get_game

        try:
            get_game(args[0])          # an unknown game: one line naming the valid ones
        except UnknownGame as exc:
            raise CliError(str(exc)) from None
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except CliError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None


app = typer.Typer(cls=DesignGroup, no_args_is_help=True, **SETTINGS,
                  help="Design and calibrate a game's builds (the commands that made the shipped files).")


@app.callback()
def _design() -> None:
    """Design and calibrate a game's builds (the commands that made the shipped files)."""
