"""A game's live-monitor figures live beside its builds, are current for every build on sale, and are
written by one command (``reelforge monitor-figures GAME``)."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from reelforge.analysis import monitor_figures
from reelforge.cli import app
from reelforge.games.registry import SHIPPED_GAMES, get_game
from reelforge.server.monitor import load_figures


@pytest.mark.parametrize("game_id", sorted(SHIPPED_GAMES))
def test_every_shipped_games_monitor_figures_are_current_and_read_by_the_monitor(game_id):
    game = get_game(game_id)
    assert monitor_figures.figures_path(game).parent.joinpath("builds").is_dir()  # beside its builds
    assert monitor_figures.stale_figures(game) == []
    shipped = load_figures()
    for build, version, mode in monitor_figures.expected_keys(game):
        assert shipped[(game_id, build, version, mode)].sd > 0


@pytest.fixture
def seven_lines_figures(tmp_path, monkeypatch):
    """Seven Lines' figures file copied to ``tmp_path``, read and written there."""
    game = get_game("seven-lines")
    path = tmp_path / monitor_figures.FIGURES_FILE
    shutil.copy(monitor_figures.figures_path(game), path)
    monkeypatch.setattr(monitor_figures, "figures_path", lambda g: path if g is game else None)
    return game, path


def test_figures_missing_a_build_or_for_a_version_never_published_are_stale(seven_lines_figures):
    game, path = seven_lines_figures
    text = path.read_text()
    current = game.load_build("94.0").identity.version
    text = text.replace(f'["94.0"."{current}".paid]', '["94.0"."9.9".paid]')
    path.write_text(text)
    assert monitor_figures.stale_figures(game) == [
        f"seven-lines build 94.0 version {current} (paid) has no monitor figures: run "
        "`reelforge monitor-figures seven-lines`",
        "seven-lines monitor_figures.toml holds figures of build 94.0 version 9.9 (paid), which is not on sale: "
        "run `reelforge monitor-figures seven-lines`"]


def test_a_simulated_rtp_that_is_not_the_builds_is_stale(seven_lines_figures):
    game, path = seven_lines_figures
    current = game.load_build("96.0").identity.version
    head, _, rest = path.read_text().partition(f'["96.0"."{current}".paid]\n')
    body, _, tail = rest.partition("\n\n")
    path.write_text(f'{head}["96.0"."{current}".paid]\nrtp = "1/2"\nsd = 3.0\nsource = "kernel, 10 rounds"\n\n{tail}')
    assert monitor_figures.stale_figures(game) == [
        f"seven-lines build 96.0 version {current}: monitor RTP 1/2 is not the build's {game.load_build('96.0').rtp}: run "
        "`reelforge monitor-figures seven-lines`"]


def test_the_command_writes_the_shipped_figures_of_an_exact_game(tmp_path, monkeypatch):
    """Forge of Fortunes' figures are exact (well under a second): the command writes the file it ships."""
    game = get_game("forge-of-fortunes")
    shipped = monitor_figures.figures_path(game).read_text()
    path = tmp_path / monitor_figures.FIGURES_FILE
    monkeypatch.setattr(monitor_figures, "figures_path", lambda g: path)
    result = CliRunner().invoke(app, ["monitor-figures", "forge-of-fortunes"])
    assert result.exit_code == 0, result.output
    assert path.read_text() == shipped
