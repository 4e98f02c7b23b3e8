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

    [brands.acme]                  # more brands (docs/OPERATORS.md): api_key_sha256, currency, and sub-tables
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
import itertools
import re
import tomllib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from reelforge.game.contract import BuildError
from reelforge.games.registry import GAME_CLASSES, get_game
from reelforge.server.monitor import MonitorSettings, load_figures

DEMO_CONFIG = Path(__file__).resolve().parent / "demo.toml"
DEFAULT_DATABASE = "sqlite:///reelforge.db"
DEMO_DATABASE = "sqlite:///reelforge-demo.db"
"""``serve --demo``'s database (``make run``): play money never in the operator's default file."""
MAX_BET = 10**12
"""Upper bound on any bet in minor units (keeps every amount far inside int64)."""
MAX_BALANCE = 10**15
"""Default cap on a player's balance in minor units (``max_balance``): a deposit beyond it is refused."""


class ConfigError(ValueError):
    """The configuration is invalid; the message says what and where."""


@dataclass(frozen=True)
class GameConfig:
    """One offered game: its active build and bet ladder (total bets, minor units, ascending), and the
    ladders of other currencies."""

    game_id: str
    build: str
    bet_ladder: tuple[int, ...]
    ladders: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Bet ladders of currencies other than the server's (currency code -> ladder)."""

    def ladder(self, currency: str, default_currency: str) -> tuple[int, ...] | None:
        """The bet ladder in ``currency`` (None: the game is not offered in it)."""
        if currency == default_currency:
            return self.bet_ladder
        return self.ladders.get(currency)


CURRENCY_DECIMALS: dict[str, int] = {
    # ISO 4217 minor units of the currencies operators most often ask for; [currencies] adds others.
    "EUR": 2, "USD": 2, "GBP": 2, "CHF": 2, "SEK": 2, "NOK": 2, "DKK": 2, "PLN": 2, "CZK": 2, "HUF": 2,
    "CAD": 2, "AUD": 2, "NZD": 2, "BRL": 2, "MXN": 2, "INR": 2, "TRY": 2, "ZAR": 2, "CNY": 2, "RON": 2,
    "JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0, "VND": 0,
    "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3, "TND": 3, "LYD": 3, "IQD": 3,
}
"""Decimals of a currency's minor unit (JPY 0: a minor unit is one yen; BHD 3: one fils)."""


@dataclass(frozen=True)
class OperatorConfig:
    """The operator's integration (``[operator]``): its wallet mode, shared secret and launch settings."""

    wallet: str = "transfer"
    secret: str | None = None
    wallet_url: str | None = None
    wallet_timeout_seconds: float = 3.0
    start_limit_seconds: float = 5.0
    signed_answers: bool = False
    launch_url: str | None = None
    launch_token_seconds: float = 60.0
    signature_window_seconds: float = 300.0
    brand: str = "default"
    """The id of the brand this section is (players, rounds and wallet calls carry it)."""
    close_losing_rounds: bool = False
    """Seamless: a round that finishes without a win gets a zero-amount credit with ``round_closed: true``
    (off: its debit is its only call; an operator's wallet of protocol version 1 may refuse a zero credit)."""
    callback_url: str | None = None
    """Where the operator's backend takes the signed session-ended callbacks (None: none sent)."""
    allowed_url_hosts: tuple[str, ...] = ()
    """Hosts (and their subdomains) a launch's lobby, return, deposit and history URLs may name, by https or
    http; none: any host, by https only."""

    @property
    def seamless(self) -> bool:
        return self.wallet == "seamless"


@dataclass(frozen=True)
class BrandConfig:
    """One operator brand a server serves: its wallet and secret (``operator``), its operator key, its
    responsible-play rules and its games' bet ladders (the server's builds; the ladders its own)."""

    id: str
    operator: OperatorConfig
    play: PlayRules
    currency: str
    games: dict[str, GameConfig]
    api_key_sha256: str | None = None

    def ladder(self, game_id: str, currency: str) -> tuple[int, ...] | None:
        """The brand's bet ladder of ``game_id`` in ``currency`` (None: not offered to its players)."""
        game = self.games.get(game_id)
        return None if game is None else game.ladder(currency, self.currency)

    def session_currencies(self) -> list[str]:
        """The currencies the brand's sessions may play in: its own and every currency with a ladder."""
        found = {self.currency}
        for game in self.games.values():
            found |= set(game.ladders)
        return sorted(found)

    def check_api_key(self, key: str | None) -> bool:
        """Whether ``key`` is this brand's operator API key (constant-time comparison)."""
        import hmac

        if not key or not self.api_key_sha256:
            return False
        return hmac.compare_digest(hashlib.sha256(key.encode()).hexdigest(), self.api_key_sha256.lower())


