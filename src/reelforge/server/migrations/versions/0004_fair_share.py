"""Responsible-play limits on the server, bounded idempotency purges, non-guessable public round ids.

* ``sessions.reality_checked_at``: the session's last acknowledged reality
  check (NULL: none yet; the first is due ``reality_check_minutes`` after the
  session opened).
* ``idempotency.keep``: whether the key must outlive its answer's retention:
  a round start's or an operator transfer's key is kept (its answer blanked)
  so a retry is never charged twice; a step's key is deleted (a step charges
  nothing). Rows stored before are kept (true). The purge's index holds only
  the rows it still has to purge, so a purge no longer rescans the purged.
* ``server_keys``: the server's secret for public round ids (a keyed
  permutation of the internal ids: players cannot read the server's volume
  from them), made once here so every process and restart shares it.

Revision ID: 0004_fair_share
Revises: 0003_build_versions
Create Date: 2026-12-02
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0004_fair_share"
down_revision = "0003_build_versions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch table rebuild): SQLite adds a nullable or defaulted column in place.
    op.add_column("sessions", sa.Column("reality_checked_at", sa.DateTime(timezone=True)))
    op.add_column("idempotency", sa.Column("keep", sa.Boolean, nullable=False, server_default=sa.true()))
    op.drop_index("ix_idempotency_created", "idempotency")
    op.create_index("ix_idempotency_unpurged", "idempotency", ["created_at"],
                    sqlite_where=sa.text("response <> ''"), postgresql_where=sa.text("response <> ''"))
    keys = op.create_table("server_keys", sa.Column("name", sa.String(32), primary_key=True),
                           sa.Column("value", sa.String(128), nullable=False))
    op.bulk_insert(keys, [{"name": "round_ids", "value": secrets.token_hex(32)}])


def downgrade() -> None:
    op.drop_table("server_keys")
    op.drop_index("ix_idempotency_unpurged", "idempotency")
    op.create_index("ix_idempotency_created", "idempotency", ["created_at"])
    with op.batch_alter_table("idempotency") as batch:
        batch.drop_column("keep")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("reality_checked_at")
