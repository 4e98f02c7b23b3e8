"""Operators plug in (issue 25): the seamless wallet, launch by URL, per-session currency and profiles.

* ``wallet_transactions``: every call this server makes to an operator's
  seamless wallet (debit, credit, rollback), by its transaction id. A debit
  is written before it is sent (``pending``) and settled after; a credit or
  a rollback is written ``pending`` in the same transaction as the round
  change that causes it (the outbox) and delivered until acknowledged.
* ``players.wallet_balance``: the balance the operator's wallet last
  reported (shown between calls; the money is the operator's).
* ``sessions.profile`` / ``language`` / ``min_bet`` / ``max_bet``: what the
  operator chose for a launched session (NULL: the server's configuration).
* ``launch_tokens``: one-time, short-lived launch tokens (stored as their
  SHA-256) and the session each opens.
* ``operator_nonces``: signatures of signed operator calls already seen
  (a replay is refused); purged after the signature window.

Revision ID: 0006_seamless_wallet
Revises: 0005_provably_fair
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_seamless_wallet"
down_revision = "0005_provably_fair"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "wallet_transactions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("round_id", sa.BigInteger),
        sa.Column("public_round_id", sa.BigInteger, nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("reference", sa.String(64)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", _TS, nullable=False),
        sa.Column("last_error", sa.Text),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("updated_at", _TS, nullable=False),
        sa.CheckConstraint("kind in ('debit', 'credit', 'rollback')", name="ck_wallet_transactions_kind"),
        sa.CheckConstraint("status in ('pending', 'done', 'refused', 'rolled_back')",
                           name="ck_wallet_transactions_status"),
        sa.CheckConstraint("amount >= 0", name="ck_wallet_transactions_amount"),
    )
    op.create_index("ix_wallet_transactions_round_id", "wallet_transactions", ["round_id"])
    op.create_index("ix_wallet_transactions_pending", "wallet_transactions", ["next_attempt_at"],
                    sqlite_where=sa.text("status = 'pending'"), postgresql_where=sa.text("status = 'pending'"))
    op.create_table(
        "launch_tokens",
        sa.Column("token_sha256", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        sa.Column("profile", sa.String(32), nullable=False),
        sa.Column("min_bet", sa.BigInteger),
        sa.Column("max_bet", sa.BigInteger),
        sa.Column("game", sa.String(64)),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("used_at", _TS),
    )
    op.create_table(
        "operator_nonces",
        sa.Column("signature", sa.String(64), primary_key=True),
        sa.Column("created_at", _TS, nullable=False),
    )
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("wallet_balance", sa.BigInteger))
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("profile", sa.String(32)))
        batch.add_column(sa.Column("language", sa.String(16)))
        batch.add_column(sa.Column("min_bet", sa.BigInteger))
        batch.add_column(sa.Column("max_bet", sa.BigInteger))


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        for name in ("max_bet", "min_bet", "language", "profile"):
            batch.drop_column(name)
    with op.batch_alter_table("players") as batch:
        batch.drop_column("wallet_balance")
    op.drop_table("operator_nonces")
    op.drop_table("launch_tokens")
    op.drop_index("ix_wallet_transactions_pending", "wallet_transactions")
    op.drop_index("ix_wallet_transactions_round_id", "wallet_transactions")
    op.drop_table("wallet_transactions")
