"""Reading rounds: one of a player's rounds by its public id, its unfinished round of a game, and its
history pages, with the balance and settlement shown beside them (:class:`RoundReads`, a part of
:class:`~reelforge.server.rounds.RoundService`; a foreign round is reported exactly like a missing one)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from reelforge.server import store
from reelforge.server.errors import ApiError
from reelforge.server.round_json import RoundViews
from reelforge.server.seamless_reads import credit_states
from reelforge.server.store import RoundRow, Tx, transaction


class RoundReads(RoundViews):
    """The round reads of the API (``active``: the offered game, checked by the service)."""

    engine: Engine

    @staticmethod
    def _own(rnd: RoundRow | None, player_id: int, public_id: int) -> RoundRow:
        # A foreign round is reported exactly like a missing one.
        if rnd is None or rnd.player_id != player_id:
            raise ApiError(404, "round_not_found", f"no round {public_id} for this player")
        return rnd

    def _full(self, tx: Tx, rnd: RoundRow) -> dict[str, Any]:
        seed = None if rnd.fair_seed_id is None else tx.revealed_seed(rnd.fair_seed_id)
        balance, currency = self._player_money(tx, rnd.player_id)
        return self.round_json(rnd, tx.steps(rnd.id, rnd.step_count), balance, seed, currency,
                               self._settlements([rnd.id]).get(rnd.id))

    def _player_money(self, tx: Tx, player_id: int) -> tuple[int | None, str]:
        """The balance to show (seamless: what the operator's wallet last reported) and the currency."""
        tx.cursor.execute("SELECT balance, wallet_balance, currency FROM players WHERE id = "
                          + (":id" if tx.sqlite else "%(id)s"), {"id": player_id})
        balance, wallet_balance, currency = tx.cursor.fetchone()
        return (wallet_balance if self.wallet is not None else balance), currency

    def _settlements(self, round_ids: list[int]) -> dict[int, tuple[str, str]]:
        """Seamless wallet: each round's credit and its status."""
        if self.wallet is None:
            return {}
        return {rid: ("credit", status) for rid, status in credit_states(self.engine, round_ids).items()}

    def _shown(self, tx: Tx, player_id: int, shown: int) -> RoundRow:
        """The player's round a shown id names: its public id, or the id it was shown under before the keyed
        ids (404 when neither is the player's)."""
        for candidate in self.ids.candidates(shown):
            rnd = tx.round(candidate)
            if rnd is not None and rnd.player_id == player_id:
                return rnd
        return self._own(None, player_id, shown)

    def get_round(self, player_id: int, public_id: int) -> dict[str, Any]:
        """One of the player's rounds (by its public id, or its id from before the keyed ids) with its
        revealed steps; the answer names it by its public id."""
        with transaction(self.engine, write=False) as tx:
            return self._full(tx, self._shown(tx, player_id, public_id))

    def own_round(self, player_id: int, public_id: int) -> int:
        """The internal id of one of the player's rounds by its public id (or old id; 404 when it is not the
        player's)."""
        with transaction(self.engine, write=False) as tx:
            return self._shown(tx, player_id, public_id).id

    def unfinished(self, player_id: int, game_id: str) -> dict[str, Any]:
        self.active(game_id)
        with transaction(self.engine, write=False) as tx:
            open_round = tx.open_round(player_id, game_id)
            if open_round is None:
                raise ApiError(404, "no_unfinished_round", f"no unfinished round of {game_id}")
            return self._full(tx, tx.round(open_round))

    def history(self, player_id: int, limit: int, before: int | None, game_id: str | None) -> dict[str, Any]:
        """The player's rounds, newest first; ``next_before`` (a public round id: the rounds played before
        that one) pages further."""
        if before is not None:
            before = self.ids.internal(before) or 0
        page, next_before = store.history_page(self.engine, player_id, limit, before, game_id)
        seeds = store.revealed_server_seeds(self.engine, [r.fair_seed_id for r in page if r.fair_seed_id is not None])
        settled = self._settlements([r.id for r in page])
        currency = store.player_currency(self.engine, player_id)
        return {"rounds": [self.summary_json(r, seeds.get(r.fair_seed_id), currency, settled.get(r.id)) for r in page],
                "next_before": None if next_before is None else self.ids.public(next_before)}
