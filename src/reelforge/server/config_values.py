"""What every section of the operator configuration (:mod:`reelforge.server.config`) checks its values
with: the one error, the money bounds, numbers and integers within their range."""

from __future__ import annotations

from typing import Any

MAX_BET = 10**12
"""Upper bound on any bet in minor units (keeps every amount far inside int64)."""
MAX_BALANCE = 10**15
"""Default cap on a player's balance in minor units (``max_balance``): a deposit beyond it is refused."""


class ConfigError(ValueError):
    """The configuration is invalid; the message says what and where."""


def number(section: dict[str, Any], key: str, default: float, where: str, positive: bool = True) -> float:
    """``section[key]`` (default ``default``) as a number, positive (or, not ``positive``, non-negative)."""
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}: '{key}' must be a number, got {value!r}")
    if value < 0 or (positive and value == 0):
        raise ConfigError(f"{where}: '{key}' must be {'positive' if positive else 'non-negative'}, got {value}")
    return value


def integer(section: dict[str, Any], key: str, default: int, low: int, high: int, where: str) -> int:
    """``section[key]`` (default ``default``) as an integer in ``[low, high]``."""
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{where}: '{key}' must be an integer in [{low}, {high}], got {value!r}")
    return value


def section_keys(raw: Any, keys: set[str], where: str) -> dict[str, Any]:
    """``raw``, a section that must be a table holding only ``keys`` (else a ConfigError naming ``where``)."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: must be a table")
    bad = sorted(set(raw) - keys)
    if bad:
        raise ConfigError(f"{where}: unknown key(s) {bad}; valid: {sorted(keys)}")
    return raw
