"""Initial schema: players, sessions, rounds, steps, ledger, idempotency keys.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")
_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("demo", sa.Boolean, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.CheckConstraint("balance >= 0", name="ck_players_balance_nonnegative"),
        sa.UniqueConstraint("name", name="uq_players_name"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_sha256", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
    )
    op.create_index("ix_sessions_player_id", "sessions", ["player_id"])
    op.create_table(
        "rounds",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("build", sa.String(64), nullable=False),
        sa.Column("mode", sa.String(32), nullable=False),
        sa.Column("bet", sa.BigInteger, nullable=False),
        sa.Column("requested_bet", sa.BigInteger, nullable=False),
        sa.Column("cost", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("next_step", sa.String(32)),
        sa.Column("step_count", sa.Integer, nullable=False),
        sa.Column("total_win_x", sa.String(64), nullable=False),
        sa.Column("win", sa.BigInteger, nullable=False),
        sa.Column("void_reason", sa.Text),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("updated_at", _TS, nullable=False),
        sa.Column("finished_at", _TS),
        sa.CheckConstraint("status in ('open', 'finished', 'void')", name="ck_rounds_status"),
        sa.CheckConstraint("bet > 0 and cost >= 0 and win >= 0", name="ck_rounds_amounts"),
    )
    op.create_index("ix_rounds_player_id", "rounds", ["player_id", "id"])
    op.create_index("uq_rounds_one_open_per_game", "rounds", ["player_id", "game"], unique=True,
                    sqlite_where=sa.text("status = 'open'"), postgresql_where=sa.text("status = 'open'"))
    op.create_index("ix_rounds_open_created", "rounds", ["created_at"],
                    sqlite_where=sa.text("status = 'open'"), postgresql_where=sa.text("status = 'open'"))
    op.create_table(
        "steps",
        sa.Column("round_id", sa.BigInteger, sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("action", sa.String(32)),
        sa.Column("draws", sa.Text, nullable=False),
        sa.Column("events", sa.Text, nullable=False),
        sa.Column("win_x", sa.String(64), nullable=False),
        sa.Column("total_win_x", sa.String(64), nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("next_step", sa.String(32)),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_table(
        "ledger",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("balance_after", sa.BigInteger, nullable=False),
        sa.Column("round_id", sa.BigInteger, sa.ForeignKey("rounds.id")),
        sa.Column("created_at", _TS, nullable=False),
        sa.CheckConstraint("kind in ('deposit', 'withdrawal', 'stake', 'feature_buy', 'win', 'refund')",
                           name="ck_ledger_kind"),
        sa.CheckConstraint("balance_after >= 0", name="ck_ledger_balance_nonnegative"),
    )
    op.create_index("ix_ledger_player_id", "ledger", ["player_id", "id"])
    op.create_index("ix_ledger_round_id", "ledger", ["round_id"])
    op.create_table(
        "idempotency",
        sa.Column("scope", sa.String(80), primary_key=True),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("request_sha256", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=False),
        sa.Column("response", sa.Text, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
    )


def downgrade() -> None:
    for name in ("idempotency", "ledger", "steps", "rounds", "sessions", "players"):
        op.drop_table(name)
