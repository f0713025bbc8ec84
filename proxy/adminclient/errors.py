"""What an admin API call can end in besides an answer, the same for every caller."""

from __future__ import annotations


class ApiError(Exception):
    """The admin API answered with an error (`{"error": {"code", "message"}}`)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class Unreachable(Exception):
    """No memtap answered at the URL (or the call could not be sent)."""


class Incomplete(Unreachable):
    """memtap began an answer and it was cut short (e.g. an export that failed half-way)."""
