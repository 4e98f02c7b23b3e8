"""Running totals of the stored rounds, read incrementally from the ``rounds`` table (no schema of its own).

:class:`RoundTally` is what ``/metrics``, the RTP monitor and the operator page
read: per brand, currency, game, build, version and mode (the :data:`Key`:
a round's brand is its player's, its currency the player's,
``players.currency``, so every key's amounts are minor units of one
currency and nothing is ever added across currencies) the rounds started,
finished (completed on expiry among them) and voided, the stakes, wins and
refunds in minor units, and, for the RTP monitor, the finished rounds since
the monitor's start with their costs, wins and sum of squared costs. The figures
are the database's, so every server process (``serve --workers N``) reports
the same totals whichever of them is scraped, and they survive restarts.

Nothing is read on the request path: :meth:`RoundTally.refresh` runs on the
monitor's schedule and on a scrape. Each refresh reads, in one snapshot:

* the rounds that were open when folded and may have closed since (by id);
* the rounds with ids above the *settled* cursor, aggregated by the
  database (``GROUP BY``; a few rows come back);
* and moves the cursor up to the newest round created more than
  :attr:`RoundTally.settle_seconds` ago, folding the rounds below it into
  the settled totals (its still-open rounds are remembered by id).

Why the settle time: on PostgreSQL round ids come from a sequence and
transactions commit out of order, so a round with a lower id can commit
after one with a higher id. A round's transaction ends within the pool
timeout (every wait is bounded by it), so nothing commits below a cursor
that is older than that by a margin. SQLite commits in id order (one writer):
no settle time.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Float, case, cast, func, literal, select

from reelforge.server.db import is_sqlite
from reelforge.server.schema import players, rounds

Key = tuple[str, str, str, str, str, str]
"""(brand, currency, game, build, build version, mode)."""

FREE_ROUNDS_MODE = "free_rounds"
"""The mode label of a campaign's free rounds: their own series, apart from the paid modes (whose RTP excludes
them: a free round costs nothing, so it has no RTP of its own; its wins are reported apart)."""
_MODE = case((rounds.c.campaign_id.is_not(None), literal(FREE_ROUNDS_MODE)), else_=rounds.c.mode)
_KEY_COLUMNS = (rounds.c.brand, players.c.currency, rounds.c.game, rounds.c.build, rounds.c.build_version, _MODE)
_WITH_CURRENCY = rounds.join(players, players.c.id == rounds.c.player_id)
"""A round's money is in its player's currency (``players.currency``)."""
_PENDING_BATCH = 500


@dataclass
class Money:
    """One currency's amounts, minor units of it."""

    stakes: int = 0
    wins: int = 0
    refunds: int = 0

    def add(self, other: Money) -> None:
        self.stakes += other.stakes
        self.wins += other.wins
        self.refunds += other.refunds

    @property
    def ggr(self) -> int:
        """Gross gaming revenue: stakes - wins - refunds (open rounds' stakes included)."""
        return self.stakes - self.wins - self.refunds


@dataclass
class Totals:
    """One key's totals (amounts in minor units). ``monitored_*``: finished rounds since the monitor's start."""

    started: int = 0
    finished: int = 0
    completed_on_expiry: int = 0
    voided: int = 0
    stakes: int = 0
    wins: int = 0
    refunds: int = 0
    monitored_rounds: int = 0
    monitored_cost: int = 0
    monitored_win: int = 0
    monitored_cost_sq: float = 0.0
    monitored_max_win: int = 0
    """The largest single win among the monitored rounds (the monitor's high side discounts it)."""
    currencies: dict[str, Money] = field(default_factory=dict)
    """``stakes``, ``wins`` and ``refunds`` per currency (they sum to them; only these are money: a sum over
    currencies is a count of minor units of mixed sizes)."""

    def add(self, other: Totals) -> None:
        for f in fields(self):
            if f.name == "monitored_max_win":
                self.monitored_max_win = max(self.monitored_max_win, other.monitored_max_win)
            elif f.name == "currencies":
                for code, money in other.currencies.items():
                    self.currencies.setdefault(code, Money()).add(money)
            else:
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    @property
    def open(self) -> int:
        return self.started - self.finished - self.voided

    @property
    def ggr(self) -> int:
        """Gross gaming revenue: stakes kept (stakes - wins - refunds); open rounds' stakes included."""
        return self.stakes - self.wins - self.refunds


