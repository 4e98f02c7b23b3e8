"""Operator configuration: a TOML file that says how the server runs.

Example (see ``demo.toml`` next to this module)::

    [server]
    mode = "operator"              # "demo": anyone opens a demo session by name
    currency = "EUR"
    demo_balance = 100000          # minor units, demo mode only
    round_expiry_days = 90         # unfinished rounds older than this are completed (decided win paid)
    session_ttl_minutes = 720
    expiry_check_seconds = 3600    # the server's periodic expiry check (0: off)
    housekeeping_seconds = 3600    # old sessions and idempotency answers purged this often (always on)
    database = "sqlite:///reelforge.db"   # optional; --db overrides it
    api_key_sha256 = "<hex>"       # operator mode: SHA-256 of the operator's API key
    idempotency_retention_days = 7 # stored answers of Idempotency-Keys are purged after this
    max_balance = 1000000000000000 # minor units; a deposit beyond it is refused
    db_pool_size = 20              # database connections kept per server process
    db_max_overflow = 10           # extra connections per process under bursts
    db_pool_timeout_seconds = 10   # how long a request waits for a connection before 503
    request_timeout_seconds = 10   # a request's headers and body must arrive within this (else 408)
    provably_fair = true           # rounds draw from the player's seed pair (docs/FAIRNESS.md); false: plain CSPRNG
    round_start_quantum_ms = 50    # a start whose round has unrevealed steps is answered at a multiple of this
    max_connections = 1000         # open connections per process (lowered to fit the descriptor limit)
    session_requests_per_second = 1000  # per session token and process (429 beyond; 0: off); bursts of twice
    ip_requests_per_second = 5000  # per client address and process (429 beyond; 0: off); bursts of twice
    trusted_proxies = ["10.0.0.5", "10.1.0.0/16"]  # only these may say who the client is (X-Forwarded-For)
    database_metrics = true        # report the database's figures in /metrics (false on all instances but one)
    metrics_token_sha256 = "<hex>" # optional: SHA-256 of a token that may read /metrics (besides the operator key)
    support_key_sha256 = "<hex>"   # optional: SHA-256 of the support role's key (read-only: rounds, details, reports)

    [games.forge-of-fortunes]
    build = "96.2"
    # total bets in minor units: every product of one value from each factor list
    bet_ladder = { factors = [[1, 2, 5, 10], [10]] }
    # or an explicit list: bet_ladder = [10, 20, 50, 100]

    [monitor]                      # the live RTP monitor (docs/OPERATIONS.md); every key optional
    since = 2026-12-01T00:00:00Z   # judge the rounds started from then on (default: every stored round)
    confidence = 0.999             # two-sided level of the control limits
    min_rounds = 20000             # judge from this many finished rounds on (a single big win moves fewer)
    check_seconds = 15             # how often each server process checks (0: only when scraped or viewed)
    figures = "lab-figures.toml"   # optional: RTP and SD per build of your own, over the shipped ones

    [responsible_play]             # every key optional: a named profile, then per-key overrides
    profile = "default"            # "default" (permissive) or "uk" (see PROFILES)
    reality_check_minutes = 0      # every N minutes round starts are refused until the player acknowledges (0: off)
    session_limit_minutes = 0      # no round start after this long in one session (0: off)
    turbo = true                   # false: no Turbo (animations always at full length)
    min_round_seconds = 0          # refuse a new round sooner than this after the previous one started
    autoplay = false               # whether the client offers autoplay
    autoplay_max_rounds = 100      # the most rounds one autoplay may run
    max_bet = 10000                # no bet above this (minor units): the ladders are capped
    max_stake = 10000              # nothing above this leaves the balance per round, feature buys included
                                   # (unset: max_bet)
    loss_limit = 50000             # the most a player may lose (staked minus won) in one play session (unset: none)
    session_break_minutes = 30     # a new play session (fresh clocks) only after this long away
    feature_buy = true             # false: no feature buy (refused 403; the client shows no buy button)

    [profiles.my-market]           # more named jurisdiction profiles (keys as [responsible_play]); a launched
    reality_check_minutes = 30     # session names one (docs/JURISDICTIONS.md)

    [currencies]                   # decimals (minor units) of currencies beyond the built-in ISO 4217 table
    XTS = 2

    [operator]                     # docs/OPERATORS.md
    wallet = "seamless"            # "transfer" (the server holds the balance) or "seamless" (the operator's does)
    secret_file = "/run/secrets/operator"  # the HMAC secret shared with the operator, kept in a file (or secret = "...")
    wallet_url = "https://wallet.operator.example/reelforge"  # seamless: its debit/credit/rollback/balance calls
    wallet_timeout_seconds = 3     # one wallet call's time limit (the whole answer, however slowly it comes)
    start_limit_seconds = 5        # the longest a round start waits on the wallet (debit and its rollback)
    signed_answers = false         # true: every wallet answer must carry the wallet's HMAC signature
    launch_url = "https://games.example/"     # base of launch URLs (default: this server's own address)
    launch_token_seconds = 60      # a launch token's life (used once)
    signature_window_seconds = 300 # a signed call's timestamp must be this close to the server's clock
    brand = "default"              # this section's brand id (players, rounds and wallet calls carry it)
    close_losing_rounds = false    # seamless: a zero-amount credit (round_closed) closes each round without a win
    callback_url = "https://backend.operator.example/reelforge/callbacks"  # signed session-ended callbacks
    allowed_url_hosts = ["casino.example"]  # hosts a launch's lobby/return/deposit/history URLs may name

    [brands.acme]                  # more brands (docs/OPERATORS.md): api_key_sha256, support_key_sha256, currency,
                                   # and sub-tables
    [brands.acme.operator]         # keys as [operator]: its own wallet and secret (the same wallet mode)
    [brands.acme.responsible_play] # keys as [responsible_play]
    [brands.acme.games.forge-of-fortunes]  # its own ladders of the server's builds (absent: the server's)

Per-currency bet ladders: ``[games.<id>] bet_ladders = { JPY = [10, 20], BHD = [100, 200] }``; the
``bet_ladder`` is the server's ``currency``'s.

Only the games listed under ``[games]`` are offered (none listed, or demo mode: every registered game). The test-only draw source
cannot be set here (see :func:`reelforge.server.app.create_app`).
"""