@dataclass(frozen=True)
class PlayRules:
    """Responsible-play and jurisdiction rules the operator sets (``[responsible_play]``): a named
    profile (:data:`PROFILES`) with per-key overrides."""

    profile: str = "default"
    """The jurisdiction profile these rules start from."""
    reality_check_minutes: float = 0.0
    """Minutes between reality checks; 0: off. The server refuses a round start once a check is due until
    the player acknowledges it (``POST /api/v1/reality-check``)."""
    session_limit_minutes: float = 0.0
    """The server refuses a round start this long after the session opened; 0: off."""
    turbo: bool = True
    """Whether the client offers Turbo (shortened animations)."""
    min_round_seconds: float = 0.0
    """The server refuses a new round sooner than this after the player's previous round started."""
    autoplay: bool = False
    """Whether the client offers autoplay."""
    autoplay_max_rounds: int = 100
    """The most rounds one autoplay may run (the client keeps to it)."""
    max_bet: int | None = None
    """The highest total bet (minor units); every bet ladder is capped to it."""
    max_stake: int | None = None
    """The most that leaves the balance for one round (minor units): the stake, or a feature buy's price.
    None: ``max_bet``."""
    loss_limit: int | None = None
    """The most a player may lose (staked minus won, minor units) in one play session; None: no limit."""
    feature_buy: bool = True
    """Whether the feature buy is offered (a jurisdiction that forbids it: false; a buy is then refused with 403
    ``feature_buy_not_allowed`` and the client shows no buy button)."""
    session_break_minutes: float = 30.0
    """How long a player must be away (no session opened, or the play session ended that long ago) before a
    new play session starts with fresh clocks: a reload or a new launch sooner continues the current one."""
    overrides: tuple[str, ...] = ()
    """The keys the configuration sets over its ``profile``'s rules (startup logs them; ``/settings`` shows them)."""

    @property
    def stake_limit(self) -> int | None:
        """What may leave the balance for one round (``max_stake``, else ``max_bet``; None: no limit)."""
        return self.max_stake if self.max_stake is not None else self.max_bet

    def public(self) -> dict[str, Any]:
        """What the client shows and keeps to (``GET /api/v1/settings``)."""
        body: dict[str, Any] = {
            "profile": self.profile, "reality_check_minutes": self.reality_check_minutes,
            "session_limit_minutes": self.session_limit_minutes, "turbo": self.turbo,
            "min_round_seconds": self.min_round_seconds, "autoplay": self.autoplay,
            "autoplay_max_rounds": self.autoplay_max_rounds, "max_bet": self.max_bet, "max_stake": self.stake_limit,
            "feature_buy": self.feature_buy}
        if self.loss_limit is not None:
            body["loss_limit"] = self.loss_limit
        if self.overrides:
            body["profile_overrides"] = list(self.overrides)
        return body

    def stricter(self, other: PlayRules, profile: str | None = None) -> PlayRules:
        """The rules holding both ``self`` and ``other``: for every key the stricter value (a limit that is
        off counts as the loosest); named ``profile`` (default: ``other``'s)."""
        return PlayRules(
            profile=profile or other.profile,
            reality_check_minutes=_tightest(self.reality_check_minutes or None, other.reality_check_minutes or None)
            or 0.0,
            session_limit_minutes=_tightest(self.session_limit_minutes or None, other.session_limit_minutes or None)
            or 0.0,
            turbo=self.turbo and other.turbo, autoplay=self.autoplay and other.autoplay,
            feature_buy=self.feature_buy and other.feature_buy,
            min_round_seconds=max(self.min_round_seconds, other.min_round_seconds),
            autoplay_max_rounds=min(self.autoplay_max_rounds, other.autoplay_max_rounds),
            max_bet=_tightest(self.max_bet, other.max_bet),
            # both unset: the stake limit follows the (tighter) max_bet
            max_stake=None if self.max_stake is None and other.max_stake is None else
            _tightest(self.stake_limit, other.stake_limit),
            loss_limit=_tightest(self.loss_limit, other.loss_limit),
            session_break_minutes=max(self.session_break_minutes, other.session_break_minutes),
            overrides=other.overrides)

    def tightened(self, limits: dict[str, Any], strict: bool = True) -> PlayRules:
        """These rules with an operator's launch ``limits`` (:data:`LAUNCH_LIMITS`, None: not set) over them.
        A limit that would loosen them raises :class:`ValueError` naming it (``strict``) or is ignored."""
        values = {}
        for key in LAUNCH_LIMITS:
            wanted = limits.get(key)
            if wanted is None:
                continue
            have = self.stake_limit if key == "max_stake" else getattr(self, key)
            if have and wanted > have:  # 0 or None: off, so anything tightens it
                if not strict:
                    continue
                raise ValueError(f"{key} {wanted:g} is looser than the {have:g} this brand's rules set; "
                                 "a launch can only tighten the limits")
            values[key] = wanted
        if not values:
            return self
        merged = {**self.__dict__, **values}
        if "max_stake" not in values and self.max_stake is None:
            merged["max_stake"] = None  # still follows max_bet
        return PlayRules(**merged)


