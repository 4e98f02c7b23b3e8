"""Public round ids: what players see instead of the database's sequential ids.

The database numbers rounds 1, 2, 3... across all players, so a player who
saw round 5,000 and an hour later round 9,000 would know the server's volume.
The API shows each round under a keyed permutation of its id instead (a
four-round Feistel network over 52 bits, keyed with the server's secret from
the ``server_keys`` table, HMAC-BLAKE2b as its round function): one public
id per round, every public id below 2**52 (exact in JavaScript numbers), and
without the key consecutive rounds' public ids look like random numbers.
The operator's tools (``reelforge verify --round``, the database) keep the
internal ids; :meth:`RoundIds.internal` turns a player's id into the
operator's.

Before the keyed ids (migration ``0004_fair_share``) a round was shown under
its internal id, and those ids live on in players' links, disputes and the
operator's references. Rounds up to ``legacy_max`` (the highest round id at
the upgrade, kept in ``server_keys``) are therefore also found by their old
id (:meth:`RoundIds.candidates`): a round's own player gets it, under its
public id, from either.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

_HALF = 26
_MASK = (1 << _HALF) - 1
LIMIT = 1 << (2 * _HALF)
"""Public (and internal) ids are 1 .. LIMIT."""


class RoundIds:
    """The permutation of round ids under one key (see the module docstring)."""

    def __init__(self, key: bytes, legacy_max: int = 0) -> None:
        self.legacy_max = legacy_max
        """Rounds up to this internal id were shown under it before the keyed ids: their old id answers too."""
        self._keyed = [hashlib.blake2b(bytes((step,)), key=key[:64], digest_size=4) for step in range(4)]
        self.public = lru_cache(maxsize=65536)(self._public)  # answers repeat a few recent ids

    def _f(self, step: int, half: int) -> int:
        h = self._keyed[step].copy()  # the keyed state is made once per step, not per call
        h.update(half.to_bytes(4, "big"))
        return int.from_bytes(h.digest(), "big") & _MASK

    def _public(self, internal: int) -> int:
        """The public id of the round with database id ``internal`` (1 .. LIMIT)."""
        left, right = divmod(internal - 1, 1 << _HALF)
        for step in range(4):
            left, right = right, left ^ self._f(step, right)
        return (left << _HALF | right) + 1

    def candidates(self, shown: int) -> list[int]:
        """The internal ids a shown id may mean: the round whose public id it is, then (an id shown before
        the keyed ids) the round it names itself."""
        keyed = self.internal(shown)
        out = [] if keyed is None else [keyed]
        if 1 <= shown <= self.legacy_max and shown != keyed:
            out.append(shown)
        return out

    def internal(self, public: int) -> int | None:
        """The database id of public id ``public`` (None: no round can have it)."""
        if not 1 <= public <= LIMIT:
            return None
        left, right = divmod(public - 1, 1 << _HALF)
        for step in reversed(range(4)):
            left, right = right ^ self._f(step, left), left
        return (left << _HALF | right) + 1
