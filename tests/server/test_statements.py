"""What a money request costs the database: on PostgreSQL a start or a step is three statements (the
player's row lock, one read of everything it decides on, one write of everything it stores) and one
COMMIT, whatever the round's shape; a retry is answered from its stored answer, writing nothing."""

from __future__ import annotations

import pytest

from reelforge.core.draws import SeededDraws

from .scenarios import feature_scenario


@pytest.fixture
def statements(monkeypatch):
    """Every statement and COMMIT the driver runs (psycopg's own methods, wrapped and then restored)."""
    psycopg = pytest.importorskip("psycopg")
    log: list[str] = []
    execute, executemany, commit = psycopg.Cursor.execute, psycopg.Cursor.executemany, psycopg.Connection.commit

    def counted_execute(self, query, params=None, **kwargs):
        log.append(str(query).split(None, 1)[0].upper())
        return execute(self, query, params, **kwargs)

    def counted_executemany(self, query, params_seq, **kwargs):
        log.append("MANY " + str(query).split(None, 1)[0].upper())
        return executemany(self, query, params_seq, **kwargs)

    def counted_commit(self):
        log.append("COMMIT")
        return commit(self)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted_execute)
    monkeypatch.setattr(psycopg.Cursor, "executemany", counted_executemany)
    monkeypatch.setattr(psycopg.Connection, "commit", counted_commit)
    return log


def test_a_money_request_is_lock_read_write_commit_on_postgresql(server, statements):
    if not server.url.startswith("postgresql"):
        pytest.skip("counts PostgreSQL's round trips (SQLite runs in process)")
    game_id = "forge-of-fortunes"
    scenario = feature_scenario(game_id)  # a round with re-spins and a win
    player = server.session()
    server.draws.source = SeededDraws(scenario.seed)
    bet = server.config.games[game_id].bet_ladder[0]
    answers = []
    statements.clear()
    rnd = player.start(game_id, bet, key="start")
    requests = [list(statements)]
    while rnd["status"] == "open":
        statements.clear()
        rnd = player.step(rnd["id"], key=f"step-{len(requests)}")
        requests.append(list(statements))
        answers.append(rnd)
    assert len(requests) == len(scenario.kinds) > 2 and rnd["paid"] > 0
    # lock (SELECT ... FOR UPDATE), read (SELECT / WITH ... SELECT), write (WITH ... INSERT), COMMIT
    assert requests[0] == ["SELECT", "SELECT", "WITH", "COMMIT"]
    assert all(r == ["SELECT", "WITH", "WITH", "COMMIT"] for r in requests[1:]), requests
    # A retry: the lock and the read find the stored answer, whose steps are read back in; nothing written.
    statements.clear()
    assert player.step(rnd["id"], key=f"step-{len(requests) - 1}") == answers[-1]
    assert statements == ["SELECT", "WITH", "SELECT", "SELECT", "COMMIT"]
