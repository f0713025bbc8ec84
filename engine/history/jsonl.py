"""A JSON-lines file of past messages, read line by line.

Each line is one message `{owner | api_key, session, role, content, ts, model?}` or one
ChatGPT conversation object (what `memtap conversations import` sends for a big export).
A line that cannot be read is an error with its number; the other lines are imported.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import orjson

from memtap.engine.history import chatgpt
from memtap.engine.history.messages import (
    IGNORED_ROLES,
    BadMessage,
    HistoryMessage,
    LineError,
    Owners,
    said_at_of,
    session_of,
    text_of,
)

MAX_LINE_BYTES: Final = 32 * 1024 * 1024
"""The longest line read (a ChatGPT conversation on one line can be large)."""


def read_line(
    raw: bytes, line: int, owners: Owners
) -> tuple[list[HistoryMessage], LineError | None, bool]:
    """The messages of one line (none for a blank line or an ignored role), its error, and
    whether the line was a whole conversation."""
    if not raw.strip():
        return [], None, False
    try:
        item = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return [], LineError(line, f"not JSON: {str(exc)[:120]}"), False
    whole = chatgpt.is_conversation(item)
    try:
        if whole:
            return chatgpt.conversation_messages(item, line, owners), None, True
        message = message_of(item, line, owners)
    except BadMessage as exc:
        return [], LineError(line, str(exc)), whole
    return ([message] if message is not None else []), None, False


def message_of(item: Any, line: int, owners: Owners) -> HistoryMessage | None:
    if not isinstance(item, dict):
        raise BadMessage("a line must be a JSON object")
    role = item.get("role")
    if role in IGNORED_ROLES:
        return None
    if role not in ("user", "assistant"):
        raise BadMessage("role must be user or assistant (system and tool are skipped)")
    content = text_of(item.get("content")).strip()
    if not content:
        raise BadMessage("content is empty")
    model = item.get("model")
    return HistoryMessage(
        owner=owners.resolve(item.get("owner"), item.get("api_key")),
        session=session_of(item.get("session")),
        role=role,
        content=content,
        said_at=said_at_of(item.get("ts")),
        line=line,
        model=model if isinstance(model, str) and model else None,
    )


class LineSplitter:
    """Bytes in, complete lines out, each at most `limit` bytes: a longer line is dropped
    (reported by number) without holding it in memory."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self.number = 0
        self._pending = bytearray()
        self._overlong = False

    def feed(self, chunk: bytes) -> Iterator[tuple[int, bytes | None]]:
        """(line number, bytes), or (line number, None) for a line over the limit."""
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            yield self._finish(chunk[start:end])
            start = end + 1
        if not self._overlong:
            self._pending += chunk[start:]
            if len(self._pending) > self.limit:
                self._overlong = True
                self._pending.clear()

    def close(self) -> Iterator[tuple[int, bytes | None]]:
        if self._pending or self._overlong:
            yield self._finish(b"")

    def _finish(self, tail: bytes) -> tuple[int, bytes | None]:
        self.number += 1
        if self._overlong or len(self._pending) + len(tail) > self.limit:
            self._overlong = False
            self._pending.clear()
            return self.number, None
        raw = bytes(self._pending) + tail
        self._pending.clear()
        return self.number, raw
