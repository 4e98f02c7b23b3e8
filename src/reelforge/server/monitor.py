"""The live RTP monitor: per brand, currency, game, build, version and mode, the observed RTP of the
finished rounds since a chosen start against the build's RTP, inside control limits from the build's SD
at the observed number of rounds. A currency's rounds are judged apart from another's: their minor units
are never added together (yen and euro cents are not the same money, and a KRW build would otherwise
outweigh the rest).

For ``n`` rounds of equal cost the observed RTP (total win / total cost) has
mean ``rtp`` and standard deviation ``sd / sqrt(n)`` (``sd``: the SD of one
round's win per unit of cost). With unequal costs ``n`` is the effective
count ``(sum cost)^2 / sum cost^2``. The limits are ``rtp -/+ z sd / sqrt(n)``
with ``z`` for the configured two-sided level (99.9%: ``z`` = 3.29). A
correct game stays inside them; a wrongly deployed build (its figures are
not the label's) drifts out of them once ``n`` is large enough, about
``(z sd / |rtp_true - rtp|)^2`` rounds: ``docs/OPERATIONS.md`` has the
measured figures (``python -m reelforge.server.monitor detect``).

The monitor judges only from :attr:`MonitorSettings.min_rounds` rounds on,
and on the high side without the largest single win: a slot's single round
can win thousands of times the bet, and such a win alone carries the
observed RTP over the upper limit far more often than the level says (the
normal approximation needs very many rounds when the wins are this skewed:
a correct Forge of Gems build alarmed high in 3 of 10 runs of 5 million
rounds before this rule, between 20,000 and 180,000 rounds in).

The build's SD per mode comes from the game's ``monitor_figures.toml``, in its
folder beside its builds (exact where the game has exact mathematics, else a
long kernel simulation; ``reelforge monitor-figures GAME`` writes it, see
:mod:`reelforge.analysis.monitor_figures`); a build without figures is shown
without limits and never alarms.
"""

from __future__ import annotations

import argparse
import logging
import math
import threading
import time
import tomllib
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from reelforge.analysis.monitor_figures import read_game_figures, round_returns
from reelforge.server.tally import FREE_ROUNDS_MODE, Key, RoundTally, Totals

log = logging.getLogger("reelforge.monitor")

HISTORY_POINTS = 720
"""Points kept per key for the operator page's chart (at 15 s a check: the last three hours)."""


def z_for(confidence: float) -> float:
    """The two-sided normal quantile for ``confidence`` (0.999 -> 3.29)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True)
class MonitorSettings:
    """``[monitor]`` of the configuration."""

    since: datetime | None = None
    """Rounds started at or after this are monitored (None: every stored round)."""
    confidence: float = 0.999
    min_rounds: int = 20_000
    check_seconds: float = 15.0
    figures: Path | None = None
    """A figures file of the operator's own (e.g. its test lab's certified SDs) over the shipped one."""

    @property
    def z(self) -> float:
        return z_for(self.confidence)


@dataclass(frozen=True)
class BuildFigures:
    """A build's expected return per unit of cost and the SD of one round's win per unit of cost, for a mode."""

    rtp: float
    sd: float
    source: str


Build = tuple[str, str, str, str]
"""(game, build, build version, mode): what a build's figures are for (the last four parts of a :data:`Key`)."""


def load_figures(path: Path | None = None) -> dict[Build, BuildFigures]:
    """``(game, build, version, mode) -> figures``: every registered game's own (``path`` None), or those of an
    operator's file (``[game."build"."version".mode]`` tables)."""
    if path is None:
        from reelforge.games.registry import all_games

        return {(game.id, build, version, mode): BuildFigures(float(Fraction(f["rtp"])), float(f["sd"]), f["source"])
                for game in all_games() for (build, version, mode), f in read_game_figures(game).items()}
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text())
    return {(game, build, version, mode): BuildFigures(float(Fraction(f["rtp"])), float(f["sd"]), f["source"])
            for game, builds in data.items() for build, versions in builds.items()
            for version, modes in versions.items() for mode, f in modes.items()}