from __future__ import annotations

import hashlib
import ipaddress
import tomllib
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from reelforge.games.registry import GAME_CLASSES, get_game
from reelforge.server.config_games import CURRENCY_DECIMALS, GameConfig, parse_currencies, parse_games
from reelforge.server.config_operator import (
    BrandConfig,
    OperatorConfig,
    distinct_support_key,
    parse_brands,
    parse_operator,
)
from reelforge.server.config_play import PlayRules, parse_play_rules, parse_profiles
from reelforge.server.config_values import MAX_BALANCE, MAX_BET, ConfigError, integer, number, section_keys
from reelforge.server.monitor import MonitorSettings, load_figures

DEMO_CONFIG = Path(__file__).resolve().parent / "demo.toml"
DEFAULT_DATABASE = "sqlite:///reelforge.db"
DEMO_DATABASE = "sqlite:///reelforge-demo.db"
"""``serve --demo``'s database (``make run``): play money never in the operator's default file."""


@dataclass(frozen=True)
class ServerConfig:
    mode: str = "operator"
    currency: str = "EUR"
    demo_balance: int = 100_000
    round_expiry_days: float = 90.0
    session_ttl_minutes: float = 720.0
    expiry_check_seconds: float = 3600.0
    database: str | None = None
    api_key_sha256: str | None = None
    games: dict[str, GameConfig] = field(default_factory=dict)
    api_docs: bool = False
    """Serve the interactive API reference (/docs, /redoc): off unless set, for FastAPI's pages load their
    scripts from a CDN; demo mode only. /openapi.json is always served."""
    idempotency_retention_days: float = 7.0
    max_balance: int = MAX_BALANCE
    db_pool_size: int = 20
    db_max_overflow: int = 10
    db_pool_timeout_seconds: float = 10.0
    request_timeout_seconds: float = 10.0
    housekeeping_seconds: float = 3600.0
    round_start_quantum_ms: float = 50.0
    max_connections: int = 1000
    session_requests_per_second: float = 1000.0
    ip_requests_per_second: float = 5000.0
    trusted_proxies: tuple[str, ...] = ()
    database_metrics: bool = True
    """Whether ``/metrics`` reports the figures read from the database (rounds, money, the RTP monitor, the
    outbox): several instances on one database set it on one only, so a ``sum`` over instances counts once."""
    """Addresses or networks of the operator's proxies whose ``X-Forwarded-For`` names the client (none: the
    peer's own address is the client's, whatever the header says)."""
    play: PlayRules = field(default_factory=PlayRules)
    provably_fair: bool = True
    """Rounds draw from the player's committed seed pair (docs/FAIRNESS.md); False: from the OS CSPRNG alone."""
    operator: OperatorConfig = field(default_factory=OperatorConfig)
    currencies: dict[str, int] = field(default_factory=lambda: dict(CURRENCY_DECIMALS))
    """Decimals of every known currency (the built-in table and ``[currencies]``)."""
    profiles: dict[str, PlayRules] = field(default_factory=dict)
    """Every jurisdiction profile a launched session may name (shipped and ``[profiles.*]``), with the
    configuration's ``[responsible_play]`` keys left out: an operator's choice per session is the profile as it is."""

    @property
    def seamless(self) -> bool:
        return self.operator.seamless

    brands: dict[str, BrandConfig] = field(default_factory=dict)
    """The brands of ``[brands.<id>]`` (the top-level ``[operator]``, ``[responsible_play]`` and ``[games]``
    are one more, :attr:`default_brand`)."""

    @cached_property
    def default_brand(self) -> BrandConfig:
        """The brand of the top-level sections (``[operator] brand``, default ``default``); built once (every
        money request asks for its player's brand)."""
        return BrandConfig(self.operator.brand, self.operator, self.play, self.currency, self.games,
                           self.api_key_sha256, self.support_key_sha256)

    def brand(self, brand_id: str | None) -> BrandConfig:
        """The brand ``brand_id`` (None: the default brand); :class:`KeyError` when not served here."""
        if brand_id is None or brand_id == self.operator.brand:
            return self.default_brand
        return self.brands[brand_id]

    def all_brands(self) -> list[BrandConfig]:
        """Every brand this server serves, the default first."""
        return [self.default_brand, *self.brands.values()]

    def rules(self, profile: str | None, brand: str | None = None,
              limits: dict[str, Any] | None = None) -> PlayRules:
        """The responsible-play rules of a session: its brand's, with the ``profile`` the operator named at
        launch (where they differ the stricter holds) and its launch ``limits`` (tighter only) over them.
        Worked out once per (profile, brand, limits): every round start asks (the configuration never changes
        while it serves)."""
        try:
            key = (profile, brand, tuple(sorted(limits.items())) if limits else None)
            return self._rules[key]
        except KeyError:
            pass
        except TypeError:  # a limit that cannot be a key: worked out every time
            return self._work_out_rules(profile, brand, limits)
        rules = self._rules[key] = self._work_out_rules(profile, brand, limits)
        return rules

    @cached_property
    def _rules(self) -> dict[tuple[Any, ...], PlayRules]:
        return {}

    def _work_out_rules(self, profile: str | None, brand: str | None, limits: dict[str, Any] | None) -> PlayRules:
        base = self.brand(brand).play
        if profile is not None and profile != base.profile and profile in self.profiles:
            named = self.profiles[profile]
            combined = base.stricter(named)
            base = named if combined == named else combined
        # validated at launch; a limit a later configuration made looser than the brand's is ignored
        return base.tightened(limits, strict=False) if limits else base

    def session_currencies(self, brand: str | None = None) -> list[str]:
        """The currencies a session of ``brand`` may play in: its own and every currency with a ladder."""
        return self.brand(brand).session_currencies()
    metrics_token_sha256: str | None = None
    """SHA-256 of a token that may read ``/metrics`` (the operator's key may too)."""
    support_key_sha256: str | None = None
    """SHA-256 of the default brand's support key (read-only: rounds, round pages, reports)."""
    monitor: MonitorSettings = field(default_factory=MonitorSettings)

    @property
    def demo(self) -> bool:
        return self.mode == "demo"

    def check_api_key(self, key: str | None) -> bool:
        """Whether ``key`` is the operator's API key (the default brand's; constant-time comparison)."""
        return self.default_brand.check_api_key(key)

    def check_metrics_token(self, token: str | None) -> bool:
        """Whether ``token`` may read ``/metrics``: the metrics token or the operator's key."""
        import hmac

        if token and self.metrics_token_sha256 and hmac.compare_digest(
                hashlib.sha256(token.encode()).hexdigest(), self.metrics_token_sha256.lower()):
            return True
        return self.check_api_key(token)

    @property
    def monitoring_open(self) -> bool:
        """Whether ``/metrics`` and the operator page's figures need no key: a demo server with no operator key
        and no metrics token configured (play money on the operator's own machine)."""
        return self.demo and not self.api_key_sha256 and not self.metrics_token_sha256


