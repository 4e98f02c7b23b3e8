"""Responsible-play limits the server enforces, whatever the client: they belong to the player and the
brand, not to one session.

A player's **play session** is kept in the database (``players.play_started_at``,
``play_checked_at``, ``play_ended_at``): a reload or a new launch continues it; only a break of
``session_break_minutes`` (no session opened and no round started that long, or that long after the
play session ended) starts a new one with fresh clocks (:mod:`reelforge.server.play_session`).

* The **reality check**: every ``reality_check_minutes`` of the play session a
  check falls due (counted from its start, then from the last
  acknowledgement). Once it is due a round start is refused (409
  ``reality_check_due``) until the player acknowledges it with ``POST
  /api/v1/reality-check``; a round already started plays on.
* The **session time limit**: ``session_limit_minutes`` after the play
  session started a round start is refused (409 ``session_limit_reached``)
  until the break has passed.
* **Ended by the operator** (``end-session``): a round start is refused (409
  ``play_session_ended``) until the break has passed, whatever new launch
  or reload comes meanwhile.
* The **loss limit**: a round whose cost would take the play session's loss
  (staked minus won) above ``loss_limit`` is refused (409 ``loss_limit_reached``).
* The **stake limit**: what one round takes from the balance (the stake, or a
  feature buy's price) above ``max_stake`` (default ``max_bet``) is refused
  (422 ``stake_above_maximum``); see :meth:`RoundService.start_round`.

Every check runs in the round start's own transaction, under the player's row
lock. The rules are the session's (:meth:`ServerConfig.rules`): its brand's
configuration, with the profile and the stricter limits the operator passed at
launch (docs/JURISDICTIONS.md).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from reelforge.server.auth import Principal
from reelforge.server.clock import iso
from reelforge.server.config_play import PlayRules
from reelforge.server.errors import ApiError
from reelforge.server.play_session import next_reality_check, session_ends_at
from reelforge.server.store import Tx


def play_started(who: Principal) -> datetime | None:
    """When ``who``'s play session started (a session older than the per-player clocks: its own start)."""
    return who.play_started_at or who.session_started_at


def check_round_start(rules: PlayRules, who: Principal, now: datetime) -> None:
    """Refuse a round start the operator's end of the play session, its time limit or a due reality check
    forbids (409)."""
    started = play_started(who)
    if started is None:  # not a player's session (the operator's own calls)
        return
    brk = timedelta(minutes=rules.session_break_minutes)
    if who.play_ended_at is not None and now < who.play_ended_at + brk:
        raise ApiError(409, "play_session_ended",
                       f"the operator ended this player's play session at {iso(who.play_ended_at)}; a new one can "
                       f"start from {iso(who.play_ended_at + brk)} (after a break of "
                       f"{rules.session_break_minutes:g} minutes)")
    ends = session_ends_at(rules, started)
    if ends is not None and now >= ends:
        raise ApiError(409, "session_limit_reached",
                       f"this play session has reached its time limit of {rules.session_limit_minutes:g} minutes "
                       f"(since {iso(started)}); no new round can start until {iso(ends + brk)} (a break of "
                       f"{rules.session_break_minutes:g} minutes), whatever session or launch")
    due = next_reality_check(rules, started, who.reality_checked_at)
    if due is not None and now >= due:
        raise ApiError(409, "reality_check_due",
                       f"a reality check is due (every {rules.reality_check_minutes:g} minutes, since {iso(due)}): "
                       "GET /api/v1/reality-check shows it, POST /api/v1/reality-check acknowledges it; "
                       "no round starts until then")


def check_loss(tx: Tx, rules: PlayRules, who: Principal, cost: int) -> None:
    """Refuse a round whose ``cost`` would take the play session's loss above the loss limit (409)."""
    started = play_started(who)
    if rules.loss_limit is None or started is None:
        return
    lost = tx.play_loss(who.player_id, started)
    if lost + cost > rules.loss_limit:
        raise ApiError(409, "loss_limit_reached",
                       f"this round's cost of {cost} would take the play session's loss to {lost + cost}, above "
                       f"its loss limit of {rules.loss_limit} minor units (lost so far: {max(lost, 0)})")


def reality_check(rules: PlayRules, started_at: datetime, checked_at: datetime | None, now: datetime,
                  net_position: int | None) -> dict[str, Any]:
    """The ``/api/v1/reality-check`` answer: whether a check is due, the play session's start, when the next is
    due, the time played and the session's net position (won minus staked)."""
    due_at = next_reality_check(rules, started_at, checked_at)
    body: dict[str, Any] = {"due": due_at is not None and now >= due_at, "session_started_at": iso(started_at),
                            "next_due_at": iso(due_at), "elapsed_seconds": int((now - started_at).total_seconds()),
                            "session_ends_at": iso(session_ends_at(rules, started_at))}
    if net_position is not None:
        body["net_position"] = net_position
    return body


def play_session(rules: PlayRules, who: Principal) -> dict[str, Any]:
    """The play session's clocks as ``/settings`` shows them: its start, when its time limit ends it, when the
    next reality check is due, and when the operator ended it (null: not so)."""
    started = play_started(who)
    if started is None:
        return {}
    return {"started_at": iso(started), "ends_at": iso(session_ends_at(rules, started)),
            "next_reality_check_at": iso(next_reality_check(rules, started, who.reality_checked_at)),
            "ended_at": iso(who.play_ended_at)}
