"""The wallet protocol closes an operator integration's findings (issue 32).

* ``launch_tokens.operator_session`` / ``sessions.operator_session``: the
  operator's own session token given at launch, sent with every debit of
  that session (NULL: none given).
* ``rounds.start_key`` / ``ledger.transfer_key``: the SHA-256 of the
  Idempotency-Key that started the round or made the transfer (NULL: before
  this migration), unique per player (a round) or overall (a transfer): the
  stored answers of starts and transfers are now deleted after the
  retention, and a retry after it is refused by this key instead, so nothing
  is charged twice. Answers purged before this migration keep their hash row
  (a fixed set, no longer growing).
* ``server_keys`` ``legacy_round_ids_max``: the highest round id now. Rounds
  were shown under their internal ids before the keyed public ids
  (``0004_fair_share``); those old ids answer again (history links,
  disputes, operator references), for the rounds up to this id.
* ``ix_rounds_fair_nonce``: a provably fair round's seed pair and nonce, for
  the audit's check that each nonce of a pair draws exactly one round.

Revision ID: 0008_wallet_protocol
Revises: 0007_player_limits_brands
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_wallet_protocol"
down_revision = "0007_player_limits_brands"
branch_labels = None
depends_on = None

_NOT_NULL = "{} IS NOT NULL"


def upgrade() -> None:
    with op.batch_alter_table("launch_tokens") as batch:
        batch.add_column(sa.Column("operator_session", sa.String(128)))
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("operator_session", sa.String(128)))
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("start_key", sa.String(64)))
    with op.batch_alter_table("ledger") as batch:
        batch.add_column(sa.Column("transfer_key", sa.String(64)))
    highest = op.get_bind().execute(sa.text("SELECT coalesce(max(id), 0) FROM rounds")).scalar()
    op.execute(sa.text("INSERT INTO server_keys (name, value) VALUES ('legacy_round_ids_max', :v)")
               .bindparams(v=str(highest)))
    where = sa.text(_NOT_NULL.format("fair_seed_id"))
    op.create_index("ix_rounds_fair_nonce", "rounds", ["fair_seed_id", "fair_nonce"],
                    sqlite_where=where, postgresql_where=where)
    where = sa.text(_NOT_NULL.format("start_key"))
    op.create_index("uq_rounds_start_key", "rounds", ["player_id", "start_key"], unique=True,
                    sqlite_where=where, postgresql_where=where)
    where = sa.text(_NOT_NULL.format("transfer_key"))
    op.create_index("uq_ledger_transfer_key", "ledger", ["transfer_key"], unique=True,
                    sqlite_where=where, postgresql_where=where)


def downgrade() -> None:
    op.execute("DELETE FROM server_keys WHERE name = 'legacy_round_ids_max'")
    op.drop_index("uq_ledger_transfer_key", "ledger")
    op.drop_index("uq_rounds_start_key", "rounds")
    op.drop_index("ix_rounds_fair_nonce", "rounds")
    with op.batch_alter_table("ledger") as batch:
        batch.drop_column("transfer_key")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("start_key")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("operator_session")
    with op.batch_alter_table("launch_tokens") as batch:
        batch.drop_column("operator_session")
