"""The live RTP monitor: its limits, quiet on correct builds, an alarm on a wrongly deployed build within the
rounds docs/OPERATIONS.md states, and the alarm reaching the log, ``/metrics`` and the operator overview.

Kernel rounds with fixed seeds stand in for live play (the kernels pay what the rules pay: the conformance
tests check it); every run here takes well under a second.
"""

from __future__ import annotations

import hashlib
import logging
import math
import uuid
from dataclasses import replace

import numpy as np
import pytest

from reelforge.analysis.monitor_figures import round_returns
from reelforge.core.draws import SeededDraws
from reelforge.games.registry import get_game
from reelforge.server.auth import bearer, open_session
from reelforge.server.monitor import (
    BuildFigures,
    MonitorSettings,
    first_exit,
    judge,
    load_figures,
    z_for,
)
from reelforge.server.tally import Totals

from .conftest import demo_config

SETTINGS = MonitorSettings()
STATED = {  # docs/OPERATIONS.md, "How soon a wrong build is caught": every measured run alarmed within this
    ("forge-of-fortunes", "84.2"): 300_000,
}


def figures_of(game_id: str, build: str) -> BuildFigures:
    version = get_game(game_id).load_build(build).identity.version
    return load_figures()[(game_id, build, version, "paid")]


def test_limits_are_z_sd_over_root_n() -> None:
    """Equal costs: n rounds give rtp -/+ z sd / sqrt(n); unequal costs count as (sum c)^2 / sum c^2 rounds."""
    figures = BuildFigures(0.962, 13.0, "test")
    t = Totals(monitored_rounds=10_000, monitored_cost=10_000 * 20, monitored_win=9_500 * 20,
               monitored_cost_sq=10_000 * 400.0)
    r = judge(("g", "b", "1", "paid"), t, figures, z_for(0.999), 1000)
    half = 3.2905267 * 13.0 / 100
    assert r.lower == pytest.approx(0.962 - half) and r.upper == pytest.approx(0.962 + half)
    assert r.observed == 0.95 and r.state == "ok" and not r.alarm
    # half the rounds at 10 times the bet: fewer effective rounds, wider limits
    t2 = Totals(monitored_rounds=10_000, monitored_cost=5_000 * 10 + 5_000 * 100, monitored_win=0,
                monitored_cost_sq=5_000 * 100.0 + 5_000 * 10_000.0)
    r2 = judge(("g", "b", "1", "paid"), t2, figures, z_for(0.999), 1000)
    n_eff = 550_000 ** 2 / 50_500_000
    assert r2.effective_rounds == pytest.approx(n_eff) and r2.upper - r2.expected == pytest.approx(
        3.2905267 * 13 / math.sqrt(n_eff))
    assert r2.state == "low"
    # high only without the largest single win: one top win alone is no alarm, a high RTP without it is
    top = Totals(monitored_rounds=10_000, monitored_cost=10_000, monitored_win=9_620 + 6_000,
                 monitored_cost_sq=10_000.0, monitored_max_win=6_000)
    assert judge(("g", "b", "1", "paid"), top, figures, z_for(0.999), 1000).observed > r.upper
    assert judge(("g", "b", "1", "paid"), top, figures, z_for(0.999), 1000).state == "ok"
    assert judge(("g", "b", "1", "paid"), replace(top, monitored_max_win=1_000), figures, z_for(0.999),
                 1000).state == "high"
    # too few rounds to judge; no figures: no alarm either way
    assert judge(("g", "b", "1", "paid"), replace(t2, monitored_rounds=999), figures, 3.29, 1000).state == "warming_up"
    assert judge(("g", "b", "1", "paid"), t2, None, 3.29, 1000).state == "no_figures"


@pytest.mark.parametrize("game_id, build, rounds", [("forge-of-fortunes", "96.2", 1_000_000),
                                                    ("forge-of-gems", "96.2", 400_000),
                                                    ("seven-lines", "96.0", 300_000)])
