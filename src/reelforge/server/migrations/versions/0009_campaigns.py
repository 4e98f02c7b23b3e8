"""Free-round campaigns (issue 40, docs/OPERATORS.md "Free-round campaigns").

* ``campaigns``: an operator's campaign (brand, its own id, games, bet per
  currency, rounds per player, validity window, wagering passed through, how
  its wins are credited, active or cancelled);
* ``campaign_players``: each player's rounds played, wins and what was
  credited, acceptance and settlement;
* ``rounds.campaign_id``: a free round's campaign (NULL: a paid round).
  (A campaign credit's ``wallet_transactions.campaign_id`` is added by
  ``0010_launch_callbacks`` with the wallet protocol's other fields.)

Revision ID: 0009_campaigns
Revises: 0008_wallet_protocol
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_campaigns"
down_revision = "0008_wallet_protocol"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("brand", sa.String(32), nullable=False),
        sa.Column("campaign_key", sa.String(64), nullable=False),
        sa.Column("request_sha256", sa.String(64), nullable=False),
        sa.Column("games", sa.Text, nullable=False),
        sa.Column("bets", sa.Text, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("valid_from", _TS, nullable=False),
        sa.Column("valid_until", _TS, nullable=False),
        sa.Column("wagering", sa.Text),
        sa.Column("credit", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("cancelled_at", _TS),
        sa.CheckConstraint("status in ('active', 'cancelled')", name="ck_campaigns_status"),
        sa.CheckConstraint("credit in ('end', 'each_win')", name="ck_campaigns_credit"),
        sa.CheckConstraint("rounds > 0", name="ck_campaigns_rounds"),
        sa.UniqueConstraint("brand", "campaign_key", name="uq_campaigns_key"),
    )
    op.create_table(
        "campaign_players",
        sa.Column("campaign_id", sa.BigInteger, sa.ForeignKey("campaigns.id"), primary_key=True),
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("played", sa.Integer, nullable=False, server_default="0"),
        sa.Column("won", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("paid", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("accepted_at", _TS),
        sa.Column("settled_at", _TS),
        sa.CheckConstraint("played >= 0 and won >= 0 and paid >= 0 and paid <= won",
                           name="ck_campaign_players_amounts"),
    )
    op.create_index("ix_campaign_players_player", "campaign_players", ["player"])
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("campaign_id", sa.BigInteger))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("campaign_id")
    op.drop_index("ix_campaign_players_player", "campaign_players")
    op.drop_table("campaign_players")
    op.drop_table("campaigns")