def contribution(status: str, on_expiry: bool, monitored: bool, n: int, cost: int, win: int,
                 cost_sq: float, max_win: int = 0, *, started: bool = True, currency: str | None = None) -> Totals:
    """What ``n`` rounds of one ``status`` add (``started=False``: only what closing them adds, for rounds
    already counted while open); ``currency``: their players' (None: no per-currency breakdown)."""
    t = Totals()
    if started:
        t.started, t.stakes = n, cost
    if status == "finished":
        t.finished, t.wins = n, win
        t.completed_on_expiry = n if on_expiry else 0
        if monitored:
            t.monitored_rounds, t.monitored_cost, t.monitored_win, t.monitored_cost_sq = n, cost, win, cost_sq
            t.monitored_max_win = max_win
    elif status == "void":
        t.voided, t.refunds = n, cost  # a void round's cost is refunded whole
    if currency is not None:
        t.currencies[currency] = Money(t.stakes, t.wins, t.refunds)
    return t


class RoundTally:
    """Incremental totals of the ``rounds`` table (see the module docstring). Thread-safe."""

    def __init__(self, engine: Engine, since: datetime | None = None, settle_seconds: float = 0.0) -> None:
        self.engine = engine
        self.since = since
        """The RTP monitor's start (rounds created at or after it are monitored); None: every round."""
        self.settle_seconds = 0.0 if is_sqlite(engine) else settle_seconds
        self.cursor = 0
        self.settled: dict[Key, Totals] = defaultdict(Totals)
        self.pending: dict[int, tuple[Key, bool, str]] = {}
        """Open rounds at or below the cursor (counted as open): id -> (key, monitored, currency)."""
        self.current: dict[Key, Totals] = {}
        self.refreshed_at: float | None = None
        self._lock = threading.Lock()

    def _monitored(self) -> Any:
        if self.since is None:
            return literal(True)
        return case((rounds.c.created_at >= self.since.astimezone(UTC).replace(tzinfo=None), True), else_=False)

    def _aggregate(self, conn: Any, low: int, high: int | None) -> dict[Key, Totals]:
        """The totals of the rounds with ids in ``(low, high]`` (``high`` None: no upper end)."""
        flag = self._monitored().label("monitored")
        groups = (*_KEY_COLUMNS, rounds.c.status, rounds.c.completed_on_expiry, flag)
        query = select(*groups, func.count(),
                       func.coalesce(func.sum(rounds.c.cost), 0), func.coalesce(func.sum(rounds.c.win), 0),
                       func.coalesce(func.sum(cast(rounds.c.cost, Float) * rounds.c.cost), 0.0),
                       func.coalesce(func.max(rounds.c.win), 0)).select_from(_WITH_CURRENCY).where(rounds.c.id > low)
        if high is not None:
            query = query.where(rounds.c.id <= high)
        query = query.group_by(*groups)
        out: dict[Key, Totals] = defaultdict(Totals)
        for brand, currency, game, build, version, mode, status, on_expiry, monitored, n, cost, win, cost_sq, top in (
                conn.execute(query)):
            out[(brand, currency, game, build, version, mode)].add(contribution(
                status, bool(on_expiry), bool(monitored), int(n), int(cost), int(win), float(cost_sq), int(top),
                currency=currency))
        return out

    def _connect(self) -> Any:
        conn = self.engine.connect()
        if is_sqlite(self.engine):
            return conn.execution_options(readonly=True)  # BEGIN (deferred): a snapshot from the first read
        return conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)

    def refresh(self, now: float | None = None) -> dict[Key, Totals]:
        """Read what changed and return the totals per key (also kept as :attr:`current`)."""
        with self._lock:
            now = time.time() if now is None else now
            with self._connect() as conn, conn.begin():
                self._recheck_pending(conn)
                settled_before = datetime.fromtimestamp(now - self.settle_seconds, UTC).replace(tzinfo=None)
                top = conn.execute(select(func.max(rounds.c.id)).where(
                    rounds.c.id > self.cursor, rounds.c.created_at < settled_before)).scalar()
                if top is not None:
                    self._fold(conn, int(top))
                window = self._aggregate(conn, self.cursor, None)
            totals: dict[Key, Totals] = {}
            for part in (self.settled, window):
                for key, t in part.items():
                    totals.setdefault(key, Totals()).add(t)
            self.current, self.refreshed_at = totals, now
            return totals

    def _fold(self, conn: Any, top: int) -> None:
        """Add the rounds with ids in ``(cursor, top]`` to the settled totals; remember the open ones."""
        for key, t in self._aggregate(conn, self.cursor, top).items():
            self.settled[key].add(t)
        flag = self._monitored().label("monitored")
        for row in conn.execute(select(rounds.c.id, *_KEY_COLUMNS, flag).select_from(
                _WITH_CURRENCY).where(rounds.c.id > self.cursor, rounds.c.id <= top, rounds.c.status == "open")):
            key = tuple(row[1:7])
            self.pending[int(row[0])] = (key, bool(row[7]), key[1])
        self.cursor = top

    def _recheck_pending(self, conn: Any) -> None:
        """Fold what closing adds for remembered open rounds that finished or were voided since. The rounds
        still open come from the open rounds' index (one read however many are remembered: abandoned rounds
        stay open until their expiry); only those that closed are read by id."""
        if not self.pending:
            return
        still_open = {int(r[0]) for r in conn.execute(select(rounds.c.id).where(
            rounds.c.status == "open", rounds.c.id <= self.cursor))}
        ids = [i for i in self.pending if i not in still_open]
        for at in range(0, len(ids), _PENDING_BATCH):
            chunk = ids[at:at + _PENDING_BATCH]
            for rid, status, on_expiry, cost, win in conn.execute(select(
                    rounds.c.id, rounds.c.status, rounds.c.completed_on_expiry, rounds.c.cost, rounds.c.win).where(
                    rounds.c.id.in_(chunk))):
                key, monitored, currency = self.pending.pop(int(rid))
                self.settled[key].add(contribution(status, bool(on_expiry), monitored, 1, int(cost), int(win),
                                                   float(cost) * float(cost), int(win), started=False,
                                                   currency=currency))


