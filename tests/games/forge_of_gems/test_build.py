"""Forge of Gems builds are data, validated on load."""

import copy
import tomllib

import pytest

from reelforge.game.contract import BuildError
from reelforge.games.forge_of_gems.build import BUILDS_DIR, build_names, load_build, parse_build


def raw(name="96.2"):
    return tomllib.loads((BUILDS_DIR / f"{name}.toml").read_text())


def test_five_builds_ship_best_rtp_first():
    assert build_names() == ["96.2", "94.2", "91.2", "87.2", "84.2"]
    for n in build_names():
        b = load_build(n)
        assert b.cap_x == 20000 and str(b.rtp) == str(b.rtp) and b.unit > 0
        assert b.forge_free.weights[5] == 0


@pytest.mark.parametrize("edit,message", [
    (lambda d: d["forge"]["free"].__setitem__("BLANK", 1), "BLANK must have weight 0"),
    (lambda d: d["cells"]["reel1"].__setitem__("RUBY", 1), "unknown symbol"),
    (lambda d: d["cells"]["reel2"].__setitem__("DIAMOND", [60, 3, 1]), "symbols land single"),
    (lambda d: d["cells"]["reel3"].__setitem__("K", -5), "non-negative"),
    (lambda d: d["paytable"].pop("K"), "missing"),
    (lambda d: d.__setitem__("cap_x", 10000), "cap_x"),
    (lambda d: d["gembox"].__setitem__("4", [0, 0, 0]), "gembox"),
    (lambda d: d["cells"].pop("reel5"), "reel5"),
    (lambda d: d["targets"].__setitem__("K", -1), "non-negative"),
])
def test_invalid_builds_are_refused_with_a_clear_message(edit, message):
    data = copy.deepcopy(raw())
    edit(data)
    with pytest.raises(BuildError, match=message):
        parse_build(data, "96.2")

