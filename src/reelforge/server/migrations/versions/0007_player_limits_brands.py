"""Limits per player and brands (issue 32).

* ``players.brand`` / ``rounds.brand`` / ``wallet_transactions.brand`` /
  ``launch_tokens.brand``: the operator brand each belongs to (existing rows:
  ``default``, the brand of the top-level ``[operator]``). A wallet call is
  delivered only by a server that serves its brand, to that brand's wallet.
* ``players.play_started_at`` / ``play_checked_at`` / ``play_ended_at``: the
  player's play session (its session-limit clock, its last acknowledged
  reality check, and when the operator or its limit ended it), kept across
  reloads and new launches.
* ``sessions.limits`` / ``launch_tokens.limits``: the stricter limits the
  operator passed at launch (JSON: max_stake, session_limit_minutes,
  reality_check_minutes, loss_limit; NULL: none).

Revision ID: 0007_player_limits_brands
Revises: 0006_seamless_wallet
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_player_limits_brands"
down_revision = "0006_seamless_wallet"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)
_BRANDED = ("players", "rounds", "wallet_transactions", "launch_tokens")


def upgrade() -> None:
    for table in _BRANDED:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("brand", sa.String(32), nullable=False, server_default="default"))
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("play_started_at", _TS))
        batch.add_column(sa.Column("play_checked_at", _TS))
        batch.add_column(sa.Column("play_ended_at", _TS))
    for table in ("sessions", "launch_tokens"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("limits", sa.Text))


def downgrade() -> None:
    for table in ("launch_tokens", "sessions"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("limits")
    with op.batch_alter_table("players") as batch:
        for name in ("play_ended_at", "play_checked_at", "play_started_at"):
            batch.drop_column(name)
    for table in reversed(_BRANDED):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("brand")
