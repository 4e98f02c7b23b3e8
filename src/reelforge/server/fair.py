"""Provably fair seed pairs (docs/FAIRNESS.md): a player's server seed, committed by its SHA-256
before any bet and revealed when the player rotates the pair, and the client seed the player chose.

A round staked while provably fair draws are on (``[server] provably_fair``)
draws from :class:`~reelforge.core.draws.FairDraws` keyed by the player's active
pair and the pair's next nonce; the round keeps the commitment, the client
seed and the nonce. Rotation, only while none of the player's rounds is
unfinished (an unfinished round's later steps are decided by the current
seed and not yet shown), reveals the server seed and opens a new pair.

The server seed of the active pair leaves the database only into the draw
source of a round being staked: it is never in an answer, an error, a log
line or a metric before its rotation.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from reelforge.core.draws import FAIR_ALGORITHM, FairDraws
from reelforge.server import store
from reelforge.server.clock import iso, utcnow
from reelforge.server.errors import ApiError
from reelforge.server.store import FairSeed, RoundRow, Tx, transaction

CLIENT_SEED_PATTERN = r"^[!-~]{1,64}$"
"""A client seed: 1-64 printable ASCII characters, no spaces (so its bytes are the same everywhere)."""
_CLIENT_SEED = re.compile(CLIENT_SEED_PATTERN)


def commitment(server_seed: str) -> str:
    """The SHA-256 (hex) of a server seed's 32 bytes: what the player sees before any bet."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def new_client_seed() -> str:
    """A random default client seed (the player may choose their own at rotation)."""
    return secrets.token_hex(16)


def check_client_seed(value: str) -> str:
    if not isinstance(value, str) or not _CLIENT_SEED.fullmatch(value):
        raise ApiError(422, "invalid_client_seed",
                       "client_seed must be 1-64 printable ASCII characters without spaces")
    return value


def open_pair(tx: Tx, player_id: int, now: datetime, client_seed: str | None = None) -> FairSeed:
    """Store a new active seed pair for the player: a fresh server seed from the OS CSPRNG."""
    server_seed = secrets.token_bytes(32).hex()
    return tx.insert_seed(player_id, server_seed, commitment(server_seed), client_seed or new_client_seed(), now)


def draws_of(seed: FairSeed) -> FairDraws:
    """The draw source of the next round of ``seed`` (nonce ``seed.next_nonce``)."""
    return FairDraws(bytes.fromhex(seed.server_seed), seed.client_seed, seed.next_nonce)


def stake(rnd: RoundRow, seed: FairSeed) -> None:
    """Record on a round being staked the pair it draws from (the nonce it uses is the pair's next)."""
    rnd.fair_seed_id, rnd.fair_nonce = seed.id, seed.next_nonce
    rnd.fair_server_seed_sha256, rnd.fair_client_seed = seed.server_seed_sha256, seed.client_seed


def round_fair_json(rnd: RoundRow, server_seed: str | None = None) -> dict[str, Any] | None:
    """The ``fair`` part of a round's record: None for a plain CSPRNG round; else the algorithm, the
    commitment, the client seed, the nonce and (once the pair was rotated) the revealed server seed."""
    if rnd.fair_seed_id is None:
        return None
    return {"algorithm": FAIR_ALGORITHM, "seed_pair": rnd.fair_seed_id,
            "server_seed_sha256": rnd.fair_server_seed_sha256, "client_seed": rnd.fair_client_seed,
            "nonce": rnd.fair_nonce, "server_seed": server_seed}


def _pair_json(seed: FairSeed) -> dict[str, Any]:
    """An active pair as the player sees it: never its server seed."""
    return {"seed_pair": seed.id, "server_seed_sha256": seed.server_seed_sha256, "client_seed": seed.client_seed,
            "next_nonce": seed.next_nonce}


class SeedPairs:
    """The seed-pair requests of a player: show the active pair, rotate it, list the earlier ones."""

    def __init__(self, engine: Engine, enabled: bool, public_id: Callable[[int], int] = lambda i: i) -> None:
        self.engine = engine
        self.enabled = enabled
        self.public_id = public_id  # a round's id as players see it (the server's public round ids)

    def current(self, player_id: int) -> dict[str, Any]:
        """The active pair (opened on first use) and whether rounds draw from it."""
        with transaction(self.engine) as tx:
            tx.lock_player(player_id)
            seed = tx.active_seed(player_id) or open_pair(tx, player_id, utcnow())
        return {"enabled": self.enabled, "algorithm": FAIR_ALGORITHM, "current": _pair_json(seed)}

    def rotate(self, player_id: int, client_seed: str | None) -> dict[str, Any]:
        """Reveal the active pair's server seed and open a new pair (with ``client_seed``, else a random one).
        Refused (409) while one of the player's rounds is unfinished."""
        if client_seed is not None:
            check_client_seed(client_seed)
        with transaction(self.engine) as tx:
            tx.lock_player(player_id)
            unfinished = tx.player_open_round(player_id)
            if unfinished is not None:
                round_id, game = unfinished
                raise ApiError(409, "unfinished_round",
                               f"round {self.public_id(round_id)} of {game} is unfinished: its remaining steps were decided by the "
                               "current server seed, which is revealed only when no round is unfinished; finish "
                               "it, then rotate the seed pair")
            now = utcnow()
            old = tx.active_seed(player_id)
            revealed = None
            if old is not None:
                tx.reveal_seed(old.id, now)
                revealed = {"seed_pair": old.id, "server_seed_sha256": old.server_seed_sha256,
                            "client_seed": old.client_seed, "server_seed": old.server_seed, "rounds": old.next_nonce,
                            "revealed_at": iso(now)}
            seed = open_pair(tx, player_id, now, client_seed)
        return {"enabled": self.enabled, "algorithm": FAIR_ALGORITHM, "revealed": revealed,
                "current": _pair_json(seed)}

    def history(self, player_id: int, limit: int, before: int | None) -> dict[str, Any]:
        """The player's seed pairs, newest first: the revealed ones with their server seed, the active one
        without it."""
        page, next_before = store.seed_pairs_page(self.engine, player_id, limit, before)
        pairs = [{"seed_pair": r.id, "server_seed_sha256": r.server_seed_sha256, "client_seed": r.client_seed,
                  "rounds": r.next_nonce, "created_at": iso(r.created_at), "revealed_at": iso(r.revealed_at),
                  "server_seed": r.server_seed if r.revealed_at is not None else None} for r in page]
        return {"seed_pairs": pairs, "next_before": next_before}
