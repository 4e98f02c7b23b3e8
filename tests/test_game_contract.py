"""The typed game contract, as every registered game keeps it: help fields of one meaning and type in
every game and build, declared capabilities that match what the game does, undeclared step actions
refused, and game-only summary figures under ``extra`` where they cannot replace a core figure."""

from __future__ import annotations

import json
from dataclasses import fields
from fractions import Fraction

import numpy as np
import pytest

from reelforge.analysis.summary import exact_summary, simulation_summary, stratified_summary
from reelforge.core.draws import RecordingDraws, SeededDraws
from reelforge.game.contract import Game, RulesError
from reelforge.game.help import GameHelp
from reelforge.game.results import ExactFigures
from reelforge.games.forge_of_fortunes.game import ForgeOfFortunes
from reelforge.games.registry import all_games, game_ids, get_game

GAME_BUILDS = [(g.id, b) for g in all_games() for b in g.build_names()]


def name_is_proven(help_json: dict, named: Fraction) -> bool:
    """The help's RTP proves the build's name (issue 34): exact (or declared) within 0.01 pp of it, or certified
    with its 99% interval inside it +-0.05 pp."""
    rtp, proof = Fraction(help_json["rtp"]), help_json.get("rtp_proof") or {}
    if proof.get("method") == "certified":
        low, high = (Fraction(x) for x in proof["interval"])
        return named - Fraction(5, 10_000) <= low <= rtp <= high <= named + Fraction(5, 10_000)
    return abs(rtp - named) <= Fraction(1, 10_000)


def _pays(row: dict, tiers: int) -> None:
    assert isinstance(row["name"], str) and row["name"] and isinstance(row["art"], list)
    if "pays_x" in row:
        assert len(row["pays_x"]) == tiers
        assert all(isinstance(p, str) and Fraction(p) > 0 for p in row["pays_x"])
    else:
        assert isinstance(row["text"], str) and row["text"]


@pytest.mark.parametrize(("game_id", "build_name"), GAME_BUILDS)
def test_every_help_field_has_one_type_and_meaning_in_every_game_and_build(game_id, build_name):
    game = get_game(game_id)
    build = game.load_build(build_name)
    h = game.help(build)
    assert isinstance(h, GameHelp)
    assert h.game == game.id and h.game_id == game.reference_id and isinstance(h.game_id, str)
    assert h.published_id == game.published_id and h.title == game.title and h.version == game.version
    assert h.build == build_name and h.max_win_x == game.max_win_x and type(h.max_win_x) is int
    # the builds are named for their RTP in percent; the help's RTP is that figure as a fraction of the stake
    # the proven RTP (issue 34): the name's exactly, an exact figure within 0.01 pp of the name, or a certified
    # interval's centre whose 99% interval lies inside the name +-0.05 pp
    assert type(h.rtp) is Fraction and name_is_proven(h.to_json(), Fraction(build_name) / 100)
    assert h.rtp_percent == f"{float(h.rtp) * 100:.2f}"
    assert isinstance(h.volatility, str) and h.volatility
    assert isinstance(h.rules, tuple) and h.rules and all(isinstance(p, str) and p for p in h.rules)
    assert h.page["paytable"] is h.paytable and isinstance(h.page["features"], list)
    assert all(isinstance(s["title"], str) for s in h.page["sections"])
    tiers = len(h.paytable["tiers"])
    for row in h.paytable["rows"]:
        _pays(row, tiers)
    assert h.symbol_names and all(isinstance(k, str) and isinstance(v, str) for k, v in h.symbol_names.items())
    if game.capabilities.feature_buy:
        assert type(h.feature_buy_price_x) is Fraction and h.feature_buy_price_x == game.stake_x(build, "buy")
    else:
        assert h.feature_buy_price_x is None
    # game-only fields live under extra, never beside the common ones
    assert isinstance(h.extra, dict) and not set(h.extra) & {f.name for f in fields(GameHelp)}
    body = json.loads(json.dumps(h.to_json()))
    assert body["rtp"] == f"{h.rtp.numerator}/{h.rtp.denominator}" and body["rtp_percent"] == h.rtp_percent
    assert set(body) == {f.name for f in fields(GameHelp)} | {"rtp_percent"}