_SERVER_KEYS = {"mode", "currency", "demo_balance", "round_expiry_days", "session_ttl_minutes",
                "expiry_check_seconds", "database", "api_key_sha256"}
_SERVER_KEYS |= {"idempotency_retention_days", "max_balance", "db_pool_size", "db_max_overflow",
                 "db_pool_timeout_seconds", "request_timeout_seconds"}
_SERVER_KEYS |= {"housekeeping_seconds", "round_start_quantum_ms", "max_connections", "session_requests_per_second",
                 "ip_requests_per_second", "provably_fair", "metrics_token_sha256", "api_docs", "trusted_proxies",
                 "database_metrics", "support_key_sha256"}


_MONITOR_KEYS = {"since", "confidence", "min_rounds", "check_seconds", "figures"}


def parse_config(data: dict[str, Any], where: str = "config") -> ServerConfig:
    """Validate a parsed TOML configuration (builds are loaded to check they exist)."""
    unknown = sorted(set(data) - {"server", "games", "responsible_play", "profiles", "currencies", "operator",
                                  "monitor", "brands"})
    if unknown:
        raise ConfigError(f"{where}: unknown section(s) {unknown}; expected [server], [responsible_play], "
                          "[games.<id>], [profiles.<name>], [currencies], [operator], [brands.<id>] and [monitor]")
    server = data.get("server", {})
    if not isinstance(server, dict):
        raise ConfigError(f"{where}: [server] must be a table")
    bad = sorted(set(server) - _SERVER_KEYS)
    if bad:
        raise ConfigError(f"{where} [server]: unknown key(s) {bad}; valid: {sorted(_SERVER_KEYS)}")
    mode = server.get("mode", "operator")
    if mode not in ("demo", "operator"):
        raise ConfigError(f"{where} [server]: mode must be 'demo' or 'operator', got {mode!r}")
    currency = server.get("currency", "EUR")
    if not isinstance(currency, str) or not currency.isalpha() or len(currency) != 3:
        raise ConfigError(f"{where} [server]: currency must be a 3-letter code, got {currency!r}")
    demo_balance = server.get("demo_balance", 100_000)
    if isinstance(demo_balance, bool) or not isinstance(demo_balance, int) or not 0 <= demo_balance <= MAX_BET:
        raise ConfigError(f"{where} [server]: demo_balance must be an integer in [0, {MAX_BET}] minor units")
    api_key = server.get("api_key_sha256")
    for name in ("api_key_sha256", "metrics_token_sha256", "support_key_sha256"):
        value = server.get(name)
        if value is not None and (not isinstance(value, str) or len(value) != 64
                                  or any(c not in "0123456789abcdefABCDEF" for c in value)):
            raise ConfigError(f"{where} [server]: {name} must be 64 hex digits (SHA-256 of the key)")
    distinct_support_key(api_key, server.get("support_key_sha256"), f"{where} [server]")
    if mode == "operator" and api_key is None:
        raise ConfigError(f"{where} [server]: operator mode needs api_key_sha256 (no session could ever be opened)")
    provably_fair = server.get("provably_fair", True)
    if not isinstance(provably_fair, bool):
        raise ConfigError(f"{where} [server]: provably_fair must be true or false, got {provably_fair!r}")
    api_docs = server.get("api_docs", False)
    if not isinstance(api_docs, bool):
        raise ConfigError(f"{where} [server]: api_docs must be true or false, got {api_docs!r}")
    if api_docs and mode == "operator":
        raise ConfigError(f"{where} [server]: api_docs is for demo servers only: the /docs pages load scripts "
                          "from a third-party CDN, which an operator's server must not serve (/openapi.json "
                          "is always there)")
    database = server.get("database")
    if database is not None and not isinstance(database, str):
        raise ConfigError(f"{where} [server]: database must be a URL string")

    play = parse_play_rules(data.get("responsible_play", {}), where)
    currencies = parse_currencies(data.get("currencies", {}), where)
    if currency.upper() not in currencies:
        raise ConfigError(f"{where} [server]: currency {currency!r} has no known number of decimals; "
                          "add it under [currencies], e.g. XTS = 2")
    profiles = parse_profiles(data.get("profiles", {}), where)
    operator = parse_operator(data.get("operator", {}), where)

    games_raw = data.get("games", {})
    if not isinstance(games_raw, dict):
        raise ConfigError(f"{where}: [games] must hold [games.<id>] tables")
    games = parse_games(games_raw, play, currencies, where)
    if mode == "demo" or not games_raw:
        # a demo server, or a file that lists no game, offers every registered game: those the file does not
        # list at their default build and ladder (Game.default_bet_ladder), so a new game needs no hand-kept section
        for game_id in GAME_CLASSES:
            if game_id not in games:
                game = get_game(game_id)
                build = game.default_build()
                ladder = tuple(b for b in game.default_bet_ladder(game.load_build(build))
                               if b <= min(MAX_BET, play.max_bet or MAX_BET))
                if ladder:
                    games[game_id] = GameConfig(game_id, build, ladder)
    brands = parse_brands(data.get("brands", {}), operator, games, currencies, where)

    extra = _storage_settings(server, f"{where} [server]")
    return ServerConfig(
        **extra,
        mode=mode, currency=currency.upper(), demo_balance=demo_balance,
        round_expiry_days=number(server, "round_expiry_days", 90, f"{where} [server]"),
        session_ttl_minutes=number(server, "session_ttl_minutes", 720, f"{where} [server]"),
        expiry_check_seconds=number(server, "expiry_check_seconds", 3600, f"{where} [server]", positive=False),
        database=database, api_key_sha256=api_key, games=games, play=play, provably_fair=provably_fair, api_docs=api_docs,
        operator=operator, currencies=currencies, profiles=profiles, brands=brands,
        metrics_token_sha256=server.get("metrics_token_sha256"), support_key_sha256=server.get("support_key_sha256"),
        monitor=parse_monitor(data.get("monitor", {}), where),
    )


