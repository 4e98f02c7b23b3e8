"""Support and reporting (docs/OPERATORS.md, "Support and reporting"): indexes for the operator's round queries.

* ``ix_rounds_created_at``: rounds by start time, for a query's time range and the daily revenue report (one
  day's rounds read by range instead of the whole table).
* ``ix_rounds_game_id``: a game's rounds in id order, for a query by game paged by its cursor.

A query by player uses ``ix_rounds_player_id`` (player, id), which exists.

Revision ID: 0011_support
Revises: 0008_wallet_protocol
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0011_support"
down_revision = "0010_launch_callbacks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rounds_created_at", "rounds", ["created_at"])
    op.create_index("ix_rounds_game_id", "rounds", ["game", "id"])


def downgrade() -> None:
    op.drop_index("ix_rounds_game_id", "rounds")
    op.drop_index("ix_rounds_created_at", "rounds")
