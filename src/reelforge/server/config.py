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

Only the games listed under ``[games]`` are offered. The test-only draw source
cannot be set here (see :func:`reelforge.server.app.create_app`).
"""

from __future__ import annotations

import hashlib
import itertools
import tomllib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from reelforge.game import BuildError
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
    """One offered game: its active build and bet ladder (total bets, minor units, ascending)."""

    game_id: str
    build: str
    bet_ladder: tuple[int, ...]


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

    @property
    def stake_limit(self) -> int | None:
        """What may leave the balance for one round (``max_stake``, else ``max_bet``; None: no limit)."""
        return self.max_stake if self.max_stake is not None else self.max_bet

    def public(self) -> dict[str, Any]:
        """What the client shows and keeps to (``GET /api/v1/settings``)."""
        return {"profile": self.profile, "reality_check_minutes": self.reality_check_minutes,
                "session_limit_minutes": self.session_limit_minutes, "turbo": self.turbo,
                "min_round_seconds": self.min_round_seconds, "autoplay": self.autoplay,
                "autoplay_max_rounds": self.autoplay_max_rounds, "max_bet": self.max_bet,
                "max_stake": self.stake_limit}


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
    play: PlayRules = field(default_factory=PlayRules)
    provably_fair: bool = True
    """Rounds draw from the player's committed seed pair (docs/FAIRNESS.md); False: from the OS CSPRNG alone."""
    metrics_token_sha256: str | None = None
    """SHA-256 of a token that may read ``/metrics`` (the operator's key may too)."""
    monitor: MonitorSettings = field(default_factory=MonitorSettings)

    @property
    def demo(self) -> bool:
        return self.mode == "demo"

    def check_api_key(self, key: str | None) -> bool:
        """Whether ``key`` is the operator's API key (constant-time comparison)."""
        import hmac

        if not key or not self.api_key_sha256:
            return False
        return hmac.compare_digest(hashlib.sha256(key.encode()).hexdigest(), self.api_key_sha256.lower())

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
                 "ip_requests_per_second", "provably_fair", "metrics_token_sha256"}
_GAME_KEYS = {"build", "bet_ladder"}
_MONITOR_KEYS = {"since", "confidence", "min_rounds", "check_seconds", "figures"}
_PLAY_KEYS = {"profile", "reality_check_minutes", "session_limit_minutes", "turbo", "min_round_seconds",
              "autoplay", "autoplay_max_rounds", "max_bet", "max_stake"}


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
    unknown = sorted(set(data) - {"server", "games", "responsible_play", "monitor"})
    if unknown:
        raise ConfigError(f"{where}: unknown section(s) {unknown}; expected [server], [responsible_play], "
                          "[monitor] and [games.<id>]")
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
    database = server.get("database")
    if database is not None and not isinstance(database, str):
        raise ConfigError(f"{where} [server]: database must be a URL string")

    play = parse_play_rules(data.get("responsible_play", {}), where)

    games_raw = data.get("games", {})
    if not isinstance(games_raw, dict) or not games_raw:
        raise ConfigError(f"{where}: at least one [games.<id>] section is needed")
    games: dict[str, GameConfig] = {}
    for game_id, section in games_raw.items():
        gwhere = f"{where} [games.{game_id}]"
        if game_id not in GAME_CLASSES:
            raise ConfigError(f"{gwhere}: unknown game; valid games: {', '.join(GAME_CLASSES)}")
        if not isinstance(section, dict):
            raise ConfigError(f"{gwhere}: must be a table")
        bad = sorted(set(section) - _GAME_KEYS)
        if bad:
            raise ConfigError(f"{gwhere}: unknown key(s) {bad}; valid: {sorted(_GAME_KEYS)}")
        game = get_game(game_id)
        build = str(section.get("build", game.default_build()))
        try:
            loaded = game.load_build(build)
        except BuildError as exc:
            raise ConfigError(f"{gwhere}: {exc}") from exc
        if "bet_ladder" not in section:
            raise ConfigError(f"{gwhere}: missing 'bet_ladder'")
        ladder = bet_ladder(section["bet_ladder"], gwhere)
        if play.max_bet is not None:
            ladder = tuple(b for b in ladder if b <= play.max_bet)
            if not ladder:
                raise ConfigError(f"{gwhere}: every bet of the ladder is above [responsible_play] max_bet "
                                  f"{play.max_bet}")
        if play.stake_limit is not None:  # a paid round's stake too is what leaves the balance
            ladder = tuple(b for b in ladder if b * game.stake_x(loaded, "paid") <= play.stake_limit)
            if not ladder:
                raise ConfigError(f"{gwhere}: every paid round of the ladder costs more than [responsible_play] "
                                  f"max_stake {play.stake_limit}")
        games[game_id] = GameConfig(game_id, build, ladder)
    if mode == "demo":
        # a demo server offers every registered game: those the file does not list at their default
        # build and ladder (Game.default_bet_ladder), so a new game needs no hand-kept section
        for game_id in GAME_CLASSES:
            if game_id not in games:
                game = get_game(game_id)
                build = game.default_build()
                ladder = tuple(b for b in game.default_bet_ladder(game.load_build(build))
                               if b <= min(MAX_BET, play.max_bet or MAX_BET))
                if ladder:
                    games[game_id] = GameConfig(game_id, build, ladder)

    extra = _storage_settings(server, f"{where} [server]")
    return ServerConfig(
        **extra,
        mode=mode, currency=currency.upper(), demo_balance=demo_balance,
        round_expiry_days=_number(server, "round_expiry_days", 90, f"{where} [server]"),
        session_ttl_minutes=_number(server, "session_ttl_minutes", 720, f"{where} [server]"),
        expiry_check_seconds=_number(server, "expiry_check_seconds", 3600, f"{where} [server]", positive=False),
        database=database, api_key_sha256=api_key, games=games, play=play, provably_fair=provably_fair,
        metrics_token_sha256=server.get("metrics_token_sha256"),
        monitor=parse_monitor(data.get("monitor", {}), where),
    )


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
    return values


def parse_play_rules(raw: Any, where: str) -> PlayRules:
    """Validate the ``[responsible_play]`` section (absent: the default profile): its ``profile``'s
    rules with the section's other keys over them."""
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
    for key in ("turbo", "autoplay"):
        value = merged.get(key, getattr(PlayRules, key))
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")
        values[key] = value
    for key, top in (("max_bet", MAX_BET), ("max_stake", 2**62)):
        value = merged.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top):
            raise ConfigError(f"{where}: {key} must be an integer in [1, {top}] minor units, got {value!r}")
        values[key] = value
    values["autoplay_max_rounds"] = _integer(merged, "autoplay_max_rounds", PlayRules.autoplay_max_rounds, 0,
                                             100_000, where)
    limits = {"reality_check_minutes": 24 * 60, "session_limit_minutes": 7 * 24 * 60, "min_round_seconds": 3600}
    for key, top in limits.items():
        value = float(_number(merged, key, 0, where, positive=False))
        if not value <= top:  # also refuses nan and inf
            raise ConfigError(f"{where}: '{key}' must be at most {top}, got {value}")
        values[key] = value
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