def figures_for(settings: MonitorSettings) -> dict[Build, BuildFigures]:
    """The shipped figures with the operator's file (``[monitor] figures``) over them."""
    figures = load_figures()
    if settings.figures is not None:
        figures.update(load_figures(settings.figures))
    return figures


@dataclass
class Reading:
    """One key's monitor figures at one check."""

    key: Key
    rounds: int
    effective_rounds: float
    cost: int
    win: int
    observed: float | None
    expected: float | None
    lower: float | None
    upper: float | None
    state: str
    """``ok``, ``low`` or ``high`` (outside the limits: an alarm), ``warming_up`` (fewer than the minimum
    rounds), ``no_figures`` (the build's SD is unknown)."""

    @property
    def alarm(self) -> bool:
        return self.state in ("low", "high")

    def to_json(self) -> dict[str, Any]:
        brand, currency, game, build, version, mode = self.key
        return {"brand": brand, "currency": currency, "game": game, "build": build, "build_version": version,
                "mode": mode, "rounds": self.rounds,
                "effective_rounds": round(self.effective_rounds, 1), "cost": self.cost, "win": self.win,
                "observed_rtp": self.observed, "expected_rtp": self.expected, "lower_limit": self.lower,
                "upper_limit": self.upper, "state": self.state, "alarm": self.alarm}


def judge(key: Key, t: Totals, figures: BuildFigures | None, z: float, min_rounds: int) -> Reading:
    """The monitor's reading of one key's totals."""
    n_eff = t.monitored_cost ** 2 / t.monitored_cost_sq if t.monitored_cost_sq else 0.0
    observed = t.monitored_win / t.monitored_cost if t.monitored_cost else None
    if figures is None:
        return Reading(key, t.monitored_rounds, n_eff, t.monitored_cost, t.monitored_win, observed, None, None, None,
                       "no_figures")
    lower = upper = None
    if n_eff > 0:
        half = z * figures.sd / math.sqrt(n_eff)
        lower, upper = figures.rtp - half, figures.rtp + half
    if observed is None or t.monitored_rounds < min_rounds:
        state = "warming_up"
    elif observed < lower:
        state = "low"
    else:  # high only without its largest win: one rare top win alone never raises an alarm
        state = "high" if (t.monitored_win - t.monitored_max_win) / t.monitored_cost > upper else "ok"
    return Reading(key, t.monitored_rounds, n_eff, t.monitored_cost, t.monitored_win, observed, figures.rtp,
                   lower, upper, state)


@dataclass
class Alarm:
    """A key outside its limits: since when, and the reading that raised it."""

    key: Key
    since: float
    reading: Reading

    def to_json(self) -> dict[str, Any]:
        return {**self.reading.to_json(), "since": self.since}


