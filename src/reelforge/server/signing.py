"""HMAC signatures of the calls between this server and an operator, both ways (docs/OPERATORS.md).

A signed call carries ``X-Timestamp`` (Unix seconds) and ``X-Signature``:
the hex HMAC-SHA256, keyed with the operator's secret, of
``"<timestamp>.<METHOD>.<path and query>.".encode() + body``. The timestamp
is inside the signed text, so it cannot be changed; a call whose timestamp is
further than the window from the receiver's clock is refused as expired, and
a signature seen before (within the window) as a replay. The secret itself is
never sent, and never reaches a player's browser.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from reelforge.server.errors import ApiError


def signature(secret: str, timestamp: str, method: str, path: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of a call."""
    text = f"{timestamp}.{method.upper()}.{path}.".encode() + body
    return hmac.new(secret.encode(), text, hashlib.sha256).hexdigest()


def signed_headers(secret: str, method: str, path: str, body: bytes, now: float | None = None) -> dict[str, str]:
    """The headers that sign a call (``path``: with its query string, as the receiver sees it)."""
    timestamp = str(int(now if now is not None else time.time()))
    return {"X-Timestamp": timestamp, "X-Signature": signature(secret, timestamp, method, path, body)}


def unauthorized(reason: str, detail: str) -> ApiError:
    """The refusal of a call that is not the operator's (401, nothing changed)."""
    return ApiError(401, reason, detail)


def check_signature(secret: str | None, timestamp: str | None, sig: str | None, method: str, path: str,
                    body: bytes, window: float, now: float | None = None) -> str:
    """Check a call's signature and timestamp; return the signature (the caller refuses its replay).
    Raises 401 with the reason: ``signing_not_configured``, ``unsigned``, ``bad_timestamp``, ``expired``,
    ``bad_signature``."""
    if not secret:
        raise unauthorized("signing_not_configured", "this server has no operator secret ([operator] secret)")
    if not timestamp or not sig:
        raise unauthorized("unsigned", "operator calls need X-Timestamp and X-Signature headers (HMAC-SHA256)")
    if not timestamp.isdigit() or len(timestamp) > 12:
        raise unauthorized("bad_timestamp", "X-Timestamp must be Unix seconds")
    age = (now if now is not None else time.time()) - int(timestamp)
    if abs(age) > window:
        raise unauthorized("expired", f"the call's timestamp is {age:.0f} s from the server's clock "
                                      f"(allowed: {window:g} s)")
    if not hmac.compare_digest(signature(secret, timestamp, method, path, body), sig.lower()):
        raise unauthorized("bad_signature", "X-Signature is not the HMAC-SHA256 of this call with the operator's secret")
    return sig.lower()
