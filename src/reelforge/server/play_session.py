"""A player's play session: the span of play the responsible-play clocks count, kept per player in the
database (``players.play_started_at``, ``play_checked_at``, ``play_ended_at``) so that a reload or a new
launch continues it. It ends with its time limit or the operator's end; a session opened after a break of
``session_break_minutes`` (from that end, or from the player's last activity) starts a new one
(:func:`begin_play`). What it refuses is :mod:`reelforge.server.limits`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from reelforge.server.config_play import PlayRules
from reelforge.server.store import Tx


def next_reality_check(rules: PlayRules, started_at: datetime, checked_at: datetime | None) -> datetime | None:
    """When the play session's next reality check is due (None: reality checks are off)."""
    if not rules.reality_check_minutes:
        return None
    return (checked_at or started_at) + timedelta(minutes=rules.reality_check_minutes)


def session_ends_at(rules: PlayRules, started_at: datetime) -> datetime | None:
    """When the play session's time limit ends play (None: no limit)."""
    if not rules.session_limit_minutes:
        return None
    return started_at + timedelta(minutes=rules.session_limit_minutes)


def play_over_at(rules: PlayRules, started: datetime, ended: datetime | None, last_active: datetime | None,
                 now: datetime) -> datetime:
    """When the player's play session is over, so that the next session opened starts a new one: the break
    after its end (by the operator, or its time limit), or after the player's last activity."""
    brk = timedelta(minutes=rules.session_break_minutes)
    limit_end = session_ends_at(rules, started)
    stopped = min((t for t in (ended, limit_end) if t is not None and t <= now), default=None)
    if stopped is not None:
        return stopped + brk
    return max(started, last_active or started) + brk


def begin_play(tx: Tx, player_id: int, rules: PlayRules, now: datetime) -> None:
    """A session of the player opens (a launch, a reload, ``POST /sessions``): start a new play session
    (fresh clocks) when there is none or the last is over; otherwise the current one goes on."""
    started, _checked, ended, last_active = tx.play_period(player_id)
    if started is None or now >= play_over_at(rules, started, ended, last_active, now):
        tx.set_play(player_id, play_started_at=now, play_checked_at=None, play_ended_at=None)
