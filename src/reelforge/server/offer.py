"""The games this server offers: each game with its configuration and build (:class:`ActiveGame`), builds
by version (cached: a published build never changes), the feature-buy modes and what a round costs
(:class:`GameOffer`, a part of :class:`~reelforge.server.rounds.RoundService`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from reelforge.game.contract import Game
from reelforge.games.registry import get_game
from reelforge.server.config_games import GameConfig
from reelforge.server.errors import ApiError
from reelforge.server.store import RoundRow


@dataclass
class ActiveGame:
    """A game as this server offers it."""

    game: Game
    config: GameConfig
    build: Any
    id: str = field(init=False)
    """The game's id (an attribute, not a property: the start path reads it several times a request)."""

    def __post_init__(self) -> None:
        self.id = self.game.id


class GameOffer:
    """The offered games (``games``), their builds and costs (cached in ``_builds`` and ``_costs``)."""

    games: dict[str, ActiveGame]
    _builds: dict[tuple[str, str, str | None], Any]
    _costs: dict[tuple[str, int, str], int | None]

    def build(self, game_id: str, name: str, version: str | None = None) -> Any:
        """A build by name, its current version or ``version`` (cached: published builds never change).
        A round is played, finished and replayed with the version stored on it (``""``: stored before
        versions for a build migration 0003 did not know; its current version)."""
        key = (game_id, name, version or None)
        if key not in self._builds:
            self._builds[key] = get_game(game_id).load_build(name, version or None)
        return self._builds[key]

    def round_build(self, rnd: RoundRow) -> Any:
        """The build (name and version) ``rnd`` is played with."""
        return self.build(rnd.game, rnd.build, rnd.build_version)

    def active(self, game_id: str) -> ActiveGame:
        if game_id not in self.games:
            raise ApiError(404, "unknown_game", f"unknown game {game_id!r}; games offered: {', '.join(self.games)}")
        return self.games[game_id]

    def resolve_mode(self, active: ActiveGame, buy_feature: bool | str | None) -> str:
        """Round mode: ``paid``, or the game's feature-buy mode when ``buy_feature`` asks for it."""
        if buy_feature is None or buy_feature is False:
            return "paid"
        buy_modes = [m for m in active.game.modes if m != "paid"]
        if isinstance(buy_feature, str):
            if buy_feature not in buy_modes:
                raise ApiError(422, "no_such_feature_buy",
                               f"{active.id} has no feature buy {buy_feature!r}; available: {buy_modes or 'none'}")
            return buy_feature
        if not buy_modes or active.game.feature_buy_price_x(active.build) is None:
            raise ApiError(422, "no_feature_buy", f"{active.id} has no feature buy")
        if len(buy_modes) > 1:
            raise ApiError(422, "ambiguous_feature_buy", f"{active.id} has several feature buys; name one: {buy_modes}")
        return buy_modes[0]

    def cost(self, active: ActiveGame, bet: int, mode: str) -> int | None:
        """Minor units a round of ``mode`` at ``bet`` costs; None when not a whole number."""
        key = (active.id, bet, mode)
        if key not in self._costs:  # builds are immutable: a (game, bet, mode) always costs the same
            price = Fraction(bet) * active.game.stake_x(active.build, mode)
            self._costs[key] = int(price) if price.denominator == 1 else None
        return self._costs[key]