def test_quiet_on_a_correct_build(game_id: str, build: str, rounds: int) -> None:
    """Checked after every round, a correct build never leaves its limits."""
    returns = round_returns(get_game(game_id), build, rounds, seed=20261202)
    assert first_exit(returns, figures_of(game_id, build), SETTINGS.z, SETTINGS.min_rounds) is None


@pytest.mark.parametrize("game_id, served", sorted(STATED))
def test_alarm_on_a_wrong_build_within_the_stated_rounds(game_id: str, served: str) -> None:
    """The 84.2 build's maths served under the 96.2 label: the monitor alarms (low) within the stated rounds."""
    limit = STATED[(game_id, served)]
    labelled = figures_of(game_id, "96.2")
    returns = round_returns(get_game(game_id), served, limit, seed=20261202)
    at = first_exit(returns, labelled, SETTINGS.z, SETTINGS.min_rounds)
    assert at is not None and at <= limit
    assert np.mean(returns[:at]) < labelled.rtp  # it alarmed low, as 84.2 < 96.2


def test_alarm_reaches_the_log_the_metrics_and_the_overview(make_server, tmp_path, caplog) -> None:
    """A build whose figures are wrong for what it plays (the operator's figures file claims 30% for seven-lines
    96.0) alarms after the minimum rounds: one log line, ``reelforge_rtp_alarm`` 1, the overview's alarms; the
    correctly described game beside it stays quiet."""
    version = get_game("seven-lines").load_build("96.0").identity.version
    lab = tmp_path / "lab.toml"
    lab.write_text(f'["seven-lines"."96.0"."{version}".paid]\nrtp = "0.30"\nsd = 1.0\nsource = "wrong on purpose"\n')
    key = "monitor-test-operator-key"
    config = demo_config(mode="operator", api_key_sha256=hashlib.sha256(key.encode()).hexdigest(),
                         monitor=MonitorSettings(min_rounds=300, figures=lab, check_seconds=0))
    server = make_server(config)
    service = server.service
    token = open_session(server.engine, config, "mia", key)["token"]
    service.transfer("mia", 10**9, "deposit", uuid.uuid4().hex)
    who = bearer(f"Bearer {token}")
    server.draws.source = SeededDraws(7)
    for game, bet in (("seven-lines", config.games["seven-lines"].bet_ladder[0]),
                      ("forge-of-fortunes", config.games["forge-of-fortunes"].bet_ladder[0])):
        for _ in range(400):
            rnd = service.start_round(who, game, bet, False, None, uuid.uuid4().hex).body
            while rnd["status"] == "open":
                rnd = service.play_step(who, rnd["id"], None, uuid.uuid4().hex).body
    with caplog.at_level(logging.WARNING, logger="reelforge.monitor"):
        text = server.client.get("/metrics", headers={"X-Operator-Key": key}).text
        server.client.get("/metrics", headers={"X-Operator-Key": key})  # still outside: not logged again
    alarms = [r for r in caplog.records if r.name == "reelforge.monitor"]
    assert len(alarms) == 1 and "RTP alarm: seven-lines build 96.0" in alarms[0].getMessage()
    assert ('reelforge_rtp_alarm{brand="default",build="96.0",currency="EUR",game="seven-lines",mode="paid",'
            'version="' + version + '"} 1.0') in text
    assert 'reelforge_rtp_alarm{brand="default",build="96.2",currency="EUR",game="forge-of-fortunes",mode="paid",' in text
    overview = server.client.get("/api/v1/operator/overview", headers={"X-Operator-Key": key}).json()
    assert [(a["game"], a["state"]) for a in overview["alarms"]] == [("seven-lines", "high")]
    states = {b["game"]: b["monitor"]["state"] for b in overview["builds"]}
    assert states == {"seven-lines": "high", "forge-of-fortunes": "ok"}
