"""A game's own sounds (reelforge.game.sounds): what its sounds.toml may declare, and what is refused in one line."""

import inspect
import re
import sys
from pathlib import Path

import pytest

import reelforge
from reelforge.game.sounds import EFFECTS, SoundsError, load_sounds, sounds_path
from reelforge.games.registry import game_ids, get_game

WEB = Path(reelforge.__file__).parent / "web"


def test_the_effects_a_game_may_declare_are_the_ones_the_client_plays():
    js = (WEB / "js" / "sound.js").read_text()
    table = js[js.index("export const EFFECTS = {"):js.index("\n};", js.index("export const EFFECTS = {"))]
    assert tuple(re.findall(r"^  (\w+): \(v\) =>", table, flags=re.M)) == EFFECTS


def test_every_games_sounds_load_and_the_three_first_games_have_their_own_wins_and_feature():
    own = {gid: load_sounds(path) for gid in game_ids()
           if (path := sounds_path(Path(inspect.getfile(type(get_game(gid)))).parent))}
    for gid in ("forge-of-fortunes", "gemstones-gold", "forge-of-gems"):
        assert {"winSmall", "winMedium", "winLarge", "feature"} <= set(own[gid]), gid
    assert len({str(sounds) for sounds in own.values()}) == len(own)  # no two games sound the same


def _sounds(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sounds.toml"
    path.write_text(text)
    return path


def test_a_declared_voice_loads_as_written(tmp_path):
    path = _sounds(tmp_path, '[effects]\nwinSmall = [{ voice = "bell", freq = [784, 1175.5], step = 0.09, '
                             'length = 0.5 }, { voice = "hiss", filter = "highpass", from = 7000, length = 0.2 }]\n')
    assert load_sounds(path) == {"winSmall": [
        {"voice": "bell", "freq": [784, 1175.5], "step": 0.09, "length": 0.5},
        {"voice": "hiss", "filter": "highpass", "from": 7000, "length": 0.2}]}


@pytest.mark.parametrize(("text", "says"), [
    ('[effects]\nwinHuge = [{ voice = "bell", freq = 880, length = 0.5 }]', "effect 'winHuge' is not an effect the client plays"),
    ('[effects]\nwinSmall = [{ voice = "flute", freq = 880, length = 0.5 }]', "voice 1: wants voice = one of tone, bell"),
    ('[effects]\nwinSmall = [{ voice = "bell", freq = 880 }]', "voice 1 (bell): missing length"),
    ('[effects]\nwinSmall = [{ voice = "bell", freq = 880, length = 0.5, wave = "sine" }]', "unknown wave"),
    ('[effects]\nwinSmall = [{ voice = "bell", freq = 88000, length = 0.5 }]', "freq wants a frequency or a list"),
    ('[effects]\nfeature = [{ voice = "tone", freq = 880, length = 0.5, peak = 3 }]', "peak 3 is not a number from 0 to 1"),
    ('[effects]\nfeature = [{ voice = "tone", freq = 880, length = 0.5, wave = "organ" }]', "wave 'organ' is not one of"),
    ('[effects]\nfeature = []', "wants a list of voices"),
    ('[sounds]\nfeature = []', "wants one table [effects]"),
    ('[effects\n', "not a readable TOML file"),
])
def test_a_sound_the_client_cannot_play_is_refused_in_one_line(tmp_path, text, says):
    with pytest.raises(SoundsError, match=re.escape(says)) as caught:
        load_sounds(_sounds(tmp_path, text))
    assert "\n" not in str(caught.value) and str(tmp_path) in str(caught.value)


def test_a_game_whose_sounds_cannot_play_is_refused_when_the_server_lists_it(tmp_path, monkeypatch):
    """The games list the server writes at its start checks each game's sounds: a wrong file stops it there, in
    one line naming the file, the effect and what is wrong (a game without the file is listed without sounds)."""
    import importlib.util

    from reelforge.server.api.games import client_file

    (tmp_path / "noisy.py").write_text("from tests.toy_game.game import ToyLine\n\n\nclass Noisy(ToyLine):\n    pass\n")
    spec = importlib.util.spec_from_file_location("noisy_toy", tmp_path / "noisy.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "noisy_toy", module)  # a class's file is found through its module
    spec.loader.exec_module(module)
    game = module.Noisy()
    assert client_file(game, "sounds.json") is None
    _sounds(tmp_path, '[effects]\nwinSmall = [{ voice = "bell", freq = 880, length = 0.5 }]\n')
    assert client_file(game, "sounds.json") == tmp_path / "sounds.toml"
    _sounds(tmp_path, '[effects]\nwinSmall = [{ voice = "bell", freq = 880, length = 50 }]\n')
    with pytest.raises(SoundsError, match=r"sounds.toml: effect 'winSmall', voice 1: length 50 is not a number"):
        client_file(game, "sounds.json")
