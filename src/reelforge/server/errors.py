"""API errors: every refusal is a 4xx JSON body ``{"error": code, "detail": message}``."""

from __future__ import annotations


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
