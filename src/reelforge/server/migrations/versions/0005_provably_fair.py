"""Provably fair rounds (docs/FAIRNESS.md).

* ``fair_seeds``: a player's seed pairs. The active one (``revealed_at``
  NULL, at most one per player) keeps its server seed secret; rotating it
  reveals it.
* ``rounds.fair_seed_id`` / ``fair_nonce`` / ``fair_server_seed_sha256`` /
  ``fair_client_seed``: the pair a round drew from, as it stood at the
  stake, and the round's nonce (NULL: a plain CSPRNG round, as every round
  stored before this revision).
* ``steps.ranges``: the range of each draw of a provably fair step.

Revision ID: 0005_provably_fair
Revises: 0004_fair_share
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_provably_fair"
down_revision = "0004_fair_share"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "fair_seeds",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("server_seed_sha256", sa.String(64), nullable=False),
        sa.Column("client_seed", sa.String(64), nullable=False),
        sa.Column("next_nonce", sa.BigInteger, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("revealed_at", _TS),
    )
    op.create_index("ix_fair_seeds_player_id", "fair_seeds", ["player_id", "id"])
    op.create_index("uq_fair_seeds_one_active", "fair_seeds", ["player_id"], unique=True,
                    sqlite_where=sa.text("revealed_at IS NULL"), postgresql_where=sa.text("revealed_at IS NULL"))
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("fair_seed_id", sa.BigInteger))
        batch.add_column(sa.Column("fair_nonce", sa.BigInteger))
        batch.add_column(sa.Column("fair_server_seed_sha256", sa.String(64)))
        batch.add_column(sa.Column("fair_client_seed", sa.String(64)))
    with op.batch_alter_table("steps") as batch:
        batch.add_column(sa.Column("ranges", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("steps") as batch:
        batch.drop_column("ranges")
    with op.batch_alter_table("rounds") as batch:
        for name in ("fair_client_seed", "fair_server_seed_sha256", "fair_nonce", "fair_seed_id"):
            batch.drop_column(name)
    op.drop_index("uq_fair_seeds_one_active", "fair_seeds")
    op.drop_index("ix_fair_seeds_player_id", "fair_seeds")
    op.drop_table("fair_seeds")
