"""``/metrics``: the server's figures in the Prometheus text format (the ``prometheus_client`` library).

Two kinds of figures:

* **from the database, read when scraped** (:class:`DatabaseCollector`, through
  :class:`~reelforge.server.tally.RoundTally`): rounds started, finished,
  completed on expiry and voided, stakes, wins, refunds and GGR in minor units
  (per brand, currency, game, build, version and mode: amounts are never added
  across currencies), open rounds and the oldest one's age, the RTP monitor's
  figures and alarms, and the seamless outbox (:class:`OutboxCollector`). They
  are the database's totals, so they agree with it to the minor unit whichever
  server process is scraped, and survive restarts; and so several instances
  on one database must not all report them (a ``sum`` over instances would
  count them once per instance): ``[server] database_metrics = false`` on
  every instance but one;
* **events of this process** (:class:`Metrics`): request latency per route
  template, method and game, answers per status (503s among them), database errors,
  the wait for a database thread, connections refused by the HTTP limits.
  With ``serve --workers N`` the processes share them through
  ``prometheus_client``'s multi-process mode (``PROMETHEUS_MULTIPROC_DIR``,
  which ``serve`` sets to a fresh folder before the workers start and removes
  after): any worker's scrape sums every worker's counts.

Nothing here reads the database on the request path: a request costs a
histogram observation and a counter increment (children cached per route,
method and status).

The seamless wallet adds its own figures here: wallet call latency and
failures by kind (this process's events), and the outbox's depth and oldest
call per brand (the database's), registered on :attr:`Metrics.registry` (see
:meth:`Metrics.add_collector`). :class:`BuildInfoCollector`: the builds this
process offers and the server's version (``*_info`` gauges of 1).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from reelforge.server.api.errors import CATCH_ALL
from reelforge.server.logs import CURRENT, INFO, REQUESTS, RequestInfo, log_request, release_held, request_id

disable_created_metrics()  # no *_created series: every counter would double the scrape for a figure no one reads

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """This process's event metrics and the registry ``/metrics`` exposes (one per app)."""

    def __init__(self, multiprocess: bool = False) -> None:
        """``multiprocess``: one of several workers, its metrics in the folder the serve command made
        (named by ``PROMETHEUS_MULTIPROC_DIR``, which prometheus_client reads)."""
        self.multiprocess = multiprocess
        self.registry = CollectorRegistry()
        # Multi-process mode: the values live in the shared folder's files and the registry reads them all
        # (MultiProcessCollector); the metric objects must not be registered themselves.
        own = None if self.multiprocess else self.registry
        self.latency = Histogram("reelforge_http_request_duration_seconds",
                                 "Time to answer a request, by route template, method and game (the game the "
                                 "request played or named; none: no game)", ["route", "method", "game"],
                                 buckets=LATENCY_BUCKETS, registry=own)
        self.responses = Counter("reelforge_http_responses",
                                 "Answers by route template, method and status (0: none sent, the client went away)",
                                 ["route", "method", "status"], registry=own)
        self.db_errors = Counter("reelforge_db_errors", "Database errors by code: requests answered 503 "
                                 "(storage_unavailable, storage_full) and transient errors retried (transient_retried)",
                                 ["code"], registry=own)
        self.db_wait = Histogram("reelforge_db_wait_seconds",
                                 "Time a request waited for a database thread (and so a pooled connection) or, "
                                 "on SQLite, for the write lock", buckets=LATENCY_BUCKETS, registry=own)
        self.refusals = Counter("reelforge_connection_refusals",
                                "Connections refused by the HTTP limits, by reason (503 busy, 431, 408)",
                                ["reason"], registry=own)
        self.wallet_latency = Histogram("reelforge_wallet_call_duration_seconds",
                                        "Seamless wallet: time of a call to the operator's wallet, by kind "
                                        "(debit, credit, rollback)", ["kind"], buckets=LATENCY_BUCKETS, registry=own)
        self.wallet_calls = Counter("reelforge_wallet_calls", "Seamless wallet: calls to the operator's wallet by "
                                    "kind and outcome (ok, refused, timeout, unavailable, nonsense)",
                                    ["kind", "outcome"], registry=own)
        if self.multiprocess:
            MultiProcessCollector(self.registry)
        self._children: dict[tuple[str, str, int, str], tuple[Any, Any]] = {}

    def observe_request(self, route: str, method: str, status: int, seconds: float, game: str = "none") -> None:
        """Count one answered request (``game``: the game it played or named)."""
        key = (route, method, status, game)
        children = self._children.get(key)
        if children is None:
            children = self._children[key] = (self.latency.labels(route, method, game),
                                              self.responses.labels(route, method, str(status)))
        children[0].observe(seconds)
        children[1].inc()

    def observe_wallet_call(self, kind: str, seconds: float, outcome: str) -> None:
        """Count one call to the operator's wallet (a :class:`~reelforge.server.seamless.WalletStats` hook)."""
        self.wallet_latency.labels(kind).observe(seconds)
        self.wallet_calls.labels(kind, outcome).inc()

    def add_collector(self, collector: Any) -> None:
        """Expose ``collector``'s figures too (read at every scrape, in the scraped process)."""
        self.registry.register(collector)

    def exposition(self) -> bytes:
        """The text ``/metrics`` answers."""
        return generate_latest(self.registry)