LAUNCH_LIMITS = ("max_bet", "max_stake", "session_limit_minutes", "reality_check_minutes", "loss_limit")
"""The limits an operator may pass per launch (each only ever tightening the brand's)."""


def _tightest(a: Any, b: Any) -> Any:
    """The smaller of two limits where None means no limit."""
    if a is None:
        return b
    return a if b is None else min(a, b)


PROFILES: dict[str, dict[str, Any]] = {
    "default": {},
    # UK-style (UKGC remote games design rules): no Turbo, no autoplay, at least 2.5 s a round, a reality
    # check every hour.
    "uk": {"turbo": False, "autoplay": False, "autoplay_max_rounds": 0, "min_round_seconds": 2.5,
           "reality_check_minutes": 60},
}
"""Named jurisdiction profiles of ``[responsible_play]``: each the keys it sets over :class:`PlayRules`'s
defaults (the ``default`` profile is the permissive one). A configuration's keys override its profile's."""


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

    @property
    def default_brand(self) -> BrandConfig:
        """The brand of the top-level sections (``[operator] brand``, default ``default``)."""
        return BrandConfig(self.operator.brand, self.operator, self.play, self.currency, self.games,
                           self.api_key_sha256)

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
        launch (where they differ the stricter holds) and its launch ``limits`` (tighter only) over them."""
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
                 "database_metrics"}
_GAME_KEYS = {"build", "bet_ladder", "bet_ladders"}
_MONITOR_KEYS = {"since", "confidence", "min_rounds", "check_seconds", "figures"}
_PLAY_KEYS = {"profile", "reality_check_minutes", "session_limit_minutes", "turbo", "min_round_seconds",
              "autoplay", "autoplay_max_rounds", "max_bet", "max_stake", "loss_limit", "session_break_minutes",
              "feature_buy"}


def _number(section: dict[str, Any], key: str, default: float, where: str, positive: bool = True) -> float:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}: '{key}' must be a number, got {value!r}")
    if value < 0 or (positive and value == 0):
        raise ConfigError(f"{where}: '{key}' must be {'positive' if positive else 'non-negative'}, got {value}")
    return value


def bet_ladder(raw: Any, where: str) -> tuple[int, ...]:
    """Parse a bet ladder: a list of totals, or ``{factors = [[...], ...]}`` (all products)."""
    if isinstance(raw, dict):
        if set(raw) != {"factors"}:
            raise ConfigError(f"{where}: a bet_ladder table holds exactly one key, 'factors'")
        factors = raw["factors"]
        if not isinstance(factors, list) or not factors or not all(isinstance(f, list) and f for f in factors):
            raise ConfigError(f"{where}: bet_ladder.factors must be a list of non-empty lists of integers")
        for f in factors:
            _check_ints(f, where)
        values = []
        for combo in itertools.product(*factors):
            total = 1
            for v in combo:
                total *= v
            values.append(total)
    elif isinstance(raw, list) and raw:
        _check_ints(raw, where)
        values = list(raw)
    else:
        raise ConfigError(f"{where}: 'bet_ladder' must be a non-empty list of totals or {{factors = [...]}}")
    ladder = tuple(sorted(set(values)))
    if ladder[-1] > MAX_BET:
        raise ConfigError(f"{where}: bet {ladder[-1]} exceeds the maximum {MAX_BET}")
    return ladder


def _check_ints(values: list[Any], where: str) -> None:
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ConfigError(f"{where}: bet ladder values must be positive integers (minor units), got {v!r}")


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
    for name in ("api_key_sha256", "metrics_token_sha256"):
        value = server.get(name)
        if value is not None and (not isinstance(value, str) or len(value) != 64
                                  or any(c not in "0123456789abcdefABCDEF" for c in value)):
            raise ConfigError(f"{where} [server]: {name} must be 64 hex digits (SHA-256 of the key)")
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
        round_expiry_days=_number(server, "round_expiry_days", 90, f"{where} [server]"),
        session_ttl_minutes=_number(server, "session_ttl_minutes", 720, f"{where} [server]"),
        expiry_check_seconds=_number(server, "expiry_check_seconds", 3600, f"{where} [server]", positive=False),
        database=database, api_key_sha256=api_key, games=games, play=play, provably_fair=provably_fair, api_docs=api_docs,
        operator=operator, currencies=currencies, profiles=profiles, brands=brands,
        metrics_token_sha256=server.get("metrics_token_sha256"),
        monitor=parse_monitor(data.get("monitor", {}), where),
    )


def parse_games(raw: dict[str, Any], play: PlayRules, currencies: dict[str, int], where: str,
                builds: dict[str, str] | None = None) -> dict[str, GameConfig]:
    """Validate ``[games.<id>]`` tables: each game's build and ladders, capped by ``play``'s bet and stake
    limits; ``builds``: the only build each game may name (a brand's games are the server's builds)."""
    games: dict[str, GameConfig] = {}
    for game_id, section in raw.items():
        gwhere = f"{where} [games.{game_id}]"
        if game_id not in GAME_CLASSES:
            raise ConfigError(f"{gwhere}: unknown game; valid games: {', '.join(GAME_CLASSES)}")
        if not isinstance(section, dict):
            raise ConfigError(f"{gwhere}: must be a table")
        bad = sorted(set(section) - _GAME_KEYS)
        if bad:
            raise ConfigError(f"{gwhere}: unknown key(s) {bad}; valid: {sorted(_GAME_KEYS)}")
        game = get_game(game_id)
        if builds is not None:
            if game_id not in builds:
                raise ConfigError(f"{gwhere}: the server does not offer this game; add it under [games.{game_id}]")
            if str(section.get("build", builds[game_id])) != builds[game_id]:
                raise ConfigError(f"{gwhere}: a brand plays the server's build {builds[game_id]!r} of each game")
        build = str(section.get("build", game.default_build() if builds is None else builds[game_id]))
        try:
            loaded = game.load_build(build)
        except BuildError as exc:
            raise ConfigError(f"{gwhere}: {exc}") from exc
        if "bet_ladder" not in section:
            raise ConfigError(f"{gwhere}: missing 'bet_ladder'")
        ladder = _capped(bet_ladder(section["bet_ladder"], gwhere), game, loaded, play, gwhere)
        ladders = _currency_ladders(section.get("bet_ladders", {}), currencies, game.win_unit(loaded), play, gwhere)
        games[game_id] = GameConfig(game_id, build, ladder, ladders)
    return games


def _capped(ladder: tuple[int, ...], game: Any, loaded: Any, play: PlayRules, where: str) -> tuple[int, ...]:
    """``ladder`` without the bets above ``play``'s max_bet or whose paid round costs more than its stake limit."""
    if play.max_bet is not None:
        ladder = tuple(b for b in ladder if b <= play.max_bet)
        if not ladder:
            raise ConfigError(f"{where}: every bet of the ladder is above [responsible_play] max_bet {play.max_bet}")
    if play.stake_limit is not None:  # a paid round's stake too is what leaves the balance
        ladder = tuple(b for b in ladder if b * game.stake_x(loaded, "paid") <= play.stake_limit)
        if not ladder:
            raise ConfigError(f"{where}: every paid round of the ladder costs more than [responsible_play] "
                              f"max_stake {play.stake_limit}")
    return ladder


