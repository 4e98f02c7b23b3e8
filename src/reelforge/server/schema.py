"""Database tables (SQLAlchemy Core). The Alembic migrations under
``migrations/versions`` create exactly these; a test checks they agree.

Money is ``BigInteger`` minor units. Invariants the database itself enforces:
a balance is never negative (CHECK), a player has at most one open round per
game (partial unique index), a step index is unique within its round, an
idempotency key is unique within its scope.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)

metadata = MetaData()

players = Table(
    "players", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),
    Column("balance", BigInteger, nullable=False),
    Column("currency", String(3), nullable=False),
    Column("demo", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # Seamless wallet (the money is the operator's): the balance its wallet last reported; NULL otherwise.
    Column("wallet_balance", BigInteger),
    # The operator brand the player belongs to (its wallet, limits and ladders); names are unique across brands.
    Column("brand", String(32), nullable=False, server_default="default"),
    # The player's play session, kept across reloads and launches: when it started (the session-limit clock),
    # the last acknowledged reality check, and when the operator or its time limit ended it (NULL: not ended).
    Column("play_started_at", DateTime(timezone=True)),
    Column("play_checked_at", DateTime(timezone=True)),
    Column("play_ended_at", DateTime(timezone=True)),
    CheckConstraint("balance >= 0", name="ck_players_balance_nonnegative"),
    UniqueConstraint("name", name="uq_players_name"),
)

sessions = Table(
    "sessions", metadata,
    Column("token_sha256", String(64), primary_key=True),
    Column("player_id", BigInteger, ForeignKey("players.id"), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("reality_checked_at", DateTime(timezone=True)),  # the last acknowledged reality check (NULL: none)
    # A launched session (operator's choice; NULL: the server's configuration): its jurisdiction profile,
    # language and bet limits (minor units).
    Column("profile", String(32)),
    Column("language", String(16)),
    Column("min_bet", BigInteger),
    Column("max_bet", BigInteger),
    Column("operator_session", String(128)),  # the operator's own session token, sent with every debit
    Column("limits", Text),  # the launch's other limits (JSON: max_stake, session_limit_minutes, ...; NULL: none)
    # A launched session's options (0010_launch_callbacks): the one game it may play (NULL: any), its lobby,
    # return, deposit and history URLs and device (JSON; NULL: none), and why it ended once the operator's
    # session-ended callback was written for it (NULL: not ended, or no callback).
    Column("game", String(64)),
    Column("launch_options", Text),
    Column("ended_reason", String(32)),
)

fair_seeds = Table(
    # A player's provably fair seed pairs (docs/FAIRNESS.md). The active pair (revealed_at NULL) keeps its
    # server seed secret: only its SHA-256 is ever shown until the player rotates it, which reveals it.
    "fair_seeds", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("player_id", BigInteger, ForeignKey("players.id"), nullable=False),
    Column("server_seed", String(64), nullable=False),
    Column("server_seed_sha256", String(64), nullable=False),
    Column("client_seed", String(64), nullable=False),
    Column("next_nonce", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revealed_at", DateTime(timezone=True)),
)
Index("ix_fair_seeds_player_id", fair_seeds.c.player_id, fair_seeds.c.id)
Index("uq_fair_seeds_one_active", fair_seeds.c.player_id, unique=True,
      sqlite_where=text("revealed_at IS NULL"), postgresql_where=text("revealed_at IS NULL"))

rounds = Table(
    "rounds", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("player_id", BigInteger, ForeignKey("players.id"), nullable=False),
    Column("game", String(64), nullable=False),
    Column("build", String(64), nullable=False),
    Column("mode", String(32), nullable=False),
    Column("bet", BigInteger, nullable=False),
    Column("requested_bet", BigInteger, nullable=False),
    Column("cost", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),
    Column("state", Text, nullable=False),
    Column("next_step", String(32)),
    Column("step_count", Integer, nullable=False),
    Column("total_win_x", String(64), nullable=False),
    Column("win", BigInteger, nullable=False),
    Column("void_reason", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("completed_on_expiry", Boolean, nullable=False, server_default=false()),
    # The maths the round is played with: the build's version and content hash (BuildIdentity).
    # Replay, verify and finishing the round load this version, whatever is current.
    Column("build_version", String(16), nullable=False),
    Column("build_hash", String(64)),  # NULL: a build unknown to migration 0003 (not a shipped game's)
    # Provably fair rounds (docs/FAIRNESS.md): the seed pair, its commitment and client seed as they were
    # when the round was staked, and the round's nonce. NULL: drawn from the plain CSPRNG.
    Column("fair_seed_id", BigInteger),  # fair_seeds.id (no foreign key: added to rounds without a table rebuild)
    Column("fair_nonce", BigInteger),
    Column("fair_server_seed_sha256", String(64)),
    Column("fair_client_seed", String(64)),
    # SHA-256 of the Idempotency-Key that started it (NULL: before 0008): a retry after the retention is refused.
    Column("start_key", String(64)),
    Column("brand", String(32), nullable=False, server_default="default"),  # the player's brand
    Column("campaign_id", BigInteger),  # a free round of this campaigns.id (no debit; NULL: a paid round)
    CheckConstraint("status in ('open', 'finished', 'void')", name="ck_rounds_status"),
    CheckConstraint("bet > 0 and cost >= 0 and win >= 0", name="ck_rounds_amounts"),
)
Index("ix_rounds_player_id", rounds.c.player_id, rounds.c.id)
Index("ix_rounds_fair_nonce", rounds.c.fair_seed_id, rounds.c.fair_nonce,  # the audit's nonce sequence check
      sqlite_where=text("fair_seed_id IS NOT NULL"), postgresql_where=text("fair_seed_id IS NOT NULL"))
Index("uq_rounds_start_key", rounds.c.player_id, rounds.c.start_key, unique=True,
      sqlite_where=text("start_key IS NOT NULL"), postgresql_where=text("start_key IS NOT NULL"))
Index("uq_rounds_one_open_per_game", rounds.c.player_id, rounds.c.game, unique=True,
      sqlite_where=text("status = 'open'"), postgresql_where=text("status = 'open'"))
Index("ix_rounds_created_at", rounds.c.created_at)  # the support queries' time ranges, the daily revenue report
Index("ix_rounds_game_id", rounds.c.game, rounds.c.id)  # the support queries by game, paged by id
Index("ix_rounds_open_created", rounds.c.created_at,  # the expiry scan; only open rounds are in it
      sqlite_where=text("status = 'open'"), postgresql_where=text("status = 'open'"))

steps = Table(
    "steps", metadata,
    Column("round_id", BigInteger, ForeignKey("rounds.id"), primary_key=True),
    Column("idx", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(32), nullable=False),
    Column("action", String(32)),
    Column("draws", Text, nullable=False),
    Column("events", Text, nullable=False),
    Column("win_x", String(64), nullable=False),
    Column("total_win_x", String(64), nullable=False),
    Column("finished", Boolean, nullable=False),
    Column("next_step", String(32)),
    Column("state", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revealed_at", DateTime(timezone=True)),  # NULL: decided at the stake, not yet shown
    Column("ranges", Text),  # provably fair rounds: the range of each draw (JSON list), for the verifiers
)

ledger = Table(
    "ledger", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("player_id", BigInteger, ForeignKey("players.id"), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("balance_after", BigInteger, nullable=False),
    Column("round_id", BigInteger, ForeignKey("rounds.id")),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # A transfer's Idempotency-Key, SHA-256 (NULL: not a transfer, or before 0008): a retry after the retention
    # is refused by it.
    Column("transfer_key", String(64)),
    CheckConstraint("kind in ('deposit', 'withdrawal', 'stake', 'feature_buy', 'win', 'refund')",
                    name="ck_ledger_kind"),
    CheckConstraint("balance_after >= 0", name="ck_ledger_balance_nonnegative"),
)
Index("ix_ledger_player_id", ledger.c.player_id, ledger.c.id)
Index("ix_ledger_round_id", ledger.c.round_id)
Index("uq_ledger_transfer_key", ledger.c.transfer_key, unique=True,
      sqlite_where=text("transfer_key IS NOT NULL"), postgresql_where=text("transfer_key IS NOT NULL"))

idempotency = Table(
    "idempotency", metadata,
    Column("scope", String(80), primary_key=True),
    Column("key", String(200), primary_key=True),
    Column("request_sha256", String(64), nullable=False),
    Column("status_code", Integer, nullable=False),
    Column("response", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # A round answer is stored without its steps: the first steps_shown steps go back in at steps_at.
    Column("round_id", BigInteger),
    Column("steps_at", Integer),
    Column("steps_shown", Integer),
    # Whether the key outlives its answer's retention (a round start or a transfer: never charged twice).
    Column("keep", Boolean, nullable=False, server_default=true()),
)
Index("ix_idempotency_unpurged", idempotency.c.created_at,  # the purge's work list: answers not yet purged
      sqlite_where=text("response <> ''"), postgresql_where=text("response <> ''"))

server_keys = Table(
    "server_keys", metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),  # round_ids: the key of the public round ids (hex)
)

wallet_transactions = Table(
    # Every call to an operator's seamless wallet, by transaction id (docs/SEAMLESS_WALLET.md). A debit is
    # written pending before it is sent and settled after; a credit or a rollback is written pending in the
    # transaction of the round change that causes it (the outbox) and delivered until acknowledged.
    "wallet_transactions", metadata,
    Column("id", String(64), primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("player_id", BigInteger, ForeignKey("players.id"), nullable=False),
    Column("round_id", BigInteger),  # rounds.id; NULL while a debit's round is not stored (or never was)
    Column("public_round_id", BigInteger, nullable=False),  # the round id the operator sees
    Column("amount", BigInteger, nullable=False),
    Column("currency", String(3), nullable=False),
    Column("reference", String(64)),  # a rollback: the debit it rolls back
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", DateTime(timezone=True), nullable=False),
    Column("last_error", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # The brand whose wallet the call goes to: only a server serving that brand delivers it.
    Column("brand", String(32), nullable=False, server_default="default"),
    # The wallet protocol's context of the call (docs/WALLET_PROTOCOL.md; NULL before 0010_launch_callbacks):
    # the round's game, the operator's session token of the session that played it, whether it is the
    # round's last call, and the free-round campaign it belongs to (NULL: none).
    Column("game", String(64)),
    Column("operator_session", String(128)),
    Column("round_closed", Boolean),
    Column("campaign_id", String(64)),
    CheckConstraint("kind in ('debit', 'credit', 'rollback')", name="ck_wallet_transactions_kind"),
    CheckConstraint("status in ('pending', 'done', 'refused', 'rolled_back')", name="ck_wallet_transactions_status"),
    CheckConstraint("amount >= 0", name="ck_wallet_transactions_amount"),
)
Index("ix_wallet_transactions_round_id", wallet_transactions.c.round_id)
Index("ix_wallet_transactions_pending", wallet_transactions.c.next_attempt_at,  # the outbox's work list
      sqlite_where=text("status = 'pending'"), postgresql_where=text("status = 'pending'"))

launch_tokens = Table(
    # One-time, short-lived launch tokens (their SHA-256) and the session each opens (docs/OPERATORS.md).
    "launch_tokens", metadata,
    Column("token_sha256", String(64), primary_key=True),
    Column("player", String(64), nullable=False),
    Column("currency", String(3), nullable=False),
    Column("language", String(16), nullable=False),
    Column("profile", String(32), nullable=False),
    Column("min_bet", BigInteger),
    Column("max_bet", BigInteger),
    Column("game", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True)),
    Column("operator_session", String(128)),
    Column("brand", String(32), nullable=False, server_default="default"),
    Column("limits", Text),
    Column("launch_options", Text),  # the session's URLs and device (JSON; 0010_launch_callbacks)
)

operator_callbacks = Table(
    # The operator's callbacks not yet acknowledged, and those that were (the outbox of the session-ended
    # calls, docs/OPERATORS.md): written in the transaction that ends the session, delivered until acknowledged.
    "operator_callbacks", metadata,
    Column("id", String(64), primary_key=True),  # sent as callback_id: the operator's idempotency key
    Column("brand", String(32), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("body", Text, nullable=False),  # the JSON body sent (its timestamp set anew on each attempt)
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", DateTime(timezone=True), nullable=False),
    Column("last_error", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    CheckConstraint("status in ('pending', 'done')", name="ck_operator_callbacks_status"),
)
Index("ix_operator_callbacks_pending", operator_callbacks.c.next_attempt_at,
      sqlite_where=text("status = 'pending'"), postgresql_where=text("status = 'pending'"))

operator_nonces = Table(
    # Signatures of signed operator calls already accepted: the same call again is a replay (refused).
    "operator_nonces", metadata,
    Column("signature", String(64), primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

campaigns = Table(
    # Free-round campaigns (docs/OPERATORS.md, "Free-round campaigns"): an operator's offer of ``rounds`` rounds
    # per player, at a fixed bet per currency, on some games, within a validity window; no debit, the wins paid
    # as one credit at the end (``credit = 'end'``) or each win as it comes (``'each_win'``).
    "campaigns", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("brand", String(32), nullable=False),
    Column("campaign_key", String(64), nullable=False),  # the operator's campaign id, unique per brand
    Column("request_sha256", String(64), nullable=False),  # the creating request: a retry must be the same
    Column("games", Text, nullable=False),  # JSON list of game ids
    Column("bets", Text, nullable=False),  # JSON {currency: bet in minor units}
    Column("rounds", Integer, nullable=False),  # per player
    Column("valid_from", DateTime(timezone=True), nullable=False),
    Column("valid_until", DateTime(timezone=True), nullable=False),
    Column("wagering", Text),  # the operator's wagering requirement, JSON, passed through untouched
    Column("credit", String(8), nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("cancelled_at", DateTime(timezone=True)),
    CheckConstraint("status in ('active', 'cancelled')", name="ck_campaigns_status"),
    CheckConstraint("credit in ('end', 'each_win')", name="ck_campaigns_credit"),
    CheckConstraint("rounds > 0", name="ck_campaigns_rounds"),
    UniqueConstraint("brand", "campaign_key", name="uq_campaigns_key"),
)

campaign_players = Table(
    # Each player's free rounds of a campaign (by player name: the operator names players before they launch).
    # ``played`` counts rounds started (a round is decided at its start, so a started round is never lost or
    # played twice); ``won`` the wins of its finished rounds; ``paid`` what was credited (ledger or outbox).
    "campaign_players", metadata,
    Column("campaign_id", BigInteger, ForeignKey("campaigns.id"), primary_key=True),
    Column("player", String(64), primary_key=True),
    Column("played", Integer, nullable=False, server_default="0"),
    Column("won", BigInteger, nullable=False, server_default="0"),
    Column("paid", BigInteger, nullable=False, server_default="0"),
    Column("accepted_at", DateTime(timezone=True)),  # when the player accepted the offer (NULL: not yet)
    Column("settled_at", DateTime(timezone=True)),  # when its total was credited (NULL: not yet)
    CheckConstraint("played >= 0 and won >= 0 and paid >= 0 and paid <= won", name="ck_campaign_players_amounts"),
)
Index("ix_campaign_players_player", campaign_players.c.player)

LEDGER_KINDS = ("deposit", "withdrawal", "stake", "feature_buy", "win", "refund")