def test_the_help_refuses_an_rtp_in_percent_and_rules_in_one_string():
    game = get_game("forge-of-fortunes")
    good = game.help(game.load_build("96.2"))
    kept = {f.name: getattr(good, f.name) for f in fields(GameHelp)}
    for field, bad, message in (("rtp", Fraction(481, 5), "Fraction of the stake"), ("rtp", 0.962, "rtp"),
                                ("rules", "one string", "tuple of paragraphs"), ("max_win_x", 2500.0, "int"),
                                ("feature_buy_price_x", "56.1", "Fraction or None"),
                                ("paytable", {"GOLD": 1}, "rows")):
        with pytest.raises(TypeError, match=message):
            GameHelp(**{**kept, field: bad})
    table = good.paytable
    row = table["rows"][0]
    for bad, message in (({**table, "tiers": []}, "needs 'tiers'"), ({k: v for k, v in table.items() if k != "note"}, "needs 'note' as text"),
                         ({**table, "rows": [{**row, "art": []}]}, "row 1 .* needs 'art'"),
                         ({**table, "rows": [{**row, "pays_x": ["1", "2"]}]}, "row 1 .* one pay per tier \\(1\\)"),
                         ({**table, "rows": [{**row, "pays_x": [0.5]}]}, "row 1 .* not an exact multiple of the bet as text")):
        with pytest.raises(TypeError, match=f"forge-of-fortunes help: the paytable {message}"):
            GameHelp(**{**kept, "paytable": bad})


def test_exact_figures_refuse_a_float_or_a_split_that_does_not_add_up():
    game = get_game("forge-of-fortunes")
    ex = game.exact(game.load_build("96.2"))
    kept = {f.name: getattr(ex, f.name) for f in fields(ExactFigures)}
    with pytest.raises(TypeError, match="hit_rate must be a Fraction"):
        ExactFigures(**{**kept, "hit_rate": float(ex.hit_rate)})
    with pytest.raises(ValueError, match="RTP split adds up to"):
        ExactFigures(**{**kept, "rtp_split": {**ex.rtp_split, "feature": ex.rtp_split["feature"] + Fraction(1, 10**9)}})


@pytest.mark.parametrize("game_id", game_ids())
def test_declared_capabilities_match_what_the_game_does(game_id):
    game = get_game(game_id)
    build = game.load_build(game.default_build())
    caps = game.capabilities
    if caps.exact:
        ex = game.exact(build)
        assert isinstance(ex, ExactFigures) and type(ex.rtp) is Fraction
        assert sum(ex.rtp_split.values()) == ex.rtp and sum(ex.outcomes.values()) == 1
        assert sum(w * p for w, p in ex.outcomes.items()) == ex.rtp
        assert exact_summary(game, build)["rtp_exact"] == str(ex.rtp)
    else:
        with pytest.raises(NotImplementedError, match="exact"):
            game.exact(build)
        with pytest.raises(ValueError, match="no exact mathematics"):
            exact_summary(game, build)
    if caps.stratified:
        assert type(game).stratified is not Game.stratified
    else:
        with pytest.raises(NotImplementedError, match="stratified"):
            game.stratified(build, 1000, 1)
        with pytest.raises(ValueError, match="no stratified estimate"):
            stratified_summary(game, build, 1000, 1)
    if caps.tunable:  # an unknown target is refused, by name, before any work
        with pytest.raises(ValueError, match="no_such_target"):
            game.tune(build.name, {"no_such_target": 0.5})
    else:
        with pytest.raises(NotImplementedError, match="cannot be tuned"):
            game.tune(build.name, {"rtp": 0.9})
    if caps.feature_buy:
        assert "buy" in game.modes and game.stake_x(build, "buy") == build.feature_buy_price_x > 1
    else:
        assert "buy" not in game.modes and game.feature_buy_price_x(build) is None
        with pytest.raises(RulesError, match="no round mode 'buy'"):
            game.stake_x(build, "buy")