_BRAND_KEYS = {"currency", "api_key_sha256", "operator", "responsible_play", "games"}
BRAND_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
"""A brand id: 1-32 lower-case letters, digits, - and _ (stored with every player, round and wallet call)."""


def parse_brands(raw: Any, default: OperatorConfig, games: dict[str, GameConfig], currencies: dict[str, int],
                 where: str) -> dict[str, BrandConfig]:
    """Validate ``[brands.<id>]``: each brand's ``[brands.<id>.operator]`` (keys as ``[operator]``, its own
    wallet and secret), ``api_key_sha256``, ``currency``, ``[brands.<id>.responsible_play]`` and
    ``[brands.<id>.games.<game>]`` (ladders of the server's builds; absent: the server's ladders within the
    brand's limits). Every brand of one server uses the same wallet mode."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} [brands]: must be a table of [brands.<id>] tables")
    out: dict[str, BrandConfig] = {}
    for brand_id, section in raw.items():
        bwhere = f"{where} [brands.{brand_id}]"
        if not isinstance(brand_id, str) or not BRAND_ID.fullmatch(brand_id):
            raise ConfigError(f"{where} [brands]: a brand id is 1-32 lower-case letters, digits, - and _, "
                              f"got {brand_id!r}")
        if brand_id == default.brand:
            raise ConfigError(f"{bwhere}: {brand_id!r} is already the brand of the top-level [operator] "
                              "(its 'brand' key)")
        if not isinstance(section, dict):
            raise ConfigError(f"{bwhere}: must be a table")
        bad = sorted(set(section) - _BRAND_KEYS)
        if bad:
            raise ConfigError(f"{bwhere}: unknown key(s) {bad}; valid: {sorted(_BRAND_KEYS)}")
        operator = parse_operator({**section.get("operator", {}), "brand": brand_id}, bwhere)
        if operator.wallet != default.wallet:
            raise ConfigError(f"{bwhere}: every brand of one server uses the same wallet mode "
                              f"({default.wallet!r}); run a server of its own for a {operator.wallet!r} brand")
        key = section.get("api_key_sha256")
        if key is not None and (not isinstance(key, str) or len(key) != 64
                                or any(c not in "0123456789abcdefABCDEF" for c in key)):
            raise ConfigError(f"{bwhere}: api_key_sha256 must be 64 hex digits (SHA-256 of the key)")
        currency = section.get("currency", "EUR")
        if not isinstance(currency, str) or currency.upper() not in currencies:
            raise ConfigError(f"{bwhere}: currency must be a known 3-letter code, got {currency!r}")
        play = parse_play_rules(section.get("responsible_play", {}), bwhere)
        own = section.get("games")
        if own is None:
            own_games = {gid: _brand_default_game(g, play, bwhere) for gid, g in games.items()}
            own_games = {gid: g for gid, g in own_games.items() if g is not None}
        elif not isinstance(own, dict) or not own:
            raise ConfigError(f"{bwhere}: [brands.{brand_id}.games] must hold [brands.{brand_id}.games.<id>] tables")
        else:
            own_games = parse_games(own, play, currencies, bwhere, builds={gid: g.build for gid, g in games.items()})
        out[brand_id] = BrandConfig(brand_id, operator, play, currency.upper(), own_games, key)
    return out


def _brand_default_game(game: GameConfig, play: PlayRules, where: str) -> GameConfig | None:
    """The server's ``game`` within a brand's bet and stake limits (None: no bet of it is within them)."""
    g = get_game(game.game_id)
    loaded = g.load_build(game.build)
    try:
        ladder = _capped(game.bet_ladder, g, loaded, play, where)
    except ConfigError:
        return None
    ladders = {c: tuple(b for b in lad if play.max_bet is None or b <= play.max_bet) for c, lad in game.ladders.items()}
    return GameConfig(game.game_id, game.build, ladder, {c: lad for c, lad in ladders.items() if lad})


def parse_currencies(raw: Any, where: str) -> dict[str, int]:
    """The built-in currency table with ``[currencies]`` (``CODE = decimals``) over it."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} [currencies]: must be a table of CODE = decimals")
    table = dict(CURRENCY_DECIMALS)
    for code, decimals in raw.items():
        if not (isinstance(code, str) and code.isalpha() and code.isupper() and len(code) == 3):
            raise ConfigError(f"{where} [currencies]: {code!r} is not a 3-letter upper-case currency code")
        if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 4:
            raise ConfigError(f"{where} [currencies]: {code} decimals must be an integer in [0, 4], got {decimals!r}")
        table[code] = decimals
    return table


