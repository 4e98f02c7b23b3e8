"""Alembic environment: migrations run on the connection the server passes in
(``config.attributes["connection"]``), or on ``sqlalchemy.url`` when Alembic is
run by hand (``alembic -x`` is not needed)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from reelforge.server.schema import metadata

config = context.config


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
        context.run_migrations()
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":  # see reelforge.server.db.sqlite_foreign_keys_off
            conn.connection.dbapi_connection.execute("PRAGMA foreign_keys=OFF")
        with conn.begin():
            context.configure(connection=conn, target_metadata=metadata, render_as_batch=True)
            context.run_migrations()


run_migrations_online()
