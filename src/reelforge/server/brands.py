"""Brands on a shared database: each brand's wallet is registered in the database, so that two server
processes of one brand can never deliver its wallet calls to two different wallets (docs/OPERATIONS.md,
"Brands on one database").

A server configured for a brand whose registered wallet address is another refuses to start
(:func:`register_wallets`); the first server of a brand registers it. A wallet call is delivered only by a
server serving the call's brand (:class:`~reelforge.server.seamless.SeamlessWallet`), to that brand's wallet.
"""

from __future__ import annotations

import hashlib
import logging

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from reelforge.server.config import ServerConfig
from reelforge.server.config_values import ConfigError
from reelforge.server.db import read_transaction, write_transaction
from reelforge.server.schema import server_keys

log = logging.getLogger("reelforge.server")


def wallet_key(brand: str) -> str:
    """The ``server_keys`` row of a brand's registered wallet."""
    return f"wallet:{brand}"


def register_wallets(engine: Engine, config: ServerConfig) -> None:
    """Register the wallet of every brand ``config`` serves (seamless), or check it is the registered one;
    :class:`ConfigError` when a brand's registered wallet is another (its calls would reach two wallets)."""
    if not config.seamless:
        return
    for brand in config.all_brands():
        url = (brand.operator.wallet_url or "").rstrip("/")
        digest = hashlib.sha256(url.encode()).hexdigest()
        try:
            with write_transaction(engine) as conn:
                conn.execute(insert(server_keys).values(name=wallet_key(brand.id), value=digest))
            log.info("brand %s: its wallet registered on this database", brand.id)
            continue
        except IntegrityError:
            pass
        with read_transaction(engine) as conn:
            registered = conn.execute(select(server_keys.c.value)
                                      .where(server_keys.c.name == wallet_key(brand.id))).scalar_one()
        if registered != digest:
            raise ConfigError(
                f"brand {brand.id!r} is registered on this database with another wallet_url: two servers of one "
                "brand would deliver its players' money to two wallets. Give this configuration its own brand "
                "([operator] brand = \"...\", or a [brands.<id>] section), or, to move the brand to a new wallet, "
                f"stop every server of it and delete the row name = '{wallet_key(brand.id)}' of server_keys")
