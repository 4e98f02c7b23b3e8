"""A game registers itself in its own folder: its ``game.toml`` names its id, class and place, so a new game
touches no file outside its folder."""

from __future__ import annotations

import pytest

from reelforge.games import registry


def test_the_shipped_games_are_the_folders_with_a_registration_in_their_order():
    found = registry.read_registrations()
    assert found == registry.GAME_CLASSES
    assert list(found)[:3] == ["forge-of-fortunes", "gemstones-gold", "forge-of-gems"]  # the lobby's order
    for game_id, target in found.items():
        folder = target.split(":")[0].split(".")[2]
        assert (registry.GAMES_DIR / folder / registry.REGISTRATION).is_file()
        assert registry.get_game(game_id).id == game_id


def test_a_new_folder_with_a_registration_is_found_in_its_place(tmp_path):
    for folder, game_id, order in (("b_game", "b-game", 20), ("a_game", "a-game", 30), ("c_game", "c-game", 10)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / registry.REGISTRATION).write_text(
            f'id = "{game_id}"\nclass = "pkg.{folder}.game:Game"\norder = {order}\n')
    (tmp_path / "not_a_game").mkdir()  # a folder without a registration is not a game
    assert list(registry.read_registrations(tmp_path).items()) == [
        ("c-game", "pkg.c_game.game:Game"), ("b-game", "pkg.b_game.game:Game"), ("a-game", "pkg.a_game.game:Game")]


def test_a_registration_without_its_class_is_refused_naming_the_file(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / registry.REGISTRATION).write_text('id = "x"\norder = 1\n')
    with pytest.raises(RuntimeError, match=r"x/game\.toml: a game's registration needs id, class and order"):
        registry.read_registrations(tmp_path)


def test_a_registration_naming_another_games_class_is_refused_at_load(monkeypatch):
    monkeypatch.setitem(registry.GAME_CLASSES, "wrong-id", registry.GAME_CLASSES["seven-lines"])
    with pytest.raises(RuntimeError, match="'wrong-id' is registered as .*SevenLines, whose id is 'seven-lines'"):
        registry.get_game("wrong-id")


def test_a_game_in_the_package_writes_its_id_once_in_its_registration():
    """The id is read from game.toml by the game's class, its build files and its reference id (issue 37)."""
    from reelforge.game.contract import Game

    for game_id, target in registry.GAME_CLASSES.items():
        cls = registry._load_class(target)
        assert not any("id" in vars(c) for c in cls.__mro__[:cls.__mro__.index(Game)]), target
        game = registry.get_game(game_id)
        assert game.id == cls.id == game_id and game.build_files.game_id == game_id
        folder = registry.GAMES_DIR / target.split(".")[2]
        for path in folder.rglob("*.py"):
            assert f'"{game_id}"' not in path.read_text(), f"{path} writes the id its {registry.REGISTRATION} gives"


def test_a_class_outside_a_registered_folder_has_no_id_until_it_declares_one():
    from reelforge.game.contract import Game

    class Unregistered(Game):   # this test's folder has no game.toml
        pass

    assert getattr(Unregistered, "id", None) is None
    with pytest.raises(AttributeError, match="Unregistered declares no id and no game.toml lies beside its module"):
        Unregistered.id  # noqa: B018
    assert type("Declared", (Unregistered,), {"id": "declared"}).id == "declared"
