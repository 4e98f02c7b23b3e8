"""The reports say of the shipped games exactly what they said before each game's knowledge moved into
its folder (issue 21: its :class:`~reelforge.game.reporting.Reporting`): PAR sheets, the summary's figure rows and
glossary, the RTP components' words, certification targets, bet levels, the top award, the game cycle and
the feature breakdowns, for fixed summaries (simulated, exact, and stratified in each estimator's form).

``data/reporting_golden.json`` holds the summaries and what the code before the move made of them
(``outputs``); the PAR sheets' reference samples are 150 seeded rounds."""

import json
from pathlib import Path

import pytest

from reelforge.analysis import certificate, figures, par
from reelforge.games.registry import get_game

GOLDEN = json.loads((Path(__file__).parent / "data" / "reporting_golden.json").read_text())
BUILDS = {"forge-of-fortunes": "96.2", "gemstones-gold": "96.71", "forge-of-gems": "96.2", "seven-lines": "96.0",
          "golden-vault": "96.0"}
VERSIONS = {"seven-lines": "1.0", "golden-vault": "1.0"}
"""The build version the golden summaries were made with, where a newer one is current (issue 34 retuned both)."""


def _outputs(key: str, s: dict) -> dict:
    """What the reports make of summary ``s`` (the same figures as the golden file's)."""
    gid = key.split("/")[0]
    g = get_game(gid)
    b = g.load_build(BUILDS[gid], VERSIONS.get(gid))
    o = {}
    if "/" not in key and gid != "golden-vault":
        o["par"] = par.par_sheet(g, b, s, rounds=150, seed=5)
    o["rows"] = figures.figure_rows(s)
    o["glossary"] = figures.glossary(s)
    o["targets"] = certificate.targets(g, b, "paid")
    if g.feature_buy_price_x(b) is not None:
        o["buy_targets"] = certificate.targets(g, b, "buy")
    o["bet_levels"] = certificate.bet_levels(g, b, s)
    o["breakdown"] = certificate.feature_breakdown(g, b, s, None)
    o["top_award"] = certificate.top_award(g, s, GOLDEN["summaries"][gid] if "/" in key else None)
    if gid not in ("seven-lines", "golden-vault"):  # theirs said Forge of Gems' words before (now the generic)
        o["cycle"] = certificate.game_cycle(g, b)
    o["split_words"] = [figures.words(k, figures.component_words(s)) for k in s["rtp_split"]]
    return json.loads(json.dumps(o, default=str))


@pytest.mark.parametrize("key", sorted(GOLDEN["summaries"]))
def test_the_reports_say_what_they_said_before_the_move(key):
    got = _outputs(key, GOLDEN["summaries"][key])
    want = GOLDEN["outputs"][key]
    assert got.keys() == want.keys()
    for part in want:
        assert got[part] == want[part], f"{key}: {part} differs"


def test_a_game_without_reporting_of_its_own_gets_the_generic_words():
    s = GOLDEN["summaries"]["seven-lines"]
    # Seven Lines is enumerated exactly since issue 34 (the generic words of an exact game); Gemstones Gold has its own
    assert certificate.game_cycle(get_game("seven-lines"), None)["text"].startswith("Enumerated: every outcome")
    assert certificate.game_cycle(get_game("golden-vault"), None)["enumerable"] is True
    assert figures.component_words(s)["free_spins"] == "free spins"
    assert "GEMBOX" not in json.dumps(figures.figure_rows(s) + figures.glossary(s))