def _currency_ladders(raw: Any, currencies: dict[str, int], win_unit: int, play: PlayRules,
                      where: str) -> dict[str, tuple[int, ...]]:
    """Parse ``bet_ladders = {CODE = ladder}``. A bet that is not a multiple of the build's win unit would
    round some win down to a whole minor unit of that currency: refused here, at load."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: 'bet_ladders' must be a table of CODE = ladder")
    out = {}
    for code, ladder_raw in raw.items():
        if code not in currencies:
            raise ConfigError(f"{where} bet_ladders: unknown currency {code!r} (add it under [currencies])")
        ladder = bet_ladder(ladder_raw, f"{where} bet_ladders.{code}")
        rounding = [b for b in ladder if b % win_unit]
        if rounding:
            raise ConfigError(f"{where} bet_ladders.{code}: bet(s) {rounding} are not multiples of the build's win "
                              f"unit {win_unit} minor units of {code} ({currencies[code]} decimals): some wins would "
                              "round to a whole minor unit; use multiples of it")
        if play.max_bet is not None:
            ladder = tuple(b for b in ladder if b <= play.max_bet)
        if not ladder:
            raise ConfigError(f"{where} bet_ladders.{code}: every bet is above [responsible_play] max_bet")
        out[code] = ladder
    return out


PROFILE_TEMPLATE: dict[str, Any] = {
    # Every key a profile may set, at the permissive default's values: copy it under [profiles.<name>]
    # and change what the market's rules require (docs/JURISDICTIONS.md names a source per rule).
    "reality_check_minutes": 0, "session_limit_minutes": 0, "turbo": True, "min_round_seconds": 0,
    "autoplay": False, "autoplay_max_rounds": 100, "feature_buy": True,
}


def parse_profiles(raw: Any, where: str) -> dict[str, PlayRules]:
    """Every profile a session may name: the shipped ones (:data:`PROFILES`, and ``template``) and
    ``[profiles.<name>]`` (keys as ``[responsible_play]``; ``profile`` names the one it starts from)."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} [profiles]: must be a table of [profiles.<name>] tables")
    out = {name: parse_play_rules({"profile": name}, where) for name in PROFILES}
    out["template"] = parse_play_rules(dict(PROFILE_TEMPLATE), where)
    for name, section in raw.items():
        if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum() or len(name) > 32:
            raise ConfigError(f"{where} [profiles]: a profile name is 1-32 letters, digits, - and _, got {name!r}")
        if not isinstance(section, dict):
            raise ConfigError(f"{where} [profiles.{name}]: must be a table")
        rules = parse_play_rules(section, f"{where} [profiles.{name}]")
        out[name] = PlayRules(**{**rules.__dict__, "profile": name})
    return out


