"""The ``[games.<id>]`` and ``[currencies]`` sections of the operator configuration
(:mod:`reelforge.server.config`): each offered game's build and bet ladders, and the currencies' decimals."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from reelforge.game.contract import BuildError
from reelforge.games.registry import GAME_CLASSES, get_game
from reelforge.server.config_play import PlayRules
from reelforge.server.config_values import MAX_BET, ConfigError, section_keys


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


_GAME_KEYS = {"build", "bet_ladder", "bet_ladders"}


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


def parse_games(raw: dict[str, Any], play: PlayRules, currencies: dict[str, int], where: str,
                builds: dict[str, str] | None = None) -> dict[str, GameConfig]:
    """Validate ``[games.<id>]`` tables: each game's build and ladders, capped by ``play``'s bet and stake
    limits; ``builds``: the only build each game may name (a brand's games are the server's builds)."""
    games: dict[str, GameConfig] = {}
    for game_id, section in raw.items():
        gwhere = f"{where} [games.{game_id}]"
        if game_id not in GAME_CLASSES:
            raise ConfigError(f"{gwhere}: unknown game; valid games: {', '.join(GAME_CLASSES)}")
        section_keys(section, _GAME_KEYS, gwhere)
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
        ladder = capped_ladder(bet_ladder(section["bet_ladder"], gwhere), game, loaded, play, gwhere)
        ladders = _currency_ladders(section.get("bet_ladders", {}), currencies, game.win_unit(loaded), play, gwhere)
        games[game_id] = GameConfig(game_id, build, ladder, ladders)
    return games


def capped_ladder(ladder: tuple[int, ...], game: Any, loaded: Any, play: PlayRules, where: str) -> tuple[int, ...]:
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
