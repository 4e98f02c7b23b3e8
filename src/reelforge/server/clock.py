"""The server's time: now in UTC, timestamps as the API writes them and as the database hands them back."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Any


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(value: datetime | None) -> str | None:
    """A timestamp as the API writes it (UTC, ``Z``)."""
    if value is None:
        return None
    if value.tzinfo is None:  # stored as UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat().replace("+00:00", "Z")


def parse_ts(value: Any) -> datetime | None:
    """A stored timestamp as an aware UTC datetime (SQLite hands back text)."""
    if value is None:
        return None
    if isinstance(value, str):
        return _parse_text(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@lru_cache(maxsize=4096)
def _parse_text(value: str) -> datetime:  # a round's answer repeats the timestamps of its earlier steps
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