def route_of(scope: dict[str, Any]) -> str:
    """A request's route template (``/api/v1/rounds/{round_id}/steps``), never its raw path: ``static`` for
    the client's files, ``unmatched`` for anything else no route took."""
    route = scope.get("route")
    if route is not None:
        path = getattr(route, "path", None) or "static"
        return "unmatched" if path == CATCH_ALL else path  # the catch-all of unknown /api/ paths
    return "unmatched" if scope.get("path", "").startswith("/api/") else "static"


def game_of(scope: dict[str, Any], info: RequestInfo, status: int) -> str:
    """The game a request played (a round's) or named in its path when it was answered as a game's (a
    refused name is not a label: unknown names would make a label of any string); ``none`` otherwise."""
    if info.game is not None:
        return info.game
    named = scope.get("path_params", {}).get("game")
    return named if isinstance(named, str) and status < 400 else "none"


class Observe:
    """ASGI middleware around everything: the request's id (``X-Request-Id`` in and out), its latency and
    status in the metrics, and its log line."""

    def __init__(self, app: Any, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        info = RequestInfo(request_id(scope["headers"]))
        token = CURRENT.set(info)
        status = 0

        async def send_with_id(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), (b"x-request-id", info.id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - began
            route = route_of(scope)
            self.metrics.observe_request(route, scope["method"], status, seconds,  # 0: no answer (client gone)
                                         game_of(scope, info, status))
            if REQUESTS.isEnabledFor(INFO):
                log_request(info, scope["method"], scope.get("path", ""), route, status, seconds)
            else:
                release_held(info)
            CURRENT.reset(token)


KEY_LABELS = ["brand", "currency", "game", "build", "version", "mode"]
"""The labels of every figure read from the rounds (:data:`reelforge.server.tally.Key`)."""


class DatabaseCollector:
    """The figures read from the database at every scrape: round totals, open rounds and the RTP monitor
    (see the module docstring). ``monitor`` is an :class:`~reelforge.server.monitor.RtpMonitor`."""

    def __init__(self, monitor: Any, open_rounds: Any) -> None:
        self.monitor = monitor
        self.open_rounds = open_rounds
        """Callable: ``{game: (count, oldest start)}`` of the open rounds."""

    def describe(self) -> list:
        return []  # registered without a database read; the names come with the first scrape

    def collect(self) -> Iterator[Any]:
        readings = self.monitor.check()
        totals = self.monitor.tally.current
        counters = {
            "rounds_started": ("Rounds started (staked)", lambda t: t.started),
            "rounds_finished": ("Rounds finished (completed on expiry included)", lambda t: t.finished),
            "rounds_completed_on_expiry": ("Rounds completed on expiry", lambda t: t.completed_on_expiry),
            "rounds_voided": ("Rounds voided (malfunction; stake refunded)", lambda t: t.voided),
        }
        for name, (doc, value) in counters.items():
            family = CounterMetricFamily(f"reelforge_{name}", doc, labels=KEY_LABELS)
            for key, t in sorted(totals.items()):
                family.add_metric(list(key), value(t))
            yield family
        # Money: minor units of the key's currency (a key is one currency: never a sum across currencies).
        families = {
            "stakes_minor": ("Stakes and feature-buy prices debited, minor units of the currency", lambda t: t.stakes),
            "wins_minor": ("Wins credited, minor units of the currency", lambda t: t.wins),
            "refunds_minor": ("Stakes refunded for void rounds, minor units of the currency", lambda t: t.refunds),
        }
        for name, (doc, value) in families.items():
            family = CounterMetricFamily(f"reelforge_{name}", doc, labels=KEY_LABELS)
            for key, t in sorted(totals.items()):
                family.add_metric(list(key), value(t))
            yield family
        ggr = GaugeMetricFamily("reelforge_ggr_minor", "Gross gaming revenue: stakes - wins - refunds, minor units "
                                "of the currency (open rounds' stakes included)", labels=KEY_LABELS)
        for key, t in sorted(totals.items()):
            ggr.add_metric(list(key), t.ggr)
        yield ggr
        yield from self._open_rounds()
        yield from self._monitor(readings)

    def _open_rounds(self) -> Iterator[Any]:
        per_game = self.open_rounds()
        count = GaugeMetricFamily("reelforge_open_rounds", "Rounds staked and not yet finished", labels=["game"])
        age = GaugeMetricFamily("reelforge_oldest_open_round_age_seconds", "Age of the oldest unfinished round",
                                labels=["game"])
        now = time.time()
        for game, (n, oldest) in sorted(per_game.items()):
            count.add_metric([game], n)
            age.add_metric([game], max(0.0, now - oldest.timestamp()))
        yield count
        yield age

    def _monitor(self, readings: dict) -> Iterator[Any]:
        docs = {"rtp_observed": "Observed RTP (wins / costs) of the finished rounds since the monitor's start",
                "rtp_expected": "The build's RTP", "rtp_lower_limit": "The RTP monitor's lower control limit",
                "rtp_upper_limit": "The RTP monitor's upper control limit",
                "rtp_rounds": "Finished rounds the RTP monitor judges (since its start)",
                "rtp_alarm": "1 while the observed RTP is outside its control limits"}
        families = {name: GaugeMetricFamily(f"reelforge_{name}", doc, labels=KEY_LABELS) for name, doc in docs.items()}
        for key, r in sorted(readings.items()):
            labels = list(key)
            values = {"rtp_observed": r.observed, "rtp_expected": r.expected, "rtp_lower_limit": r.lower,
                      "rtp_upper_limit": r.upper, "rtp_rounds": r.rounds, "rtp_alarm": 1 if r.alarm else 0}
            for name, value in values.items():
                if value is not None:
                    families[name].add_metric(labels, value)
        yield from families.values()
        since = self.monitor.settings.since
        if since is not None:
            start = GaugeMetricFamily("reelforge_rtp_monitor_since_timestamp_seconds",
                                      "The RTP monitor's start (Unix time)")
            start.add_metric([], since.timestamp())
            yield start


class OutboxCollector:
    """Seamless wallet: the calls not yet acknowledged by the operator's wallet (credits and rollbacks to
    deliver, debits in flight), read from the database at every scrape so every worker reports the same:
    their number and the oldest one's age (seconds), per brand."""

    def __init__(self, pending: Any) -> None:
        self.pending = pending
        """Callable: ``{brand: (count, oldest created_at or None)}`` of the unacknowledged wallet calls."""

    def describe(self) -> list:
        return []  # registered without a database read

    def collect(self) -> Iterator[Any]:
        depth = GaugeMetricFamily("reelforge_wallet_outbox_depth",
                                  "Seamless wallet: calls not yet acknowledged by the brand's wallet", labels=["brand"])
        age = GaugeMetricFamily("reelforge_wallet_outbox_oldest_age_seconds",
                                "Seamless wallet: age of the oldest call not yet acknowledged (0: none)",
                                labels=["brand"])
        now = time.time()
        for brand, (count, oldest) in sorted(self.pending().items()):
            depth.add_metric([brand], count)
            age.add_metric([brand], 0.0 if oldest is None else max(0.0, now - oldest.timestamp()))
        yield depth
        yield age


class SqliteCommitCollector:
    """SQLite: the money requests' COMMITs this process made and the request transactions they held (their
    ratio: how many requests one COMMIT served, see :class:`reelforge.server.sqlite_writers.CommitGroup`)."""

    def __init__(self, counts: Any) -> None:
        self.counts = counts
        """A :class:`reelforge.server.sqlite_writers.CommitCounts`."""

    def describe(self) -> list:
        return []

    def collect(self) -> Iterator[Any]:
        commits = CounterMetricFamily("reelforge_sqlite_commits",
                                      "SQLite: COMMITs of the money requests' transactions (one per commit group)")
        commits.add_metric([], self.counts.commits)
        yield commits
        held = CounterMetricFamily("reelforge_sqlite_committed_transactions",
                                   "SQLite: money request transactions in those COMMITs' groups (savepoints; "
                                   "one rolled back to is counted too)")
        held.add_metric([], self.counts.transactions)
        yield held


class BuildInfoCollector:
    """The builds this process offers (``reelforge_build_info``: game, build, version, content hash) and the
    server's own version (``reelforge_server_info``), as gauges of 1: which maths is live, for dashboards and
    alerts on an unexpected build."""

    def __init__(self, builds: list[tuple[str, str, str, str]], version: str) -> None:
        self.builds, self.version = builds, version

    def describe(self) -> list:
        return []

    def collect(self) -> Iterator[Any]:
        info = GaugeMetricFamily("reelforge_build_info", "A build this server offers (1)",
                                 labels=["game", "build", "version", "content_hash"])
        for labels in sorted(self.builds):
            info.add_metric(list(labels), 1)
        yield info
        server = GaugeMetricFamily("reelforge_server_info", "The game server's version (1)", labels=["version"])
        server.add_metric([self.version], 1)
        yield server