@pytest.mark.parametrize("game_id", game_ids())
def test_an_undeclared_step_action_is_refused_naming_it_before_any_draw(game_id):
    game = get_game(game_id)
    build = game.load_build(game.default_build())
    state = game.start_round(build)
    before = json.dumps(state, sort_keys=True)
    # "spin" and "respin" were once let through by Forge of Fortunes, which declares no action
    for action in ("no-such-action", "spin", "respin"):
        draws = RecordingDraws(SeededDraws(1))
        with pytest.raises(RulesError, match=f"no step action '{action}'"):
            game.play_step(build, state, draws, action)
        assert draws.take() == [] and json.dumps(state, sort_keys=True) == before
    step = game.play_step(build, state, SeededDraws(1))  # no action: the paid spin
    assert step.kind == "paid_spin"


class LoudForge(ForgeOfFortunes):
    """Forge of Fortunes whose game figures reuse core summary names."""

    def extra_summary(self, build, acc):
        return {"rtp": 123.0, "feature_frequency_one_in": -1, "game": "not-this-game"}


def test_game_figures_live_under_extra_and_cannot_replace_a_core_figure():
    game = LoudForge()
    build = game.load_build("96.2")
    acc = game.simulate_chunk(build, 5_000, np.random.SeedSequence(3))
    s = simulation_summary(game, build, acc, seed=3)
    assert s["rtp"] == acc.rtp and s["game"] == "forge-of-fortunes"
    assert s["feature_frequency_one_in"] == acc.rounds / acc.counter("triggers")
    assert s["extra"] == {"rtp": 123.0, "feature_frequency_one_in": -1, "game": "not-this-game"}


def test_every_game_s_simulation_summary_has_the_same_top_level_keys():
    keys = {}
    for game in all_games():
        build = game.load_build(game.default_build())
        acc = game.simulate_chunk(build, 2_000, np.random.SeedSequence(5))
        s = simulation_summary(game, build, acc, seed=5)
        assert s["extra"] == game.extra_summary(build, acc)
        if "triggers" in acc.counter_names:
            assert s["feature_frequency_one_in"] == acc.rounds / acc.counter("triggers")
        json.dumps(s)
        keys[game.id] = set(s)
    first = next(iter(keys.values()))
    assert all(k == first for k in keys.values()), {g: k ^ first for g, k in keys.items()}
    assert "feature_frequency_1_in" not in first and "extra" in first


def test_exact_summary_puts_the_game_s_exact_figures_under_extra():
    game = get_game("forge-of-fortunes")
    build = game.load_build("96.2")
    s = exact_summary(game, build)
    ex = game.exact(build)
    assert s["extra"]["feature_expected_win_x"] == float(ex.extra["feature_expected_win_x"])
    assert s["extra"]["hit_rate_split"]["feature"] == s["feature_rate"]
    assert not {"hit_rate_split", "feature_end_runner_probability", "expected_respins_per_feature"} & set(s)


def test_an_unpublished_build_says_so_in_its_label():
    from reelforge.game.contract import UNPUBLISHED, BuildIdentity

    assert BuildIdentity("toy-line", "95.0", UNPUBLISHED, "1", "ab").label == "95.0 (unpublished)"
    assert BuildIdentity("toy-line", "95.0", "2.0", "1", "ab").label == "95.0 v2.0"


def test_a_kernel_games_feature_counter_is_its_first_counter_unless_it_names_another():
    """The feature counter is declared once: first among the counters (or named, where it is not first)."""
    from reelforge.games.registry import get_game
    from tests.toy_game.game import ToyLine

    class CountsScattersFirst(ToyLine):
        counters = ("scatter_hits", "triggers")

    assert ToyLine().feature_counter == "triggers"
    assert CountsScattersFirst().feature_counter == "scatter_hits"
    assert get_game("forge-of-gems").feature_counter == "triggers"  # named: its kernel counts GEMBOX kinds first
    fog = get_game("forge-of-gems")
    assert fog.counter_names(fog.load_build(fog.default_build()))[0] != "triggers"
