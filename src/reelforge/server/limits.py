"""Responsible-play limits the server enforces (``[responsible_play]``), whatever the client.

* The **reality check**: every ``reality_check_minutes`` of a session a check
  falls due (counted from the session's start, then from the last
  acknowledgement). Once it is due a round start is refused (409
  ``reality_check_due``) until the player acknowledges it with ``POST
  /api/v1/reality-check``; a round already started plays on.
* The **session time limit**: ``session_limit_minutes`` after the session
  opened a round start is refused (409 ``session_limit_reached``).
* The **stake limit**: what one round takes from the balance (the stake, or a
  feature buy's price) above ``max_stake`` (default ``max_bet``) is refused
  (422 ``stake_above_maximum``); see :meth:`RoundService.start_round`.

Both clocks are per session and are read in the round start's own
transaction, under the player's row lock. The rules are the session's
jurisdiction profile (chosen by the operator at launch, docs/JURISDICTIONS.md)
or, for a session opened otherwise, the configuration's ``[responsible_play]``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from reelforge.server.auth import Principal
from reelforge.server.clock import iso
from reelforge.server.config import PlayRules
from reelforge.server.errors import ApiError


def next_reality_check(rules: PlayRules, started_at: datetime, checked_at: datetime | None) -> datetime | None:
    """When the session's next reality check is due (None: reality checks are off)."""
    if not rules.reality_check_minutes:
        return None
    return (checked_at or started_at) + timedelta(minutes=rules.reality_check_minutes)


def session_ends_at(rules: PlayRules, started_at: datetime) -> datetime | None:
    """When the session's time limit ends play (None: no limit)."""
    if not rules.session_limit_minutes:
        return None
    return started_at + timedelta(minutes=rules.session_limit_minutes)


def check_round_start(rules: PlayRules, who: Principal, now: datetime) -> None:
    """Refuse a round start the session's time limit or a due reality check forbids (409)."""
    started = who.session_started_at
    if started is None:  # not a player's session (the operator's own calls)
        return
    ends = session_ends_at(rules, started)
    if ends is not None and now >= ends:
        raise ApiError(409, "session_limit_reached",
                       f"this session has reached its time limit of {rules.session_limit_minutes:g} minutes "
                       f"(since {iso(started)}); no new round can start in it")
    due = next_reality_check(rules, started, who.reality_checked_at)
    if due is not None and now >= due:
        raise ApiError(409, "reality_check_due",
                       f"a reality check is due (every {rules.reality_check_minutes:g} minutes, since {iso(due)}): "
                       "GET /api/v1/reality-check shows it, POST /api/v1/reality-check acknowledges it; "
                       "no round starts until then")


def reality_check(rules: PlayRules, started_at: datetime, checked_at: datetime | None, now: datetime,
                  net_position: int | None) -> dict[str, Any]:
    """The ``/api/v1/reality-check`` answer: whether a check is due, the session's start, when the next is
    due, the time played and the session's net position (won minus staked)."""
    due_at = next_reality_check(rules, started_at, checked_at)
    body: dict[str, Any] = {"due": due_at is not None and now >= due_at, "session_started_at": iso(started_at),
                            "next_due_at": iso(due_at), "elapsed_seconds": int((now - started_at).total_seconds()),
                            "session_ends_at": iso(session_ends_at(rules, started_at))}
    if net_position is not None:
        body["net_position"] = net_position
    return body
