"""The complete wallet protocol and the launch options with callbacks (issue 40).

* ``wallet_transactions.game`` / ``operator_session`` / ``round_closed`` /
  ``campaign_id``: every wallet call's context, sent with every call (the
  credits and rollbacks of the outbox too, after the session ended); NULL
  for the calls written before this migration (sent without them).
* ``sessions.game``: the one game a launched session may play (NULL: any);
  ``sessions.launch_options`` / ``launch_tokens.launch_options``: its lobby,
  return, deposit and history URLs and device (JSON); ``sessions.ended_reason``:
  why it ended, once its session-ended callback was written.
* ``operator_callbacks``: the outbox of the operator's session-ended callbacks.

Revision ID: 0010_launch_callbacks
Revises: 0009_campaigns
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_launch_callbacks"
down_revision = "0009_campaigns"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("wallet_transactions") as batch:
        batch.add_column(sa.Column("game", sa.String(64)))
        batch.add_column(sa.Column("operator_session", sa.String(128)))
        batch.add_column(sa.Column("round_closed", sa.Boolean))
        batch.add_column(sa.Column("campaign_id", sa.String(64)))
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("game", sa.String(64)))
        batch.add_column(sa.Column("launch_options", sa.Text))
        batch.add_column(sa.Column("ended_reason", sa.String(32)))
    with op.batch_alter_table("launch_tokens") as batch:
        batch.add_column(sa.Column("launch_options", sa.Text))
    op.create_table(
        "operator_callbacks",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("brand", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status in ('pending', 'done')", name="ck_operator_callbacks_status"),
    )
    where = sa.text("status = 'pending'")
    op.create_index("ix_operator_callbacks_pending", "operator_callbacks", ["next_attempt_at"],
                    sqlite_where=where, postgresql_where=where)


def downgrade() -> None:
    op.drop_index("ix_operator_callbacks_pending", "operator_callbacks")
    op.drop_table("operator_callbacks")
    with op.batch_alter_table("launch_tokens") as batch:
        batch.drop_column("launch_options")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("ended_reason")
        batch.drop_column("launch_options")
        batch.drop_column("game")
    with op.batch_alter_table("wallet_transactions") as batch:
        batch.drop_column("campaign_id")
        batch.drop_column("round_closed")
        batch.drop_column("operator_session")
        batch.drop_column("game")