def parse_monitor(raw: Any, where: str) -> MonitorSettings:
    """Validate the ``[monitor]`` section (absent: the defaults)."""
    where = f"{where} [monitor]"
    section_keys(raw, _MONITOR_KEYS, where)
    since = raw.get("since")
    if isinstance(since, str):
        try:
            since = datetime.fromisoformat(since)
        except ValueError as exc:
            raise ConfigError(f"{where}: since must be a date and time (2026-12-01T00:00:00Z), got {since!r}") from exc
    if since is not None and (not isinstance(since, datetime) or since.tzinfo is None):
        raise ConfigError(f"{where}: since must be a date and time with its offset (2026-12-01T00:00:00Z), "
                          f"got {since!r}")
    confidence = raw.get("confidence", MonitorSettings.confidence)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.5 <= confidence < 1:
        raise ConfigError(f"{where}: confidence must be a number in [0.5, 1), e.g. 0.999, got {confidence!r}")
    check = float(number(raw, "check_seconds", MonitorSettings.check_seconds, where, positive=False))
    if not check <= 86400:
        raise ConfigError(f"{where}: 'check_seconds' must be at most 86400, got {check}")
    figures = raw.get("figures")
    if figures is not None:
        if not isinstance(figures, str) or not Path(figures).is_file():
            raise ConfigError(f"{where}: figures must name a readable file, got {figures!r}")
        try:
            load_figures(Path(figures))
        except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError) as exc:
            raise ConfigError(f"{where}: figures file {figures}: {exc}") from exc
        figures = Path(figures)
    return MonitorSettings(since=since, confidence=float(confidence), check_seconds=check, figures=figures,
                           min_rounds=integer(raw, "min_rounds", MonitorSettings.min_rounds, 1, 10**12, where))


