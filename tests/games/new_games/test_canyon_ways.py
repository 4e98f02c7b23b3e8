"""Canyon Ways' rules text, read by hand against the reference engine: heights and stops show the strips,
ways pay as the help says, a tumble clears exactly the paid cells, and the free spins' multiplier rises
after every winning tumble."""

from collections import Counter
from fractions import Fraction

from reelforge.core.draws import RecordedDraws, SeededDraws
from reelforge.games.canyon_ways.build import NAMES, SYMBOLS, UNIT
from reelforge.games.canyon_ways.game import CanyonWays

GAME = CanyonWays()
BUILD = GAME.load_build("96.0")
TABLES = GAME.make_tables(BUILD)
KEY = {name: key for key, name in NAMES.items()}
STRIPS = [[NAMES[SYMBOLS[c]] for c in TABLES.codes[r, : TABLES.lens[r]]] for r in range(6)]


def ways_by_hand(board):
    """Each symbol's (run, ways) from reel 1, the Wild standing in (not for the Sun), as the help says."""
    found = {}
    for name in NAMES.values():
        if name in ("Wild", "Sun"):
            continue
        run, ways = 0, 1
        for reel in board:
            m = sum(cell in (name, "Wild") for cell in reel)
            if not m:
                break
            run, ways = run + 1, ways * m
        if run >= 3:
            found[name] = (run, ways)
    return found


def test_every_tumble_pays_its_ways_and_refills_the_paid_cells_from_the_strip_above():
    tumbles = 0
    for seed in range(40):
        step = GAME.play_step(BUILD, GAME.start_round(BUILD), SeededDraws(seed))
        first = step.events[0]
        board = first["board"]
        # each reel shows its height of its strip from its stop, wrapping round
        assert [len(reel) for reel in board] == first["heights"] and all(2 <= h <= 7 for h in first["heights"])
        assert board == [[STRIPS[r][(first["stops"][r] + k) % len(STRIPS[r])] for k in range(h)]
                         for r, h in enumerate(first["heights"])]
        tops = list(first["stops"])
        wins = []
        for ev in step.events[1:]:
            if ev["type"] == "win":
                wins.append(ev)
            elif ev["type"] == "tumble":
                expected = ways_by_hand(board)
                assert {w["pay"]: (w["ways"], Fraction(w["win_x"])) for w in wins} == {
                    f"{run} {name}": (ways, Fraction(BUILD.pays[KEY[name]][run - 3] * ways, UNIT))
                    for name, (run, ways) in expected.items()}
                after = []
                for r, reel in enumerate(board):      # a paid symbol on its run's reels, and a Wild on any run's
                    cleared = [(c in expected and r < expected[c][0]) or
                               (c == "Wild" and any(r < run for run, _ in expected.values())) for c in reel]
                    kept = [c for c, gone in zip(reel, cleared) if not gone]
                    new = []
                    for _ in range(len(reel) - len(kept)):       # the strip above the top row, nearest last
                        tops[r] = (tops[r] - 1) % len(STRIPS[r])
                        new.insert(0, STRIPS[r][tops[r]])
                    after.append(new + kept)
                assert ev["board"] == after
                board, wins, tumbles = after, [], tumbles + 1
        assert not ways_by_hand(board)           # the last board pays nothing
    assert tumbles >= 10


def test_free_spins_multiply_each_winning_tumble_by_a_multiplier_rising_after_it():
    mode, draws = GAME.max_win_round(BUILD)
    result = GAME.play_round(BUILD, RecordedDraws([d for step in draws for d in step]), mode)
    paid, *free = result.steps
    assert any(ev["type"] == "free_spins_awarded" and ev["spins"] == BUILD.free_spins for ev in paid.events)
    assert all(ev.get("multiplier", 1) == 1 for ev in paid.events)
    seen = [ev["multiplier"] for step in free for ev in step.events if ev["type"] == "win"]
    tumbles = [Counter(ev["multiplier"] for ev in step.events if ev["type"] == "win") for step in free]
    assert seen and seen[0] == 1 and sorted(set(seen)) == list(range(1, max(seen) + 1))
    assert sum(len(t) for t in tumbles) == max(seen)      # one multiplier per winning tumble, rising by one
    assert result.total_win == GAME.max_win_x and any(ev["type"] == "cap" for ev in result.steps[-1].events)


def test_the_tables_class_is_found_again_by_name_so_the_compiled_kernel_is_reused():
    """numba's cache looks the tables' class up by module and name: one it cannot find recompiles the
    kernel in every process (25 s for this game)."""
    import pickle

    from reelforge.games.canyon_ways.build import Tables

    assert pickle.loads(pickle.dumps(Tables)) is Tables is type(TABLES)
    assert Tables.SCRATCH == ("heights", "stops", "board", "masks", "leaving", "empties", "out", "counts", "shown")


def test_the_folder_stays_within_150_lines_of_python():
    """Issue 37: a Megaways-style game is one folder of at most 150 lines of Python, everything it needs
    included (what any ways game needs lives in the engine)."""
    from pathlib import Path

    import reelforge.games.canyon_ways as package

    folder = Path(package.__file__).parent
    lines = sum(len(path.read_text().splitlines()) for path in folder.rglob("*.py"))
    assert lines <= 150, f"{folder.name} holds {lines} lines of Python"


def test_the_help_states_the_volatility_level_its_recorded_sd_proves(monkeypatch):
    """Issue 34: Canyon Ways' SDs sit at level 9's 20x; each build's help shows the level its recorded 10^9-round SD
    interval lies in (96.0 v2.0 [20.05, 20.26]: level 9, Extreme; 94.0 v2.0 [19.67, 19.89]: level 8, High), and a
    build whose interval spans two levels (96.0 v1.0, [19.92, 20.13]) or has no record states none."""
    import pytest

    from reelforge.game import volatility_proof

    assert [(GAME.help(GAME.load_build(n)).volatility, volatility_proof.proven_volatility(GAME, GAME.load_build(n)))
            for n in ("96.0", "94.0")] == [("Extreme", 9), ("High", 8)]
    assert volatility_proof.proven_volatility(GAME, GAME.load_build("94.0", "1.0")) == 8
    with pytest.raises(ValueError, match=r"canyon-ways 96\.0 v1\.0: no SD is recorded for this build's content in "
                                         r"volatility_figures\.toml \(python bench/volatility_record\.py"):
        GAME.help(GAME.load_build("96.0", "1.0"))
    spanning = {GAME.load_build("96.0").identity.content_hash: {"sd_low": "19.917", "sd_high": "20.133"}}
    monkeypatch.setattr(volatility_proof, "load_records", lambda path: spanning)
    with pytest.raises(ValueError, match=r"interval \[19\.917, 20\.133\] spans levels 8-9 \(a level starts at 20x\): "
                                         r"a larger simulation decides it"):
        GAME.help(GAME.load_build("96.0"))