_OPERATOR_KEYS = {"wallet", "secret", "secret_file", "wallet_url", "wallet_timeout_seconds", "start_limit_seconds",
                  "signed_answers", "launch_url", "launch_token_seconds", "signature_window_seconds", "brand",
                  "debit_resolve_seconds", "close_losing_rounds", "callback_url", "allowed_url_hosts"}
"""``debit_resolve_seconds``: the older key, still read: without ``start_limit_seconds`` the limit is
``wallet_timeout_seconds + debit_resolve_seconds``."""


def parse_operator(raw: Any, where: str) -> OperatorConfig:
    """Validate ``[operator]``: the wallet mode, the shared secret (``secret``, or ``secret_file``: a file
    holding it, so the configuration itself holds no secret), the seamless wallet's address and time limits,
    the launch settings."""
    where = f"{where} [operator]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: must be a table")
    bad = sorted(set(raw) - _OPERATOR_KEYS)
    if bad:
        raise ConfigError(f"{where}: unknown key(s) {bad}; valid: {sorted(_OPERATOR_KEYS)}")
    wallet = raw.get("wallet", "transfer")
    if wallet not in ("transfer", "seamless"):
        raise ConfigError(f"{where}: wallet must be 'transfer' or 'seamless', got {wallet!r}")
    secret = raw.get("secret")
    if "secret_file" in raw:
        name = raw["secret_file"]
        try:
            secret = Path(str(name)).read_text().strip()
        except OSError as exc:
            raise ConfigError(f"{where}: cannot read secret_file {name!r}: {exc.strerror}") from exc
    if secret is not None and (not isinstance(secret, str) or len(secret) < 16):
        raise ConfigError(f"{where}: the secret must be a string of at least 16 characters")
    url = raw.get("wallet_url")
    if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
        raise ConfigError(f"{where}: wallet_url must be an http(s) URL, got {url!r}")
    if wallet == "seamless" and (url is None or secret is None):
        raise ConfigError(f"{where}: a seamless wallet needs wallet_url and a secret (secret or secret_file)")
    launch_url = raw.get("launch_url")
    if launch_url is not None and (not isinstance(launch_url, str) or
                                   not launch_url.startswith(("http://", "https://"))):
        raise ConfigError(f"{where}: launch_url must be an http(s) URL, got {launch_url!r}")
    times = {key: _number(raw, key, getattr(OperatorConfig, key), where)
             for key in ("wallet_timeout_seconds", "start_limit_seconds", "launch_token_seconds",
                         "signature_window_seconds")}
    if "debit_resolve_seconds" in raw and "start_limit_seconds" not in raw:  # a configuration of before 0008
        times["start_limit_seconds"] = times["wallet_timeout_seconds"] + _number(raw, "debit_resolve_seconds", 0,
                                                                                 where, positive=False)
    for key, value in times.items():
        if not value <= 86400:
            raise ConfigError(f"{where}: '{key}' must be at most 86400, got {value}")
    if times["start_limit_seconds"] < times["wallet_timeout_seconds"]:
        raise ConfigError(f"{where}: start_limit_seconds ({times['start_limit_seconds']:g}) must be at least "
                          f"wallet_timeout_seconds ({times['wallet_timeout_seconds']:g})")
    signed_answers, close_losing_rounds = (raw.get(key, False) for key in ("signed_answers", "close_losing_rounds"))
    for key, value in (("signed_answers", signed_answers), ("close_losing_rounds", close_losing_rounds)):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")
    callback_url = raw.get("callback_url")
    if callback_url is not None and (not isinstance(callback_url, str) or
                                     not callback_url.startswith(("http://", "https://"))):
        raise ConfigError(f"{where}: callback_url must be an http(s) URL, got {callback_url!r}")
    if callback_url is not None and secret is None:
        raise ConfigError(f"{where}: a callback_url needs a secret (secret or secret_file) to sign the callbacks")
    hosts = raw.get("allowed_url_hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) and HOST_NAME.fullmatch(h) for h in hosts):
        raise ConfigError(f"{where}: allowed_url_hosts must be a list of host names such as "
                          f"'casino.example', got {hosts!r}")
    brand = raw.get("brand", "default")
    if not isinstance(brand, str) or not BRAND_ID.fullmatch(brand):
        raise ConfigError(f"{where}: brand must be 1-32 lower-case letters, digits, - and _, got {brand!r}")
    return OperatorConfig(wallet=wallet, secret=secret, wallet_url=url, launch_url=launch_url,
                          signed_answers=signed_answers, brand=brand, close_losing_rounds=close_losing_rounds,
                          callback_url=callback_url, allowed_url_hosts=tuple(h.lower() for h in hosts), **times)


HOST_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}"
                       r"[A-Za-z0-9])?)*$")
