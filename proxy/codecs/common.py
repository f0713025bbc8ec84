"""Small readers shared by the format codecs (message text, tool arguments, error objects)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from memtap.engine.memory_block import strip_memory_block
from memtap.engine.turn_bounds import TailText
from memtap.proxy.codecs.base import Completion

MAX_TOOL_ARGUMENT_CHARS = 64 * 1024
"""Streamed tool-call arguments kept per call (the head; nothing reads them for memory), so a
runaway call cannot grow the follower without bound."""


def capped(kept: str, more: str, cap: int = MAX_TOOL_ARGUMENT_CHARS) -> str:
    """`kept + more`, stopping at `cap` characters."""
    room = cap - len(kept)
    return kept + more[:room] if room > 0 else kept


def content_text(content: Any) -> str:
    """Text of a message `content`: a string, or the text parts of a parts list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") in ("text", "input_text")
            and isinstance(part.get("text"), str)
        )
    return ""


def parse_arguments(raw: str) -> Any:
    """Tool-call arguments parsed to JSON; the raw string when they are not valid JSON."""
    try:
        return json.loads(raw) if raw else {}
    except ValueError:
        return raw


def turn_key(*scope: Any) -> str:
    """A digest of `scope` (parsed JSON: the conversation up to and including its last user
    text turn, and what it continues): the same on every step of one user turn."""
    try:
        raw = orjson.dumps(scope)
    except TypeError:  # an integer past 64 bits: json.dumps writes it
        raw = json.dumps(scope, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:32]


def error_of(err: Any) -> str:
    """A short `type: message` string for a provider error object (any shape)."""
    if isinstance(err, dict):
        kind = err.get("type") or err.get("code") or "error"
        message = err.get("message")
        return f"{kind}: {message}" if message else str(kind)
    return str(err)


class TurnState:
    """What every stream state folds events into: text of the first choice, terminal reason,
    in-band error, usage, and whether the protocol's terminator arrived (`_done`)."""

    __slots__ = ("_done", "_error", "_finish", "_text", "_usage")

    def __init__(self) -> None:
        self._text = TailText()
        self._finish: str | None = None
        self._done = False
        self._error: str | None = None
        self._usage: dict[str, int] = {}

    def _completion(
        self, eof_clean: bool, finish: str | None, calls: tuple[dict[str, Any], ...]
    ) -> Completion:
        """`finish` is the provider's reason as the format ranks it against an error; None
        means the stream had none: a clean end then has no reason, a cut one is `truncated`."""
        clean = self._done and eof_clean
        return Completion(
            assistant_text=self._text.text(),
            finish=finish if finish else (None if clean else "truncated"),
            clean_end=clean,
            tool_calls=calls,
            error=self._error,
            usage=self._usage,
            dropped_chars=self._text.dropped,
        )


def assistant_before(
    items: Sequence[Any],
    index: int,
    role_of: Callable[[dict[str, Any]], Any],
    text_of: Callable[[dict[str, Any]], str],
) -> str:
    """The text of the assistant message just before `items[index]` (the user turn), memtap's
    block removed: what that user turn answers. "" when a user message with text comes
    first, or nothing does. Items with no text (tool calls, tool results) are passed over."""
    for item in reversed(items[: max(index, 0)]):
        if not isinstance(item, dict):
            continue
        role = role_of(item)
        if role not in ("user", "assistant"):
            continue
        text = strip_memory_block(text_of(item))
        if text.strip():
            return text if role == "assistant" else ""
    return ""
