"""HMAC signatures of the calls between this server and an operator, both ways (docs/OPERATORS.md).

A signed call carries ``X-Timestamp`` (Unix seconds) and ``X-Signature``:
the hex HMAC-SHA256, keyed with the operator's secret, of
``"<timestamp>.<METHOD>.<path and query>.".encode() + body``. The timestamp
is inside the signed text, so it cannot be changed; a call whose timestamp is
further than the window from the receiver's clock is refused as expired, and
a signature seen before (within the window) as a replay. The secret itself is
never sent, and never reaches a player's browser.

A caller may add ``X-Nonce`` (1-64 letters, digits, ``-`` and ``_``, new for
every call): it is then signed too (``"<timestamp>.<nonce>.<METHOD>..."``)
and the replay check is by nonce, so two honest calls that are byte for byte
the same within one second (two launches of one player from two tabs) are
both accepted.

Answers of the operator's wallet can be signed the same way
(:func:`answer_headers`, checked by :func:`check_answer` when ``[operator]
signed_answers`` is on): the HMAC of ``"<timestamp>.<status>.<the request's
X-Signature>.".encode() + body``, so an answer is tied to the one call it
answers and cannot be changed or moved to another call.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from typing import Any

from reelforge.server.errors import ApiError

NONCE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""An ``X-Nonce``: 1-64 letters, digits, ``-`` and ``_``."""


def signature(secret: str, timestamp: str, method: str, path: str, body: bytes, nonce: str | None = None) -> str:
    """The hex HMAC-SHA256 of a call (its nonce signed too when it has one)."""
    head = f"{timestamp}.{nonce}." if nonce else f"{timestamp}."
    text = f"{head}{method.upper()}.{path}.".encode() + body
    return hmac.new(secret.encode(), text, hashlib.sha256).hexdigest()


def signed_headers(secret: str, method: str, path: str, body: bytes, now: float | None = None,
                   nonce: str | None = None) -> dict[str, str]:
    """The headers that sign a call (``path``: with its query string, as the receiver sees it)."""
    timestamp = str(int(now if now is not None else time.time()))
    headers = {"X-Timestamp": timestamp, "X-Signature": signature(secret, timestamp, method, path, body, nonce)}
    if nonce:
        headers["X-Nonce"] = nonce
    return headers


def answer_signature(secret: str, timestamp: str, status: int, request_signature: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of a wallet's answer to the call signed ``request_signature``."""
    text = f"{timestamp}.{status}.{request_signature.lower()}.".encode() + body
    return hmac.new(secret.encode(), text, hashlib.sha256).hexdigest()


def answer_headers(secret: str, status: int, request_signature: str, body: bytes,
                   now: float | None = None) -> dict[str, str]:
    """The headers that sign an answer (the wallet's side)."""
    timestamp = str(int(now if now is not None else time.time()))
    return {"X-Timestamp": timestamp,
            "X-Signature": answer_signature(secret, timestamp, status, request_signature, body)}


def check_answer(secret: str, headers: Any, status: int, request_signature: str, body: bytes, window: float,
                 now: float | None = None) -> str | None:
    """What is wrong with an answer's signature (None: it is the wallet's answer to this very call)."""
    timestamp, sig = headers.get("x-timestamp"), headers.get("x-signature")
    if not timestamp or not sig:
        return "the answer is not signed (X-Timestamp and X-Signature missing)"
    if not timestamp.isdigit() or len(timestamp) > 12:
        return "the answer's X-Timestamp is not Unix seconds"
    if abs((now if now is not None else time.time()) - int(timestamp)) > window:
        return "the answer's timestamp is outside the signature window"
    if not hmac.compare_digest(answer_signature(secret, timestamp, status, request_signature, body), sig.lower()):
        return "the answer's X-Signature is not the HMAC-SHA256 of this answer to this call"
    return None


def unauthorized(reason: str, detail: str) -> ApiError:
    """The refusal of a call that is not the operator's (401, nothing changed)."""
    return ApiError(401, reason, detail)


def check_signature(secret: str | None, timestamp: str | None, sig: str | None, method: str, path: str,
                    body: bytes, window: float, now: float | None = None, nonce: str | None = None) -> str:
    """Check a call's signature and timestamp; return what identifies it for the replay check (its nonce
    when it has one, else its signature). Raises 401 with the reason: ``signing_not_configured``,
    ``unsigned``, ``bad_timestamp``, ``bad_nonce``, ``expired``, ``bad_signature``."""
    if not secret:
        raise unauthorized("signing_not_configured", "this server has no operator secret ([operator] secret)")
    if not timestamp or not sig:
        raise unauthorized("unsigned", "operator calls need X-Timestamp and X-Signature headers (HMAC-SHA256)")
    if not timestamp.isdigit() or len(timestamp) > 12:
        raise unauthorized("bad_timestamp", "X-Timestamp must be Unix seconds")
    if nonce is not None and not NONCE.fullmatch(nonce):
        raise unauthorized("bad_nonce", "X-Nonce must be 1-64 letters, digits, - and _")
    age = (now if now is not None else time.time()) - int(timestamp)
    if abs(age) > window:
        raise unauthorized("expired", f"the call's timestamp is {age:.0f} s from the server's clock "
                                      f"(allowed: {window:g} s)")
    if not hmac.compare_digest(signature(secret, timestamp, method, path, body, nonce), sig.lower()):
        raise unauthorized("bad_signature", "X-Signature is not the HMAC-SHA256 of this call with the operator's secret")
    return hashlib.sha256(f"nonce:{nonce}".encode()).hexdigest() if nonce else sig.lower()