"""A DNS host name (letters, digits and hyphens, dot-separated labels)."""


def parse_monitor(raw: Any, where: str) -> MonitorSettings:
    """Validate the ``[monitor]`` section (absent: the defaults)."""
    where = f"{where} [monitor]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: must be a table")
    bad = sorted(set(raw) - _MONITOR_KEYS)
    if bad:
        raise ConfigError(f"{where}: unknown key(s) {bad}; valid: {sorted(_MONITOR_KEYS)}")
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
    check = float(_number(raw, "check_seconds", MonitorSettings.check_seconds, where, positive=False))
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
                           min_rounds=_integer(raw, "min_rounds", MonitorSettings.min_rounds, 1, 10**12, where))


def _integer(section: dict[str, Any], key: str, default: int, low: int, high: int, where: str) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{where}: '{key}' must be an integer in [{low}, {high}], got {value!r}")
    return value


def _storage_settings(server: dict[str, Any], where: str) -> dict[str, Any]:
    """The idempotency retention, the balance cap and the database pool of ``[server]``."""
    return {
        "idempotency_retention_days": _number(server, "idempotency_retention_days", 7, where),
        "max_balance": _integer(server, "max_balance", MAX_BALANCE, 1, 2**62, where),
        "db_pool_size": _integer(server, "db_pool_size", 20, 1, 1000, where),
        "db_max_overflow": _integer(server, "db_max_overflow", 10, 0, 1000, where),
        "db_pool_timeout_seconds": _number(server, "db_pool_timeout_seconds", 10, where),
        "request_timeout_seconds": _number(server, "request_timeout_seconds", 10, where),
        **_fair_share_settings(server, where),
    }


