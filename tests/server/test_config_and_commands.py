"""Operator configuration, migrations and the serve/verify/expire commands."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import typer
from sqlalchemy import update
from typer.testing import CliRunner

from reelforge.core.draws import SeededDraws
from reelforge.server.clock import utcnow
from reelforge.server.commands import register
from reelforge.server.config import DEMO_CONFIG, load_config, parse_config
from reelforge.server.config_games import bet_ladder
from reelforge.server.config_values import ConfigError
from reelforge.server.schema import rounds, steps

from .scenarios import feature_scenario

GAME = next(iter(load_config(None).games))


def _cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """reelforge (test harness)"""

    register(app)
    return app


def test_bet_ladders_are_lists_or_products_of_factors():
    assert bet_ladder([50, 10, 20, 10], "t") == (10, 20, 50)
    # Gemstones-style: bet size x level x 20.
    ladder = bet_ladder({"factors": [[1, 10, 50], list(range(1, 11)), [20]]}, "t")
    assert ladder[0] == 20 and ladder[-1] == 10000 and len(ladder) == len(set(ladder))
    for bad in ([], [0, 10], [1.5], [True], {"factors": []}, {"factors": [[1]], "x": 1}, "10", [10**13]):
        with pytest.raises(ConfigError):
            bet_ladder(bad, "t")


@pytest.mark.parametrize("data, words", [
    ({"server": {"mode": "demo"}, "games": {"no-such-game": {"bet_ladder": [10]}}}, "unknown game"),
    ({"server": {"mode": "demo"}, "games": [1]}, "must hold"),  # none at all: every registered game (issue 38)
    ({"server": {"mode": "casino"}, "games": {GAME: {"bet_ladder": [10]}}}, "mode"),
    ({"server": {"mode": "operator"}, "games": {GAME: {"bet_ladder": [10]}}}, "api_key_sha256"),
    ({"server": {"mode": "demo", "colour": "red"}, "games": {GAME: {"bet_ladder": [10]}}}, "colour"),
    ({"server": {"mode": "demo"}, "games": {GAME: {"bet_ladder": [10], "build": "1.0"}}}, "build"),
    ({"server": {"mode": "demo"}, "games": {GAME: {}}}, "bet_ladder"),
    ({"server": {"mode": "demo", "round_expiry_days": -1}, "games": {GAME: {"bet_ladder": [10]}}}, "round_expiry"),
    ({"server": {"mode": "demo", "currency": "EURO"}, "games": {GAME: {"bet_ladder": [10]}}}, "currency"),
    ({"servers": {}}, "unknown section"),
])
def test_invalid_configurations_are_refused_with_the_reason(data, words):
    with pytest.raises(ConfigError, match=words):
        parse_config(data)


def test_demo_configuration_defaults():
    cfg = load_config(None)
    assert cfg.demo and cfg.round_expiry_days == 90 and cfg.currency == "EUR"
    assert parse_config({"server": {"mode": "demo"}, "games": {GAME: {"bet_ladder": [10]}}}).round_expiry_days == 90


def test_a_sessions_rules_are_worked_out_once_and_stay_what_they_were():
    """The brand and the rules every round start asks for are built once per configuration (the
    configuration never changes while it serves), and are the rules worked out afresh."""
    config = load_config(None)
    assert config.default_brand is config.default_brand
    launch = {"loss_limit": 500, "max_bet": 2000}
    rules = config.rules("uk", None, launch)
    assert config.rules("uk", None, dict(reversed(launch.items()))) is rules  # the same limits in any order
    assert rules == config._work_out_rules("uk", None, launch)
    assert (rules.profile, rules.loss_limit, rules.max_bet, rules.turbo) == ("uk", 500, 2000, False)
    assert config.rules("uk", None, {"loss_limit": 400}).loss_limit == 400  # other limits, other rules
    assert config.rules(None) is config.default_brand.play
    with pytest.raises(KeyError):
        config.rules(None, "no-such-brand")


def test_migrations_create_exactly_the_declared_schema(db_url, tmp_path):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from reelforge.server.db import open_database
    from reelforge.server.schema import metadata

    if db_url.startswith("sqlite"):
        db_url = f"sqlite:///{tmp_path / 'new.db'}"  # a new file, not db_url's migrated copy: the migrations make it
    engine = open_database(db_url)
    open_database(db_url).dispose()  # a second start finds the schema current
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), metadata)
    engine.dispose()
    assert diffs == []


def test_verify_and_expire_commands(server):
    player = server.session()
    bet = server.config.games[GAME].bet_ladder[0]
    for _ in range(3):
        player.finish(player.start(GAME, bet))
    server.draws.source = SeededDraws(feature_scenario(GAME).seed)
    open_round = player.start(GAME, bet)
    runner = CliRunner()
    cli = _cli()

    result = runner.invoke(cli, ["verify", "--db", server.url, "--all"])
    assert result.exit_code == 0, result.output
    assert "4 round(s) verified: 4 ok, 0 mismatched" in result.output
    # The operator's tools use the database's round ids (the API shows public ones).
    internal = server.internal(open_round["id"])
    result = runner.invoke(cli, ["verify", "--db", server.url, "--round", str(internal), "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["ok"] is True
    assert runner.invoke(cli, ["verify", "--db", server.url]).exit_code != 0  # neither --round nor --all

    # Nothing is old enough yet; then the round is left 91 days.
    result = runner.invoke(cli, ["expire", "--db", server.url, "--log-format", "human"])
    assert result.exit_code == 0 and result.output.startswith("0 round(s)")
    with server.engine.begin() as conn:
        conn.execute(update(rounds).where(rounds.c.id == internal).values(
            created_at=utcnow() - timedelta(days=91)))
    result = runner.invoke(cli, ["expire", "--db", server.url, "--log-format", "human"])
    assert result.exit_code == 0 and result.output.splitlines()[-1].startswith("1 round(s)"), result.output
    assert "completed on expiry" in result.output  # the round event, in words
    completed = player.get(f"/api/v1/rounds/{open_round['id']}").json()
    assert completed["status"] == "finished" and completed["completed_on_expiry"]

    # A tampered round makes verify fail and name it.
    server.tampered.add(server.service.ids.public(internal - 1))
    with server.engine.begin() as conn:
        conn.execute(update(steps).where(steps.c.round_id == internal - 1).values(draws="[0, 0, 0]"))
    result = runner.invoke(cli, ["verify", "--db", server.url, "--all"])
    assert result.exit_code == 1 and f"round {internal - 1}: MISMATCH" in result.output


def test_verify_and_expire_refuse_a_missing_database(tmp_path):
    missing = f"sqlite:///{tmp_path / 'typo.db'}"
    for args in (["verify", "--db", missing, "--all"], ["expire", "--db", missing]):
        result = CliRunner().invoke(_cli(), args)
        assert result.exit_code == 2 and "no SQLite database" in result.output, result.output
    assert not (tmp_path / "typo.db").exists()


def test_serve_needs_a_configuration():
    result = CliRunner().invoke(_cli(), ["serve"])
    assert result.exit_code != 0 and "--config" in result.output
    result = CliRunner().invoke(_cli(), ["--help"])
    for command in ("serve", "verify", "expire"):
        assert command in result.output


def test_bench_server_plays_rounds_through_http_and_verifies_them():
    """``reelforge bench --server``: a real server process, real HTTP clients, every stored round verified
    (a short run: the figures themselves are measured by hand, see docs/performance.md)."""
    from reelforge.cli import app

    result = CliRunner().invoke(app, ["bench", "--server", "--clients", "2", "--seconds", "1", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["error_count"] == 0 and figures["paid_rounds"] > 0
    assert figures["requests"] >= figures["paid_rounds"]
    assert figures["latency_ms"]["p50"] <= figures["latency_ms"]["p99"] <= figures["latency_ms"]["max"]
    verified = int(figures["verify"].split()[0])
    assert figures["verify"] == f"{verified} round(s) verified: {verified} ok, 0 mismatched"
    assert verified >= figures["paid_rounds"]
    # every money request's transaction went into some COMMIT, each COMMIT held at least one (warm-up included)
    commits = figures["sqlite_commits"]
    assert commits["transactions"] >= figures["requests"] and 0 < commits["commits"] <= commits["transactions"]
    assert commits["per_commit"] == round(commits["transactions"] / commits["commits"], 2)


def test_a_wal_reset_waits_only_briefly_for_a_long_reader(tmp_path):
    """The checkpointer's WAL reset blocks writers while it waits for older readers, so it gives up
    after a moment (and tries again later) rather than stall the server behind, say, a long audit."""
    import sqlite3
    import time

    from reelforge.server.auth import ensure_demo_player
    from reelforge.server.db import Checkpointer, open_database
    from reelforge.server.store import transaction

    path = tmp_path / "wal.db"
    engine = open_database(f"sqlite:///{path}")
    ensure_demo_player(engine, load_config(None), "first")
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM players").fetchone() == (1,)  # a snapshot inside the WAL
    ensure_demo_player(engine, load_config(None), "second")
    checkpointer = Checkpointer(engine)
    started = time.monotonic()
    assert checkpointer.checkpoint(reset=True) is False
    assert time.monotonic() - started < 2  # the pool's 30 s busy timeout would have waited it out
    with transaction(engine) as tx:  # writers go on
        assert tx.player_by_name("second") is not None
    reader.rollback()
    reader.close()
    assert checkpointer.checkpoint(reset=True) is True
    engine.dispose()
    assert not path.with_name("wal.db-wal").exists()


def test_serve_in_operator_mode_refuses_a_database_with_demo_players(server, tmp_path):
    import hashlib

    server.session("demo")  # demo play money in this database
    body = (DEMO_CONFIG.read_text()
            .replace('mode = "demo"', f'mode = "operator"\napi_key_sha256 = "{hashlib.sha256(b"k").hexdigest()}"'))
    config = tmp_path / "operator.toml"
    config.write_text(body)
    result = CliRunner().invoke(_cli(), ["serve", "--config", str(config), "--db", server.url, "--port", "1"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "demo player" in lines[0] and "--allow-demo-players-with-real-money" in lines[0]


@pytest.mark.parametrize(("key", "value"), [("max_balance", 0), ("max_balance", 1.5), ("db_pool_size", 0),
                                            ("db_max_overflow", -1), ("db_pool_timeout_seconds", 0),
                                            ("idempotency_retention_days", -1), ("db_pool_size", True)])
def test_storage_settings_are_checked(key, value):
    with pytest.raises(ConfigError, match=key):
        parse_config({"server": {"mode": "demo", key: value}, "games": {GAME: {"bet_ladder": [10]}}})


def test_storage_settings_are_read():
    cfg = parse_config({"server": {"mode": "demo", "max_balance": 500, "db_pool_size": 3, "db_max_overflow": 0,
                                   "db_pool_timeout_seconds": 2.5, "idempotency_retention_days": 30},
                        "games": {GAME: {"bet_ladder": [10]}}})
    assert (cfg.max_balance, cfg.db_pool_size, cfg.db_max_overflow, cfg.db_pool_timeout_seconds,
            cfg.idempotency_retention_days) == (500, 3, 0, 2.5, 30)
