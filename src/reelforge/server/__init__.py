"""The game server: wallets, step-by-step rounds, history and audit replay.

Modules: ``config`` (operator TOML), ``schema``/``db`` (SQLAlchemy tables,
engine, Alembic migrations), ``wallet`` (ledger), ``auth`` (sessions),
``rounds`` (rounds as step machines over :class:`reelforge.game.Game`),
``verify`` (audit replay), ``app`` (FastAPI), ``commands`` (CLI).
"""
