"""Free rounds of a campaign (:class:`CampaignRounds`, a part of :class:`~reelforge.server.rounds.RoundService`;
the campaigns' data is :mod:`reelforge.server.campaigns`).

A free round is an ordinary round of the game at the campaign's bet for the player's currency, costing
nothing: no debit, no ledger stake. It is started, decided and stored in one transaction under the player's
row lock, which also counts it against the player's rounds, so a retried or concurrent start (two tabs)
plays it once and a kill loses nothing: either the transaction committed (the round exists and is counted)
or nothing happened. Its win is added to the player's campaign total when it finishes, in the
transaction that finishes it, and credited (with the campaign id) in that same transaction through the
ledger or the seamless wallet's outbox: each win as it comes (``each_win``), or the whole total once the
campaign is over for the player and no round of theirs is open (``end``). :meth:`settle_campaigns`
credits the totals of cancelled and expired campaigns whose players have no round left to finish.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from reelforge.server import campaigns
from reelforge.server.answers import request_hash
from reelforge.server.auth import SessionToken
from reelforge.server.clock import utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.errors import ApiError
from reelforge.server.ledger import entries, post_entry
from reelforge.server.limits import check_round_start
from reelforge.server.round_json import Answer
from reelforge.server.seamless import SeamlessWallet, WalletTx, _sql
from reelforge.server.store import RoundRow, Tx, key_digest, transaction

log = logging.getLogger("reelforge.server")


class CampaignRounds:
    """The free rounds' part of the round lifecycle (the checks, the deciding and the storing are the
    service's)."""

    engine: Engine
    config: ServerConfig
    wallet: SeamlessWallet | None

    def start_free_round(self, player: int | SessionToken, game_id: str, bet: int | None, campaign_id: int,
                         key: str) -> Answer:
        """Start one of the player's free rounds of ``campaign_id`` on ``game_id`` (``bet``: None, or the
        campaign's bet for the player's currency): no debit; decided, stored and counted at once."""
        active = self.active(game_id)
        req = request_hash("free_round", game_id, bet, campaign_id)
        with transaction(self.engine) as tx:
            who = self._lock(tx, player)
            scope = f"player:{who.player_id}"
            reads = tx.start_reads(scope, key, who.player_id, active.id)
            if reads.stored is not None:
                return self._replay(tx, reads.stored, req)
            if reads.keyed_round is not None:
                raise self._spent_key()
            now = utcnow()
            self._check_game(who, active)  # the session's game and its brand's games, as for a paid round
            rules = who.rules(self.config)
            check_round_start(rules, who, now)  # the play session's end, time limit and reality check
            self._check_pace(reads.last_start, rules)
            self._check_open(reads.open_round, active.id)
            currency = who.currency or self.config.brand(who.brand).currency
            progress = campaigns.lock_progress(tx, campaign_id, who.player)
            free_bet = self._free_bet(progress, who.brand, active, currency, now)
            if bet is not None and bet != free_bet:
                raise ApiError(409, "campaign_bet", f"this campaign's free rounds are played at {free_bet} "
                                                    f"({currency} minor units), not {bet}")
            round_id = reads.new_round_id if self.wallet is None else self.wallet.next_round_id(tx, reads.new_round_id)
            rnd, decided, _ = self._decide_start(tx, active, "paid", reads, who.player_id, free_bet, free_bet, 0, now,
                                                 round_id)
            rnd.start_key, rnd.brand, rnd.campaign_id = key_digest(key), who.brand, campaign_id
            if rnd.status != "void":  # a malfunction voids it before it is shown: the player keeps the round
                campaigns.count_round(tx, progress, now)
            changes = self._win_changes(tx, rnd, now, who.player)
            outbox = None
            if self.wallet is None:
                posted, balance = entries(who.balance, changes, rnd.id, now)
                shown = balance
            else:
                posted, balance, shown = [], who.balance, who.wallet_balance
                outbox = self._outbox(tx, rnd, None, changes, now)
            answer = self.round_answer(201, rnd, decided[:1], shown, currency, outbox)
            tx.write_start(rnd, decided, balance, posted, self._record(scope, key, req, answer, now))
        self._logged(rnd, who.player, currency, "round_started")  # committed: the events happened
        if self.wallet is None:
            self.shown.keep(rnd, answer)
            return answer.answer()
        return self._delivered(answer, rnd, decided[:1], shown, currency, outbox, who.player)

    def _free_bet(self, progress: campaigns.Progress | None, brand: str, active: Any, currency: str,
                  now: datetime) -> int:
        """The bet of the player's next free round of the campaign on ``active`` (refused when none is left)."""
        if progress is None or progress.campaign.brand != brand:
            raise ApiError(404, "campaign_not_found", "this player has no free rounds of that campaign")
        campaign = progress.campaign
        if progress.played >= campaign.rounds:
            raise ApiError(409, "no_free_rounds_left", f"all {campaign.rounds} free rounds are played")
        if not campaign.open_at(now) or progress.settled_at is not None:
            state = "cancelled" if campaign.status != "active" else \
                "not open yet" if now < campaign.valid_from else "expired"
            raise ApiError(409, "campaign_closed", f"the campaign's free rounds are {state}")
        if active.id not in campaign.games:
            raise ApiError(409, "campaign_game", f"the campaign's free rounds are for {', '.join(campaign.games)}")
        bet = campaign.bets.get(currency)
        if bet is None:
            raise ApiError(409, "campaign_currency", f"the campaign has no bet for {currency}")
        if bet % active.game.win_unit(active.build) or self.cost(active, bet, "paid") is None:
            raise ApiError(422, "price_not_whole", f"the campaign's bet {bet} would pay fractions of a minor unit")
        return bet

    def _win_changes(self, tx: Tx, rnd: RoundRow, now: datetime, player: str | None = None) -> list[tuple[str, int]]:
        """What a round that has just ended credits now (ledger changes): a paid round its win; a free round
        its win (``each_win``), the player's campaign total once the campaign is over for them (``end``), or
        nothing yet; its win is added to the player's campaign total (the caller holds the player's lock)."""
        if rnd.status != "finished":
            return []
        if rnd.campaign_id is None:
            return [("win", rnd.win)] if rnd.win else []
        name = player or tx.lock_player(rnd.player_id).name
        progress = campaigns.lock_progress(tx, rnd.campaign_id, name)
        assert progress is not None, "a free round's campaign progress exists"
        over = progress.over(now) and not campaigns.open_rounds(tx, rnd.campaign_id, rnd.player_id, rnd.id)
        if progress.campaign.credit == "each_win":
            due = rnd.win
        else:
            due = progress.won + rnd.win - progress.paid if over else 0
        campaigns.add(tx, progress, rnd.win, due, now if over else None)
        return [("win", due)] if due else []

    def _credit_changes(self, tx: Tx, rnd: RoundRow, changes: list[tuple[str, int]], balance: int,
                        now: datetime) -> tuple[int, WalletTx | None]:
        """Credit ``changes`` of a round outside its own request (expiry, a campaign's settlement): through the
        outbox in seamless mode, else the ledger; the player's ledger balance after, and the outbox call."""
        if self.wallet is not None:
            return balance, self._outbox(tx, rnd, None, changes, now)
        for kind, amount in changes:
            balance = post_entry(tx, rnd.player_id, balance, kind, amount, rnd.id, now)
        return balance, None

    def settle_campaigns(self, now: datetime | None = None) -> int:
        """Credit the unpaid totals of players of cancelled or expired campaigns who have no round of it left
        open (a round in progress settles when it ends); return how many players were settled."""
        now = now or utcnow()
        brands = [b.id for b in self.config.all_brands()]
        settled = 0
        for campaign_id, name in campaigns.unsettled_over(self.engine, brands, now):
            with transaction(self.engine) as tx:
                found = tx.player_by_name(name)
                locked = None if found is None else tx.lock_player(found.id)
                progress = campaigns.lock_progress(tx, campaign_id, name)
                if progress is None or progress.settled_at is not None or not progress.over(now):
                    continue
                if locked is not None and campaigns.open_rounds(tx, campaign_id, locked.id):
                    continue
                due = progress.won - progress.paid
                if due and locked is not None:
                    tx.cursor.execute(_sql(tx, "SELECT max(id) FROM rounds WHERE campaign_id = :c AND player_id = :p"),
                                      {"c": campaign_id, "p": locked.id})
                    rnd = tx.round(tx.cursor.fetchone()[0])
                    self._credit_changes(tx, rnd, [("win", due)], locked.balance, now)
                campaigns.add(tx, progress, 0, due if locked is not None else 0, now)
                settled += 1
        return settled

    def campaign_offers(self, player: SessionToken) -> dict[str, Any]:
        """The session's player's campaigns (newest first): what each offers, in their currency, and their
        progress."""
        with transaction(self.engine) as tx:
            who = self._lock(tx, player)
            currency = who.currency or self.config.brand(who.brand).currency
            found = campaigns.player_campaigns(tx, who.player, who.brand)
        now = utcnow()
        return {"campaigns": [p.to_json(now, currency) for p in found]}

    def _campaign_key(self, tx: Tx, rnd: RoundRow) -> str | None:
        """The operator's id of a free round's campaign (None: a paid round)."""
        if rnd.campaign_id is None:
            return None
        tx.cursor.execute(_sql(tx, "SELECT campaign_key FROM campaigns WHERE id = :c"), {"c": rnd.campaign_id})
        return tx.cursor.fetchone()[0]
