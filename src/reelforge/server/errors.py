"""API errors: every refusal is a 4xx JSON body ``{"error": code, "detail": detail, "message": message}``:
a stable code, what is wrong in the server's (English, technical) words, and what it means for the player
in the session's language (:func:`player_message`)."""

from __future__ import annotations

from typing import Any

from reelforge.core.i18n import negotiate, translate

GENERIC_MESSAGE = "The server refused the request."
"""The player's message for a code without one of its own."""
PLAYER_MESSAGES: dict[str, str] = {
    "insufficient_balance": "Your balance does not cover this bet.",
    "session_expired": "Your session has expired. Please open the game again.",
    "unknown_token": "Your session has expired. Please open the game again.",
    "missing_token": "Your session has expired. Please open the game again.",
    "bad_token": "Your session has expired. Please open the game again.",
    "unfinished_round": "You have an unfinished round of this game: finish it first.",
    "bet_not_on_ladder": "That bet is not offered for this game.",
    "bet_above_maximum": "That stake is above the maximum allowed per round.",
    "stake_above_maximum": "That stake is above the maximum allowed per round.",
    "too_soon": "Please wait a moment before starting the next round.",
    "session_limit_reached": "You have reached the time limit of this session: play has stopped.",
    "play_session_ended": "Your session was ended by the site: play has stopped for a break.",
    "loss_limit_reached": "This round would take your losses past your loss limit: play has stopped.",
    "reality_check_due": "A reality check is due: please answer it to continue.",
    "round_not_open": "This round has already finished.",
    "round_not_found": "This round was not found.",
    "no_unfinished_round": "This round was not found.",
    "unknown_game": "This game is not offered.",
    "launch_token_invalid": "This game link has expired or was already used. Please open the game again from the site.",
    "invalid_player": "That player name cannot be used: use 1 to 64 letters, digits and _ . @ -",
    "operator_key_required": "Games on this server are opened from the operator's site.",
    "launch_required": "Games on this server are opened from the operator's site.",
    "storage_unavailable": "The server cannot take the request right now; nothing was changed. Please try again shortly.",
    "storage_full": "The server cannot take the request right now; nothing was changed. Please try again shortly.",
    "wallet_unavailable": "The server cannot take the request right now; nothing was changed. Please try again shortly.",
    "internal_error": "The game server had an internal error. Your round is safe; please try again.",
    "invalid_request": "The request is not valid.",
    "malformed_json": "The request is not valid.",
    "no_feature_buy": "The feature cannot be bought in this game at this bet.",
    "no_such_feature_buy": "The feature cannot be bought in this game at this bet.",
    "ambiguous_feature_buy": "The feature cannot be bought in this game at this bet.",
    "price_not_whole": "The feature cannot be bought in this game at this bet.",
    "currency_not_offered": "This game is not offered in your currency.",
    "wallet_refused": "The operator's wallet refused the stake.",
    "round_starting": "Another round is starting; please wait.",
    "invalid_client_seed": "That client seed cannot be used.",
    "feature_buy_not_allowed": "The feature buy is not offered where you play.",
    "game_not_in_session": "This session was opened for another game: please open this game from the site.",
    "campaign_not_found": "These free rounds were not found.",
    "no_free_rounds_left": "All your free rounds have been played.",
    "campaign_closed": "These free rounds have ended.",
    "campaign_game": "These free rounds cannot be played in this game.",
    "campaign_currency": "These free rounds cannot be played in this game.",
    "campaign_bet": "These free rounds cannot be played in this game.",
    "rate_limited": "Too many requests: please wait a moment and try again.",
    "too_many_requests": "Too many requests: please wait a moment and try again.",
}
"""What an error code means for the player (English; translated in the ``client`` catalog)."""


def player_message(code: str, lang: str) -> str:
    """The player's message for the error ``code`` in ``lang`` (an ISO 639-1 code; English when unknown)."""
    return translate(lang, "client", PLAYER_MESSAGES.get(code, GENERIC_MESSAGE))


def refusal_message(code: str, scope: dict[str, Any]) -> str:
    """The player's message for a refusal answered before the API reads the session (the rate limits, the
    body limit): in the request's ``Accept-Language`` (the client sends its language), else English."""
    accept = next((v for k, v in scope.get("headers", []) if k == b"accept-language"), b"")
    return player_message(code, negotiate(None, accept.decode("latin-1")))


class ApiError(Exception):
    """A request the server refuses; nothing it did is committed."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail

    def body(self) -> dict[str, str]:
        return {"error": self.code, "detail": self.detail}


class StorageError(ApiError):
    """The database cannot serve the request now (down, out of connections, disk full, I/O error):
    answered 503 with ``Retry-After``; the transaction was rolled back, so nothing changed."""

    def __init__(self, code: str, detail: str, retry_after: int) -> None:
        super().__init__(503, code, detail)
        self.headers = {"Retry-After": str(retry_after)}


_FULL = ("disk is full", "no space left", "disk full", "diskfull", "could not extend file",
         "could not write", "database or disk is full")
_DB_ERRORS: tuple[type[BaseException], ...] | None = None


def database_errors() -> tuple[type[BaseException], ...]:
    """The exception classes a failing database raises (SQLAlchemy's and the drivers')."""
    global _DB_ERRORS
    if _DB_ERRORS is None:
        import sqlite3

        import sqlalchemy.exc

        classes: list[type[BaseException]] = [sqlalchemy.exc.OperationalError, sqlalchemy.exc.TimeoutError,
                                              sqlalchemy.exc.InterfaceError, sqlite3.OperationalError,
                                              sqlite3.InterfaceError]
        try:
            import psycopg

            classes += [psycopg.OperationalError, psycopg.InterfaceError]
        except ImportError:  # pragma: no cover - PostgreSQL support not installed
            pass
        _DB_ERRORS = tuple(classes)
    return _DB_ERRORS


def storage_error(exc: BaseException) -> StorageError | None:
    """The 503 answer for a database failure (None when ``exc`` is not one).

    Disk full is ``storage_full`` (retry in a minute: space must be freed);
    everything else (the database down or restarting, out of connections,
    locked too long, I/O errors) is ``storage_unavailable`` (retry in a second).
    """
    if not isinstance(exc, database_errors()):
        return None
    text = str(exc).lower()
    if any(marker in text for marker in _FULL):
        return StorageError("storage_full", "the server's storage is full; the request changed nothing; "
                            "retry later", 60)
    return StorageError("storage_unavailable", "the server's database is unavailable; the request changed "
                        "nothing; retry shortly", 1)