def _storage_settings(server: dict[str, Any], where: str) -> dict[str, Any]:
    """The idempotency retention, the balance cap and the database pool of ``[server]``."""
    return {
        "idempotency_retention_days": number(server, "idempotency_retention_days", 7, where),
        "max_balance": integer(server, "max_balance", MAX_BALANCE, 1, 2**62, where),
        "db_pool_size": integer(server, "db_pool_size", 20, 1, 1000, where),
        "db_max_overflow": integer(server, "db_max_overflow", 10, 0, 1000, where),
        "db_pool_timeout_seconds": number(server, "db_pool_timeout_seconds", 10, where),
        "request_timeout_seconds": number(server, "request_timeout_seconds", 10, where),
        **_fair_share_settings(server, where),
    }


def _fair_share_settings(server: dict[str, Any], where: str) -> dict[str, Any]:
    """The housekeeping interval, the start answers' quantum, the connection limit and the rate limits."""
    values = {
        "housekeeping_seconds": number(server, "housekeeping_seconds", 3600, where),
        "round_start_quantum_ms": number(server, "round_start_quantum_ms", 50, where, positive=False),
        "max_connections": integer(server, "max_connections", 1000, 16, 1_000_000, where),
        "session_requests_per_second": number(server, "session_requests_per_second", 1000, where, positive=False),
        "ip_requests_per_second": number(server, "ip_requests_per_second", 5000, where, positive=False),
    }
    for key in ("housekeeping_seconds", "round_start_quantum_ms", "session_requests_per_second",
                "ip_requests_per_second"):
        if not values[key] <= 1e6:  # also refuses inf and nan
            raise ConfigError(f"{where}: '{key}' must be at most 1000000, got {values[key]}")
    proxies = server.get("trusted_proxies", [])
    if not isinstance(proxies, list) or not all(isinstance(p, str) for p in proxies):
        raise ConfigError(f"{where}: trusted_proxies must be a list of addresses or networks, e.g. "
                          f"[\"10.0.0.5\", \"10.1.0.0/16\"], got {proxies!r}")
    for proxy in proxies:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError as exc:
            raise ConfigError(f"{where}: trusted_proxies: {proxy!r} is not an IP address or network") from exc
    values["trusted_proxies"] = tuple(proxies)
    reporting = server.get("database_metrics", True)
    if not isinstance(reporting, bool):
        raise ConfigError(f"{where}: database_metrics must be true or false, got {reporting!r}")
    values["database_metrics"] = reporting
    return values


def load_config(path: str | Path | None) -> ServerConfig:
    """Load a configuration file (``None``: the packaged demo configuration)."""
    path = Path(path) if path is not None else DEMO_CONFIG
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc.strerror}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return parse_config(data, str(path))
