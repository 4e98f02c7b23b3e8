"""Alembic migrations of the game server database."""
