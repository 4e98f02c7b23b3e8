"""Every certification target cites a document (the rules, or a design document the supplier declares), a
build without targets is refused, and each target measures the quantity its document publishes."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from reelforge.analysis import certificate
from reelforge.analysis.certify import CertifyError, choose_plan
from reelforge.game.reporting import SOURCE_DESIGN, SOURCE_PROVIDER, SOURCE_RULES
from reelforge.game.targets import data_targets
from reelforge.games.registry import all_games, get_game
from tests.toy_game.game import ToyLine

GOLDEN = json.loads((Path(__file__).parent / "data" / "reporting_golden.json").read_text())


@pytest.mark.parametrize("game", [g.id for g in all_games()])
def test_every_shipped_builds_targets_cite_a_document(game):
    g = get_game(game)
    for name in g.build_files.names():
        found = certificate.targets(g, g.load_build(name), "paid")
        assert found and all(t["document"] and t["source"] in (SOURCE_RULES, SOURCE_DESIGN) for t in found), name
        # a rules-text target names the game's rules document; none is the "provider's published figure"
        assert all("rules document" in t["document"] for t in found if t["source"] == SOURCE_RULES)
        assert SOURCE_PROVIDER not in {t["source"] for t in found}


def test_a_build_without_targets_is_refused_before_any_round_is_played():
    toy = ToyLine()
    build = toy.load_build(toy.default_build())
    with pytest.raises(CertifyError, match="no certification targets for toy-line build .* cited from the rules"):
        choose_plan(toy, build, "paid", 1.0, 1)


def test_gemstones_gold_tests_the_published_split_shares_not_the_trigger_rate():
    g = get_game("gemstones-gold")
    s = GOLDEN["summaries"]["gemstones-gold/stratified"]
    rows = {t["figure"]: t for t in certificate.target_rows(certificate.targets(g, g.load_build("96.71"), "paid"),
                                                             s, {})}
    share = rows["hit rate: winning rounds that trigger free spins"]
    split = s["extra"]["hit_rate_split"]
    assert share["target"] == 0.0051 and share["value"] == split["trigger_with_win"] != s["feature_rate"]
    assert share["ci99"] == split["trigger_with_win_ci99"]
    assert rows["hit rate: winning rounds without a free-spin trigger"]["target"] == 0.3458  # the published 34.58% row
    assert not any(t["key"] == "feature_rate" for t in rows.values())


def test_forge_of_fortunes_hit_rate_and_forge_of_gems_figures_cite_the_design_document():
    fof = {t["key"]: t for t in certificate.targets(get_game("forge-of-fortunes"),
                                                     get_game("forge-of-fortunes").load_build("96.2"), "paid")}
    assert fof["hit_rate"]["source"] == SOURCE_DESIGN and "GAMES.md section 1" in fof["hit_rate"]["document"]
    assert fof["rtp"]["source"] == SOURCE_RULES and "001_80ae9de499b28a2c.txt" in fof["rtp"]["document"]
    fog = certificate.targets(get_game("forge-of-gems"), get_game("forge-of-gems").load_build("96.2"), "paid")
    assert {t["source"] for t in fog} == {SOURCE_DESIGN} and all("GAMES.md section 3" in t["document"] for t in fog)
    # Seven Lines has no rules document: its cap is the design's, never "rules text"
    assert get_game("seven-lines").max_win_source.startswith("design document")


def test_a_targets_file_refuses_a_target_without_its_document(tmp_path):
    (tmp_path / "builds").mkdir()
    (tmp_path / "targets.toml").write_text('[[targets."1"]]\nfigure = "RTP"\nkey = "rtp"\ntarget = 0.9\n'
                                           'tolerance = 0.001\nsource = "design document"\n')
    game = SimpleNamespace(build_files=SimpleNamespace(folder=str(tmp_path / "builds")))
    with pytest.raises(ValueError, match="targets.toml: target 1 of build 1: missing document"):
        data_targets(game, SimpleNamespace(name="1"))
    assert data_targets(game, SimpleNamespace(name="2")) == []  # a build the file does not name has none


def test_certify_refuses_a_game_without_targets_in_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    import sys

    from reelforge.cli import main
    from reelforge.games import registry

    monkeypatch.setattr(sys, "argv", ["reelforge", "certify", "toy-line", "--out", str(tmp_path / "pkg")])
    with registry.registered("toy-line", "tests.toy_game.game:ToyLine"), pytest.raises(SystemExit) as stop:
        main()  # the entry point: bad input is one line on stderr and exit status 2
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no certification targets for toy-line build ")
    assert not (tmp_path / "pkg").exists()
