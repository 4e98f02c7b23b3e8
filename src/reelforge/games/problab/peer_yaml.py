"""The one-off conversion of problab's published demo configurations (YAML) into build files
(``bench/peers/problab_builds.py``)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from reelforge.game.buildschema import At, fraction_text
from reelforge.games.problab.demo_cascade.build import CASCADE_FILES, CASCADE_ID, CascadeBuild
from reelforge.games.problab.demo_normal.build import NORMAL_FILES, NORMAL_ID, NormalBuild


def from_peer_yaml(path: Path, name: str, rtp: Fraction) -> NormalBuild | CascadeBuild:
    """A build from one of the peer's published game files (``game_0_demonormal.yaml`` or
    ``game_1_democascade.yaml``), refusing what the conversion would not keep (a weighted reel, a
    second screen-drawing reel set with a weight, a symbol layout that differs between modes)."""
    import yaml  # only the one-off conversion reads YAML

    y = yaml.safe_load(Path(path).read_text())
    at = At(str(path))
    modes = y["game_mode_settings"]
    if len(modes) != 2:
        raise at.error("expected two game modes (base, free)")
    out = []
    for i, m in enumerate(modes):
        sets = m["gen_screen_setting"]["reel_set_group"]
        if m["gen_screen_setting"]["gen_reel_type"] != "GenReelByReelIdx" or sets[0]["weight"] <= 0 \
                or any(s["weight"] for s in sets[1:]):
            raise (at / f"mode {i}").error("only reel set 0 may draw screens, by reel index")
        for s in sets:
            for r in s["reels"]:
                if any(w != 1 for w in r.get("weights", [1])):
                    raise (at / f"mode {i}").error("weighted reel stops are not converted")
        if m["symbol_setting"]["symbol_used"] != modes[0]["symbol_setting"]["symbol_used"]:
            raise (at / f"mode {i}").error("modes with different symbols are not converted")
        out.append({"reels": [r["symbols"] for r in sets[0]["reels"]], "pays": m["symbol_setting"]["pay_table"],
                    **({"fill_reels": [r["symbols"] for r in sets[1]["reels"]]} if len(sets) > 1 else {})})
    screen = modes[0]["screen_setting"]
    common = {"name": name, "rtp": fraction_text(rtp), "bet_unit": y["bet_units"][0],
              "max_win_limit": y["max_win_limit"], "symbols": modes[0]["symbol_setting"]["symbol_used"],
              "rows": screen["rows"]}
    fixed = y.get("fixed") or {}
    if y["logic_key"] == "demo_normal":
        data = {"game": NORMAL_ID, **common, "free_rounds": fixed["free_round"],
                "lines": modes[0]["hit_setting"]["line_table"], "base": out[0], "free": out[1]}
        return NORMAL_FILES.parse(data, name)
    if y["logic_key"] == "demo_cascade":
        data = {"game": CASCADE_ID, **common, "max_step": fixed["max_step"], "free_rounds": fixed["free_rounds"],
                "scatter_pay": fixed["scatter_pay"], "trigger": fixed["trigger"], "base": out[0], "free": out[1]}
        return CASCADE_FILES.parse(data, name)
    raise at.error(f"logic {y['logic_key']!r} is neither demo_normal nor demo_cascade")