def _fair_share_settings(server: dict[str, Any], where: str) -> dict[str, Any]:
    """The housekeeping interval, the start answers' quantum, the connection limit and the rate limits."""
    values = {
        "housekeeping_seconds": _number(server, "housekeeping_seconds", 3600, where),
        "round_start_quantum_ms": _number(server, "round_start_quantum_ms", 50, where, positive=False),
        "max_connections": _integer(server, "max_connections", 1000, 16, 1_000_000, where),
        "session_requests_per_second": _number(server, "session_requests_per_second", 1000, where, positive=False),
        "ip_requests_per_second": _number(server, "ip_requests_per_second", 5000, where, positive=False),
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


def parse_play_rules(raw: Any, where: str) -> PlayRules:
    """Validate the ``[responsible_play]`` section (absent: the default profile): its ``profile``'s
    rules with the section's other keys over them (:attr:`PlayRules.overrides` names those that differ)."""
    where = f"{where} [responsible_play]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: must be a table")
    bad = sorted(set(raw) - _PLAY_KEYS)
    if bad:
        raise ConfigError(f"{where}: unknown key(s) {bad}; valid: {sorted(_PLAY_KEYS)}")
    profile = raw.get("profile", "default")
    if profile not in PROFILES:
        raise ConfigError(f"{where}: unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    merged = {**PROFILES[profile], **{k: v for k, v in raw.items() if k != "profile"}}
    values: dict[str, Any] = {"profile": profile}
    for key in ("turbo", "autoplay", "feature_buy"):
        value = merged.get(key, getattr(PlayRules, key))
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")
        values[key] = value
    for key, top in (("max_bet", MAX_BET), ("max_stake", 2**62), ("loss_limit", 2**62)):
        value = merged.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top):
            raise ConfigError(f"{where}: {key} must be an integer in [1, {top}] minor units, got {value!r}")
        values[key] = value
    values["autoplay_max_rounds"] = _integer(merged, "autoplay_max_rounds", PlayRules.autoplay_max_rounds, 0,
                                             100_000, where)
    limits = {"reality_check_minutes": 24 * 60, "session_limit_minutes": 7 * 24 * 60, "min_round_seconds": 3600,
              "session_break_minutes": 7 * 24 * 60}
    for key, top in limits.items():
        value = float(_number(merged, key, getattr(PlayRules, key), where, positive=False))
        if not value <= top:  # also refuses nan and inf
            raise ConfigError(f"{where}: '{key}' must be at most {top}, got {value}")
        values[key] = value
    # the keys set below the profile that change one of its rules (the same value set again changes nothing)
    shipped = PlayRules(**{"profile": profile, **PROFILES[profile]})
    values["overrides"] = tuple(sorted(k for k in raw if k != "profile" and values[k] != getattr(shipped, k)))
    return PlayRules(**values)


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
