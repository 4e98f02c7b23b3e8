"""problab's demo games: registered only for the benchmark, the contract kept (kernel = reference round
by round), demo_normal's exact figures against brute force, and the peer's rule details."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from reelforge.conformance import ConformanceError, check_game
from reelforge.core.draws import SeededDraws
from reelforge.games import problab, registry
from reelforge.games.problab.demo_cascade import rules as cascade_rules
from reelforge.games.problab.demo_cascade.build import CASCADE_FILES
from reelforge.games.problab.demo_normal import rules as normal_rules
from reelforge.games.problab.demo_normal.build import NORMAL_FILES
from reelforge.games.problab.demo_normal.exact import exact, line_expectation, scatter_distribution
from reelforge.games.problab.demo_normal.kernel import line_pay
from reelforge.games.problab.peer_builds import Mode
from reelforge.games.problab.peer_yaml import from_peer_yaml

PEER_DIR = Path("/work/shared/peers/problab")
NORMAL = NORMAL_FILES.load("b825b02")
CASCADE = CASCADE_FILES.load("b825b02")


def test_benchmark_games_are_not_in_the_lobby_and_registered_for_a_block():
    assert not set(problab.PEER_GAMES) & set(registry.GAME_CLASSES)
    with problab.registered() as ids:
        assert set(ids) <= set(registry.game_ids())
    assert not set(problab.PEER_GAMES) & set(registry.GAME_CLASSES)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(problab.PEER_GAMES))
def test_demo_games_keep_the_contract(game_id):
    with problab.registered():
        game = registry.get_game(game_id)
        if game.capabilities.exact:
            check_game(game, rounds=400, replay_rounds=40, kernel_rounds=4000, depth_rounds=4000)
            return
        # a simulated game's RTP within 0.05 pp needs more rounds than the suite's budget: said, not passed
        with pytest.raises(ConformanceError, match=r"fails 1 check\(s\):\nrtp_declared: .*undecided: .* needs [\d,]+ "
                                                   r"rounds \(SD .*\), more than the 10,000,000 allowed"):
            check_game(game, rounds=400, replay_rounds=40, kernel_rounds=4000, depth_rounds=4000)


def test_exact_figures_of_demo_normal():
    e = exact(NORMAL)
    assert e.rtp == NORMAL.rtp == Fraction(36061431031, 37754526264)      # 95.5155%
    assert e.trigger_probability == Fraction(55017, 6583780)
    assert e.rtp == e.paid_spin_rtp + e.trigger_probability * 10 * e.free_round_win_x


def test_exact_method_equals_brute_force_over_every_stop():
    """On strips cut to 5 stops (3,125 windows), the linear method equals playing every window."""
    def cut(m: Mode) -> Mode:
        return Mode(tuple(s[:5] for s in m.reels), m.pays)

    small = dataclasses.replace(NORMAL, base=cut(NORMAL.base), free=cut(NORMAL.free))
    win = scatters = 0
    for stops in itertools.product(range(5), repeat=5):
        _, wins, n = normal_rules.spin(small, small.base, list(stops))
        win += int(wins[:, 3].sum())
        scatters += n >= 3
    assert Fraction(win, 5 ** 5) == len(small.lines) * line_expectation(small, small.base)
    assert Fraction(scatters, 5 ** 5) == sum(p for n, p in scatter_distribution(small, small.base).items() if n >= 3)


def test_kernel_simulation_inside_the_exact_figures():
    with problab.registered():
        game = registry.get_game("problab-demo-normal")
        acc = game.simulate_chunk(NORMAL, 400_000, 11)
    lo, hi = acc.rtp_ci99()
    assert lo <= NORMAL.rtp <= hi
    lo, hi = acc.rate_ci99(acc.counter("triggers"))
    assert lo <= exact(NORMAL).trigger_probability <= hi


def _codes(*names: str) -> np.ndarray:
    return np.array([NORMAL.symbols.index(n) for n in names], dtype=np.int64)


@pytest.mark.parametrize(("cells", "pay"), [
    (("W1", "W1", "W1", "L5", "L5"), 120),      # the symbol's run of 5 beats the wilds' run of 3 (40)
    (("W1", "W1", "W1", "C1", "H1"), 40),       # a scatter ends the run: the wilds pay alone
    (("W1", "W1", "W1", "W1", "W1"), 1600),     # five wilds pay as wilds
    (("C1", "H1", "H1", "H1", "H1"), 0),        # a line starting on a scatter pays nothing
    (("H2", "W1", "H2", "L1", "H2"), 20),       # the wild substitutes inside the run: 3 of H2
    (("W1", "W1", "H1", "H1", "L1"), 400),      # 2 wilds pay nothing; H1 with them, 4 of a kind
])
def test_demo_normal_line_pays_as_the_peer(cells, pay):
    assert line_pay(_codes(*cells), NORMAL.base.pays_by_count(), NORMAL.code("wild")) == pay


def _board_build(board: list[list[str]], fill: list[list[str]]) -> tuple:
    """A demo_cascade build whose reels show ``board`` at stop 0 (columns top to bottom), refilling from ``fill``."""
    code = CASCADE.symbols.index
    mode = Mode(tuple(tuple(code(s) for s in col) for col in board), CASCADE.base.pays,
                tuple(tuple(code(s) for s in col) for col in fill))
    return dataclasses.replace(CASCADE, base=mode), mode


def test_demo_cascade_wild_joins_two_clusters_and_the_gaps_fill_upward_from_the_fill_position():
    # H1 fills reels 1-2 rows 0-1, L1 reels 4-5 rows 0-1; the wild at reel 3 row 0 joins both (5 cells each)
    board = [["H1", "H1", "L2", "L3", "L2"], ["H1", "H1", "L3", "L2", "L3"], ["W1", "L2", "L3", "L2", "L3"],
             ["L1", "L1", "L2", "L3", "L2"], ["L1", "L1", "L3", "L2", "L3"]]
    fill = [["H2", "H3", "H4", "L2"]] * 5
    build, mode = _board_build(board, fill)
    events: list[dict] = []
    final, won = cascade_rules.tumble(build, mode, [0] * 5, [3] * 5, events)
    assert events[0]["clusters"] == [{"symbol": "High 1", "size": 5, "win_x": "1"},
                                     {"symbol": "Low 1", "size": 5, "win_x": "1/3"}]
    # reel 1 lost 2 cells: the lowest gap takes the fill symbol above position 3 (H4), the next H3
    words = [[CASCADE.symbols[c] for c in col] for col in final]
    assert words[0][:2] == ["H3", "H4"] and words[2][0] == "H4"
    assert won == CASCADE.base.pays[3][4] + CASCADE.base.pays[7][4] + sum(
        int(Fraction(c["win_x"]) * 30) for e in events[2::2] for c in e["clusters"])


def test_demo_cascade_scatters_pay_and_trigger_only_on_the_paid_spins_final_board():
    """Over 3,000 reference rounds: a scatter win (10x) and 10 free rounds exactly where the paid spin's
    final board shows 3+ scatters; free rounds never pay or count scatters."""
    game = problab_game("problab-demo-cascade")
    draws = SeededDraws(7)
    triggered = 0
    for _ in range(3000):
        steps = game.play_round(CASCADE, draws).steps
        final = next(e["window"] for e in reversed(steps[0].events) if e["type"] in ("reels", "tumble"))
        scatters = sum(col.count("Scatter") for col in final)
        wins = [e for e in steps[0].events if e["type"] == "scatter_win"]
        assert (scatters >= 3) == bool(wins) == (len(steps) == 11)
        triggered += bool(wins)
        assert all(w["win_x"] == "10" for w in wins)
        assert not any(e["type"] == "scatter_win" for s in steps[1:] for e in s.events)
    assert triggered >= 10


def problab_game(game_id: str):
    """The game object without registering it (its class, as the registry would make it)."""
    from reelforge.games.problab.demo_cascade.game import DemoCascade
    from reelforge.games.problab.demo_normal.game import DemoNormal

    return {"problab-demo-normal": DemoNormal, "problab-demo-cascade": DemoCascade}[game_id]()


@pytest.mark.skipif(not PEER_DIR.exists(), reason="the peer's published files are not on this machine")
@pytest.mark.parametrize(("source", "build"), [("game_0_demonormal.yaml", NORMAL), ("game_1_democascade.yaml", CASCADE)])
def test_builds_are_the_published_configurations(source, build):
    assert from_peer_yaml(PEER_DIR / source, build.name, build.rtp) == build
    for legal in ("LICENSE", "NOTICE"):
        assert (CASCADE_FILES.folder / legal).read_bytes() == (PEER_DIR / legal).read_bytes()
        assert (NORMAL_FILES.folder / legal).read_bytes() == (PEER_DIR / legal).read_bytes()


def test_bench_cli_registers_a_benchmark_game_only_for_its_run_and_refuses_a_wrong_class():
    from typer.testing import CliRunner

    from reelforge.cli import app

    runner = CliRunner()
    bad = runner.invoke(app, ["bench", "problab-demo-normal", "--game-class", "reelforge.games.problab.demo_normal.game:Nope"])
    assert bad.exit_code != 0 and "has no 'Nope'" in bad.output + str(bad.exception)
    other = runner.invoke(app, ["bench", "problab-demo-normal", "--game-class", "reelforge.games.problab.demo_cascade.game:DemoCascade"])
    assert other.exit_code != 0 and "has id 'problab-demo-cascade'" in other.output + str(other.exception)
    assert "problab-demo-normal" not in registry.GAME_CLASSES


def test_race_prints_the_issue_s_fields_and_refuses_bad_arguments(capsys, monkeypatch):
    import importlib.util
    import json
    import sys

    spec = importlib.util.spec_from_file_location("race", Path(__file__).parents[2] / "bench" / "peers" / "race.py")
    race = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(race)
    monkeypatch.setattr(sys, "argv", ["race.py", "--json", "--rounds", "3000", "--games", "demo_normal", "--repeats", "1"])
    assert race.main() == 0
    (out,) = json.loads(capsys.readouterr().out)
    assert {"game", "rounds", "seed", "rtp", "rtp_ci99", "hit_rate", "trigger_rate", "sd", "rounds_per_second_per_core",
            "raw_draws_per_second"} <= set(out)
    assert out["game"] == "demo_normal" and out["rounds"] == 3000 and out["exact"]["rtp_fraction"] == str(NORMAL.rtp)
    monkeypatch.setattr(sys, "argv", ["race.py", "--json", "--games", "demo_wild"])
    assert race.main() == 2 and "unknown game" in capsys.readouterr().err
    assert "problab-demo-normal" not in registry.GAME_CLASSES
