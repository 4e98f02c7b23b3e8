"""Build files for every game through one mechanism: schema-checked loads, one TOML writer, one
kernel-table cache."""

import dataclasses
import gc
import tomllib
from fractions import Fraction

import numpy as np
import pytest

from reelforge.game.buildfile import kernel_tables
from reelforge.game.buildschema import Array, At, Field, Integer, Mapping, Table, Text, dump, fraction_text
from reelforge.game.contract import Build, BuildError
from reelforge.games.forge_of_fortunes import build as fof
from reelforge.games.forge_of_gems import build as fog
from reelforge.games.gemstones_gold import build as gg

MODULES = {"forge-of-fortunes": fof, "forge-of-gems": fog, "gemstones-gold": gg}
SHIPPED = [(game, name) for game, mod in MODULES.items() for name in mod.build_names()]


def _fields(build) -> dict:
    return {f.name: getattr(build, f.name) for f in dataclasses.fields(build)}


@pytest.mark.parametrize("game, name", SHIPPED)
def test_writing_a_shipped_build_and_reading_it_back_gives_the_same_build(game, name, tmp_path):
    mod = MODULES[game]
    build = mod.load_build(name)
    assert isinstance(build, Build) and build.name == name
    assert 0 < build.rtp < 1   # a fraction of the stake, never a percentage
    path = mod.FILES.write(build, tmp_path / f"{name}.toml", header="a test copy")
    again = mod.FILES.load_file(path)
    assert again is not build and _fields(again) == _fields(build)
    # the shipped file is the writer's text below its header comments: nothing is written by hand
    shipped = (mod.BUILDS_DIR / f"{name}.toml").read_text()
    body = mod.FILES.text(build)
    assert shipped.endswith(body)
    assert all(line.startswith("#") for line in shipped[: -len(body)].splitlines())


def test_the_gemstones_gold_kernel_tables_are_made_once_per_build_and_equal_for_equal_builds(tmp_path):
    build = gg.load_build("96.71")
    assert build.arrays is build.arrays
    copy = gg.FILES.load_file(gg.FILES.write(build, tmp_path / "96.71.toml"))
    assert copy.arrays is not build.arrays
    for key, table in build.arrays.items():
        assert np.array_equal(copy.arrays[key], table) and copy.arrays[key].dtype == table.dtype, key


def test_kernel_tables_are_dropped_with_their_build():
    made = []

    def make(b):
        made.append(b.name)
        return np.arange(3)

    build = fof.parse_build(fof.FILES.to_data(fof.load_build("96.2")), "96.2")
    first = kernel_tables(build, make)
    assert kernel_tables(build, make) is first and made == ["96.2"]
    from reelforge.game import buildfile

    before = len(buildfile._TABLES)
    del build
    gc.collect()
    assert len(buildfile._TABLES) == before - 1


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.__setitem__("coins", "10"), "'coins' must be a positive integer, found '10'"),
    (lambda d: d.__setitem__("rtp", "96.2"), "'rtp' must be below 2, found '96.2' (an RTP is a fraction of the stake"),
    (lambda d: d.__setitem__("max_stke", 5), "unknown key(s) ['max_stke'] at the top level"),
    (lambda d: d["base"].__setitem__("reel", []), "unknown key(s) ['reel'] in 'base'"),
    (lambda d: d["base"]["reels"].__setitem__(1, "GSX"), "'base.reels.2' holds unknown symbol(s) 'X'"),
    (lambda d: d.pop("coins"), "missing 'coins'"),
    (lambda d: d["feature"]["sets"]["2x-3x"].pop("reels"), "missing 'feature.sets.2x-3x.reels'"),
])
def test_a_bad_file_is_refused_naming_the_file_the_key_and_the_problem(edit, message, tmp_path):
    data = fof.FILES.to_data(fof.load_build("96.2"))
    edit(data)
    path = tmp_path / "96.2.toml"
    path.write_text(dump(fof.SCHEMA, data))
    with pytest.raises(BuildError) as err:
        fof.FILES.load_file(path)
    text = str(err.value)
    assert text.startswith("forge-of-fortunes build 96.2 (96.2.toml): ")
    assert message in text


def test_a_file_must_name_its_game_and_its_stem(tmp_path):
    text = (fog.BUILDS_DIR / "96.2.toml").read_text()
    (tmp_path / "96.2.toml").write_text(text.replace('game = "forge-of-gems"', 'game = "gemstones-gold"'))
    with pytest.raises(BuildError, match="'game' must be 'forge-of-gems', found 'gemstones-gold'"):
        fog.FILES.load_file(tmp_path / "96.2.toml")
    (tmp_path / "95.toml").write_text(text)
    with pytest.raises(BuildError, match="'name' must be the file's stem '95'"):
        fog.FILES.load_file(tmp_path / "95.toml")
    (tmp_path / "96.2.toml").write_text(text.replace("[paytable]", "[paytable"))
    with pytest.raises(BuildError, match=r"forge-of-gems build 96.2 \(96.2.toml\): not valid TOML"):
        fog.FILES.load_file(tmp_path / "96.2.toml")
    with pytest.raises(BuildError, match="cannot be read"):
        fog.FILES.load_file(tmp_path / "nothing.toml")


SCHEMA = Table((
    Field("name", Text()),
    Field("odd keys", Mapping(Integer(low=0), noun="entry", value_comment=lambda k: f"entry {k}")),
    Field("lines", Table((Field("items", Array(Text(), multiline=True, item_comment=lambda i, d: f"item {i + 1}"),
                                note="two lines\nof notes"),), comment="a table")),
))


def test_the_writer_quotes_what_needs_quoting_and_keeps_its_comments():
    data = {"name": 'say "hi"\\ \t\x7f', "odd keys": {"2x-3x": 1, "plain_key": 2, "é": 3},
            "lines": {"items": ["a", "b"]}}
    text = dump(SCHEMA, data, header="top\nof the file")
    assert tomllib.loads(text) == data
    assert text == (
        "# top\n# of the file\n"
        'name = "say \\"hi\\"\\\\ \\t\\u007f"\n'
        "\n"
        '["odd keys"]\n"2x-3x" = 1  # entry 2x-3x\nplain_key = 2  # entry plain_key\n"é" = 3  # entry é\n'
        "\n"
        "[lines]  # a table\n# two lines\n# of notes\nitems = [\n"
        '  "a",  # item 1\n  "b",  # item 2\n]\n')


def test_the_writer_refuses_what_toml_cannot_hold():
    with pytest.raises(TypeError, match="cannot write Fraction"):
        dump(SCHEMA, {"name": Fraction(1, 3)})


def test_exact_numbers_are_written_as_decimals_where_they_have_one():
    assert fraction_text(Fraction(481, 500)) == "0.962"
    assert fraction_text(Fraction(561, 10)) == "56.1"
    assert fraction_text(Fraction(56)) == "56"
    assert fraction_text(Fraction(-3, 8)) == "-0.375"
    assert fraction_text(Fraction(1, 3)) == "1/3"
    assert Fraction(fraction_text(Fraction(9671, 10000))) == Fraction(9671, 10000)


def test_an_error_names_the_key_path():
    at = At("some build") / "cells" / "reel1"
    assert str(at.error("must be fine")) == "some build: 'cells.reel1' must be fine"
    assert str(at.missing()) == "some build: missing 'cells.reel1'"