@dataclass
class RtpMonitor:
    """Checks every key of the tally against its build's limits; keeps the readings, a history per key for
    the chart, and the open alarms (an alarm is logged once, when a key leaves its limits, and once more when
    it comes back). Thread-safe: the check schedule, scrapes and the operator page share it."""

    tally: RoundTally
    settings: MonitorSettings = field(default_factory=MonitorSettings)
    figures: dict[Build, BuildFigures] = field(default_factory=load_figures)
    readings: dict[Key, Reading] = field(default_factory=dict)
    alarms: dict[Key, Alarm] = field(default_factory=dict)
    history: dict[Key, deque] = field(default_factory=dict)
    checked_at: float | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._z = self.settings.z

    def check(self, max_age: float = 0.0, now: float | None = None) -> dict[Key, Reading]:
        """Refresh the tally (unless it was refreshed less than ``max_age`` seconds ago) and judge every key."""
        with self._lock:
            now = time.time() if now is None else now
            if self.checked_at is not None and now - self.checked_at < max_age:
                return self.readings
            totals = self.tally.refresh(now)
            self.judge_all(totals, now)
            return self.readings

    def judge_all(self, totals: dict[Key, Totals], now: float) -> None:
        """Judge ``totals`` (every key's) at ``now``: readings, history, alarms raised and cleared."""
        readings = {}
        for key, t in totals.items():
            if not t.monitored_rounds or key[5] == FREE_ROUNDS_MODE:  # free rounds cost nothing: no RTP to judge
                continue
            r = readings[key] = judge(key, t, self.figures.get(key[2:]), self._z, self.settings.min_rounds)
            points = self.history.setdefault(key, deque(maxlen=HISTORY_POINTS))
            if not points or points[-1][1] != r.rounds:
                points.append((now, r.rounds, r.observed, r.lower, r.upper))
            if r.alarm and key not in self.alarms:
                self.alarms[key] = Alarm(key, now, r)
                log.error("RTP alarm: %s build %s v%s (%s), %s, brand %s: observed RTP %.4f after %d rounds, outside "
                          "its %.1f%% limits [%.4f, %.4f] around %.4f", *key[2:], key[1], key[0], r.observed, r.rounds,
                          self.settings.confidence * 100, r.lower, r.upper, r.expected,
                          extra={"fields": {"event": "rtp_alarm", **r.to_json()}})
            elif r.alarm:
                self.alarms[key].reading = r
            elif key in self.alarms and r.state == "ok":
                del self.alarms[key]
                log.warning("RTP alarm cleared: %s build %s v%s (%s), %s, brand %s: observed RTP %.4f after %d rounds, "
                            "inside [%.4f, %.4f]", *key[2:], key[1], key[0], r.observed, r.rounds, r.lower, r.upper,
                            extra={"fields": {"event": "rtp_alarm_cleared", **r.to_json()}})
        self.readings, self.checked_at = readings, now


# -- measurement (docs/OPERATIONS.md) ------------------------------------------------------------------
def first_exit(returns: Any, figures: BuildFigures, z: float, min_rounds: int) -> int | None:
    """The round (1-based) at which the monitor, checking after every round, first alarms on ``returns``
    judged against ``figures``; None: it never does."""
    import numpy as np

    n = np.arange(1, len(returns) + 1, dtype=np.float64)
    total = np.cumsum(returns)
    half = z * figures.sd / np.sqrt(n)
    low = total / n < figures.rtp - half
    high = (total - np.maximum.accumulate(returns)) / n > figures.rtp + half  # as judge(): the top win discounted
    outside = (low | high) & (n >= min_rounds)
    hits = np.flatnonzero(outside)
    return int(hits[0]) + 1 if hits.size else None


def detect(game_id: str, served: str, labelled: str, rounds: int, runs: int, seed: int,
           settings: MonitorSettings) -> dict[str, Any]:
    """How many rounds the monitor takes to alarm when ``served``'s maths is played under ``labelled``'s
    figures (``served == labelled``: a correct game; how often it alarms falsely), over ``runs`` runs of up
    to ``rounds`` rounds, checking after every round."""
    import numpy as np

    from reelforge.games.registry import get_game

    game = get_game(game_id)
    version = game.load_build(labelled).identity.version
    figures = load_figures()[(game_id, labelled, version, "paid")]
    exits = [first_exit(round_returns(game, served, rounds, seed + i), figures, settings.z, settings.min_rounds)
             for i in range(runs)]
    found = sorted(e for e in exits if e is not None)
    return {"game": game_id, "served": served, "labelled": labelled, "rounds": rounds, "runs": runs,
            "alarmed": len(found), "median": float(np.median(found)) if found else None,
            "p90": float(np.quantile(found, 0.9)) if len(found) == runs else None,
            "max": max(found) if found else None, "labelled_sd": figures.sd}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m reelforge.server.monitor", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    det = sub.add_parser("detect", help="rounds to alarm for a build served under another's label")
    det.add_argument("game")
    det.add_argument("served")
    det.add_argument("labelled")
    det.add_argument("--rounds", type=int, default=1_000_000)
    det.add_argument("--runs", type=int, default=20)
    det.add_argument("--seed", type=int, default=2026)
    det.add_argument("--min-rounds", type=int, default=MonitorSettings.min_rounds)
    args = parser.parse_args(argv)
    import json

    print(json.dumps(detect(args.game, args.served, args.labelled, args.rounds, args.runs, args.seed,
                            MonitorSettings(min_rounds=args.min_rounds))))


if __name__ == "__main__":
    main()
