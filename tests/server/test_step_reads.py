"""A step request reads only the step it reveals when this server process answered the round's previous
request (the earlier steps' text is kept, :class:`reelforge.server.round_json.ShownSteps`), and its answer
is byte for byte the one built from every stored step; a round played on by another process is read
whole."""

from __future__ import annotations

from typing import Any

from reelforge.core.draws import SeededDraws
from reelforge.server.rounds import RoundService
from reelforge.server.store import Tx, transaction

from .scenarios import feature_scenario

GAME = "forge-of-fortunes"


def _full_text(server: Any, public_id: int, balance: int) -> str:
    """The round's answer text built from every stored step (as without the kept text)."""
    with transaction(server.engine, write=False) as tx:
        rnd = tx.round(server.internal(public_id))
        return server.service.round_text(rnd, tx.steps(rnd.id), balance)


def _counting_step_reads(monkeypatch: Any) -> list[int]:
    """How many step rows each step request's read returned."""
    counts: list[int] = []
    step_reads = Tx.step_reads

    def counted(self: Tx, *args: Any, **kwargs: Any) -> Any:
        reads = step_reads(self, *args, **kwargs)
        counts.append(len(reads.steps))
        return reads

    monkeypatch.setattr(Tx, "step_reads", counted)
    return counts


def _start_feature_round(server: Any) -> tuple[dict[str, Any], int]:
    """A started round of several steps (seeded) and its player's id."""
    scenario = feature_scenario(GAME)
    assert len(scenario.kinds) > 3
    server.draws.source = SeededDraws(scenario.seed)
    rnd = server.session().start(GAME, server.config.games[GAME].bet_ladder[0])
    with transaction(server.engine, write=False) as tx:
        return rnd, tx.round(server.internal(rnd["id"])).player_id


def test_a_step_reads_only_the_step_it_reveals_and_answers_the_same_bytes(server, monkeypatch):
    rnd, player_id = _start_feature_round(server)
    counts = _counting_step_reads(monkeypatch)
    texts = []
    while rnd["status"] == "open":
        answer = server.service.play_step(player_id, rnd["id"], None, f"step-{len(texts)}")
        rnd = answer.body
        texts.append(answer.text)
        # exactly the answer built from every stored step
        assert answer.text == _full_text(server, rnd["id"], rnd["balance"])
    assert len(texts) > 2
    assert counts == [1] * len(texts)  # only the step revealed, never the earlier ones again


def test_a_round_played_on_by_another_process_is_read_whole(server, monkeypatch):
    rnd, player_id = _start_feature_round(server)
    other = RoundService(server.engine, server.config)  # another server process on the same database
    assert other.play_step(player_id, rnd["id"], None, "elsewhere").body["step_count"] == 2
    counts = _counting_step_reads(monkeypatch)
    answer = server.service.play_step(player_id, rnd["id"], None, "here")
    # the read from this process's kept position found the round moved on: its steps read again, whole
    assert counts == [2] and [s["index"] for s in answer.body["steps"]] == [0, 1, 2]
    assert answer.text == _full_text(server, rnd["id"], answer.body["balance"])
    counts.clear()  # from here this process answers it step by step again
    rnd = answer.body
    while rnd["status"] == "open":
        answer = server.service.play_step(player_id, rnd["id"], None, f"here-{rnd['step_count']}")
        rnd = answer.body
        assert answer.text == _full_text(server, rnd["id"], rnd["balance"])
    assert counts and set(counts) == {1}
