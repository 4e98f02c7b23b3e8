"""The refusals before a round starts: the bet on the player's ladder and within the session's limits,
the stake limit, the pace between rounds, no unfinished round of the game, and the balance covering
the cost (or the highest bet it covers) (:class:`StartChecks`, a part of
:class:`~reelforge.server.rounds.RoundService`). Each refusal is an :class:`~reelforge.server.errors.ApiError`
raised before anything is written."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from reelforge.server.auth import Principal
from reelforge.server.clock import utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.config_operator import BrandConfig
from reelforge.server.config_play import PlayRules
from reelforge.server.errors import ApiError
from reelforge.server.offer import ActiveGame, GameOffer
from reelforge.server.roundids import RoundIds


@lru_cache(maxsize=1024)
def _cut(ladder: tuple[int, ...], max_bet: int | None, min_bet: int) -> tuple[int, ...]:
    """The bets of ``ladder`` within a session's limits (the same few cuts on every start: cached)."""
    return tuple(b for b in ladder if (max_bet is None or b <= max_bet) and b >= min_bet)


class StartChecks(GameOffer):
    """The checks of a round start, on the server's ``config`` and the offered games' costs."""

    config: ServerConfig
    ids: RoundIds

    def _check_bet(self, who: Principal, active: ActiveGame, bet: int, mode: str) -> tuple[tuple[int, ...], PlayRules]:
        """The ladder offered to ``who`` (its brand's, in its currency, within its session's bet limits) and its
        rules (its brand's, its launch profile and limits); refuse a bet outside them."""
        rules = who.rules(self.config)
        brand = self.config.brand(who.brand)
        currency = who.currency or brand.currency
        self._check_game(who, active, brand)
        if mode != "paid" and not rules.feature_buy:
            raise ApiError(403, "feature_buy_not_allowed",
                           f"the feature buy is not offered in this session's jurisdiction ({rules.profile}); "
                           "play paid spins instead")
        ladder = brand.ladder(active.id, currency)
        if ladder is None:
            raise ApiError(422, "currency_not_offered", f"{active.id} has no bet ladder in {currency}")
        max_bet = rules.max_bet if who.max_bet is None else min(who.max_bet, rules.max_bet or who.max_bet)
        if max_bet is not None or who.min_bet is not None:  # a session's limits cut the ladder
            ladder = _cut(ladder, max_bet, who.min_bet or 0)
        if max_bet is not None and bet > max_bet:
            raise ApiError(422, "bet_above_maximum", f"bet {bet} is above the maximum bet {max_bet} of this session")
        if bet not in ladder:
            raise ApiError(422, "bet_not_on_ladder", f"bet {bet} is not on the bet ladder of {active.id}: {list(ladder)}")
        self._check_stake(active, bet, mode, rules, ladder)
        return ladder, rules

    def _check_game(self, who: Principal, active: ActiveGame, brand: BrandConfig | None = None) -> None:
        """Refuse a game the session may not play: not the one it was launched for, or not its brand's
        (``brand``: the session's, when the caller has it already)."""
        if who.game is not None and active.id != who.game:
            raise game_not_launched(active.id, who.game)
        brand = brand or self.config.brand(who.brand)
        if active.id not in brand.games:
            raise ApiError(404, "unknown_game", f"{active.id} is not offered to this player's brand; games offered: "
                                                f"{', '.join(brand.games)}")

    def _check_open(self, open_round: int | None, game_id: str) -> None:
        if open_round is not None:
            raise ApiError(409, "unfinished_round",
                           f"round {self.ids.public(open_round)} of {game_id} is unfinished: play it to the end "
                           f"first (GET /api/v1/games/{game_id}/rounds/unfinished)")

    def _fit(self, active: ActiveGame, ladder: tuple[int, ...], bet: int, mode: str, balance: int | None,
             auto_adjust_bet: bool) -> tuple[int, int]:
        """The bet and cost of a new round: ``bet``, or with ``auto_adjust_bet`` the highest the ``balance``
        covers (None: not known here, the operator's wallet decides)."""
        cost = self.cost(active, bet, mode)
        if balance is None or cost <= balance:
            return bet, cost
        if not auto_adjust_bet:
            raise ApiError(402, "insufficient_balance", f"balance {balance} does not cover the round's cost {cost}")
        fits = [v for v in ladder if v <= bet and (c := self.cost(active, v, mode)) is not None and c <= balance]
        if not fits:
            raise ApiError(402, "insufficient_balance", f"balance {balance} does not cover the lowest bet {ladder[0]}")
        return fits[-1], self.cost(active, fits[-1], mode)

    def _check_stake(self, active: ActiveGame, bet: int, mode: str, rules: PlayRules,
                     ladder: tuple[int, ...]) -> None:
        """Refuse a round whose cost (stake or feature-buy price) is above the session's stake limit."""
        limit = rules.stake_limit
        cost = self.cost(active, bet, mode)
        if limit is None or cost <= limit:
            return
        what = "stake" if mode == "paid" else f"feature buy ({mode})"
        fits = [b for b in ladder if (c := self.cost(active, b, mode)) is not None and c <= limit]
        hint = f"; the highest bet it is offered at is {fits[-1]}" if fits else "; it is not offered at any bet"
        raise ApiError(422, "stake_above_maximum",
                       f"the {what} at bet {bet} costs {cost}, above the maximum stake of {limit} minor units "
                       f"per round on this server{hint}")

    @staticmethod
    def _check_pace(last_start: datetime | None, rules: PlayRules) -> None:
        """Refuse a new round sooner than ``min_round_seconds`` after the player's previous one started
        (``last_start`` read under the player's row lock, so concurrent requests cannot both slip through)."""
        gap = rules.min_round_seconds
        if not gap or last_start is None:
            return
        wait = gap - (utcnow() - last_start).total_seconds()
        if wait > 0:
            raise ApiError(429, "too_soon", f"a new round may start {gap:g} seconds after the previous one "
                                            f"started; wait {wait:.1f} more seconds")


def game_not_launched(game: str, launched: str) -> ApiError:
    """The refusal of a game other than the one the session was launched for."""
    return ApiError(403, "game_not_in_session", f"this session was launched for {launched}, not {game}; the "
                                                "operator's site launches each game with a session of its own")
