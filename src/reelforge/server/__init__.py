"""The game server: wallets, step-by-step rounds, history and audit replay.

Modules: ``app`` (``create_app``: the composition), ``api/`` (the HTTP routes,
one module per resource), ``rounds`` (the round service: rounds as step
machines over :class:`reelforge.game.contract.Game`, idempotency, transfers),
``store`` (all data access: typed rows, one transaction per request),
``wallet`` (ledger entries), ``auth`` (sessions), ``verify`` (audit replay),
``config`` (operator TOML), ``schema``/``db`` (tables, engine, Alembic
migrations), ``hardening`` (body limit, security headers), ``http``
(connection limits), ``commands`` (CLI).
"""
