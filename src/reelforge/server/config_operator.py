"""The ``[operator]`` and ``[brands.<id>]`` sections of the operator configuration
(:mod:`reelforge.server.config`): the operator's wallet, secret and launch settings, and its brands."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reelforge.games.registry import get_game
from reelforge.server.config_games import GameConfig, capped_ladder, parse_games
from reelforge.server.config_play import PlayRules, parse_play_rules
from reelforge.server.config_values import ConfigError, number, section_keys


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
    support_key_sha256: str | None = None
    """SHA-256 of the brand's support key: read-only access to its rounds, round pages and reports."""

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
        return _key_matches(key, self.api_key_sha256)

    def check_support_key(self, key: str | None) -> bool:
        """Whether ``key`` is this brand's support key (read-only; constant-time comparison)."""
        return _key_matches(key, self.support_key_sha256)


def _key_matches(key: str | None, sha256: str | None) -> bool:
    """Whether ``key`` hashes to ``sha256`` (False when either is missing; constant-time comparison)."""
    import hmac

    if not key or not sha256:
        return False
    return hmac.compare_digest(hashlib.sha256(key.encode()).hexdigest(), sha256.lower())


_BRAND_KEYS = {"currency", "api_key_sha256", "support_key_sha256", "operator", "responsible_play", "games"}
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
        section_keys(section, _BRAND_KEYS, bwhere)
        operator = parse_operator({**section.get("operator", {}), "brand": brand_id}, bwhere)
        if operator.wallet != default.wallet:
            raise ConfigError(f"{bwhere}: every brand of one server uses the same wallet mode "
                              f"({default.wallet!r}); run a server of its own for a {operator.wallet!r} brand")
        key, support = section.get("api_key_sha256"), section.get("support_key_sha256")
        for name, value in (("api_key_sha256", key), ("support_key_sha256", support)):
            if value is not None and (not isinstance(value, str) or len(value) != 64
                                      or any(c not in "0123456789abcdefABCDEF" for c in value)):
                raise ConfigError(f"{bwhere}: {name} must be 64 hex digits (SHA-256 of the key)")
        distinct_support_key(key, support, bwhere)
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
        out[brand_id] = BrandConfig(brand_id, operator, play, currency.upper(), own_games, key, support)
    return out


def distinct_support_key(api_key: str | None, support_key: str | None, where: str) -> None:
    """Refuse a support key that is the operator key itself: the read-only role would hold every right."""
    if api_key and support_key and api_key.lower() == support_key.lower():
        raise ConfigError(f"{where}: support_key_sha256 is the operator's api_key_sha256; the support role needs "
                          "a key of its own (it may only read)")


def _brand_default_game(game: GameConfig, play: PlayRules, where: str) -> GameConfig | None:
    """The server's ``game`` within a brand's bet and stake limits (None: no bet of it is within them)."""
    g = get_game(game.game_id)
    loaded = g.load_build(game.build)
    try:
        ladder = capped_ladder(game.bet_ladder, g, loaded, play, where)
    except ConfigError:
        return None
    ladders = {c: tuple(b for b in lad if play.max_bet is None or b <= play.max_bet) for c, lad in game.ladders.items()}
    return GameConfig(game.game_id, game.build, ladder, {c: lad for c, lad in ladders.items() if lad})


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
    section_keys(raw, _OPERATOR_KEYS, where)
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
    times = {key: number(raw, key, getattr(OperatorConfig, key), where)
             for key in ("wallet_timeout_seconds", "start_limit_seconds", "launch_token_seconds",
                         "signature_window_seconds")}
    if "debit_resolve_seconds" in raw and "start_limit_seconds" not in raw:  # a configuration of before 0008
        times["start_limit_seconds"] = times["wallet_timeout_seconds"] + number(raw, "debit_resolve_seconds", 0,
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
