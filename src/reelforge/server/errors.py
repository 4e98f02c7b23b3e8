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
