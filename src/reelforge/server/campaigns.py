"""Free-round campaigns (docs/OPERATORS.md, "Free-round campaigns"): the operator's offer of a number of
rounds per player at a fixed bet, on some games, within a validity window, played without a debit.

This module is the campaigns' data: creating one (idempotent by the operator's campaign id), cancelling
it, reading it with each player's progress, and, inside a round's transaction (the player's row locked),
a player's progress locked, counted and settled. The rules of play and payment are
:mod:`reelforge.server.campaign_rounds`.

Rules (stated in docs/OPERATORS.md): a round is counted when it is started (it is decided then, so a
started round is neither lost nor played twice); rounds not started by ``valid_until`` or the
cancellation lapse; a round in progress then still finishes; a player's accrued total is credited
exactly once: at the end of their last round, or, once the campaign is over (all rounds played,
expired or cancelled), as soon as no round of theirs is open.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from reelforge.server.clock import iso
from reelforge.server.errors import ApiError
from reelforge.server.seamless import _sql
from reelforge.server.store import Tx, parse_ts, transaction

CREDIT_MODES = ("end", "each_win")
"""``end``: one credit of the player's total after their last round; ``each_win``: a credit per winning round."""
CAMPAIGN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
MAX_CAMPAIGN_PLAYERS = 10_000
_BATCH = 500
_COLUMNS = ("id", "brand", "campaign_key", "games", "bets", "rounds", "valid_from", "valid_until", "wagering",
            "credit", "status", "created_at", "cancelled_at")
_SELECT = "SELECT " + ", ".join("c." + n for n in _COLUMNS) + " FROM campaigns c"
_WITH_PROGRESS = (_SELECT.replace(" FROM", ", p.player, p.played, p.won, p.paid, p.accepted_at, p.settled_at FROM")
                  + " JOIN campaign_players p ON p.campaign_id = c.id")


@dataclass(frozen=True)
class Campaign:
    """A campaign as stored (``bets``: minor units per currency code)."""

    id: int
    brand: str
    key: str
    games: tuple[str, ...]
    bets: dict[str, int]
    rounds: int
    valid_from: datetime
    valid_until: datetime
    wagering: Any
    credit: str
    status: str
    created_at: datetime
    cancelled_at: datetime | None

    def open_at(self, now: datetime) -> bool:
        """Whether rounds may start now: active and within its validity window."""
        return self.status == "active" and self.valid_from <= now < self.valid_until

    def to_json(self) -> dict[str, Any]:
        """The campaign as the operator's calls answer it."""
        return {"campaign_id": self.key, "id": self.id, "brand": self.brand, "games": list(self.games),
                "bets": self.bets, "rounds": self.rounds, "valid_from": iso(self.valid_from),
                "valid_until": iso(self.valid_until), "wagering": self.wagering, "credit": self.credit,
                "status": self.status, "created_at": iso(self.created_at), "cancelled_at": iso(self.cancelled_at)}


@dataclass(frozen=True)
class Progress:
    """One player's rounds of a campaign: ``played`` (started), ``won`` (wins of finished rounds) and ``paid``
    (credited, through the ledger or the wallet's outbox); ``settled_at``: when the campaign ended for them."""

    campaign: Campaign
    player: str
    played: int
    won: int
    paid: int
    accepted_at: datetime | None
    settled_at: datetime | None

    def rounds_left(self, now: datetime) -> int:
        """Rounds the player may still start now (0 once the campaign is cancelled or expired)."""
        return max(0, self.campaign.rounds - self.played) if self.campaign.open_at(now) else 0

    def over(self, now: datetime) -> bool:
        """No round may start any more: all played, or the campaign cancelled or past its window."""
        return self.played >= self.campaign.rounds or self.campaign.status != "active" \
            or now >= self.campaign.valid_until

    def to_json(self, now: datetime, currency: str | None = None) -> dict[str, Any]:
        """The progress as the operator sees it; with the player's ``currency``, the offer as the player sees it."""
        body = {"player": self.player, "played": self.played, "rounds_left": self.rounds_left(now),
                "won": self.won, "paid": self.paid, "accepted_at": iso(self.accepted_at),
                "settled_at": iso(self.settled_at)}
        if currency is not None:  # the player's view: what the offer is, in their currency
            c = self.campaign
            body.update(id=c.id, games=list(c.games), bet=c.bets.get(currency), currency=currency, rounds=c.rounds,
                        valid_until=iso(c.valid_until), credit=c.credit, status=c.status)
        return body


def _campaign(values: Sequence[Any]) -> Campaign:
    (cid, brand, key, games, bets, rounds, valid_from, valid_until, wagering, credit, status, created,
     cancelled) = values
    return Campaign(int(cid), brand, key, tuple(json.loads(games)), json.loads(bets), int(rounds),
                    parse_ts(valid_from), parse_ts(valid_until), None if wagering is None else json.loads(wagering),
                    credit, status, parse_ts(created), parse_ts(cancelled))


