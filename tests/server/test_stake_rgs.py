"""The local Stake RGS (``reelforge serve --stake DIR``) driven as a Stake front end drives it: a scripted
front end over its HTTP endpoints, on a small math package written here in Stake's format (index.json,
lookup tables ``id,weight,payoutMultiplier``, books ``.jsonl.zst``). Every assertion holds for every
outcome of the server's CSPRNG: modes whose rows of non-zero weight all pay alike fix the outcome, and
the mixed mode's checks follow from the round it returns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import zstandard
from fastapi.testclient import TestClient

from reelforge.server.stake_package import StakePackageError, load_package
from reelforge.server.stake_rgs import UNIT, StakeRgs, create_stake_app


def write_package(folder: Path, modes: dict[str, tuple[float, list[tuple[int, int]]]]) -> Path:
    """A Stake math package: per mode its cost and rows (weight, payoutMultiplier); each book's events
    name the row, so a test can see which book it was handed."""
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for name, (cost, rows) in modes.items():
        table = "".join(f"{i},{w},{p}\n" for i, (w, p) in enumerate(rows, start=1))
        books = "".join(json.dumps({"id": i, "events": [{"index": 0, "type": "reveal", "row": i, "mode": name},
                                                        {"index": 1, "type": "finalWin", "amount": p}],
                                    "payoutMultiplier": p}) + "\n" for i, (_, p) in enumerate(rows, start=1))
        (folder / f"lookUpTable_{name}_0.csv").write_text(table)
        (folder / f"books_{name}.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(books.encode()))
        index.append({"name": name, "cost": cost, "events": f"books_{name}.jsonl.zst",
                      "weights": f"lookUpTable_{name}_0.csv"})
    (folder / "index.json").write_text(json.dumps({"modes": index}))
    return folder


MODES = {
    # a base spin: the weight-0 rows are never drawn, so it always pays 11.5x
    "base": (1.0, [(0, 0), (7, 1150), (0, 20)]),
    "lose": (1.0, [(3, 0), (2, 0)]),
    # Feature Buy at 100x: any of three books
    "bonus": (100.0, [(5, 0), (3, 2000), (2, 50000)]),
}


@pytest.fixture
def rgs(tmp_path: Path):
    server = StakeRgs(load_package(write_package(tmp_path / "game", MODES)), tmp_path / "sessions.sqlite")
    yield server
    server.close()


@pytest.fixture
def front(rgs: StakeRgs) -> TestClient:
    return TestClient(create_stake_app(rgs))


def post(front: TestClient, path: str, body: dict, status: int = 200) -> dict:
    r = front.post(path, json=body)
    assert r.status_code == status, r.text
    return r.json()


def test_a_scripted_front_end_plays_every_mode_and_the_balance_is_exact_to_the_unit(front):
    auth = post(front, "/wallet/authenticate", {"sessionID": "s1"})
    assert auth["balance"] == {"amount": 1000 * UNIT, "currency": "USD"}
    config = auth["config"]
    assert config["minBet"] <= config["defaultBetLevel"] <= config["maxBet"]
    assert all(level % config["stepBet"] == 0 for level in config["betLevels"])
    assert auth["round"] is None
    balance = 1000 * UNIT

    # base: 1.00 staked, 11.5x: debited at play, credited at end-round
    play = post(front, "/wallet/play", {"sessionID": "s1", "amount": UNIT, "mode": "base"})
    balance -= UNIT
    assert play["balance"]["amount"] == balance
    round_ = play["round"]
    assert (round_["active"], round_["payoutMultiplier"], round_["payout"], round_["mode"]) == (True, 1150, 11_500_000, "base")
    assert round_["state"][0] == {"index": 0, "type": "reveal", "row": 2, "mode": "base"}
    assert post(front, "/bet/event", {"sessionID": "s1", "event": "3"}) == {"event": "3"}
    end = post(front, "/wallet/end-round", {"sessionID": "s1"})
    balance += 11_500_000
    assert end["balance"]["amount"] == balance == post(front, "/wallet/balance", {"sessionID": "s1"})["balance"]["amount"]

    # a round paying nothing is over when played: nothing to end
    play = post(front, "/wallet/play", {"sessionID": "s1", "amount": 200_000, "mode": "lose"})
    balance -= 200_000
    assert play["balance"]["amount"] == balance and play["round"]["active"] is False
    assert post(front, "/wallet/end-round", {"sessionID": "s1"}, 400)["error"] == "ERR_VAL"

    # the Feature Buy costs 100 x the base bet (0.10 -> 10.00); its payout is amount x multiplier / 100
    play = post(front, "/wallet/play", {"sessionID": "s1", "amount": 100_000, "mode": "BONUS"})
    balance -= 100 * 100_000
    assert play["balance"]["amount"] == balance
    multiplier = play["round"]["payoutMultiplier"]
    assert multiplier in (0, 2000, 50000) and play["round"]["payout"] == 100_000 * multiplier // 100
    assert play["round"]["active"] is (multiplier > 0)
    if multiplier:
        balance += 1_000 * multiplier
        assert post(front, "/wallet/end-round", {"sessionID": "s1"})["balance"]["amount"] == balance
    assert post(front, "/wallet/balance", {"sessionID": "s1"})["balance"]["amount"] == balance


def test_an_active_round_survives_a_reload_and_ends_with_end_round(front, rgs, tmp_path):
    post(front, "/wallet/authenticate", {"sessionID": "s2"})
    post(front, "/wallet/play", {"sessionID": "s2", "amount": 2 * UNIT, "mode": "base"})
    post(front, "/bet/event", {"sessionID": "s2", "event": "spin-2-of-5"})
    # another play while it is active is refused and changes nothing
    refused = post(front, "/wallet/play", {"sessionID": "s2", "amount": UNIT, "mode": "base"}, 400)
    assert refused["error"] == "ERR_VAL" and "still active" in refused["detail"]

    # the page reloads: a new server process on the same session store
    again = StakeRgs(rgs.package, tmp_path / "sessions.sqlite")
    reloaded = TestClient(create_stake_app(again))
    try:
        auth = post(reloaded, "/wallet/authenticate", {"sessionID": "s2"})
        assert auth["balance"]["amount"] == 998 * UNIT
        resumed = auth["round"]
        assert (resumed["active"], resumed["event"], resumed["payout"]) == (True, "spin-2-of-5", 23 * UNIT)
        assert resumed["state"][0]["row"] == 2
        assert post(reloaded, "/wallet/end-round", {"sessionID": "s2"})["balance"]["amount"] == 1021 * UNIT
        after = post(reloaded, "/wallet/authenticate", {"sessionID": "s2"})
        assert after["round"]["active"] is False and after["balance"]["amount"] == 1021 * UNIT
    finally:
        again.close()


@pytest.mark.parametrize(("path", "body", "code", "words"), [
    ("/wallet/play", {"sessionID": "s3", "amount": UNIT, "mode": "turbo"}, "ERR_VAL", "unknown mode 'turbo'"),
    ("/wallet/play", {"sessionID": "s3", "amount": 150_001, "mode": "base"}, "ERR_VAL", "multiple of stepBet"),
    ("/wallet/play", {"sessionID": "s3", "amount": 10_000, "mode": "base"}, "ERR_VAL", "between minBet"),
    ("/wallet/play", {"sessionID": "s3", "amount": 2000 * UNIT, "mode": "base"}, "ERR_VAL", "between minBet"),
    ("/wallet/play", {"sessionID": "s3", "amount": -UNIT, "mode": "base"}, "ERR_VAL", "between minBet"),
    ("/wallet/play", {"sessionID": "s3", "amount": 1.5, "mode": "base"}, "ERR_VAL", "'amount' must be"),
    ("/wallet/play", {"sessionID": "s3", "amount": True, "mode": "base"}, "ERR_VAL", "'amount' must be"),
    ("/wallet/play", {"sessionID": "s3", "amount": UNIT}, "ERR_VAL", "'mode' must be"),
    # 20.00 at 100x is 2,000.00: more than the 1,000.00 a session starts with
    ("/wallet/play", {"sessionID": "s3", "amount": 20 * UNIT, "mode": "bonus"}, "ERR_IPB", "less than the bonus bet"),
    ("/wallet/play", {"sessionID": "nobody", "amount": UNIT, "mode": "base"}, "ERR_IS", "not authenticated"),
    ("/wallet/balance", {"sessionID": "nobody"}, "ERR_IS", "not authenticated"),
    ("/wallet/end-round", {"sessionID": "s3"}, "ERR_VAL", "no active round"),
    ("/bet/event", {"sessionID": "s3", "event": "x"}, "ERR_VAL", "no active round"),
    ("/bet/event", {"sessionID": "s3", "event": 7}, "ERR_VAL", "'event' must be"),
    ("/wallet/authenticate", {"session": "s3"}, "ERR_VAL", "'sessionID' must be"),
])
def test_a_bad_request_is_a_400_naming_the_fault_and_changes_nothing(front, path, body, code, words):
    post(front, "/wallet/authenticate", {"sessionID": "s3"})
    refused = post(front, path, body, 400)
    assert refused["error"] == code and words in refused["detail"], refused
    assert post(front, "/wallet/authenticate", {"sessionID": "s3"})["balance"]["amount"] == 1000 * UNIT
    assert post(front, "/wallet/authenticate", {"sessionID": "s3"})["round"] is None


def test_a_body_that_is_not_a_json_object_is_refused(front):
    for content in (b"not json", b"[1, 2]", b""):
        r = front.post("/wallet/balance", content=content)
        assert r.status_code == 400 and r.json()["error"] == "ERR_VAL"


def test_the_amount_may_come_as_a_string_of_digits_as_rgs_md_writes_it(front):
    post(front, "/wallet/authenticate", {"sessionID": "s4"})
    play = post(front, "/wallet/play", {"sessionID": "s4", "amount": "1000000", "mode": "lose"})
    assert play["balance"]["amount"] == 999 * UNIT


def test_books_are_drawn_by_their_table_weights(tmp_path):
    rows = [(2, 0), (0, 30), (3, 40), (0, 50), (1, 60)]
    mode = load_package(write_package(tmp_path, {"base": (1.0, rows)})).modes["base"]
    assert mode.total_weight == 6
    # every uniform value of [0, 6) maps to a row of non-zero weight, each row holding its weight's share
    assert [mode.row_at(r) for r in range(6)] == [0, 0, 2, 2, 2, 4]
    assert {mode.draw() for _ in range(200)} <= {0, 2, 4}


def test_a_package_whose_books_disagree_with_its_table_is_refused_naming_the_row(tmp_path):
    folder = write_package(tmp_path / "g", {"base": (1.0, [(1, 0), (1, 20)])})
    (folder / "lookUpTable_base_0.csv").write_text("1,1,0\n2,1,30\n")
    with pytest.raises(StakePackageError, match=r"line 2: book id 2 pays 20, but lookUpTable_base_0.csv row 2 is id 2 paying 30"):
        load_package(folder)
    (folder / "lookUpTable_base_0.csv").write_text(f"1,1,0\n2,{1 << 64},20\n")
    with pytest.raises(StakePackageError, match="over the unsigned 64-bit maximum"):
        load_package(folder)
    (folder / "lookUpTable_base_0.csv").write_text("1,0,0\n2,0,20\n")
    with pytest.raises(StakePackageError, match="every weight is 0"):
        load_package(folder)
    with pytest.raises(StakePackageError, match="no index.json"):
        load_package(tmp_path / "nothing")


def test_serve_stake_refuses_a_broken_package_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from reelforge.cli import app

    result = CliRunner().invoke(app, ["serve", "--stake", str(tmp_path / "nothing"), "--port", "8799"])
    assert result.exit_code == 2 and "no index.json" in result.output


def test_a_package_from_reelforge_export_stake_is_served(tmp_path):
    """A real export (``reelforge export stake``, Seven Lines, a small table) through the RGS: every
    book the front end is handed is one of the package's, paying what its table row pays."""
    from reelforge.analysis.stake.export import export_stake
    from reelforge.analysis.stake.format import iter_books
    from reelforge.games.registry import get_game

    game = get_game("seven-lines")
    export_stake(game, game.load_build("96.0"), tmp_path / "pkg", ["base"], {"base": 5_000}, seed=3, books={"base": 40})
    package = load_package(tmp_path / "pkg")
    by_id = {b["id"]: b for b in iter_books(tmp_path / "pkg" / "books_base.jsonl.zst")}
    rgs = StakeRgs(package, tmp_path / "s.sqlite")
    try:
        front = TestClient(create_stake_app(rgs))
        post(front, "/wallet/authenticate", {"sessionID": "p"})
        balance = 1000 * UNIT
        for _ in range(10):
            play = post(front, "/wallet/play", {"sessionID": "p", "amount": 500_000, "mode": "base"})
            balance -= 500_000
            round_ = play["round"]
            book = next(b for b in by_id.values() if b["events"] == round_["state"])
            assert book["payoutMultiplier"] == round_["payoutMultiplier"]
            if round_["active"]:
                balance += 5_000 * round_["payoutMultiplier"]
                assert post(front, "/wallet/end-round", {"sessionID": "p"})["balance"]["amount"] == balance
        assert post(front, "/wallet/balance", {"sessionID": "p"})["balance"]["amount"] == balance
    finally:
        rgs.close()
