"""Published builds never change: every shipped build version matches its locked content hash, and a
change under a published version is refused with a message that says what to do."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reelforge.core.draws import SeededDraws
from reelforge.game.contract import UNPUBLISHED, BuildError, RulesError
from reelforge.games import published
from reelforge.games.registry import GAMES_DIR, REGISTRATION, get_game


def test_every_shipped_build_version_is_published_unchanged():
    problems = published.problems()
    assert not problems, "\n".join(problems)


@pytest.fixture
def fof_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Forge of Fortunes' build files copied to ``tmp_path`` (the game reads them there), and a copy of every
    game's registration with its lock (``tmp_path/games/<folder>/game.toml``)."""
    files = get_game("forge-of-fortunes").build_files
    folder = tmp_path / "builds"
    shutil.copytree(files.folder, folder)
    monkeypatch.setattr(files, "folder", folder)
    monkeypatch.setattr(files, "_cache", {})
    games = tmp_path / "games"
    for registration in GAMES_DIR.glob(f"*/{REGISTRATION}"):
        (games / registration.parent.name).mkdir(parents=True)
        shutil.copy(registration, games / registration.parent.name / REGISTRATION)
    return folder, games


def test_a_changed_build_under_its_published_version_is_refused(fof_copy):
    folder, lock = fof_copy
    path = folder / "96.2.toml"
    path.write_text(path.read_text().replace("max_stake = 100", "max_stake = 90"))
    problems = published.problems(lock)
    assert len(problems) == 1
    assert problems[0].startswith("forge-of-fortunes build 96.2 version 2.0 changed")
    assert "a published build never changes" in problems[0] and "builds/older/96.2/2.0.toml" in problems[0]
    with pytest.raises(ValueError, match="version 2.0 changed"):
        published.add(lock)  # the lock never takes a changed hash


def test_a_change_as_a_new_version_is_published_with_add(fof_copy):
    folder, lock = fof_copy
    path = folder / "96.2.toml"
    (folder / "older" / "96.2" / "2.0.toml").write_text(path.read_text())
    path.write_text(path.read_text().replace("max_stake = 100", "max_stake = 90").replace('version = "2.0"',
                                                                                          'version = "2.1"'))
    problems = published.problems(lock)
    assert problems == [f"forge-of-fortunes build 96.2 version 2.1 is not published yet: run `{published.ADD}` "
                        "to lock its content hash, and commit the game's game.toml"]
    registration = lock / "forge_of_fortunes" / REGISTRATION
    before = registration.read_text()
    assert len(published.add(lock)) == 1
    assert published.problems(lock) == []
    # the new line is added under the build's table; the registration and every published line stay as they were
    after = registration.read_text()
    assert after.replace(f'"2.1" = "{published.read_lock(lock)[("forge-of-fortunes", "96.2", "2.1")]}"\n', "") == before
    assert get_game("forge-of-fortunes").build_versions("96.2") == ["1.0", "2.0", "2.1"]


def test_an_unversioned_file_and_a_lost_version_are_refused(fof_copy):
    folder, lock = fof_copy
    path = folder / "96.2.toml"
    path.write_text(path.read_text().replace('version = "2.0"\n', ""))
    (folder / "older" / "94.2" / "1.0.toml").unlink()
    problems = published.problems(lock)
    assert any(p.startswith("forge-of-fortunes build 96.2 (builds/96.2.toml) has no version") for p in problems)
    assert any(p.startswith("forge-of-fortunes build 94.2 version 1.0 is published but its file is gone")
               for p in problems)


def test_versions_load_side_by_side_with_their_identity():
    game = get_game("forge-of-gems")
    current, old = game.load_build("96.2"), game.load_build("96.2", "1.0")
    assert game.load_build("96.2", "3.1") is current
    assert (current.identity.version, current.identity.rules) == ("3.1", "2")
    # 3.1 is 2.0's maths again (3.0, a retune, was withdrawn); every version stays loadable for its rounds
    v2, v3 = game.load_build("96.2", "2.0"), game.load_build("96.2", "3.0")
    assert v2.identity.content_hash == current.identity.content_hash != v3.identity.content_hash
    assert (old.identity.version, old.identity.rules, old.identity.label) == ("1.0", "1", "96.2 v1.0")
    assert old.identity.content_hash != current.identity.content_hash
    assert game.help(current).build_version == "3.1"
    with pytest.raises(BuildError, match=r"unknown version '4\.0' of forge-of-gems build 96\.2; versions: 1\.0, 2\.0, 3\.0, 3\.1"):
        game.load_build("96.2", "4.0")
    # The old rules play in the reference engine (fresh cells may land split); the kernel refuses them.
    boards = [s.events[0]["board"] for s in (game.play_round(old, SeededDraws(seed)).steps[0] for seed in range(40))]
    assert any("*" in cell for board in boards for col in board for cell in col)
    with pytest.raises(RulesError, match=r"96\.2 v1\.0 plays rules version 1"):
        game.kernel_round_wins(old, 10, 1)


def test_a_build_made_in_memory_is_unpublished_and_written_with_the_version_of_the_same_contents():
    files = get_game("gemstones-gold").build_files
    build = files.load("96.71")
    data = files.to_data(build)
    made = files.parse(data, "96.71")
    assert made.identity.version == UNPUBLISHED
    assert made.identity.content_hash == build.identity.content_hash  # the same maths
    assert 'version = "1.0"' in files.text(made) == files.text(build)  # the same maths: its version
    other = files.parse({**data, "max_stake": 90}, "96.71")
    assert "version" not in files.text(other)  # other maths: publishing it is giving it a new version
    with pytest.raises(BuildError, match="'version' must be a version"):
        files.parse({**data, "version": "one"}, "96.71")