def _progress(values: Sequence[Any]) -> Progress:
    n = len(_COLUMNS)
    player, played, won, paid, accepted, settled = values[n:n + 6]
    return Progress(_campaign(values[:n]), player, int(played), int(won), int(paid), parse_ts(accepted),
                    parse_ts(settled))


def request_sha256(spec: dict[str, Any]) -> str:
    """The hash of a creating request's content (a retry with the same campaign id must carry the same)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _by_key(tx: Tx, brand: str, key: str, lock: bool = False) -> tuple[Campaign, str] | None:
    tx.cursor.execute(_sql(tx, f"{_SELECT.replace(' FROM', ', c.request_sha256 FROM')} WHERE c.brand = :b "
                               "AND c.campaign_key = :k" + ("" if tx.sqlite or not lock else " FOR UPDATE")),
                      {"b": brand, "k": key})
    row = tx.cursor.fetchone()
    return None if row is None else (_campaign(row[:-1]), row[-1])


def create(engine: Engine, brand: str, spec: dict[str, Any], now: datetime) -> tuple[int, Campaign]:
    """Create ``brand``'s campaign ``spec`` (checked by the caller: games offered, bets payable, window; its
    ``request_sha256`` the hash of the request as sent, :func:`request_sha256`):
    201 and the campaign; 200 and the same campaign when it exists with the same content (a retry); 409 when
    the campaign id is taken by another content, or a named player is another brand's."""
    digest = spec["request_sha256"]
    # The driver's own IntegrityError (the transaction runs on a driver connection, unwrapped) or SQLAlchemy's.
    integrity_errors = (IntegrityError, engine.dialect.loaded_dbapi.IntegrityError)
    for attempt in (1, 2):  # a concurrent creation of the same id: read the winner's once it committed
        try:
            with transaction(engine) as tx:
                found = _by_key(tx, brand, spec["campaign_id"])
                if found is not None:
                    if found[1] != digest:
                        raise ApiError(409, "campaign_id_reused",
                                       f"campaign {spec['campaign_id']!r} already exists with other content; "
                                       "nothing was changed")
                    return 200, found[0]
                _check_players(tx, brand, spec["players"])
                tx.cursor.execute(_sql(tx, "INSERT INTO campaigns (brand, campaign_key, request_sha256, games, bets, "
                                           "rounds, valid_from, valid_until, wagering, credit, status, created_at) "
                                           "VALUES (:brand, :key, :digest, :games, :bets, :rounds, :valid_from, "
                                           ":valid_until, :wagering, :credit, 'active', :now) RETURNING id"),
                                  {"brand": brand, "key": spec["campaign_id"], "digest": digest,
                                   "games": json.dumps(spec["games"]), "bets": json.dumps(spec["bets"], sort_keys=True),
                                   "rounds": spec["rounds"], "valid_from": tx.ts(spec["valid_from"]),
                                   "valid_until": tx.ts(spec["valid_until"]),
                                   "wagering": None if spec.get("wagering") is None else json.dumps(spec["wagering"]),
                                   "credit": spec["credit"], "now": tx.ts(now)})
                cid = tx.cursor.fetchone()[0]
                tx.cursor.executemany(_sql(tx, "INSERT INTO campaign_players (campaign_id, player, played, won, paid) "
                                               "VALUES (:c, :p, 0, 0, 0)"), [{"c": cid, "p": p} for p in spec["players"]])
                found = _by_key(tx, brand, spec["campaign_id"])
                assert found is not None
                return 201, found[0]
        except integrity_errors:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _check_players(tx: Tx, brand: str, names: list[str]) -> None:
    """409 when a named player exists and belongs to another brand (names are unique across brands)."""
    others: list[str] = []
    for at in range(0, len(names), _BATCH):
        chunk = names[at:at + _BATCH]
        marks = ", ".join(f":n{i}" for i in range(len(chunk)))
        tx.cursor.execute(_sql(tx, f"SELECT name FROM players WHERE brand <> :b AND name IN ({marks})"),
                          {"b": brand, **{f"n{i}": n for i, n in enumerate(chunk)}})
        others += [r[0] for r in tx.cursor.fetchall()]
    if others:
        raise ApiError(409, "player_of_another_brand",
                       f"players of another brand cannot be given this brand's campaign: {sorted(others)[:10]}")


def cancel(engine: Engine, brand: str, key: str, now: datetime) -> Campaign:
    """Cancel ``brand``'s campaign ``key`` (404 unknown; cancelling it again changes nothing)."""
    with transaction(engine) as tx:
        found = _by_key(tx, brand, key, lock=True)
        if found is None:
            raise unknown(key)
        if found[0].status == "active":
            tx.cursor.execute(_sql(tx, "UPDATE campaigns SET status = 'cancelled', cancelled_at = :now WHERE id = :id"),
                              {"now": tx.ts(now), "id": found[0].id})
        found = _by_key(tx, brand, key)
        assert found is not None
        return found[0]


