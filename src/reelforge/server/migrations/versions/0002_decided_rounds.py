"""Rounds decided when staked: steps revealed one by one, completion on expiry,
compact idempotent step answers, and the idempotency purge.

* ``steps.revealed_at``: when the player saw the step (NULL: decided at the
  stake, not yet revealed). Steps stored before this revision were played
  when revealed, so they count as revealed at their creation.
* ``rounds.completed_on_expiry``: the round was completed (its remaining
  steps revealed and its win credited) by the expiry, not by the player.
* ``idempotency.round_id`` / ``steps_at`` / ``steps_shown``: a round answer is
  stored without its steps (they are in ``steps``, written once); a retry
  puts the first ``steps_shown`` steps back in at character ``steps_at``.
  An index on ``created_at`` serves the purge.

Revision ID: 0002_decided_rounds
Revises: 0001_initial
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_decided_rounds"
down_revision = "0001_initial"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("steps") as batch:
        batch.add_column(sa.Column("revealed_at", _TS))
    op.execute("UPDATE steps SET revealed_at = created_at")
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("completed_on_expiry", sa.Boolean, nullable=False, server_default=sa.false()))
    with op.batch_alter_table("idempotency") as batch:
        batch.add_column(sa.Column("round_id", sa.BigInteger))
        batch.add_column(sa.Column("steps_at", sa.Integer))
        batch.add_column(sa.Column("steps_shown", sa.Integer))
    op.create_index("ix_idempotency_created", "idempotency", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_idempotency_created", "idempotency")
    with op.batch_alter_table("idempotency") as batch:
        for name in ("steps_shown", "steps_at", "round_id"):
            batch.drop_column(name)
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("completed_on_expiry")
    with op.batch_alter_table("steps") as batch:
        batch.drop_column("revealed_at")