def open_rounds(engine: Engine, limit: int = 20) -> tuple[dict[str, tuple[int, datetime]], list[tuple]]:
    """Per game the number of open rounds and the oldest one's start, and the ``limit`` oldest open rounds
    as ``(round id, player name, game, build, bet, created_at, currency)`` (the expiry index serves both; the
    bet in minor units of the player's currency)."""
    from reelforge.server.store import parse_ts

    with engine.connect() as conn:
        conn = conn.execution_options(readonly=True)
        with conn.begin():
            per_game = {game: (int(n), parse_ts(oldest)) for game, n, oldest in conn.execute(
                select(rounds.c.game, func.count(), func.min(rounds.c.created_at))
                .where(rounds.c.status == "open").group_by(rounds.c.game))}
            oldest = [(r[0], r[1], r[2], r[3], r[4], parse_ts(r[5]), r[6]) for r in conn.execute(
                select(rounds.c.id, players.c.name, rounds.c.game, rounds.c.build, rounds.c.bet, rounds.c.created_at,
                       players.c.currency)
                .join(players, players.c.id == rounds.c.player_id)
                .where(rounds.c.status == "open").order_by(rounds.c.created_at).limit(limit))] if limit else []
    return per_game, oldest


def settle_seconds_for(pool_timeout_seconds: float) -> float:
    """The settle time for a server whose requests wait at most ``pool_timeout_seconds`` (twice it plus 30 s)."""
    return 2 * pool_timeout_seconds + 30.0