def unknown(key: str) -> ApiError:
    """The refusal of a campaign id the brand does not have."""
    return ApiError(404, "campaign_not_found", f"no campaign {key!r} of this brand")


def read(engine: Engine, brand: str, key: str | None = None, limit: int = 20,
         before: int | None = None) -> list[tuple[Campaign, list[Progress]]]:
    """``brand``'s campaigns (``key``: that one; else the newest ``limit``, with ids below ``before``), each with
    every player's progress."""
    with transaction(engine, write=False) as tx:
        where, params = "c.brand = :b", {"b": brand, "n": limit}
        if key is not None:
            where += " AND c.campaign_key = :k"
            params["k"] = key
        if before is not None:
            where += " AND c.id < :before"
            params["before"] = before
        tx.cursor.execute(_sql(tx, f"{_SELECT} WHERE {where} ORDER BY c.id DESC LIMIT :n"), params)
        found = [_campaign(r) for r in tx.cursor.fetchall()]
        out = []
        for c in found:
            tx.cursor.execute(_sql(tx, f"{_WITH_PROGRESS} WHERE c.id = :id ORDER BY p.player"), {"id": c.id})
            out.append((c, [_progress(r) for r in tx.cursor.fetchall()]))
    if key is not None and not out:
        raise unknown(key)
    return out


def player_campaigns(tx: Tx, player: str, brand: str, limit: int = 20) -> list[Progress]:
    """The player's campaigns of their brand, newest first."""
    tx.cursor.execute(_sql(tx, f"{_WITH_PROGRESS} WHERE p.player = :p AND c.brand = :b ORDER BY c.id DESC LIMIT :n"),
                      {"p": player, "b": brand, "n": limit})
    return [_progress(r) for r in tx.cursor.fetchall()]


def lock_progress(tx: Tx, campaign_id: int, player: str) -> Progress | None:
    """The player's progress in a campaign, its row locked (the caller holds the player's row lock)."""
    tx.cursor.execute(_sql(tx, f"{_WITH_PROGRESS} WHERE c.id = :c AND p.player = :p" + ("" if tx.sqlite else " FOR UPDATE OF p")),
                      {"c": campaign_id, "p": player})
    row = tx.cursor.fetchone()
    return None if row is None else _progress(row)


def count_round(tx: Tx, progress: Progress, now: datetime) -> None:
    """One more round of the player's started (the first accepts the offer)."""
    tx.cursor.execute(_sql(tx, "UPDATE campaign_players SET played = played + 1, accepted_at = coalesce(accepted_at, "
                               ":now) WHERE campaign_id = :c AND player = :p"),
                      {"now": tx.ts(now), "c": progress.campaign.id, "p": progress.player})


def add(tx: Tx, progress: Progress, won: int, paid: int, settled: datetime | None) -> None:
    """Add a finished round's win and what is credited now; ``settled``: the campaign ends for the player."""
    tx.cursor.execute(_sql(tx, "UPDATE campaign_players SET won = won + :w, paid = paid + :d, "
                               "settled_at = coalesce(settled_at, :s) WHERE campaign_id = :c AND player = :p"),
                      {"w": won, "d": paid, "s": tx.ts(settled), "c": progress.campaign.id, "p": progress.player})


def open_rounds(tx: Tx, campaign_id: int, player_id: int, but: int | None = None) -> int:
    """The player's open rounds of the campaign (other than round ``but``)."""
    tx.cursor.execute(_sql(tx, "SELECT count(*) FROM rounds WHERE campaign_id = :c AND player_id = :p "
                               "AND status = 'open' AND id <> :but"), {"c": campaign_id, "p": player_id, "but": but or 0})
    return int(tx.cursor.fetchone()[0])


def unsettled_over(engine: Engine, brands: list[str], now: datetime, batch: int = 500) -> list[tuple[int, str]]:
    """``(campaign id, player)`` of progress not settled of campaigns cancelled or past their window (the
    sweep settles them)."""
    with transaction(engine, write=False) as tx:
        marks = ", ".join(f":b{i}" for i in range(len(brands)))
        tx.cursor.execute(_sql(tx, "SELECT p.campaign_id, p.player FROM campaign_players p JOIN campaigns c "
                                   "ON c.id = p.campaign_id WHERE p.settled_at IS NULL AND (c.status = 'cancelled' "
                                   f"OR c.valid_until <= :now) AND c.brand IN ({marks}) ORDER BY p.campaign_id "
                                   "LIMIT :n"),
                          {"now": tx.ts(now), "n": batch, **{f"b{i}": b for i, b in enumerate(brands)}})
        return [(int(r[0]), r[1]) for r in tx.cursor.fetchall()]
